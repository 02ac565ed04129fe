"""The Unanimous Improvement Ratio: UIR of two systems, the UIR matrix, reference systems,
the F_α sweep and a plain-language reading (docs/method.md §9.1–§9.5; [UIR] §4–§6).

Input is a per-test-case score table (`abcde.evaluation.scores`): for each system, each
test case t (a truth cluster, a slice, a query set, ...) and each metric x (e.g.
precision, recall) one finite score, higher being better. [UIR] is cited by section
(docs/method.md §0.1):

* unanimous improvement ([UIR] §4.1): Q_X(a) ≥∀ Q_X(b) ⇔ ∀x ∈ X: x(a) ≥ x(b).
  Equality on every metric ("tie") makes both a ≥∀ b and b ≥∀ a true; when some
  metrics favour a and others b the case is "metric-biased" (a ∥ b), neither holds.
  It is the only relation that contradicts no weighting of the metrics ([UIR] §5.2.1).
* UIR ([UIR] §4.2): UIR_{X,T}(a, b) = (|T_{a≥∀b}| − |T_{b≥∀a}|) / |T|, i.e.
  P(a ≥∀ b) − P(b ≥∀ a) estimated by frequencies. Ties are counted on both sides and
  so cancel. Range [−1, 1], UIR(a, b) = −UIR(b, a). [UIR] Table 3: 10 cases, a ≥∀ b on
  6, b ≥∀ a on 4 (two of them ties) → UIR = 0.2.
* F ([UIR] §2.1, van Rijsbergen): F_α(R, P) = 1 / (α/P + (1 − α)/R); α = 0.5 is the
  harmonic mean, α weights *precision* ([UIR] §3.4). The paper compares systems by the
  *average over test cases* of F ([UIR] §1, §6.3, and its per-case Wilcoxon tests,
  §6.1), so the sweep averages per-case F_α; it does not apply F to averaged P and R
  (docs/method.md §9.4).
* reference system ([UIR] §6.4): s_ref(a) = argmax_s UIR(s, a), the system that improves
  a with maximal UIR, i.e. the one a should be replaced with (docs/method.md §9.5).
* rule of thumb ([UIR] §6.3): UIR ≥ 0.25 is "a reasonable threshold" for a robust
  improvement, explicitly "a rough rule of thumb" for the WePS clustering task.

Equality (docs/method.md §9.2; not in the paper, which compares exact published
scores): two scores x, y count as equal when |x − y| ≤ max(tol, rel_tol·max(|x|, |y|)),
rel_tol = 1e-9 by default. Per-case scores computed by an engine are sums whose last
bits depend on the summation order (row order, parallelism, engine), so two runs that
treat a case identically differ by ~1e-16 and, compared exactly, would count as a
unanimous improvement one way or the other instead of a tie. The same equality makes
differences exactly 0 before the parametric UIR (`abcde.evaluation.uir_parametric`) is
fitted.

References
----------
[UIR] E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. *Journal of
Artificial Intelligence Research* 42 (2011) 689–718. doi:10.1613/jair.3401.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from abcde.evaluation.scores import (
    Case,
    CaseScores,
    ScoreTable,
    System,
    UirInputError,
    as_score_table,
    check_metrics,
    examples_text,
    finite_score,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ALPHA_SWEEP",
    "DEFAULT_REL_TOL",
    "UIR_ROBUST_THRESHOLD",
    "ReferenceSystem",
    "UirResult",
    "UirSummary",
    "case_differences",
    "f_alpha",
    "f_alpha_metrics",
    "f_alpha_sweep",
    "improved_systems",
    "interpret_uir",
    "reference_system",
    "uir",
    "uir_matrix",
    "uir_pairs",
    "uir_summary",
]

#: α ∈ {0, 0.1, …, 1}: α = 0 is recall alone, α = 1 precision alone ([UIR] §2.1).
ALPHA_SWEEP: tuple[float, ...] = tuple(i / 10 for i in range(11))

#: [UIR] §6.3: "UIR ≥ 0.25 can be a reasonable threshold, at least for this clustering task".
UIR_ROBUST_THRESHOLD = 0.25

#: Over fewer test cases no UIR is telling: one case moves it by 1/n, and even every case
#: favouring one system would not pass a two-sided sign test at 5% (5 of 5: p = 0.0625;
#: 6 of 6: p = 0.031). [UIR] leaves the dependence on the number of cases untested (its
#: study of UIR's predictive power), deeming fewer cases unlikely; docs/method.md §9.5.
MIN_CASES_FOR_ROBUST = 6

#: Default relative tolerance of every comparison of two scores (docs/method.md §9.2):
#: far above float noise (~1e-16 relative) and far below any real difference of metrics.
DEFAULT_REL_TOL = 1e-9


# --------------------------------------------------------------------------- UIR


@dataclass(frozen=True)
class UirResult:
    """UIR(a, b) over test cases T with its counts ([UIR] §4.2; docs/method.md §9.3).

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
        """Plain-language reading by the 0.25 rule of thumb ([UIR] §6.3), with the counts."""
        return interpret_uir(self)


