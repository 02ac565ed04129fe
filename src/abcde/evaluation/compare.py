"""Runs compared: the deltas and UIR of every pair of runs `abcde evaluate` scores, its UIR
summary, and `abcde uir`'s report on systems scored elsewhere (docs/method.md §4.2, §9).
Both build the matrix with `abcde.evaluation.uir.uir_summary`, under the JSON key
``matrix``."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.evaluation.results import (
    CLASSIC_METRICS,
    OVERALL_METRICS,
    YANDEX_KINDS,
    YANDEX_METRICS,
    RunResult,
)
from abcde.evaluation.scores import UirInputError, pivot_scores, read_scores
from abcde.evaluation.uir import (
    UIR_ROBUST_THRESHOLD,
    UirResult,
    UirSummary,
    case_differences,
    f_alpha_metrics,
    interpret_uir,
    uir,
    uir_summary,
)


def _delta(a: Any, b: Any) -> float | None:
    return None if a is None or b is None else float(b) - float(a)


def shared_cases(runs: Sequence[RunResult]) -> list[Hashable]:
    """The UIR test cases every run has, in the first run's order: one set of cases for
    the matrix and every pair, so that each pair has one UIR ([UIR] §4.2)."""
    return [c for c in runs[0].cases if all(c in r.cases for r in runs[1:])]


def _parametric(sa: Mapping, sb: Mapping, metrics: Sequence[str], tol: float,
                rel_tol: float) -> tuple[Any, str | None]:
    """The parametric UIR of a over b ([UIR] §8), or None and why not."""
    from abcde.evaluation.uir_parametric import parametric_uir  # numpy: two runs only

    try:
        return parametric_uir(case_differences(sa, sb, metrics, tol=tol, rel_tol=rel_tol),
                              metrics=metrics), None
    except UirInputError as err:
        return None, str(err)


def compare_runs(a: RunResult, b: RunResult, metrics: Sequence[str] | None,
                 shared: Sequence[Hashable], rel_tol: float,
                 known: Mapping[tuple[str, str], UirResult]) -> dict[str, Any]:
    """Run b (the experiment) against run a (the baseline): the deltas b − a of every
    overall, classic and Yandex metric, and UIR(b, a) over `shared` with its counts, its
    reading and the parametric UIR (``uir`` null without `metrics`); a pair's UIR is
    taken from `known` when the summary computed it ([UIR] §4.2, §6.3, §8)."""
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
    if a.sample is not None and b.sample is not None:  # paired on the same clusters
        from abcde.evaluation.population import paired_doc

        doc["population"] = paired_doc(a.sample, b.sample)
    if metrics is None:
        return doc
    if not shared:
        doc["uir"] = {"error": "no test case is shared by every run"}
        return doc
    sb, sa = ({c: r.cases[c] for c in shared} for r in (b, a))
    res = (known[(b.name, a.name)] if (b.name, a.name) in known
           else known[(a.name, b.name)].swapped() if (a.name, b.name) in known
           else uir(sb, sa, metrics, rel_tol=rel_tol))
    p, error = _parametric(sb, sa, metrics, 0.0, rel_tol)
    doc["uir"] = {
        "value": res.uir, "experiment_ge_baseline": res.a_ge_b,
        "baseline_ge_experiment": res.b_ge_a, "ties": res.ties, "biased": res.biased,
        "n_cases": res.n_cases, "cases_excluded": len(set(a.cases) | set(b.cases)) - len(shared),
        "reading": interpret_uir(res, names=(b.name, a.name)),
        "parametric": {"value": None, "error": error} if p is None else {
            "value": p.uir, "p_experiment_ge_baseline": p.p_a_ge_b,
            "p_baseline_ge_experiment": p.p_b_ge_a, "method": p.method}}
    return doc


def _sweep_doc(summary: UirSummary) -> dict[str, dict[str, float]] | None:
    if summary.f_alpha is None:
        return None
    return {str(s): {f"{a:g}": v for a, v in per.items()} for s, per in summary.f_alpha.items()}


def _references_doc(summary: UirSummary) -> dict[str, dict[str, Any]]:
    """Each system's reference system, one shape for both commands; `reference` is None
    when no system improves it (the highest UIR over it is <= 0)."""
    return {str(s): {"reference": str(ref.reference) if ref.uir > 0 else None,
                     "uir": ref.uir, "tied": [str(t) for t in ref.tied],
                     "robust": ref.uir >= UIR_ROBUST_THRESHOLD}
            for s, ref in (summary.reference_systems or {}).items()}


def evaluate_uir_summary(runs: Sequence[RunResult], cases_label: str, metrics: Sequence[str],
                         alphas: Sequence[float], shared: Sequence[Hashable],
                         rel_tol: float) -> tuple[dict[str, Any], dict]:
    """The ``uir`` part of `abcde evaluate`'s JSON over the cases every run has, and the
    UIR of each pair for `compare_runs` (docs/method.md §9.3–§9.5)."""
    pr = f_alpha_metrics(metrics)
    doc: dict[str, Any] = {
        "cases": cases_label, "metrics": list(metrics), "threshold": UIR_ROBUST_THRESHOLD,
        "rel_tol": rel_tol, "n_cases": len(shared),
        "cases_excluded": len(set().union(*(r.cases for r in runs))) - len(shared),
        "matrix": None, "reference_systems": None, "improves": None,
        "f_alpha_metrics": list(pr) if pr else None, "f_alpha": None,
        "f_alpha_note": None if pr else (f"no F_alpha sweep: F_alpha combines two metrics, "
                                         f"{len(metrics)} selected")}
    if not shared:
        return doc, {}
    table = {r.name: {c: r.cases[c] for c in shared} for r in runs}
    # pointwise metrics lie in [0, 1]: the sweep cannot be refused for a negative score
    summary = uir_summary(table, metrics, rel_tol=rel_tol, alphas=alphas)
    doc["f_alpha"] = _sweep_doc(summary)
    if summary.matrix is not None:
        doc.update(matrix=summary.matrix, reference_systems=_references_doc(summary),
                   improves=summary.improves)
    return doc, summary.pairs


def uir_report(path: str | Path, metrics: Sequence[str], tol: float = 0.0, *,
               rel_tol: float) -> dict[str, Any]:
    """`abcde uir`: the JSON of UIR between systems scored per test case in a file —
    matrix, pairs (UIR, counts, reading, parametric UIR), reference systems, robust
    improvements and the F_α sweep ([UIR] §2.1, §4.2, §6.3, §6.4, §8; docs/method.md §9)."""
    table = pivot_scores(read_scores(path, metrics), metrics, where=str(path))
    if len(table) < 2:
        raise UirInputError(f"UIR compares systems; {path} scores only {list(table)!r}")
    summary = uir_summary(table, metrics, tol=tol, rel_tol=rel_tol)
    pairs = []
    for (a, b), res in summary.pairs.items():
        p, error = _parametric(table[a], table[b], metrics, tol, rel_tol)
        pairs.append({"a": a, "b": b, "uir": res.uir, "a_ge_b": res.a_ge_b,
                      "b_ge_a": res.b_ge_a, "ties": res.ties, "biased": res.biased,
                      "n_cases": res.n_cases,
                      "reading": interpret_uir(res, names=(str(a), str(b))),
                      "parametric_uir": None if p is None else p.uir,
                      **({"parametric_error": error} if error else {})})
    note = (f"no F_alpha sweep: F_alpha combines two metrics, --metrics has {len(metrics)}"
            if summary.f_alpha_metrics is None else
            f"no F_alpha sweep: {summary.f_alpha_error}" if summary.f_alpha_error else None)
    return {
        "metrics": list(metrics), "threshold": UIR_ROBUST_THRESHOLD, "rel_tol": rel_tol,
        "tol": tol,
        "matrix": {str(a): {str(b): v for b, v in row.items()}
                   for a, row in (summary.matrix or {}).items()},
        "pairs": pairs, "reference_systems": _references_doc(summary),
        "improves": {str(a): [str(b) for b in bs] for a, bs in (summary.improves or {}).items()},
        "f_alpha_metrics": list(summary.f_alpha_metrics) if summary.f_alpha_metrics else None,
        "f_alpha": _sweep_doc(summary), "f_alpha_note": note,
    }
