"""The Unanimous Improvement Ratio over per-case score tables (`abcde.evaluation.scores`):
UIR of two systems, the UIR matrix, reference systems, the F_α sweep and a reading by the
rule of thumb (docs/method.md §9.1–§9.5; [UIR] §4–§6).

* a ≥∀ b on a case ⇔ every metric of a ≥ that of b ([UIR] §4.1); equal on all metrics is
  a tie (both hold), neither holding is "metric-biased";
* UIR(a, b) = (|T_{a≥∀b}| − |T_{b≥∀a}|) / |T| ([UIR] §4.2; Table 3: 0.2);
* F_α(P, R) = 1 / (α/P + (1 − α)/R), averaged over cases ([UIR] §2.1, §6.3);
* the reference system of a: argmax_s UIR(s, a) ([UIR] §6.4); UIR ≥ 0.25 is "a
  reasonable threshold", a rough rule of thumb ([UIR] §6.3).

Scores x, y are equal when |x − y| ≤ max(tol, rel_tol·max(|x|, |y|)), rel_tol 1e-9 by
default (docs/method.md §9.2): per-case scores summed by an engine differ in their last
bits with the order of summation, and compared exactly two runs treating a case alike
would count as a win one way or the other.

[UIR] E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. *Journal of
Artificial Intelligence Research* 42 (2011) 689–718. doi:10.1613/jair.3401.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from abcde.evaluation import DEFAULT_REL_TOL
from abcde.evaluation.scores import (
    CaseScores,
    ScoreTable,
    System,
    UirInputError,
    as_score_table,
)

#: α ∈ {0, 0.1, …, 1}: α = 0 is recall alone, α = 1 precision alone ([UIR] §2.1).
ALPHA_SWEEP: tuple[float, ...] = tuple(i / 10 for i in range(11))
#: [UIR] §6.3: "UIR ≥ 0.25 can be a reasonable threshold, at least for this clustering task".
UIR_ROBUST_THRESHOLD = 0.25
#: Below 6 cases even all favouring one system fails a two-sided sign test at 5%
#: (5 of 5: p = 0.0625): no UIR is read as robust (docs/method.md §9.5).
MIN_CASES_FOR_ROBUST = 6


@dataclass(frozen=True)
class UirResult:
    """UIR(a, b) with its counts ([UIR] §4.2): ``a_ge_b`` and ``b_ge_a`` include the
    ``ties``; ``a_ge_b + b_ge_a − ties + biased == n_cases``."""

    uir: float
    a_ge_b: int
    b_ge_a: int
    ties: int
    biased: int
    n_cases: int

    @property
    def reading(self) -> str:
        return interpret_uir(self)

    def swapped(self) -> UirResult:
        """UIR(b, a)."""
        return UirResult(-self.uir if self.uir else 0.0, self.b_ge_a, self.a_ge_b,
                         self.ties, self.biased, self.n_cases)


def equal(x: float, y: float, tol: float, rel_tol: float) -> bool:
    """|x − y| ≤ max(tol, rel_tol·max(|x|, |y|)) (docs/method.md §9.2)."""
    return abs(x - y) <= max(tol, rel_tol * max(abs(x), abs(y)))


def uir(scores_a: CaseScores, scores_b: CaseScores, metrics: Sequence[str], *,
        tol: float = 0.0, rel_tol: float = DEFAULT_REL_TOL) -> UirResult:
    """UIR(a, b) over the cases of `scores_a` (b scored on the same cases and metrics),
    with the equality of scores above ([UIR] §4.1–4.2).

    >>> a = {"t1": {"p": 0.5, "r": 0.5}, "t2": {"p": 0.9, "r": 0.1}}
    >>> b = {"t1": {"p": 0.4, "r": 0.4}, "t2": {"p": 0.1, "r": 0.9}}
    >>> uir(a, b, ["p", "r"]).uir
    0.5
    """
    a_ge_b = b_ge_a = ties = 0
    for case, sa in scores_a.items():
        sb = scores_b[case]
        same = [equal(sa[m], sb[m], tol, rel_tol) for m in metrics]
        a_ge = all(s or sa[m] > sb[m] for s, m in zip(same, metrics, strict=True))
        b_ge = all(s or sb[m] > sa[m] for s, m in zip(same, metrics, strict=True))
        a_ge_b, b_ge_a, ties = a_ge_b + a_ge, b_ge_a + b_ge, ties + (a_ge and b_ge)
    n = len(scores_a)
    return UirResult((a_ge_b - b_ge_a) / n, a_ge_b, b_ge_a, ties,
                     n - a_ge_b - b_ge_a + ties, n)


def case_differences(scores_a: CaseScores, scores_b: CaseScores, metrics: Sequence[str], *,
                     tol: float = 0.0, rel_tol: float = DEFAULT_REL_TOL) -> Any:
    """Per-case differences a − b (cases × metrics, a's order), the input of the
    parametric UIR; scores equal as in `uir` differ by exactly 0, so that float noise
    neither tilts the fitted mean nor makes a tied metric look variable (§9.6)."""
    import numpy as np  # one evaluated run never fits the parametric UIR

    with np.errstate(over="ignore"):
        return np.array([[0.0 if equal(a[m], scores_b[c][m], tol, rel_tol)
                          else a[m] - scores_b[c][m] for m in metrics]
                         for c, a in scores_a.items()], dtype=float)


def f_alpha(p: float, r: float, alpha: float) -> float:
    """van Rijsbergen's F_α = 1 / (α/P + (1 − α)/R), 0 when P or R is 0 and weighs
    ([UIR] §2.1).

    >>> f_alpha(0.5, 1.0, 0.5)
    0.6666666666666666
    """
    if alpha == 0.0:
        return float(r)
    if alpha == 1.0:
        return float(p)
    return 0.0 if p == 0 or r == 0 else 1.0 / (alpha / p + (1.0 - alpha) / r)


def f_alpha_metrics(metrics: Sequence[str]) -> tuple[str, str] | None:
    """The (metric α weighs, other) pair of an F_α sweep: precision and recall in either
    order, else the two metrics as listed; None unless exactly two (§9.4)."""
    metrics = tuple(metrics)
    if len(metrics) != 2:
        return None
    return ("precision", "recall") if set(metrics) == {"precision", "recall"} else metrics


def _sweep(table: ScoreTable, p: str, r: str, alphas: Sequence[float],
           ) -> dict[System, dict[float, float]]:
    """Mean over cases of F_α(P_t, R_t) per system and α: F per case, then averaged, as
    the paper compares systems ([UIR] §1, §6.3), not F of the averaged P and R."""
    for system, per in table.items():
        for case, row in per.items():
            for m in (p, r):
                if row[m] < 0:
                    raise UirInputError(f"F_alpha needs scores >= 0: system {system!r}, "
                                        f"case {case!r}, metric {m!r} is {row[m]!r}")
    return {s: {a: math.fsum(f_alpha(row[p], row[r], a) for row in per.values()) / len(per)
                for a in alphas} for s, per in table.items()}


def f_alpha_sweep(scores: Any, precision_metric: str = "precision",
                  recall_metric: str = "recall", alphas: Sequence[float] = ALPHA_SWEEP,
                  ) -> dict[System, dict[float, float]]:
    """``sweep[system][α]``: the mean over test cases of F_α of the two metrics, α
    weighing `precision_metric` (docs/method.md §9.4)."""
    return _sweep(as_score_table(scores, (precision_metric, recall_metric)),
                  precision_metric, recall_metric, alphas)


# ------------------------------------------------- matrix, reference systems


@dataclass(frozen=True)
class ReferenceSystem:
    """argmax_{s ≠ system} UIR(s, system) ([UIR] §6.4): ``reference`` is the first of the
    systems reaching the maximum, ``tied`` all of them."""

    system: System
    reference: System
    uir: float
    tied: tuple[System, ...]


def reference_system(matrix: Mapping[System, Mapping[System, float]],
                     ) -> dict[System, ReferenceSystem]:
    """Each system's reference system, the one that improves it with maximal UIR
    ([UIR] §6.4, Table 7): the system it should be replaced with."""
    out = {}
    for a in matrix:
        others = [s for s in matrix if s != a]
        best = max(matrix[s][a] for s in others)
        tied = tuple(s for s in others if matrix[s][a] == best)
        out[a] = ReferenceSystem(a, tied[0], best, tied)
    return out


def improved_systems(matrix: Mapping[System, Mapping[System, float]],
                     threshold: float = UIR_ROBUST_THRESHOLD) -> dict[System, list[System]]:
    """For each system a, the systems b with UIR(a, b) ≥ `threshold` ([UIR] Table 7)."""
    return {a: [b for b in matrix if b != a and matrix[a][b] >= threshold] for a in matrix}


@dataclass(frozen=True)
class UirSummary:
    """The UIR of systems scored on the same cases, as `abcde evaluate` and `abcde uir`
    both report it: ``pairs[(a, b)]`` for a listed before b; ``matrix``,
    ``reference_systems`` and ``improves`` None with one system; ``f_alpha`` None without
    a pair of metrics to sweep, or refused (``f_alpha_error`` says why)."""

    metrics: tuple[str, ...]
    systems: tuple[System, ...]
    pairs: dict[tuple[System, System], UirResult]
    matrix: dict[System, dict[System, float]] | None
    reference_systems: dict[System, ReferenceSystem] | None
    improves: dict[System, list[System]] | None
    f_alpha_metrics: tuple[str, str] | None
    f_alpha: dict[System, dict[float, float]] | None
    f_alpha_error: str | None = None


def uir_summary(table: ScoreTable, metrics: Sequence[str], *, tol: float = 0.0,
                rel_tol: float = DEFAULT_REL_TOL, alphas: Sequence[float] = ALPHA_SWEEP,
                threshold: float = UIR_ROBUST_THRESHOLD) -> UirSummary:
    """Each pair's UIR (computed once), the matrix filled from them (0 on the diagonal,
    antisymmetric), the reference systems, the robust improvements and the F_α sweep of
    a checked table and metrics (`abcde.evaluation.scores.pivot_scores`); docs/method.md
    §9.3–§9.5."""
    metrics = tuple(metrics)
    systems = tuple(table)
    pairs = {(a, b): uir(table[a], table[b], metrics, tol=tol, rel_tol=rel_tol)
             for i, a in enumerate(systems) for b in systems[i + 1:]}
    matrix = refs = improves = None
    if len(systems) >= 2:
        matrix = {s: {t: 0.0 if s == t else pairs[(s, t)].uir if (s, t) in pairs
                      else pairs[(t, s)].swapped().uir for t in systems} for s in systems}
        refs, improves = reference_system(matrix), improved_systems(matrix, threshold)
    pr, sweep, error = f_alpha_metrics(metrics), None, None
    try:
        sweep = _sweep(table, *pr, alphas) if pr else None
    except UirInputError as err:  # a negative score: the sweep alone is refused
        error = str(err)
    return UirSummary(metrics, systems, pairs, matrix, refs, improves, pr, sweep, error)


def uir_matrix(scores: Any, metrics: Sequence[str], *, tol: float = 0.0,
               rel_tol: float = DEFAULT_REL_TOL) -> dict[System, dict[System, float]]:
    """``matrix[a][b] = UIR(a, b)`` of a long or pivoted score table ([UIR] §4.2)."""
    table = as_score_table(scores, metrics)
    if len(table) < 2:
        return {s: {s: 0.0} for s in table}
    return uir_summary(table, metrics, tol=tol, rel_tol=rel_tol, alphas=()).matrix or {}


# ------------------------------------------------------------------ reading


def interpret_uir(result: UirResult | float, threshold: float = UIR_ROBUST_THRESHOLD, *,
                  names: tuple[str, str] = ("A", "B")) -> str:
    """UIR(a, b) in one sentence by the rule of thumb of [UIR] §6.3, with its counts when
    given a `UirResult`: ties cancel ([UIR] §4.2), so a UIR below the threshold means
    either metric-biased cases (F then depends on the weights, what UIR flags) or few
    cases that differ; over fewer than 6 cases nothing is robust (docs/method.md §9.5)."""
    a, b = names
    value = result.uir if isinstance(result, UirResult) else result
    rule = f"UIR {value:+.3f}, robust when |UIR| >= {threshold}"
    if not isinstance(result, UirResult):
        if abs(value) < threshold:
            return (f"not robust ({rule}): {a} beats {b} on every metric in about as many "
                    "test cases as the reverse")
        x, y = (a, b) if value > 0 else (b, a)
        return (f"robust {'improvement' if value > 0 else 'degradation'}: {x} beats {y} on "
                f"every metric in clearly more test cases than the reverse ({rule})")
    n, ties, biased = result.n_cases, result.ties, result.biased
    wins_a, wins_b = result.a_ge_b - ties, result.b_ge_a - ties
    counts = (f"{a} better on every metric in {wins_a} of {n} cases, {b} in {wins_b}, "
              f"{ties} tied, {biased} metric-biased")
    if ties == n:
        return f"no difference: {a} and {b} score the same on every metric in all {n} cases"
    if n < MIN_CASES_FOR_ROBUST and abs(value) >= threshold:
        return (f"{'improvement' if value > 0 else 'degradation'} by the rule of thumb "
                f"({rule}), but over only {n} test case{'s' if n != 1 else ''}: too few "
                f"to call it robust (even all {n} favouring {a if value > 0 else b} would "
                f"not pass a two-sided sign test at 5%, which needs {MIN_CASES_FOR_ROBUST}"
                f"); add test cases: {counts}")
    if value >= threshold:
        return f"robust improvement of {a} over {b} ({rule}): {counts}"
    if value <= -threshold:
        return f"robust degradation of {a} against {b} ({rule}): {counts}"
    if biased == 0 and (wins_a == 0 or wins_b == 0):
        return (f"{b if wins_a == 0 else a} is better or equal on every metric in every "
                "case, so every weighting of the metrics prefers it; UIR is small only "
                f"because few cases differ ({rule}): {counts}")
    if biased == 0:
        return (f"not robust ({rule}): no case is metric-biased, but each system is better "
                f"on some cases: {counts}")
    return (f"not robust ({rule}): in {biased} case(s) some metrics favour {a} and others "
            f"{b}, so whether F prefers one depends on how the metrics are weighted: "
            f"{counts}")