def _check_tolerances(tol: float, rel_tol: float) -> None:
    for name, x in (("tol", tol), ("rel_tol", rel_tol)):
        if isinstance(x, bool) or not (math.isfinite(x) and x >= 0):
            raise UirInputError(f"{name} must be finite and >= 0, got {x!r}")
    if rel_tol >= 1:
        raise UirInputError(f"rel_tol must be < 1, got {rel_tol!r}")


def _equal(x: float, y: float, tol: float, rel_tol: float) -> bool:
    """|x − y| ≤ max(tol, rel_tol·max(|x|, |y|)) (docs/method.md §9.2)."""
    return abs(x - y) <= max(tol, rel_tol * max(abs(x), abs(y)))


def _case_relation(
    a: Mapping[str, float],
    b: Mapping[str, float],
    metrics: Sequence[str],
    tol: float,
    rel_tol: float,
) -> tuple[bool, bool]:
    """(a ≥∀ b, b ≥∀ a) on one test case ([UIR] §4.1), equal scores counting both ways."""
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
            vals[m] = finite_score(row[m], f"system {name}, case {case!r}, metric {m!r}")
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
    """UIR(a, b) = (|T_{a≥∀b}| − |T_{b≥∀a}|) / |T| ([UIR] §4.2).

    a ≥∀ b on a case ⇔ every metric of a ≥ that of b ([UIR] §4.1); a case equal on all
    metrics counts on both sides.

    Parameters
    ----------
    scores_a, scores_b : mapping
        ``scores_a[case][metric]`` is system a's score. Both systems must have the same
        cases and every metric of `metrics` on each (higher is better for every metric).
    metrics : sequence of str
        The metrics X combined.
    tol, rel_tol : float
        Scores x, y are equal when |x − y| ≤ max(tol, rel_tol·max(|x|, |y|)) (default:
        relative 1e-9, which absorbs the float noise of summed scores; ``rel_tol=0``
        with ``tol=0`` compares exactly, as the paper does with published scores).

    Returns
    -------
    UirResult
        The UIR with the counts a ≥∀ b, b ≥∀ a, ties and metric-biased cases.

    Raises
    ------
    UirInputError
        Different cases, a missing or non-finite score, no case, bad tolerances.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §4.1 (unanimous improvement), §4.2 (UIR, Table 3). docs/method.md §9.2–§9.3.

    Examples
    --------
    >>> a = {"t1": {"p": 0.5, "r": 0.5}, "t2": {"p": 0.9, "r": 0.1}}
    >>> b = {"t1": {"p": 0.4, "r": 0.4}, "t2": {"p": 0.1, "r": 0.9}}
    >>> uir(a, b, ["p", "r"]).uir
    0.5
    """
    metrics = check_metrics(metrics)
    _check_tolerances(tol, rel_tol)
    a = _validated_case_table(scores_a, metrics, "a")
    b = _validated_case_table(scores_b, metrics, "b")
    only_a = [c for c in a if c not in b]
    only_b = [c for c in b if c not in a]
    if only_a or only_b:
        parts = []
        if only_a:
            parts.append(f"{len(only_a)} case(s) only in a: {examples_text(only_a)}")
        if only_b:
            parts.append(f"{len(only_b)} case(s) only in b: {examples_text(only_b)}")
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


