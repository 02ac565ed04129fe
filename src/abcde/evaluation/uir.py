"""Unanimous Improvement Ratio (Amigó, Gonzalo, Artiles & Verdejo, JAIR 2011).

Reference: E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo, "Combining evaluation
metrics via the unanimous improvement ratio and its application to clustering
tasks", JAIR 42 (2011), `papers/unanimous_improvement_ratio_amigo2011.txt`.
The text copy has lost its digits and Greek letters, so equations are cited by
section and by what they say, not by number (section numbers, also lost, are
counted from the order of the headings): §2.1 the F measure, §3.4 robustness
across α values, §4.1 unanimous improvement, §4.2 UIR and its worked example
(Table 3), §5.2.1 uniqueness of the unanimous improvement, §6.3 the 0.25
threshold, §6.4 UIR and system rankings (reference systems, Table 7), §8 the
parametric UIR.

Input is a per-test-case score table: for each system, each test case t (a truth
cluster, a slice, a query set, ...) and each metric x (e.g. precision, recall) one
finite number. `read_scores` reads such a table from CSV or JSONL in long format
(one row per system, case, metric, value).

Definitions used here, with their sources:

* unanimous improvement (§4.1): Q_X(a) ≥∀ Q_X(b) ⇔ ∀x ∈ X: x(a) ≥ x(b).
  Equality on every metric ("tie") makes both a ≥∀ b and b ≥∀ a true; when some
  metrics favour a and others b the pair is "metric-biased" (a ∥ b), neither holds.
* UIR (§4.2): UIR_{X,T}(a, b) = (|T_{a≥∀b}| − |T_{b≥∀a}|) / |T|, i.e.
  P(a ≥∀ b) − P(b ≥∀ a) estimated by frequencies. Ties are counted on both sides
  and so cancel. Range [−1, 1], UIR(a, b) = −UIR(b, a). Table 3 of the paper:
  10 cases, a ≥∀ b on 6, b ≥∀ a on 4 (two of them ties) → UIR = 0.2.
* F (§2.1, van Rijsbergen): F_α(R, P) = 1 / (α/P + (1 − α)/R); α = 0.5 is the
  harmonic mean, α weights *precision* (§3.4: "inverse purity should have priority
  … α below 0.5").  The paper compares systems by the *average over test cases* of
  F ("average difference in F", §1; "the average F increases for all α values",
  §6.3; per-case Wilcoxon tests, §6.1), so the sweep averages per-case F_α; it does
  not apply F to averaged P and R.
* reference system (§6.4): s_ref(a) = argmax_s UIR(s, a), "the one that improves a
  with maximal UIR", i.e. the system a should be replaced with.
* rule of thumb (§6.3): UIR ≥ 0.25 is "a reasonable threshold" for a robust
  improvement, explicitly "a rough rule of thumb" for the WePS clustering task.
* parametric UIR (§8): fit a normal distribution to the per-case metric
  differences and use P(all Δ ≥ 0) − P(all Δ ≤ 0).

Equality (not in the paper, which compares exact published scores): two scores x, y
count as equal when |x − y| ≤ max(tol, rel_tol·max(|x|, |y|)), rel_tol = 1e-9 by
default. Per-case scores computed by an engine are sums whose last bits depend on the
summation order (row order, parallelism, engine), so two runs that treat a case
identically differ by ~1e-16 and, compared exactly, would count as a unanimous
improvement one way or the other instead of a tie. The same equality makes
differences exactly 0 before the parametric UIR is fitted.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = [
    "ALPHA_SWEEP",
    "DEFAULT_REL_TOL",
    "UIR_ROBUST_THRESHOLD",
    "ParametricUirResult",
    "ReferenceSystem",
    "ScoreRow",
    "UirInputError",
    "UirResult",
    "case_differences",
    "f_alpha",
    "f_alpha_metrics",
    "f_alpha_sweep",
    "improved_systems",
    "interpret_uir",
    "parametric_uir",
    "pivot_scores",
    "read_scores",
    "reference_system",
    "uir",
    "uir_matrix",
]

System = Hashable
Case = Hashable
CaseScores = Mapping[Case, Mapping[str, float]]
ScoreTable = dict[System, dict[Case, dict[str, float]]]

#: α ∈ {0, 0.1, …, 1}: α = 0 is recall alone, α = 1 precision alone (§2.1).
ALPHA_SWEEP: tuple[float, ...] = tuple(i / 10 for i in range(11))

#: §6.3: "UIR ≥ 0.25 can be a reasonable threshold, at least for this clustering task".
UIR_ROBUST_THRESHOLD = 0.25

#: Default relative tolerance of every comparison of two scores (see the module docstring):
#: far above float noise (~1e-16 relative) and far below any real difference of metrics.
DEFAULT_REL_TOL = 1e-9

#: Default Monte Carlo size of `parametric_uir` for 3+ metrics: standard error ≤ 1/√N ≈ 0.0016.
DEFAULT_MC_SAMPLES = 400_000
_MC_CHUNK = 100_000


class UirInputError(ValueError):
    """Bad score table: the message names the system, case and metric at fault."""


def _examples(items: Iterable[object], limit: int = 5) -> str:
    shown = [repr(x) for x in list(items)[:limit]]
    return ", ".join(shown)


def _finite(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise UirInputError(f"{where}: value {value!r} is not a number")
    out = float(value)
    if not math.isfinite(out):
        raise UirInputError(f"{where}: value {out!r} is not finite")
    return out


def _check_metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    if isinstance(metrics, str):
        raise UirInputError(f"metrics must be a sequence of names, not the string {metrics!r}")
    out = tuple(metrics)
    if not out:
        raise UirInputError("metrics is empty: UIR needs at least one metric")
    dup = sorted({m for m in out if out.count(m) > 1})
    if dup:
        raise UirInputError(f"metrics listed more than once: {_examples(dup)}")
    return out


# --------------------------------------------------------------------------- UIR


@dataclass(frozen=True)
class UirResult:
    """UIR(a, b) over test cases T with its counts (§4.2).

    ``a_ge_b`` = |T_{a≥∀b}| and ``b_ge_a`` = |T_{b≥∀a}| both include the ``ties``
    (equal on every metric); ``biased`` counts the metric-biased cases a ∥ b.
    ``a_ge_b + b_ge_a − ties + biased == n_cases``.
    """

    uir: float
    a_ge_b: int
    b_ge_a: int
    ties: int
    biased: int
    n_cases: int

    @property
    def reading(self) -> str:
        """Plain-language reading by the 0.25 rule of thumb (§6.3), with the counts."""
        return interpret_uir(self)


def _check_tolerances(tol: float, rel_tol: float) -> None:
    for name, x in (("tol", tol), ("rel_tol", rel_tol)):
        if isinstance(x, bool) or not (math.isfinite(x) and x >= 0):
            raise UirInputError(f"{name} must be finite and >= 0, got {x!r}")
    if rel_tol >= 1:
        raise UirInputError(f"rel_tol must be < 1, got {rel_tol!r}")


def _equal(x: float, y: float, tol: float, rel_tol: float) -> bool:
    """|x − y| ≤ max(tol, rel_tol·max(|x|, |y|)) (the module docstring's equality)."""
    return abs(x - y) <= max(tol, rel_tol * max(abs(x), abs(y)))


def _case_relation(
    a: Mapping[str, float],
    b: Mapping[str, float],
    metrics: Sequence[str],
    tol: float,
    rel_tol: float,
) -> tuple[bool, bool]:
    """(a ≥∀ b, b ≥∀ a) on one test case (§4.1), equal scores counting both ways."""
    equal = {m: _equal(a[m], b[m], tol, rel_tol) for m in metrics}
    a_ge = all(equal[m] or a[m] > b[m] for m in metrics)
    b_ge = all(equal[m] or b[m] > a[m] for m in metrics)
    return a_ge, b_ge


def _validated_case_table(
    scores: CaseScores, metrics: Sequence[str], name: str
) -> dict[Case, dict[str, float]]:
    out: dict[Case, dict[str, float]] = {}
    for case, row in scores.items():
        vals: dict[str, float] = {}
        for m in metrics:
            if m not in row:
                raise UirInputError(f"system {name}, case {case!r}: metric {m!r} is missing")
            vals[m] = _finite(row[m], f"system {name}, case {case!r}, metric {m!r}")
        out[case] = vals
    return out


def uir(
    scores_a: CaseScores,
    scores_b: CaseScores,
    metrics: Sequence[str],
    *,
    tol: float = 0.0,
    rel_tol: float = DEFAULT_REL_TOL,
) -> UirResult:
    """UIR(a, b) = (|T_{a≥∀b}| − |T_{b≥∀a}|) / |T| (Amigó et al. 2011, §4.2).

    ``scores_a[case][metric]`` is system a's score; both systems must have the same
    cases and every metric of ``metrics`` on each (higher is better for every metric).
    a ≥∀ b on a case ⇔ every metric of a ≥ that of b (§4.1); a case equal on all
    metrics counts on both sides. Scores x, y are equal when
    |x − y| ≤ max(``tol``, ``rel_tol``·max(|x|, |y|)) (default: relative 1e-9, which
    absorbs the float noise of summed scores; ``rel_tol=0`` with ``tol=0`` compares
    exactly, as the paper does with published scores).

    >>> a = {"t1": {"p": 0.5, "r": 0.5}, "t2": {"p": 0.9, "r": 0.1}}
    >>> b = {"t1": {"p": 0.4, "r": 0.4}, "t2": {"p": 0.1, "r": 0.9}}
    >>> uir(a, b, ["p", "r"]).uir
    0.5
    """
    metrics = _check_metrics(metrics)
    _check_tolerances(tol, rel_tol)
    a = _validated_case_table(scores_a, metrics, "a")
    b = _validated_case_table(scores_b, metrics, "b")
    only_a = [c for c in a if c not in b]
    only_b = [c for c in b if c not in a]
    if only_a or only_b:
        parts = []
        if only_a:
            parts.append(f"{len(only_a)} case(s) only in a: {_examples(only_a)}")
        if only_b:
            parts.append(f"{len(only_b)} case(s) only in b: {_examples(only_b)}")
        raise UirInputError("systems a and b must be scored on the same cases; " + "; ".join(parts))
    if not a:
        raise UirInputError("no test cases: UIR is undefined on an empty set T")
    a_ge_b = b_ge_a = ties = biased = 0
    for case, sa in a.items():
        a_ge, b_ge = _case_relation(sa, b[case], metrics, tol, rel_tol)
        a_ge_b += a_ge
        b_ge_a += b_ge
        ties += a_ge and b_ge
        biased += not (a_ge or b_ge)
    n = len(a)
    return UirResult(
        uir=(a_ge_b - b_ge_a) / n,
        a_ge_b=a_ge_b,
        b_ge_a=b_ge_a,
        ties=ties,
        biased=biased,
        n_cases=n,
    )


# ------------------------------------------------------------ long table, matrix


class ScoreRow(NamedTuple):
    """One row of the long score table."""

    system: System
    case: Case
    metric: str
    value: float


def pivot_scores(rows: Iterable[Sequence[object]], metrics: Sequence[str]) -> ScoreTable:
    """Long table of (system, case, metric, value) → ``table[system][case][metric]``.

    Refuses (``UirInputError``): rows that are not 4-tuples, duplicate
    (system, case, metric) rows, non-numeric or non-finite values of the requested
    metrics, a metric of ``metrics`` absent from the table, and any system lacking a
    (case, metric) that another system has — the message names system, case and
    metric. Rows of metrics not in ``metrics`` are ignored entirely.
    """
    metrics = _check_metrics(metrics)
    wanted = set(metrics)
    table: ScoreTable = {}
    seen: dict[tuple[object, object, object], int] = {}
    cases: dict[Case, None] = {}
    for idx, row in enumerate(rows):
        if len(row) != 4:
            raise UirInputError(
                f"row {idx}: expected (system, case, metric, value), got {len(row)} fields"
            )
        system, case, metric, value = row
        if metric not in wanted:
            continue
        key = (system, case, metric)
        if key in seen:
            raise UirInputError(
                f"duplicate score for system {system!r}, case {case!r}, metric {metric!r} "
                f"(rows {seen[key]} and {idx})"
            )
        seen[key] = idx
        v = _finite(value, f"row {idx}: system {system!r}, case {case!r}, metric {metric!r}")
        table.setdefault(system, {}).setdefault(case, {})[metric] = v
        cases.setdefault(case, None)
    if not table:
        raise UirInputError(f"no scores for the metrics {_examples(metrics)}")
    present = {m for per_case in table.values() for row in per_case.values() for m in row}
    absent = [m for m in metrics if m not in present]
    if absent:
        raise UirInputError(f"metric(s) not in the score table: {_examples(absent)}")
    for system, per_case in table.items():
        for case in cases:
            row = per_case.get(case, {})
            for m in metrics:
                if m not in row:
                    missing = sum(
                        1 for c in cases for mm in metrics if mm not in per_case.get(c, {})
                    )
                    raise UirInputError(
                        f"system {system!r} has no score for case {case!r}, metric {m!r} "
                        f"({missing} (case, metric) score(s) missing for this system); "
                        "every system must be scored on every case and metric"
                    )
    return table


def _as_table(
    scores: Iterable[Sequence[object]] | ScoreTable, metrics: Sequence[str]
) -> ScoreTable:
    if isinstance(scores, Mapping):
        rows = [
            (s, c, m, v)
            for s, per_case in scores.items()
            for c, per_metric in per_case.items()
            for m, v in per_metric.items()
        ]
        return pivot_scores(rows, metrics)
    return pivot_scores(scores, metrics)


def uir_matrix(
    scores: Iterable[Sequence[object]] | ScoreTable,
    metrics: Sequence[str],
    *,
    tol: float = 0.0,
    rel_tol: float = DEFAULT_REL_TOL,
) -> dict[System, dict[System, float]]:
    """``matrix[a][b] = UIR(a, b)`` for every ordered pair of systems (§4.2).

    ``scores`` is the long table of (system, case, metric, value) rows (or an already
    pivoted ``table[system][case][metric]``), validated by `pivot_scores`. The
    diagonal is 0 (a system ties with itself on every case) and the matrix is
    antisymmetric. Systems keep their order of first appearance. ``tol`` and
    ``rel_tol``: the equality of scores, as in `uir`.
    """
    metrics = _check_metrics(metrics)
    table = _as_table(scores, metrics)
    systems = list(table)
    out: dict[System, dict[System, float]] = {s: {} for s in systems}
    for i, a in enumerate(systems):
        out[a][a] = 0.0
        for b in systems[i + 1 :]:
            value = uir(table[a], table[b], metrics, tol=tol, rel_tol=rel_tol).uir
            out[a][b] = value
            out[b][a] = -value if value else 0.0
    return out


# --------------------------------------------------------------------- F_alpha


def f_alpha(p: float, r: float, alpha: float) -> float:
    """van Rijsbergen's F_α(R, P) = 1 / (α/P + (1 − α)/R) (§2.1).

    α = 0.5 is the harmonic mean of P and R; α weights precision: α = 1 gives P,
    α = 0 gives R. If P or R is 0 (and carries weight), F is 0, its limit.

    >>> f_alpha(0.5, 1.0, 0.5)
    0.6666666666666666
    """
    for name, x in (("p", p), ("r", r)):
        if isinstance(x, bool) or not math.isfinite(x) or x < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {x!r}")
    if not (math.isfinite(alpha) and 0.0 <= alpha <= 1.0):
        raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
    if alpha == 0.0:
        return float(r)
    if alpha == 1.0:
        return float(p)
    if p == 0 or r == 0:
        return 0.0
    return 1.0 / (alpha / p + (1.0 - alpha) / r)


def f_alpha_sweep(
    scores: Iterable[Sequence[object]] | ScoreTable,
    precision_metric: str = "precision",
    recall_metric: str = "recall",
    alphas: Sequence[float] = ALPHA_SWEEP,
) -> dict[System, dict[float, float]]:
    """Mean over test cases of F_α(P_t, R_t), for each system and each α.

    The paper compares systems by F averaged over test cases (§1 "average
    difference in F", §6.3 "the average F increases for all α values"), i.e. F is
    computed per case and then averaged — not F of the averaged P and R.
    ``precision_metric`` is the metric α weights (purity, BCubed precision, …).
    """
    if precision_metric == recall_metric:
        raise UirInputError("precision_metric and recall_metric must differ")
    alphas = tuple(float(a) for a in alphas)
    if not alphas:
        raise UirInputError("alphas is empty")
    for a in alphas:
        if not (math.isfinite(a) and 0.0 <= a <= 1.0):
            raise UirInputError(f"alpha must lie in [0, 1], got {a!r}")
    table = _as_table(scores, (precision_metric, recall_metric))
    for system, per_case in table.items():
        for case, row in per_case.items():
            for m in (precision_metric, recall_metric):
                if row[m] < 0:
                    raise UirInputError(
                        f"F_alpha needs scores >= 0: system {system!r}, case {case!r}, "
                        f"metric {m!r} is {row[m]!r}"
                    )
    out: dict[System, dict[float, float]] = {}
    for system, per_case in table.items():
        n = len(per_case)
        out[system] = {
            alpha: math.fsum(
                f_alpha(row[precision_metric], row[recall_metric], alpha)
                for row in per_case.values()
            )
            / n
            for alpha in alphas
        }
    return out


def f_alpha_metrics(metrics: Sequence[str]) -> tuple[str, str] | None:
    """The (precision-like, recall-like) pair F_α combines, or None.

    F_α combines exactly two metrics (§2.1): with two metrics selected, α weights
    ``precision`` if the pair is precision and recall (in any order), else the first
    one listed; with any other number of metrics there is no F_α sweep.
    """
    metrics = tuple(metrics)
    if len(metrics) != 2:
        return None
    if set(metrics) == {"precision", "recall"}:
        return ("precision", "recall")
    return (metrics[0], metrics[1])


# ------------------------------------------------- reference system, threshold


@dataclass(frozen=True)
class ReferenceSystem:
    """s_ref(system) = argmax_{s ≠ system} UIR(s, system) (§6.4) and that UIR.

    ``tied`` lists every system reaching the maximum (``reference`` is the first of
    them in matrix order). ``uir`` ≥ 0.25 means replacing ``system`` by
    ``reference`` is a robust improvement by the rule of thumb (§6.3).
    """

    system: System
    reference: System
    uir: float
    tied: tuple[System, ...]


def _check_matrix(matrix: Mapping[System, Mapping[System, float]]) -> list[System]:
    systems = list(matrix)
    for a in systems:
        for b in systems:
            if a != b and b not in matrix[a]:
                raise UirInputError(f"UIR matrix has no entry for ({a!r}, {b!r})")
    return systems


def reference_system(
    matrix: Mapping[System, Mapping[System, float]],
) -> dict[System, ReferenceSystem]:
    """For each system a, the system that improves it with maximal UIR (§6.4).

    Paper (§6.4, Table 7): "given a system a, its reference system is the one that
    improves a with maximal UIR: s_ref(a) = argmax_s UIR(s, a)", i.e. the system a
    should be replaced with. ``matrix[x][y] = UIR(x, y)`` as from `uir_matrix`.
    """
    systems = _check_matrix(matrix)
    if len(systems) < 2:
        raise UirInputError("a reference system needs at least two systems")
    out: dict[System, ReferenceSystem] = {}
    for a in systems:
        others = [s for s in systems if s != a]
        best = max(matrix[s][a] for s in others)
        tied = tuple(s for s in others if matrix[s][a] == best)
        out[a] = ReferenceSystem(system=a, reference=tied[0], uir=best, tied=tied)
    return out


def improved_systems(
    matrix: Mapping[System, Mapping[System, float]],
    threshold: float = UIR_ROBUST_THRESHOLD,
) -> dict[System, list[System]]:
    """For each system a, the systems b with UIR(a, b) ≥ threshold (Table 7, §6.4)."""
    systems = _check_matrix(matrix)
    return {a: [b for b in systems if b != a and matrix[a][b] >= threshold] for a in systems}


def interpret_uir(
    result: UirResult | float,
    threshold: float = UIR_ROBUST_THRESHOLD,
    *,
    names: tuple[str, str] = ("A", "B"),
) -> str:
    """Plain-language reading of UIR(a, b) by the rule of thumb of §6.3.

    The paper finds UIR ≥ 0.25 "a reasonable threshold" for an improvement robust to
    the relative weighting of the metrics (§6.3), "a rough rule of thumb that should be
    revised" beyond WePS clustering. Given a `UirResult`, the reading also uses its
    counts: ties count on both sides and cancel (§4.2), so a UIR below the threshold
    has two very different causes — metric-biased cases (some metrics favour a, others
    b: F then depends on the weights, what UIR is designed to flag) or cases where the
    systems simply tie. With no biased case and b never better, a is better or equal on
    every metric in every case: every weighting (every α) prefers a on every case, and a
    small UIR only says that few cases changed. ``names`` are the names of a and b.
    """
    a, b = names
    value = result.uir if isinstance(result, UirResult) else result
    if not (math.isfinite(value) and -1.0 <= value <= 1.0):
        raise ValueError(f"UIR lies in [-1, 1], got {value!r}")
    rule = f"UIR {value:+.3f}, robust when |UIR| >= {threshold}"
    if not isinstance(result, UirResult):
        if value >= threshold:
            return (f"robust improvement: {a} beats {b} on every metric in clearly more test "
                    f"cases than the reverse ({rule})")
        if value <= -threshold:
            return (f"robust degradation: {b} beats {a} on every metric in clearly more test "
                    f"cases than the reverse ({rule})")
        return (f"not robust ({rule}): {a} beats {b} on every metric in about as many test "
                "cases as the reverse")
    n, ties, biased = result.n_cases, result.ties, result.biased
    wins_a, wins_b = result.a_ge_b - ties, result.b_ge_a - ties
    counts = (f"{a} better on every metric in {wins_a} of {n} cases, {b} in {wins_b}, "
              f"{ties} tied, {biased} metric-biased")
    if ties == n:
        return f"no difference: {a} and {b} score the same on every metric in all {n} cases"
    if value >= threshold:
        return f"robust improvement of {a} over {b} ({rule}): {counts}"
    if value <= -threshold:
        return f"robust degradation of {a} against {b} ({rule}): {counts}"
    if biased == 0 and wins_b == 0:
        return (f"{a} is better or equal on every metric in every case, so every weighting "
                f"of the metrics prefers it; UIR is small only because few cases differ "
                f"({rule}): {counts}")
    if biased == 0 and wins_a == 0:
        return (f"{b} is better or equal on every metric in every case, so every weighting "
                f"of the metrics prefers it; UIR is small only because few cases differ "
                f"({rule}): {counts}")
    if biased == 0:
        return (f"not robust ({rule}): no case is metric-biased, but each system is better "
                f"on some cases: {counts}")
    return (f"not robust ({rule}): in {biased} case(s) some metrics favour {a} and others "
            f"{b}, so whether F prefers one depends on how the metrics are weighted: "
            f"{counts}")


# --------------------------------------------------------------- parametric UIR


@dataclass(frozen=True)
class ParametricUirResult:
    """Parametric UIR (§8): P(all Δ ≥ 0) − P(all Δ ≤ 0) under a fitted normal.

    ``method`` is "closed form" (1 free dimension, or 2 perfectly correlated),
    "quadrature" (2 dimensions, 1-D integral), "monte carlo" (3+ dimensions;
    ``n_samples`` draws, ``std_error`` its standard error) or "degenerate" (every
    metric difference constant). ``mean`` and ``cov`` are the fitted parameters.
    """

    uir: float
    p_a_ge_b: float
    p_b_ge_a: float
    method: str
    n_cases: int
    mean: tuple[float, ...]
    cov: tuple[tuple[float, ...], ...]
    n_samples: int = 0
    std_error: float = 0.0


def case_differences(
    scores_a: CaseScores,
    scores_b: CaseScores,
    metrics: Sequence[str],
    *,
    tol: float = 0.0,
    rel_tol: float = DEFAULT_REL_TOL,
) -> np.ndarray:
    """Per-case differences a − b, shape (n_cases, n_metrics), cases in a's order.

    Scores equal by `uir`'s equality (``tol``, ``rel_tol``) give a difference of exactly
    0, so that float noise neither tilts the fitted mean nor makes a constant (tied)
    metric look variable.
    """
    metrics = _check_metrics(metrics)
    _check_tolerances(tol, rel_tol)
    a = _validated_case_table(scores_a, metrics, "a")
    b = _validated_case_table(scores_b, metrics, "b")
    if set(a) != set(b):
        diff = [c for c in a if c not in b] + [c for c in b if c not in a]
        raise UirInputError(f"a and b have different cases, e.g. {_examples(diff)}")
    return np.array(
        [
            [0.0 if _equal(a[c][m], b[c][m], tol, rel_tol) else a[c][m] - b[c][m] for m in metrics]
            for c in a
        ],
        dtype=float,
    )


def _phi_cdf(x: float) -> float:
    """Standard normal CDF Φ."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _adaptive_simpson(
    f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-13, depth: int = 50
) -> float:
    """∫_lo^hi f by adaptive Simpson with Richardson correction (stdlib only)."""

    def simpson(a: float, fa: float, b: float, fb: float) -> tuple[float, float, float]:
        m = 0.5 * (a + b)
        fm = f(m)
        return m, fm, (b - a) / 6.0 * (fa + 4.0 * fm + fb)

    def rec(
        a: float,
        fa: float,
        b: float,
        fb: float,
        m: float,
        fm: float,
        whole: float,
        eps: float,
        d: int,
    ) -> float:
        lm, flm, left = simpson(a, fa, m, fm)
        rm, frm, right = simpson(m, fm, b, fb)
        delta = left + right - whole
        if d <= 0 or abs(delta) <= 15.0 * eps:
            return left + right + delta / 15.0
        return rec(a, fa, m, fm, lm, flm, left, eps / 2, d - 1) + rec(
            m, fm, b, fb, rm, frm, right, eps / 2, d - 1
        )

    fa, fb = f(lo), f(hi)
    m, fm, whole = simpson(lo, fa, hi, fb)
    return rec(lo, fa, hi, fb, m, fm, whole, tol, depth)


def _bvn_cdf(h: float, k: float, rho: float) -> float:
    """Φ₂(h, k; ρ) = P(Z₁ ≤ h, Z₂ ≤ k) for standard normals with correlation ρ.

    |ρ| = 1 in closed form; otherwise Sheppard/Owen's 1-D integral
    Φ₂ = Φ(h)Φ(k) + 1/(2π) ∫₀^{asin ρ} exp(−(h² + k² − 2hk sin θ)/(2cos²θ)) dθ,
    with the exponent rewritten to avoid cancellation near sin θ = ±1.
    """
    if rho >= 1.0:
        return _phi_cdf(min(h, k))
    if rho <= -1.0:
        return max(0.0, _phi_cdf(h) + _phi_cdf(k) - 1.0)
    base = _phi_cdf(h) * _phi_cdf(k)
    if rho == 0.0:
        return base

    def integrand(theta: float) -> float:
        s = math.sin(theta)
        if s >= 0:
            expo = (h - k) ** 2 / (2.0 * (1.0 - s) * (1.0 + s)) + h * k / (1.0 + s)
        else:
            expo = (h + k) ** 2 / (2.0 * (1.0 - s) * (1.0 + s)) - h * k / (1.0 - s)
        return math.exp(-expo)

    upper = math.asin(rho)
    integral = _adaptive_simpson(integrand, 0.0, upper)
    return min(1.0, max(0.0, base + integral / (2.0 * math.pi)))


#: 1 − |ρ| at or below this counts as perfect correlation (closed form; the
#: probability then differs from the quadrature by O(√(1 − |ρ|)) ≤ ~1e-6).
_RHO_ONE = 1e-12


def parametric_uir(
    diffs: Sequence[Sequence[float]] | np.ndarray,
    *,
    n_samples: int = DEFAULT_MC_SAMPLES,
    seed: int = 0,
    ddof: int = 1,
) -> ParametricUirResult:
    """Parametric UIR of §8: fit N(μ, Σ) to the per-case differences Δ = a − b.

    ``diffs`` has one row per test case and one column per metric (see
    `case_differences`). μ is the sample mean and Σ the sample covariance (``ddof=1``,
    as Matlab's ``cov``, the paper's tool). Returns
    P(Δ ≥ 0 on every metric) − P(Δ ≤ 0 on every metric).

    * Metrics whose difference is the same on every case are degenerate
      (zero variance): a point mass, so "≥ 0" is certain or impossible (both
      directions certain when the constant is 0, exactly like a tie in UIR); they are
      factored out before fitting the rest.
    * 1 remaining metric: closed form with Φ. 2: the bivariate normal CDF by 1-D
      adaptive quadrature (stdlib only); perfect correlation (1 − |ρ| ≤ 1e-12) in
      closed form.
    * 3+ remaining metrics: seeded numpy Monte Carlo with ``n_samples`` draws
      (default 400 000: standard error ≤ 1/√N ≈ 0.0016, reported in ``std_error``);
      a singular Σ is sampled through its eigen-decomposition.
    """
    d = np.asarray(diffs, dtype=float)
    if d.ndim != 2:
        raise UirInputError(f"diffs must be 2-D (cases × metrics), got shape {d.shape}")
    n, k = d.shape
    if k == 0:
        raise UirInputError("diffs has no metric column")
    if n <= ddof:
        raise UirInputError(f"need more than {ddof} test case(s) to fit a covariance, got {n}")
    if not np.all(np.isfinite(d)):
        bad = np.argwhere(~np.isfinite(d))[0]
        raise UirInputError(f"non-finite difference at case {bad[0]}, metric {bad[1]}")
    if n_samples < 1:
        raise UirInputError(f"n_samples must be >= 1, got {n_samples}")

    mean = d.mean(axis=0)
    cov = np.atleast_2d(np.cov(d, rowvar=False, ddof=ddof))
    const = [j for j in range(k) if np.all(d[:, j] == d[0, j])]
    free = [j for j in range(k) if j not in const]
    # Constant columns: a point mass at that value (exact, not the float mean).
    ge_const = all(d[0, j] >= 0 for j in const)
    le_const = all(d[0, j] <= 0 for j in const)

    def result(
        p_ge: float, p_le: float, method: str, ns: int = 0, se: float = 0.0
    ) -> ParametricUirResult:
        return ParametricUirResult(
            uir=p_ge - p_le,
            p_a_ge_b=p_ge,
            p_b_ge_a=p_le,
            method=method,
            n_cases=n,
            mean=tuple(float(x) for x in mean),
            cov=tuple(tuple(float(x) for x in row) for row in cov),
            n_samples=ns,
            std_error=se,
        )

    if not free:
        return result(float(ge_const), float(le_const), "degenerate")
    if not ge_const and not le_const:
        return result(0.0, 0.0, "degenerate")

    mu = mean[free]
    sub = cov[np.ix_(free, free)]
    sd = np.sqrt(np.diag(sub))
    z = mu / sd  # P(Δ_j ≥ 0) = Φ(z_j), P(Δ_j ≤ 0) = Φ(−z_j)

    if len(free) == 1:
        p_ge, p_le = _phi_cdf(z[0]), _phi_cdf(-z[0])
        method = "closed form"
    elif len(free) == 2:
        rho = float(sub[0, 1] / (sd[0] * sd[1]))
        rho = min(1.0, max(-1.0, rho))
        if 1.0 - abs(rho) <= _RHO_ONE:
            rho = math.copysign(1.0, rho)
            method = "closed form"
        else:
            method = "quadrature"
        # P(Δ₁ ≥ 0, Δ₂ ≥ 0) = P(−Z₁ ≤ z₁, −Z₂ ≤ z₂) = Φ₂(z₁, z₂; ρ); likewise ≤ with −z.
        p_ge = _bvn_cdf(float(z[0]), float(z[1]), rho)
        p_le = _bvn_cdf(float(-z[0]), float(-z[1]), rho)
    else:
        rng = np.random.default_rng(seed)
        vals, vecs = np.linalg.eigh(sub)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
        ge_count = le_count = 0
        done = 0
        while done < n_samples:  # in chunks, to bound memory
            m = min(_MC_CHUNK, n_samples - done)
            x = mu + rng.standard_normal((m, len(free))) @ root.T
            ge_count += int(np.count_nonzero(np.all(x >= 0, axis=1))) if ge_const else 0
            le_count += int(np.count_nonzero(np.all(x <= 0, axis=1))) if le_const else 0
            done += m
        p_ge, p_le = ge_count / n_samples, le_count / n_samples
        # The per-draw score 1[all ≥ 0] − 1[all ≤ 0] takes values in {−1, 0, 1}
        # (both events together have probability 0 under a continuous law).
        est = p_ge - p_le
        var = max(0.0, (p_ge + p_le) - est * est)
        if n_samples > 1:
            var *= n_samples / (n_samples - 1)
        return result(p_ge, p_le, "monte carlo", n_samples, math.sqrt(var / n_samples))
    return result(p_ge if ge_const else 0.0, p_le if le_const else 0.0, method)


# ------------------------------------------------------------------ reading


_COLUMNS = ("system", "case", "metric", "value")


def _parse_value(raw: object, path: Path, line: int) -> float:
    if isinstance(raw, bool) or raw is None:
        raise UirInputError(f"{path}, line {line}: column 'value' is not a number: {raw!r}")
    if isinstance(raw, (int, float)):
        value = float(raw)
    else:
        text = str(raw).strip()
        try:
            value = float(text)
        except ValueError:
            raise UirInputError(
                f"{path}, line {line}: column 'value' is not a number: {raw!r}"
            ) from None
    if not math.isfinite(value):
        raise UirInputError(f"{path}, line {line}: column 'value' is not finite: {raw!r}")
    return value


def _read_csv(path: Path, wanted: set[str] | None) -> list[tuple[ScoreRow, int]]:
    out: list[tuple[ScoreRow, int]] = []
    # utf-8-sig: spreadsheet exports ("CSV UTF-8") start with a byte-order mark.
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames
        if not header:
            raise UirInputError(f"{path}: empty file, expected a header {', '.join(_COLUMNS)}")
        header = [h.strip() for h in header]
        reader.fieldnames = header
        missing = [c for c in _COLUMNS if c not in header]
        if missing:
            raise UirInputError(
                f"{path}: missing column(s) {', '.join(repr(c) for c in missing)}; "
                f"header is {header!r}"
            )
        for rec in reader:
            line = reader.line_num
            extra = rec.pop(None, None)  # DictReader's key for fields beyond the header
            if all((v is None or not str(v).strip()) for v in rec.values()) and not extra:
                continue  # blank line
            if extra is not None:
                raise UirInputError(
                    f"{path}, line {line}: {len(header) + len(extra)} fields, but the header "
                    f"has {len(header)} (extra value(s) {_examples(extra, 3)}); quote values "
                    "that contain commas"
                )
            if any(v is None for v in rec.values()):
                n = sum(v is not None for v in rec.values())
                raise UirInputError(
                    f"{path}, line {line}: {n} field(s), but the header has {len(header)}"
                )
            for c in _COLUMNS[:3]:
                if not str(rec[c]).strip():
                    raise UirInputError(f"{path}, line {line}: column {c!r} is empty")
            metric = rec["metric"].strip()
            if wanted is not None and metric not in wanted:
                continue
            value = _parse_value(rec["value"], path, line)
            row = ScoreRow(rec["system"].strip(), rec["case"].strip(), metric, value)
            out.append((row, line))
    return out


def _read_jsonl(path: Path, wanted: set[str] | None) -> list[tuple[ScoreRow, int]]:
    out: list[tuple[ScoreRow, int]] = []
    with path.open(encoding="utf-8-sig") as fh:
        for line, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                rec = json.loads(text)
            except json.JSONDecodeError as exc:
                raise UirInputError(f"{path}, line {line}: invalid JSON ({exc.msg})") from None
            if not isinstance(rec, dict):
                raise UirInputError(f"{path}, line {line}: expected a JSON object")
            missing = [c for c in _COLUMNS if c not in rec]
            if missing:
                raise UirInputError(
                    f"{path}, line {line}: missing column(s) {', '.join(repr(c) for c in missing)}"
                )
            for c in _COLUMNS[:3]:
                if not isinstance(rec[c], (str, int)) or isinstance(rec[c], bool):
                    raise UirInputError(
                        f"{path}, line {line}: column {c!r} must be a string, got {rec[c]!r}"
                    )
            if wanted is not None and str(rec["metric"]) not in wanted:
                continue
            value = _parse_value(rec["value"], path, line)
            row = ScoreRow(str(rec["system"]), str(rec["case"]), str(rec["metric"]), value)
            out.append((row, line))
    return out


def read_scores(path: str | Path, metrics: Sequence[str] | None = None) -> list[ScoreRow]:
    """Read a long score table (columns system, case, metric, value) from CSV or JSONL.

    Format by suffix: ``.jsonl``/``.ndjson``/``.json`` → one JSON object per line,
    anything else → CSV with a header (extra columns are ignored; a byte-order mark is
    allowed). system, case and metric are read as strings. With ``metrics``, rows of
    other metrics are skipped unread (their values are not checked). Errors
    (``UirInputError``) name the file and line: unreadable or non-UTF-8 file, missing
    column, a row with more or fewer fields than the header, empty field, non-numeric
    or non-finite value, duplicate (system, case, metric), invalid JSON, no rows.
    """
    p = Path(path)
    wanted = None if metrics is None else set(_check_metrics(metrics))
    is_jsonl = p.suffix.lower() in {".jsonl", ".ndjson", ".json"}
    try:
        rows = _read_jsonl(p, wanted) if is_jsonl else _read_csv(p, wanted)
    except FileNotFoundError:
        raise UirInputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise UirInputError(f"{p} is a directory, not a score file") from None
    except UnicodeDecodeError as err:
        raise UirInputError(
            f"{p}: not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {err.start}); "
            "save the file as UTF-8"
        ) from None
    except OSError as err:
        raise UirInputError(f"{p}: cannot be read ({err.strerror or err})") from None
    if not rows:
        if wanted is not None:
            raise UirInputError(f"{p}: no score rows for the metric(s) {_examples(metrics)}")
        raise UirInputError(f"{p}: no score rows")
    first_line: dict[tuple[str, str, str], int] = {}
    for row, line in rows:
        key = (row.system, row.case, row.metric)
        if key in first_line:
            raise UirInputError(
                f"{p}, line {line}: duplicate score for system {row.system!r}, "
                f"case {row.case!r}, metric {row.metric!r} (first on line {first_line[key]})"
            )
        first_line[key] = line
    return [row for row, _ in rows]
