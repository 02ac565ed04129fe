"""Comparisons of runs: the deltas and the UIR of every pair of runs `abcde evaluate`
scores, the UIR summary over all of them, and `abcde uir`'s report on systems scored
elsewhere (docs/method.md §4.2, §9).

Both summaries build the UIR matrix with one function (`abcde.evaluation.uir.uir_summary`)
and report it under the JSON key ``matrix``.

References
----------
[PW] S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland,
May 2024. arXiv:2405.10421.
[UIR] E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. *Journal of
Artificial Intelligence Research* 42 (2011) 689–718. doi:10.1613/jair.3401.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.evaluation.results import (
    CLASSIC_METRICS,
    OVERALL_METRICS,
    YANDEX_KINDS,
    YANDEX_METRICS,
    RunResult,
)
from abcde.evaluation.scores import UirInputError, pivot_scores, read_scores
from abcde.evaluation.uir import (
    DEFAULT_REL_TOL,
    UIR_ROBUST_THRESHOLD,
    UirResult,
    UirSummary,
    case_differences,
    f_alpha_metrics,
    interpret_uir,
    uir,
    uir_summary,
)

__all__ = ["compare_runs", "evaluate_uir_summary", "shared_cases", "uir_report"]


def _delta(a: Any, b: Any) -> float | None:
    if a is None or b is None:
        return None
    return float(b) - float(a)


def shared_cases(runs: Sequence[RunResult]) -> list[Hashable]:
    """The UIR test cases every run has, in the first run's order.

    One set of cases serves the matrix and every pairwise comparison, so each pair has
    a single UIR.

    Parameters
    ----------
    runs : sequence of RunResult
        At least one run.

    Returns
    -------
    list
        The shared cases.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §4.2 (UIR over one set of test cases T). docs/method.md §9.1.
    """
    return [c for c in runs[0].cases if all(c in r.cases for r in runs[1:])]


def compare_runs(a: RunResult, b: RunResult, metrics: Sequence[str] | None,
                 shared: Sequence[Hashable], rel_tol: float,
                 known: Mapping[tuple[str, str], UirResult] | None = None) -> dict[str, Any]:
    """Run b (the experiment) against run a (the baseline): deltas and UIR.

    Parameters
    ----------
    a, b : RunResult
        The baseline and the experiment.
    metrics : sequence of str, or None
        The UIR metrics; None leaves the UIR out (``"uir": null``).
    shared : sequence
        The test cases every run has (`shared_cases`).
    rel_tol : float
        Relative tolerance of equal scores (docs/method.md §9.2).
    known : mapping, optional
        UIR results already computed over `shared` (`UirSummary.pairs`: (x, y) ->
        UIR(x, y)); the pair's is taken from there instead of being computed again.

    Returns
    -------
    dict
        The comparison's JSON: ``deltas`` (experiment − baseline of every overall,
        classic and Yandex metric), ``items_in_both`` and ``uir``: UIR(experiment,
        baseline) with its counts, its reading and the parametric UIR (or an
        ``error``).

    References
    ----------
    S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland, 2024,
    arXiv:2405.10421, §3.2 (the truth as a common point of reference). E. Amigó,
    J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the unanimous
    improvement ratio and its application to clustering tasks. JAIR 42 (2011) 689–718,
    §4.2 (UIR), §6.3 (the reading), §8 (parametric UIR). docs/method.md §4.2, §9.
    """
    doc: dict[str, Any] = {
        "baseline": a.name, "experiment": b.name,
        "deltas": {
            "overall": {m: _delta(a.overall[m], b.overall[m]) for m in OVERALL_METRICS},
            "classic": {m: _delta(a.classic[m], b.classic[m]) for m in CLASSIC_METRICS},
            "yandex": {kind: {m: _delta(a.yandex[kind][m], b.yandex[kind][m])
                              for m in YANDEX_METRICS} for kind in YANDEX_KINDS},
        },
        "items_in_both": {a.name: a.overall["items"], b.name: b.overall["items"]},
        "uir": None,
    }
    if metrics is None:
        return doc
    if not shared:
        doc["uir"] = {"error": "no test case is shared by every run"}
        return doc
    sb = {c: b.cases[c] for c in shared}
    sa = {c: a.cases[c] for c in shared}
    res = _known_uir(known or {}, b.name, a.name)
    if res is None:
        res = uir(sb, sa, metrics, rel_tol=rel_tol)
    every = set(a.cases) | set(b.cases)
    entry: dict[str, Any] = {
        "value": res.uir, "experiment_ge_baseline": res.a_ge_b,
        "baseline_ge_experiment": res.b_ge_a, "ties": res.ties, "biased": res.biased,
        "n_cases": res.n_cases,
        "cases_excluded": len(every) - len(shared),
        "reading": interpret_uir(res, names=(b.name, a.name))}
    # numpy's fit, imported only when two runs are compared (not by one evaluated run)
    from abcde.evaluation.uir_parametric import parametric_uir

    try:
        p = parametric_uir(case_differences(sb, sa, metrics, rel_tol=rel_tol,
                                            names=(b.name, a.name)), metrics=metrics)
        entry["parametric"] = {"value": p.uir, "p_experiment_ge_baseline": p.p_a_ge_b,
                               "p_baseline_ge_experiment": p.p_b_ge_a, "method": p.method}
    except UirInputError as err:
        entry["parametric"] = {"value": None, "error": str(err)}
    doc["uir"] = entry
    return doc


def _known_uir(known: Mapping[tuple[str, str], UirResult], x: str, y: str,
               ) -> UirResult | None:
    """UIR(x, y) from results computed before: UIR(y, x) with its counts swapped."""
    if (x, y) in known:
        return known[(x, y)]
    r = known.get((y, x))
    if r is None:
        return None
    return UirResult(uir=(r.b_ge_a - r.a_ge_b) / r.n_cases, a_ge_b=r.b_ge_a, b_ge_a=r.a_ge_b,
                     ties=r.ties, biased=r.biased, n_cases=r.n_cases)


def _sweep_doc(summary: UirSummary) -> dict[str, dict[str, float]] | None:
    if summary.f_alpha is None:
        return None
    return {str(s): {f"{a:g}": v for a, v in per.items()} for s, per in summary.f_alpha.items()}


def _references_doc(summary: UirSummary) -> dict[str, dict[str, Any]]:
    """Each system's reference system, as both `abcde evaluate` and `abcde uir` report it
    (one shape for both: `reference`, `uir`, `tied`, `robust`). `reference` is None when
    no system improves it (the highest UIR over it is <= 0, which the text says in those
    words): it named the argmax anyway, a system no better than this one; `uir` and `tied`
    still give that highest UIR and the systems reaching it."""
    return {str(s): {"reference": str(ref.reference) if ref.uir > 0 else None,
                     "uir": ref.uir,
                     "tied": [str(t) for t in ref.tied],
                     "robust": ref.uir >= UIR_ROBUST_THRESHOLD}
            for s, ref in (summary.reference_systems or {}).items()}


def evaluate_uir_summary(runs: Sequence[RunResult], cases_label: str, metrics: Sequence[str],
                         alphas: Sequence[float], shared: Sequence[Hashable],
                         rel_tol: float,
                         pairs_out: dict[tuple[str, str], UirResult] | None = None,
                         ) -> dict[str, Any]:
    """The ``uir`` part of `abcde evaluate`'s JSON.

    Parameters
    ----------
    runs : sequence of RunResult
        Every run, each with its per-case scores.
    cases_label : str
        What the test cases are ("truth_cluster" or "slice:<column>").
    metrics : sequence of str
        The UIR metrics.
    alphas : sequence of float
        The α values of the F_α sweep.
    shared : sequence
        The test cases every run has (`shared_cases`).
    rel_tol : float
        Relative tolerance of equal scores (docs/method.md §9.2).
    pairs_out : dict, optional
        Filled with the UIR of every pair of runs ((x, y) -> UIR(x, y)), for
        `compare_runs` to reuse.

    Returns
    -------
    dict
        ``cases``, ``metrics``, ``threshold``, ``rel_tol``, ``n_cases``,
        ``cases_excluded``, ``matrix`` (UIR(row, col) over the shared cases),
        ``reference_systems`` (each with ``robust``), ``improves``, ``f_alpha_metrics``,
        ``f_alpha`` (mean F_α per run and α) and ``f_alpha_note``; the matrix and what
        follows from it are null with one run, everything but the note null without a
        shared case.

    Raises
    ------
    UirInputError
        The F_α sweep refused the scores or `alphas`.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §2.1 (F_α), §4.2 (UIR), §6.3 (threshold), §6.4 (reference systems).
    docs/method.md §9.3–§9.5.
    """
    every = set().union(*(set(r.cases) for r in runs))
    pr = f_alpha_metrics(metrics)
    doc: dict[str, Any] = {"cases": cases_label, "metrics": list(metrics),
                           "threshold": UIR_ROBUST_THRESHOLD, "rel_tol": rel_tol,
                           "n_cases": len(shared),
                           "cases_excluded": len(every) - len(shared),
                           "matrix": None, "reference_systems": None, "improves": None,
                           "f_alpha_metrics": list(pr) if pr else None, "f_alpha": None,
                           "f_alpha_note": None}
    if pr is None:
        doc["f_alpha_note"] = (f"no F_alpha sweep: F_alpha combines two metrics, "
                               f"{len(metrics)} selected")
    if not shared:
        return doc
    table = {r.name: {c: r.cases[c] for c in shared} for r in runs}
    summary = uir_summary(table, metrics, rel_tol=rel_tol, alphas=alphas)
    if pairs_out is not None:
        pairs_out.update(summary.pairs)
    if summary.f_alpha_error is not None:
        raise UirInputError(summary.f_alpha_error)
    doc["f_alpha"] = _sweep_doc(summary)
    if summary.matrix is not None and summary.reference_systems is not None:
        doc["matrix"] = summary.matrix
        doc["reference_systems"] = _references_doc(summary)
        doc["improves"] = summary.improves
    return doc


def uir_report(path: str | Path, metrics: Sequence[str], tol: float = 0.0, *,
               rel_tol: float = DEFAULT_REL_TOL) -> dict[str, Any]:
    """`abcde uir`: UIR of systems scored per test case in a file.

    Parameters
    ----------
    path : str or Path
        A long score table, CSV or JSONL (`abcde.evaluation.scores.read_scores`).
    metrics : sequence of str
        The metrics combined; rows of other metrics are ignored.
    tol, rel_tol : float
        Scores equal within ``max(tol, rel_tol·max(|x|, |y|))`` tie (docs/method.md §9.2).

    Returns
    -------
    dict
        The JSON of `abcde uir`: ``metrics``, ``threshold``, ``rel_tol``, ``tol``,
        ``matrix`` (UIR(row, col)), ``pairs`` (each pair's UIR, counts, reading and
        parametric UIR), ``reference_systems`` (each with ``robust``), ``improves``,
        ``f_alpha_metrics``, ``f_alpha`` and ``f_alpha_note``.

    Raises
    ------
    InputError
        A bad score file or fewer than two systems; the message names the file.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §2.1 (F_α), §4.2 (UIR), §6.3 (threshold), §6.4 (reference systems), §8
    (parametric UIR). docs/method.md §9.
    """
    from abcde.evaluation.uir_parametric import parametric_uir  # numpy (see compare_runs)

    metrics = list(metrics)
    try:
        if not metrics:
            raise UirInputError("--metrics is empty: UIR needs at least one metric")
        table = pivot_scores(read_scores(path, metrics), metrics)
        systems = list(table)
        if len(systems) < 2:
            raise UirInputError(f"UIR compares systems; {path} scores only {systems!r}")
        summary = uir_summary(table, metrics, tol=tol, rel_tol=rel_tol)
        pairs = []
        for (a, b), res in summary.pairs.items():
            entry: dict[str, Any] = {
                "a": a, "b": b, "uir": res.uir, "a_ge_b": res.a_ge_b,
                "b_ge_a": res.b_ge_a, "ties": res.ties, "biased": res.biased,
                "n_cases": res.n_cases,
                "reading": interpret_uir(res, names=(str(a), str(b)))}
            try:
                diffs = case_differences(table[a], table[b], metrics, tol=tol,
                                         rel_tol=rel_tol, names=(str(a), str(b)))
                entry["parametric_uir"] = parametric_uir(diffs, metrics=metrics).uir
            except UirInputError as err:
                entry["parametric_uir"] = None
                entry["parametric_error"] = str(err)
            pairs.append(entry)
    except UirInputError as err:
        # read_scores' messages already name the file ("x.csv, line 3: …", "score file
        # x.csv: no such file"), as does the one-system refusal
        named = str(path) in str(err)
        raise InputError(str(err), table=None if named else str(path)) from err
    if summary.f_alpha_metrics is None:
        note = (f"no F_alpha sweep: F_alpha combines two metrics, --metrics has "
                f"{len(metrics)}")
    elif summary.f_alpha_error is not None:
        note = f"no F_alpha sweep: {summary.f_alpha_error}"
    else:
        note = None
    matrix = summary.matrix or {}
    return {
        "metrics": metrics, "threshold": UIR_ROBUST_THRESHOLD, "rel_tol": rel_tol,
        "tol": tol,
        "matrix": {str(a): {str(b): v for b, v in row.items()} for a, row in matrix.items()},
        "pairs": pairs,
        "reference_systems": _references_doc(summary),
        "improves": {str(a): [str(b) for b in bs]
                     for a, bs in (summary.improves or {}).items()},
        "f_alpha_metrics": list(summary.f_alpha_metrics) if summary.f_alpha_metrics else None,
        "f_alpha": _sweep_doc(summary),
        "f_alpha_note": note,
    }