def case_differences(
    scores_a: CaseScores,
    scores_b: CaseScores,
    metrics: Sequence[str],
    *,
    tol: float = 0.0,
    rel_tol: float = DEFAULT_REL_TOL,
    names: tuple[str, str] = ("a", "b"),
) -> np.ndarray:
    """Per-case differences a − b, the input of the parametric UIR.

    Scores equal by `uir`'s equality (`tol`, `rel_tol`) give a difference of exactly 0,
    so that float noise neither tilts the fitted mean nor makes a constant (tied)
    metric look variable.

    Parameters
    ----------
    scores_a, scores_b : mapping
        ``scores[case][metric]`` of systems a and b, on the same cases.
    metrics : sequence of str
        One column per metric, in this order.
    tol, rel_tol : float
        The equality of scores, as in `uir`.
    names : (str, str)
        How messages name systems a and b (their names in the score table).

    Returns
    -------
    numpy.ndarray
        Shape (n_cases, n_metrics), cases in a's order.

    Raises
    ------
    UirInputError
        Different cases, a missing or non-finite score, bad tolerances; a difference
        beyond a float's range (scores near ±1.8e308 of opposite signs), naming the
        systems, the case and the metric.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §8 (parametric UIR). docs/method.md §9.2, §9.6.
    """
    import numpy as np  # here: one evaluated run never fits the parametric UIR

    metrics = check_metrics(metrics)
    _check_tolerances(tol, rel_tol)
    a = _validated_case_table(scores_a, metrics, names[0])
    b = _validated_case_table(scores_b, metrics, names[1])
    if set(a) != set(b):
        diff = [c for c in a if c not in b] + [c for c in b if c not in a]
        raise UirInputError(f"{names[0]} and {names[1]} have different cases, e.g. "
                            f"{examples_text(diff)}")
    out = np.array(
        [
            [0.0 if _equal(a[c][m], b[c][m], tol, rel_tol) else a[c][m] - b[c][m] for m in metrics]
            for c in a
        ],
        dtype=float,
    )
    over = np.argwhere(~np.isfinite(out))
    if len(over):  # finite scores, but their difference is beyond a float's range
        c, m = list(a)[over[0][0]], metrics[over[0][1]]
        raise UirInputError(
            f"systems {names[0]} and {names[1]}, case {c!r}, metric {m!r}: the difference "
            f"of their scores {a[c][m]!r} and {b[c][m]!r} is beyond a float's range "
            f"(±{sys.float_info.max:.3g}), which the parametric UIR fits; rescale the "
            "metric's scores")
    return out


# ------------------------------------------------------------------ the matrix


def uir_pairs(
    scores: Iterable[Sequence[object]] | ScoreTable,
    metrics: Sequence[str],
    *,
    tol: float = 0.0,
    rel_tol: float = DEFAULT_REL_TOL,
) -> dict[tuple[System, System], UirResult]:
    """UIR(a, b) with its counts for every pair of systems, a listed before b.

    Parameters
    ----------
    scores : iterable of rows, or dict
        The long table of (system, case, metric, value) rows, or an already pivoted
        ``table[system][case][metric]``, validated by `abcde.evaluation.scores.pivot_scores`.
    metrics : sequence of str
        The metrics combined.
    tol, rel_tol : float
        The equality of scores, as in `uir`.

    Returns
    -------
    dict
        ``pairs[(a, b)] = uir(a, b)`` for a before b in order of first appearance.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §4.2. docs/method.md §9.3.
    """
    metrics = check_metrics(metrics)
    return _pairs(as_score_table(scores, metrics), metrics, tol, rel_tol)


def _pairs(table: ScoreTable, metrics: tuple[str, ...], tol: float, rel_tol: float,
           ) -> dict[tuple[System, System], UirResult]:
    """`uir_pairs` of a table `as_score_table` returned."""
    systems = list(table)
    return {(a, b): uir(table[a], table[b], metrics, tol=tol, rel_tol=rel_tol)
            for i, a in enumerate(systems) for b in systems[i + 1:]}


def _matrix(systems: Sequence[System], pairs: Mapping[tuple[System, System], UirResult]
            ) -> dict[System, dict[System, float]]:
    """The one place the matrix is filled: 0 on the diagonal, antisymmetric, no −0.0."""
    out: dict[System, dict[System, float]] = {s: {} for s in systems}
    for i, a in enumerate(systems):
        out[a][a] = 0.0
        for b in systems[i + 1:]:
            value = pairs[(a, b)].uir
            out[a][b] = value
            out[b][a] = -value if value else 0.0
    return out


def uir_matrix(
    scores: Iterable[Sequence[object]] | ScoreTable,
    metrics: Sequence[str],
    *,
    tol: float = 0.0,
    rel_tol: float = DEFAULT_REL_TOL,
) -> dict[System, dict[System, float]]:
    """``matrix[a][b] = UIR(a, b)`` for every ordered pair of systems ([UIR] §4.2).

    The diagonal is 0 (a system ties with itself on every case) and the matrix is
    antisymmetric. Systems keep their order of first appearance. `uir_summary` builds
    the same matrix with the pairs' counts, reference systems and the F_α sweep.

    Parameters
    ----------
    scores : iterable of rows, or dict
        The long table of (system, case, metric, value) rows, or an already pivoted
        ``table[system][case][metric]``, validated by `abcde.evaluation.scores.pivot_scores`.
    metrics : sequence of str
        The metrics combined.
    tol, rel_tol : float
        The equality of scores, as in `uir`.

    Returns
    -------
    dict
        ``matrix[a][b]``, a and b in order of first appearance.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §4.2, §6.4 (Table 7). docs/method.md §9.3.
    """
    metrics = check_metrics(metrics)
    table = as_score_table(scores, metrics)
    return _matrix(list(table), uir_pairs(table, metrics, tol=tol, rel_tol=rel_tol))


# --------------------------------------------------------------------- F_alpha


def f_alpha(p: float, r: float, alpha: float) -> float:
    """van Rijsbergen's F_α(R, P) = 1 / (α/P + (1 − α)/R) ([UIR] §2.1).

    α = 0.5 is the harmonic mean of P and R; α weights precision: α = 1 gives P,
    α = 0 gives R. If P or R is 0 (and carries weight), F is 0, its limit.

    Parameters
    ----------
    p, r : float
        Precision and recall (or any two scores ≥ 0; α weights the first).
    alpha : float
        In [0, 1].

    Returns
    -------
    float
        F_α.

    Raises
    ------
    ValueError
        A negative or non-finite score, α outside [0, 1].

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §2.1, §3.4. docs/method.md §9.4.

    Examples
    --------
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

    The paper compares systems by F averaged over test cases ([UIR] §1 "average
    difference in F", §6.3 "the average F increases for all α values"), i.e. F is
    computed per case and then averaged — not F of the averaged P and R.

    Parameters
    ----------
    scores : iterable of rows, or dict
        The long table or ``table[system][case][metric]``.
    precision_metric : str
        The metric α weights (precision, purity, BCubed precision, …).
    recall_metric : str
        The other metric.
    alphas : sequence of float
        The α values, each in [0, 1] (default 0, 0.1, …, 1).

    Returns
    -------
    dict
        ``sweep[system][alpha]`` = mean over cases of F_α (summed with ``math.fsum``).

    Raises
    ------
    UirInputError
        The two metrics are the same, no α or one outside [0, 1], a negative score.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §1, §2.1, §3.4, §6.3. docs/method.md §9.4.
    """
    alphas = _sweep_alphas(precision_metric, recall_metric, alphas)
    return _sweep(as_score_table(scores, (precision_metric, recall_metric)),
                  precision_metric, recall_metric, alphas)


def _sweep_alphas(precision_metric: str, recall_metric: str, alphas: Sequence[float],
                  ) -> tuple[float, ...]:
    """The α values of `f_alpha_sweep`, checked with its two metrics."""
    if precision_metric == recall_metric:
        raise UirInputError("precision_metric and recall_metric must differ")
    return check_alphas(alphas)


def check_alphas(alphas: Sequence[float]) -> tuple[float, ...]:
    """The α values of an F_α sweep, checked.

    Parameters
    ----------
    alphas : sequence of float
        A non-empty sequence of numbers in [0, 1] (F_α of any other α is no weighted
        harmonic mean of the two metrics).

    Returns
    -------
    tuple of float
        The values as floats.

    Raises
    ------
    UirInputError
        Not a sequence, empty, or a value that is no number in [0, 1] (NaN included).

    References
    ----------
    docs/method.md §9.4.
    """
    if isinstance(alphas, str) or not isinstance(alphas, Iterable):
        raise UirInputError(f"alphas must be a sequence of numbers in [0, 1], got {alphas!r}")
    out = []
    for a in alphas:
        try:
            value = float(a)
        except (TypeError, ValueError):
            raise UirInputError(f"alpha must be a number in [0, 1], got {a!r}") from None
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise UirInputError(f"alpha must lie in [0, 1], got {a!r}")
        out.append(value)
    if not out:
        raise UirInputError("alphas is empty")
    return tuple(out)


def _sweep(table: ScoreTable, precision_metric: str, recall_metric: str,
           alphas: tuple[float, ...]) -> dict[System, dict[float, float]]:
    """`f_alpha_sweep` of a table `as_score_table` returned; it reads only the two
    metrics, so a table of more metrics serves as well."""
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

    F_α combines exactly two metrics: with two metrics selected, α weights
    ``precision`` if the pair is precision and recall (in any order), else the first
    one listed; with any other number of metrics there is no F_α sweep.

    Parameters
    ----------
    metrics : sequence of str
        The UIR metrics.

    Returns
    -------
    tuple of two str, or None
        (the metric α weights, the other), or None without a sweep.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §2.1. docs/method.md §9.4.
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
    """s_ref(system) = argmax_{s ≠ system} UIR(s, system) ([UIR] §6.4) and that UIR.

    ``tied`` lists every system reaching the maximum (``reference`` is the first of
    them in matrix order). ``uir`` ≥ 0.25 means replacing ``system`` by
    ``reference`` is a robust improvement by the rule of thumb ([UIR] §6.3).
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
    """For each system a, the system that improves it with maximal UIR ([UIR] §6.4).

    [UIR] §6.4, Table 7: "given a system a, its reference system is the one that
    improves a with maximal UIR: s_ref(a) = argmax_s UIR(s, a)", i.e. the system a
    should be replaced with.

    Parameters
    ----------
    matrix : mapping
        ``matrix[x][y] = UIR(x, y)``, as from `uir_matrix`; at least two systems.

    Returns
    -------
    dict
        ``refs[a]``: a `ReferenceSystem` (every system reaching the maximum in ``tied``).

    Raises
    ------
    UirInputError
        Fewer than two systems, or a missing entry.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §6.4 (Table 7). docs/method.md §9.5.
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
    """For each system a, the systems b with UIR(a, b) ≥ `threshold`.

    Parameters
    ----------
    matrix : mapping
        ``matrix[x][y] = UIR(x, y)``, as from `uir_matrix`.
    threshold : float
        Default 0.25, the rule of thumb of [UIR] §6.3.

    Returns
    -------
    dict
        ``improves[a]``: the systems a improves robustly, in matrix order.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §6.3, §6.4 (Table 7). docs/method.md §9.5.
    """
    systems = _check_matrix(matrix)
    return {a: [b for b in systems if b != a and matrix[a][b] >= threshold] for a in systems}


def interpret_uir(
    result: UirResult | float,
    threshold: float = UIR_ROBUST_THRESHOLD,
    *,
    names: tuple[str, str] = ("A", "B"),
) -> str:
    """Plain-language reading of UIR(a, b) by the rule of thumb of [UIR] §6.3.

    The paper finds UIR ≥ 0.25 "a reasonable threshold" for an improvement robust to
    the relative weighting of the metrics ([UIR] §6.3), "a rough rule of thumb that
    should be revised" beyond WePS clustering. Given a `UirResult`, the reading also
    uses its counts: ties count on both sides and cancel ([UIR] §4.2), so a UIR below
    the threshold has two very different causes — metric-biased cases (some metrics
    favour a, others b: F then depends on the weights, what UIR is designed to flag) or
    cases where the systems simply tie. With no biased case and b never better, a is
    better or equal on every metric in every case: every weighting (every α) prefers a
    on every case, and a small UIR only says that few cases changed.

    Parameters
    ----------
    result : UirResult or float
        UIR(a, b) with its counts, or the bare value (then the counts are unknown).
    threshold : float
        Default 0.25.
    names : tuple of two str
        The names of a and b in the text.

    Returns
    -------
    str
        One sentence.

    Raises
    ------
    ValueError
        A value outside [−1, 1].

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §4.2, §6.3. docs/method.md §9.3, §9.5.
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
    if n < MIN_CASES_FOR_ROBUST and abs(value) >= threshold:
        better = a if value > 0 else b
        return (f"{'improvement' if value > 0 else 'degradation'} by the rule of thumb "
                f"({rule}), but over only {n} test case{'s' if n != 1 else ''}: too few "
                f"to call it robust (even all {n} favouring {better} would not pass a "
                f"two-sided sign test at 5%, which needs {MIN_CASES_FOR_ROBUST}); add test "
                f"cases: {counts}")
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


# ------------------------------------------------------------------ summary


@dataclass(frozen=True)
class UirSummary:
    """What UIR says about systems scored on the same cases: the one UIR matrix that
    `abcde evaluate` and `abcde uir` both report (under the JSON key ``matrix``).

    ``pairs[(a, b)]`` (a listed before b) holds each pair's counts; ``matrix``,
    ``reference_systems`` and ``improves`` are None with fewer than two systems.
    ``f_alpha`` is None without a pair of metrics to sweep (``f_alpha_metrics`` None)
    or when the sweep was refused (``f_alpha_error`` says why, e.g. a negative score).
    """

    metrics: tuple[str, ...]
    systems: tuple[System, ...]
    pairs: dict[tuple[System, System], UirResult]
    matrix: dict[System, dict[System, float]] | None
    reference_systems: dict[System, ReferenceSystem] | None
    improves: dict[System, list[System]] | None
    f_alpha_metrics: tuple[str, str] | None
    f_alpha: dict[System, dict[float, float]] | None
    f_alpha_error: str | None


def uir_summary(
    scores: Iterable[Sequence[object]] | ScoreTable,
    metrics: Sequence[str],
    *,
    tol: float = 0.0,
    rel_tol: float = DEFAULT_REL_TOL,
    alphas: Sequence[float] = ALPHA_SWEEP,
    threshold: float = UIR_ROBUST_THRESHOLD,
) -> UirSummary:
    """The UIR matrix with each pair's counts, the reference systems, the systems each
    improves by UIR ≥ `threshold` and the mean F_α sweep over the two metrics.

    Each pair's UIR is computed once; the matrix is filled from those pairs as in
    `uir_matrix`.

    Parameters
    ----------
    scores : iterable of rows, or dict
        The long table or ``table[system][case][metric]`` (every system on every case).
    metrics : sequence of str
        The metrics combined; with exactly two, F_α is swept over them (`f_alpha_metrics`).
    tol, rel_tol : float
        The equality of scores, as in `uir`.
    alphas : sequence of float
        The α values of the sweep.
    threshold : float
        The robust-improvement threshold (0.25, [UIR] §6.3).

    Returns
    -------
    UirSummary

    Raises
    ------
    UirInputError
        A bad score table (see `abcde.evaluation.scores.pivot_scores`) or tolerance. A
        refused F_α sweep does not raise: it is reported in ``f_alpha_error``.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §2.1, §4.2, §6.3, §6.4. docs/method.md §9.3–§9.5.
    """
    metrics = check_metrics(metrics)
    # pivoted and checked once (a large evaluate has 10^6 scores): the pairs and the
    # sweep work on this table
    table = as_score_table(scores, metrics)
    systems = tuple(table)
    pairs = _pairs(table, metrics, tol, rel_tol)
    matrix = refs = improves = None
    if len(systems) >= 2:
        matrix = _matrix(systems, pairs)
        refs = reference_system(matrix)
        improves = improved_systems(matrix, threshold)
    pr = f_alpha_metrics(metrics)
    sweep = error = None
    if pr is not None:
        try:
            sweep = _sweep(table, *pr, _sweep_alphas(*pr, alphas))
        except UirInputError as err:
            error = str(err)
    return UirSummary(metrics=metrics, systems=systems, pairs=pairs, matrix=matrix,
                      reference_systems=refs, improves=improves, f_alpha_metrics=pr,
                      f_alpha=sweep, f_alpha_error=error)
