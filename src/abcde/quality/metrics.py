"""The 13 quality metrics as one table of definitions, and the estimator they share
(docs/method.md §8.2–8.6, §8.11).

Every metric is an exact part plus a signed sum of parts, each part "the exact total of
some pair classes under a target population × the share of those classes' pairs with a
verdict value" (ABCDE §5.1, §5.7; Jaccard decomposition §3.1, §7):

    metric = exact + Σ_parts sign · T_part · p̂_part,

- ``exact`` is what needs no verdict: the self pairs (i, i), summed per cell in SQL
  (ΔPrecision's Σ u_ii·l_ii, AffectedGoodIndex's Σ w_ii; docs/method.md §6.8);
- ``T_part`` = Σ_{classes} u or w over pairs i ≠ j, exact (the manifest's ``classes``);
- p̂_part is a ratio (Hájek) estimator over the part's judged draws, each weighted by its
  importance weight toward the part's target — (u_ij/Σu)/q_ij or (w_ij/Σw)/q_ij, at most
  1/α resp. 1/(1 − α) under the mixture design (docs/method.md §6.9) — and by the
  reweighting factor of unknown verdicts (ABCDE §5.8).

A :class:`Metric` row lists its :class:`Part` rows; :data:`METRICS` holds the 13 rows,
and :func:`estimate_metric` turns a row and a judged sample into an
:class:`~abcde.quality.result.Estimate`: a (modified) Wilson interval per part at its
effective sample size — the smaller of the sample's and the design's expected
(docs/method.md §8.8, §8.11) — combined by MOVER, signs included. The per-metric
functions (:func:`delta_precision`, :func:`good_split_rate`, …) are generated from the
table.

Decisions where the papers leave room (docs/method.md §8.3–8.6, §8.11):

- a part whose classes have total 0 adds exactly 0; a metric with no other part is
  exact (e.g. AffectedGoodIndex when every stable pair is a self pair), the only case
  labelled "exact";
- a part of a sum (ΔPrecision, the indexes, GoodDistance, BadDistance: one part per
  class) whose class was not drawn, or drawn but never judged, is bounded by
  [0, T_part] (its share is unknown; never 0): the whole range is added to the
  metric's limits, and the note says so; a metric of one part
  (a rate, a distance) is then undefined (ABCDE §5.8: its share cannot be reweighted);
- a design that never draws some pairs of a part (α = 1: stable pairs with W_b = W_e,
  Jaccard decomposition §6.1) cannot estimate it: undefined, "not available";
- a metric whose effective sample size is below :data:`MIN_N_EFF` is ``not_conclusive``
  (the reason says which part and whether the design's weights are to blame).

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5.1–5.8.

S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google
Switzerland, 2024, §3.1, §4, §6–8.

T. C. Hesterberg. Weighted average importance sampling and defensive mixture
distributions. Technometrics 37(2):185–194, 1995.

L. Kish. Survey Sampling. John Wiley & Sons, New York, 1965.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from abcde.quality.intervals import (
    DEFAULT_SE,
    design_n_eff,
    effective_n,
    interval,
    mover_limits,
    reweighted_mean_se,
    z_value,
)
from abcde.quality.result import Estimate, UnknownRange, exact_value, undefined
from abcde.quality.sample import (
    CLASS_KEYS,
    KEY_MERGE,
    KEY_MINUS,
    KEY_PLUS,
    KEY_SPLIT,
    KEY_ZERO,
    JudgedSample,
    class_tallies,
    count_distinct,
    equivalent,
)

ABCDE = (
    "S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024, "
    "arXiv:2407.21430."
)
JACCARD = (
    "S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. "
    "Google Switzerland, 2024."
)

INDICATORS = ("equivalent", "not_equivalent")
"""The verdict value a part averages: 1(i≡j) or 1(i≢j) (docs/method.md §8.4)."""
TARGETS = {"u": "the ABCDE population u_ij (ABCDE §5.7)",
           "w": "the Jaccard population w_ij (Jaccard decomposition §7)"}
"""The population whose pair weights a part sums (docs/method.md §6.2–6.3)."""
EXACT_PARTS = {
    "delta_precision": "Σ_i u_ii·l_ii, the self pairs' share of ΔPrecision",
    "affected_good_index": "Σ_{i affected} w_ii, the self pairs' share of AffectedGoodIndex",
}
"""The parts that need no verdict: the manifest's ``exact`` (docs/method.md §6.8)."""

MIN_N_EFF = 10.0
"""Below this effective sample size a metric, or a part that carries at least
:data:`PART_SHARE` of its Σ T²/n_eff, is ``not_conclusive`` (docs/method.md §8.11: below it
the ratio estimators' bias became visible in the measurements, benchmarks/RESULTS.md)."""
PART_SHARE = 0.25
"""A part with this share of the metric's Σ T²/n_eff decides alone (docs/method.md §8.11)."""
MAX_UNKNOWN_SHARE = 0.2
"""Above this share of unknown verdicts the reweighting's assumption (unknown pairs missing
at random, ABCDE §5.8) is not taken on trust: of the whole sample, a sample-wide warning
(:func:`abcde.quality.wording.sample_warnings`); of the draws of a part that carries at
least :data:`PART_SHARE` of a metric's Σ|T|, that metric is ``not_conclusive``
(docs/method.md §8.11)."""
UNKNOWN_REASON = "unknown verdicts"
"""How a not-conclusive reason of :data:`MAX_UNKNOWN_SHARE` starts (its wording differs)."""
HEAVY_TAIL_EFFICIENCY = 0.5
"""A not-conclusive part is blamed on the design's heavy-tailed weights only when the
design's expected n_eff is below this share of the part's expected draws
(:func:`design_efficiency`); else on too few draws (docs/method.md §8.11)."""

STABLE = (KEY_PLUS, KEY_MINUS, KEY_ZERO)


def _per_stable(target: str, indicator: str) -> tuple[Part, ...]:
    return tuple(Part(1, target, (c,), indicator) for c in STABLE)


@dataclass(frozen=True)
class Part:
    """One term sign · T · p̂ of a metric (docs/method.md §8.2).

    Attributes
    ----------
    sign : int
        +1 or −1 (ΔPrecision's split pairs and stable pairs with W_b < W_e count
        negatively: ABCDE eq. 56–58).
    target : {"u", "w"}
        The population whose pair weights T sums and toward which the draws are weighted.
    classes : tuple of int
        Codes of :data:`~abcde.quality.sample.CLASS_KEYS`.
    indicator : {"equivalent", "not_equivalent"}
        The verdict value p̂ averages.
    """

    sign: int
    target: str
    classes: tuple[int, ...]
    indicator: str


@dataclass(frozen=True)
class Metric:
    """One quality metric: exact + Σ sign·T·p̂ over its parts (docs/method.md §8.2, §8.4).

    Attributes
    ----------
    key : str
        JSON key in ``abcde estimate --format json``.
    label : str
        The papers' name, e.g. "GoodSplitRate".
    parts : tuple of Part
        The sampled terms.
    exact : str or None
        A key of :data:`EXACT_PARTS`: the part that needs no verdict.
    decomposes : str or None
        The exact impact metric this metric is a part of (good + bad = it).
    definition : str
        The formula, in the papers' names.
    references : tuple of str
        Sections and equations, "ABCDE …" or "Jaccard decomposition …".
    """

    key: str
    label: str
    parts: tuple[Part, ...]
    exact: str | None = None
    decomposes: str | None = None
    definition: str = ""
    references: tuple[str, ...] = ()


def _one(target: str, classes: tuple[int, ...], indicator: str) -> tuple[Part, ...]:
    return (Part(1, target, classes, indicator),)


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric(
            key="delta_precision", label="ΔPrecision", exact="delta_precision",
            parts=(Part(-1, "u", (KEY_SPLIT,), "equivalent"),
                   Part(1, "u", (KEY_MERGE,), "equivalent"),
                   Part(1, "u", (KEY_PLUS,), "equivalent"),
                   Part(-1, "u", (KEY_MINUS,), "equivalent")),
            definition="ΔPrecision(T) = Σ_i u_ii·l_ii − BadSplitRate(T) + GoodMergeRate(T) + "
            "Σ_{stable, W_b > W_e} u_ij 1(i≡j) − Σ_{stable, W_b < W_e} u_ij 1(i≡j)",
            references=("ABCDE eq. 26, 39, 56–58, §5.3, §5.7–5.8",
                        "Jaccard decomposition eq. 80, §6.1"),
        ),
        Metric(
            key="good_split_rate", label="GoodSplitRate",
            parts=_one("u", (KEY_SPLIT,), "not_equivalent"), decomposes="split_rate",
            definition="GoodSplitRate(T) = SplitRate(T) · the u-weighted share of split "
            "draws with 1(i≢j)",
            references=("ABCDE eq. 41, 47–49, §5.6.1, §5.7",),
        ),
        Metric(
            key="bad_split_rate", label="BadSplitRate",
            parts=_one("u", (KEY_SPLIT,), "equivalent"), decomposes="split_rate",
            definition="BadSplitRate(T) = SplitRate(T) · the u-weighted share of split draws "
            "with 1(i≡j)",
            references=("ABCDE eq. 42, §5.7",),
        ),
        Metric(
            key="good_merge_rate", label="GoodMergeRate",
            parts=_one("u", (KEY_MERGE,), "equivalent"), decomposes="merge_rate",
            definition="GoodMergeRate(T) = MergeRate(T) · the u-weighted share of merge "
            "draws with 1(i≡j)",
            references=("ABCDE eq. 43, §5.6.2, §5.7",),
        ),
        Metric(
            key="bad_merge_rate", label="BadMergeRate",
            parts=_one("u", (KEY_MERGE,), "not_equivalent"), decomposes="merge_rate",
            definition="BadMergeRate(T) = MergeRate(T) · the u-weighted share of merge draws "
            "with 1(i≢j)",
            references=("ABCDE eq. 44, §5.7",),
        ),
        Metric(
            key="good_split_distance", label="GoodSplitDistance",
            parts=_one("w", (KEY_SPLIT,), "not_equivalent"), decomposes="split_distance",
            definition="GoodSplitDistance(T) = SplitDistance(T) · the w-weighted share of "
            "split draws with 1(i≢j)",
            references=("Jaccard decomposition eq. 5, 23–30, §4.4",),
        ),
        Metric(
            key="bad_split_distance", label="BadSplitDistance",
            parts=_one("w", (KEY_SPLIT,), "equivalent"), decomposes="split_distance",
            definition="BadSplitDistance(T) = SplitDistance(T) · the w-weighted share of "
            "split draws with 1(i≡j)",
            references=("Jaccard decomposition eq. 6, §4.4",),
        ),
        Metric(
            key="good_merge_distance", label="GoodMergeDistance",
            parts=_one("w", (KEY_MERGE,), "equivalent"), decomposes="merge_distance",
            definition="GoodMergeDistance(T) = MergeDistance(T) · the w-weighted share of "
            "merge draws with 1(i≡j)",
            references=("Jaccard decomposition eq. 7, §4.3–4.4",),
        ),
        Metric(
            key="bad_merge_distance", label="BadMergeDistance",
            parts=_one("w", (KEY_MERGE,), "not_equivalent"), decomposes="merge_distance",
            definition="BadMergeDistance(T) = MergeDistance(T) · the w-weighted share of "
            "merge draws with 1(i≢j)",
            references=("Jaccard decomposition eq. 8, §4.4",),
        ),
        Metric(
            key="good_distance", label="GoodDistance",
            parts=(Part(1, "w", (KEY_SPLIT,), "not_equivalent"),
                   Part(1, "w", (KEY_MERGE,), "equivalent")),
            decomposes="jaccard_distance",
            definition="GoodDistance(T) = GoodSplitDistance(T) + GoodMergeDistance(T)",
            references=("Jaccard decomposition eq. 11, 21, §4.4, §8",),
        ),
        Metric(
            key="bad_distance", label="BadDistance",
            parts=(Part(1, "w", (KEY_SPLIT,), "equivalent"),
                   Part(1, "w", (KEY_MERGE,), "not_equivalent")),
            decomposes="jaccard_distance",
            definition="BadDistance(T) = BadSplitDistance(T) + BadMergeDistance(T)",
            references=("Jaccard decomposition eq. 12, 22, §4.4, §8",),
        ),
        Metric(
            key="affected_good_index", label="AffectedGoodIndex", exact="affected_good_index",
            parts=_per_stable("w", "equivalent"), decomposes="affected_jaccard_index",
            definition="AffectedGoodIndex(T) = Σ_{i affected} w_ii + (AffectedJaccardIndex(T) − "
            "Σ w_ii) · the w-weighted share of stable draws with 1(i≡j)",
            references=("Jaccard decomposition eq. 41, 56–58, §7–8",),
        ),
        Metric(
            key="affected_bad_index", label="AffectedBadIndex",
            parts=_per_stable("w", "not_equivalent"), decomposes="affected_jaccard_index",
            definition="AffectedBadIndex(T) = (AffectedJaccardIndex(T) − Σ w_ii) · the "
            "w-weighted share of stable draws with 1(i≢j)",
            references=("Jaccard decomposition eq. 42, 59, §7",),
        ),
    )
}
"""The 13 quality metrics, in the order of ``abcde estimate`` (docs/method.md §8.4)."""

METRIC_KEYS = tuple(METRICS)
RATE_KEYS = tuple(k for k in METRICS if k.endswith("_rate"))
DISTANCE_KEYS = tuple(k for k in METRICS if k.endswith("_distance"))
INDEX_KEYS = tuple(k for k in METRICS if k.endswith("_index"))


@dataclass(frozen=True)
class Design:
    """What the estimators need of the sample's design and population (the manifest).

    Attributes
    ----------
    classes : mapping of str to mapping
        Per class key (:data:`~abcde.quality.sample.CLASS_KEYS`): ``u``, ``w`` (the
        class's exact totals), ``kish_u``, ``kish_w`` (the design's expected Kish
        effective draws per draw toward each target), ``u_uncovered``, ``w_uncovered``.
    exact : mapping of str to float
        The exact parts (:data:`EXACT_PARTS`).
    sums : mapping of str to float
        Σu and Σw over pairs i ≠ j.
    scale : mapping of str to float
        Per class key, the sample's draws per unit of design probability (all draws of
        an unstratified sample; a stratum's draws / its probability Q_h), the n of the
        design's expected effective sample size.
    """

    classes: Mapping[str, Mapping[str, float]]
    exact: Mapping[str, float]
    sums: Mapping[str, float]
    scale: Mapping[str, float]


def indicator_values(part: Part, s: JudgedSample) -> np.ndarray:
    """The verdict value a part averages, per draw row (0 for unknown rows).

    Parameters
    ----------
    part : Part
        A part of a row of :data:`METRICS`.
    s : JudgedSample
        The judged sample.

    Returns
    -------
    numpy.ndarray
        1(i≡j) or 1 − 1(i≡j).

    References
    ----------
    docs/method.md §8.4.
    """
    v = equivalent(s)
    return v if part.indicator == "equivalent" else 1 - v


def design_expected_n_eff(part: Part, design: Design) -> float:
    """The design's expected Kish effective sample size of a part's importance weights.

    With p(s) = t_target(s)/Σt_target and q(s) the design's probability of stratum s,
    n_eff = n·(Σ_{s∈part} p(s))²/Σ_{s∈part} p(s)²/q(s) (Kish 1965), n the draws per
    unit of q (:attr:`Design.scale`). It is computed from the population, not from the
    draws, so it sees pairs the sample did not draw: under a design whose weights toward
    the part's target are unbounded (α = 0 for u, α = 1 for w) it is small even when
    the sample looks tame (docs/method.md §8.11).

    Parameters
    ----------
    part : Part
        A part of a row of :data:`METRICS`.
    design : Design
        The sample's design.

    Returns
    -------
    float
        0 when the design gives the part's classes no probability.

    References
    ----------
    docs/method.md §6.9, §8.11. L. Kish. Survey Sampling. John Wiley & Sons, New York,
    1965.
    """
    total = design.sums[part.target]
    if total <= 0:
        return 0.0
    share = 0.0
    square = 0.0
    for code in part.classes:
        c = design.classes[CLASS_KEYS[code]]
        p = c[part.target] / total
        share += p
        kish = c[f"kish_{part.target}"]
        if kish > 0:
            square += p * p / kish
    scale = min(design.scale[CLASS_KEYS[code]] for code in part.classes)
    return scale * share * share / square if square > 0 else 0.0


def design_efficiency(part: Part, design: Design) -> float:
    """The design's expected Kish n_eff of a part per expected draw of its classes.

    n_design / (n·Σ_{k∈part} q_k), n the draws per unit of design probability: 1 when
    the part's importance weights are constant over its strata, small when a few
    improbable strata carry its target (heavy tails). Unlike n_design it does not shrink
    with the sample: a sample of one draw has n_design < 1 under any design.

    Parameters
    ----------
    part : Part
        A part of a row of :data:`METRICS`.
    design : Design
        The sample's design.

    Returns
    -------
    float
        In [0, 1]; 1 when the design gives the part's classes no probability.

    References
    ----------
    docs/method.md §6.9, §8.11. L. Kish. Survey Sampling. John Wiley & Sons, New York,
    1965.
    """
    q = sum(design.classes[CLASS_KEYS[code]]["q"] for code in part.classes)
    scale = min(design.scale[CLASS_KEYS[code]] for code in part.classes)
    if not (q > 0 and scale > 0):
        return 1.0
    return design_expected_n_eff(part, design) / (scale * q)


@dataclass(frozen=True)
class PartEstimate:
    """One part's T, p̂, its interval and effective sample sizes (for the metric)."""

    total: float
    p: float
    low: float
    high: float
    se: float | None
    n_eff: float
    n_design: float
    pairs: np.ndarray
    draws: int
    drawn: bool
    efficiency: float = 1.0  # design_efficiency, when the design caps n_eff
    unknown: float = 0.0  # the share of the part's draws without a verdict


def estimate_metric(
    metric: Metric,
    s: JudgedSample,
    design: Design,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
    mask: np.ndarray | None = None,
    factors: np.ndarray | None = None,
    what: str | None = None,
    cache: dict[Any, PartEstimate] | None = None,
    design_cap: bool | None = None,
) -> Estimate:
    """exact + Σ sign · T · p̂ over the metric's parts, with its interval.

    Per part: T from the design's class totals; p̂ the ratio of importance- and
    unknown-weighted verdict values over the part's judged draws
    (:func:`~abcde.quality.intervals.reweighted_mean_se`, with its linearised SE); its
    effective sample size the smaller of the sample's
    (:func:`~abcde.quality.intervals.effective_n`) and the design's expected one
    (:func:`design_expected_n_eff`, scaled by the judged share of the part's draws); its
    interval the modified Wilson interval of p̂ at that size. The parts combine by MOVER
    (a negative part flips its interval). The metric's ``n_eff`` is
    (Σ T)²/Σ T²/n_eff,part — a part without draws counting as one — and below
    :data:`MIN_N_EFF` the estimate is ``not_conclusive``.

    Parameters
    ----------
    metric : Metric
        A row of :data:`METRICS`.
    s : JudgedSample
        The judged sample.
    design : Design
        The sample's class totals, exact parts and design quantities.
    confidence : float
        The interval's level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se`.
    mask : numpy.ndarray, optional
        Restrict to these draw rows (a slice).
    factors : numpy.ndarray, optional
        Reweighting factors recomputed within ``mask``
        (:func:`~abcde.quality.sample.slice_factors`); default the sample's.
    what : str, optional
        The name in messages (default the metric's key).
    cache : dict, optional
        Parts already estimated for the same sample, mask and factors (metrics share
        parts: :func:`estimate_all` passes one).
    design_cap : bool, optional
        Whether a part's n_eff is capped at the design's expected one; default: without
        a ``mask`` only. A slice passes True with its own design quantities
        (:func:`abcde.quality.slices.slice_delta_precision`).

    Returns
    -------
    Estimate

    References
    ----------
    docs/method.md §8.2–8.8, §8.11. ABCDE §5.1, §5.7–5.8 (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §3.1, §6.1, §7–8 (S. van Staden. Decomposing the Jaccard Distance and
    the Jaccard Index in ABCDE. Google Switzerland, 2024). T. C. Hesterberg. Weighted
    average importance sampling and defensive mixture distributions. Technometrics
    37(2):185–194, 1995.
    """
    what = what or metric.key
    cap = mask is None if design_cap is None else design_cap
    exact = float(design.exact.get(metric.exact, 0.0)) if metric.exact else 0.0
    in_mask = np.ones(s.rows, dtype=bool) if mask is None else mask
    factors = s.factor if factors is None else factors
    starved = [CLASS_KEYS[c] for part in metric.parts for c in part.classes
               if sum(design.classes[CLASS_KEYS[c]][part.target] for c in part.classes) > 0
               and (in_mask & (s.class_key == c)).any()
               and not (in_mask & (s.class_key == c) & s.known).any()]
    if starved and len(metric.parts) == 1:
        total = sum(design.classes[CLASS_KEYS[c]][metric.parts[0].target]
                    for c in metric.parts[0].classes)
        return undefined(total, f"undefined: {', '.join(dict.fromkeys(starved))} pairs were "
                         "drawn but none has a verdict, so their share cannot be reweighted "
                         "(ABCDE §5.8)", confidence)
    parts: list[tuple[Part, PartEstimate]] = []
    notes: list[str] = []
    for part in metric.parts:
        total = sum(design.classes[CLASS_KEYS[c]][part.target] for c in part.classes)
        if not math.isfinite(total) or total < 0:
            raise ValueError(f"{what}: class totals must be finite and ≥ 0, got {total}")
        if total == 0:
            continue
        names = ", ".join(CLASS_KEYS[c] for c in part.classes)
        uncovered = sum(design.classes[CLASS_KEYS[c]][f"{part.target}_uncovered"]
                        for c in part.classes)
        if uncovered > 0:
            return undefined(total, f"not available: the design never draws pairs that carry "
                             f"{uncovered:.3g} of the {names} pairs' {part.target} weight "
                             f"{total:.3g} (α = {s.alpha:g}: pairs with u_ij = 0, Jaccard "
                             "decomposition §6.1); sample with --population mixture",
                             confidence)
        result = _part(part, s, design, in_mask, factors, total, se_method, confidence,
                       design_cap=cap, scope="all" if mask is None else id(in_mask),
                       cache=cache)
        if not result.drawn:
            if len(metric.parts) == 1:
                return undefined(total, f"undefined: no {names} pairs were drawn (their total "
                                 f"weight is {total:.6g})", confidence)
            why = (f"{names} pairs were drawn but none has a verdict" if names in starved
                   else f"no {names} pair drawn")
            notes.append(f"{why}: its part is bounded by [0, {total:.3g}]")
        parts.append((part, result))
    if not parts:
        note = ("exact: every pair it needs is a self pair (no verdict needed)" if exact else
                "exactly 0: the population has none of its pairs")
        return exact_value(exact, confidence, note)
    return _combine(metric, exact, parts, notes, confidence)


def _part(part: Part, s: JudgedSample, design: Design, in_mask: np.ndarray,
          factors: np.ndarray, total: float, se_method: str, confidence: float, *,
          design_cap: bool, scope: Any,
          cache: dict[Any, PartEstimate] | None = None) -> PartEstimate:
    """One part's estimate (its classes, if drawn, have judged draws: estimate_metric).

    The value 1(i≢j) is the complement of 1(i≡j) on the same draws and weights: its p̂ is
    1 − p̂, its SE and effective sample size the same, its (symmetric) interval the
    mirror; ``cache`` keeps the part of 1(i≡j) for it (and for other metrics)."""
    key = (part.target, part.classes, scope, design_cap, id(factors), se_method, confidence)
    hit = cache.get(key) if cache is not None else None
    if hit is None:
        hit = _equivalent_part(part, s, design, in_mask, factors, total, se_method,
                               confidence, design_cap=design_cap)
        if cache is not None:
            cache[key] = hit
    if part.indicator == "equivalent" or not hit.drawn:
        return hit
    return replace(hit, p=1 - hit.p, low=1 - hit.high, high=1 - hit.low)


def _equivalent_part(part: Part, s: JudgedSample, design: Design, in_mask: np.ndarray,
                     factors: np.ndarray, total: float, se_method: str, confidence: float, *,
                     design_cap: bool) -> PartEstimate:
    """The part's estimate for the value 1(i≡j)."""
    in_part = in_mask & (s.class_key == part.classes[0])
    for code in part.classes[1:]:
        in_part |= in_mask & (s.class_key == code)
    used = in_part & s.known
    if not used.any():  # not drawn, or drawn but never judged: the share is unknown
        return PartEstimate(total, 0.5, 0.0, 1.0, None, 0.0, 0.0, np.array([], dtype=np.int64),
                            0, False)
    weights = s.importance_u if part.target == "u" else s.importance_w
    x = equivalent(s)[used]
    f, k, keys, m = factors[used], s.draw_count[used], s.pair_key[used], weights[used]
    p, se = reweighted_mean_se(x, f, k, keys, s.class_key[used], se_method, m)
    se_ok = se is not None and math.isfinite(se)
    n_sample = effective_n(p, se if se_ok else None, design_n_eff(f, k, keys, se_method, m))
    n_design = math.inf
    efficiency = 1.0
    judged_share = float(k.sum()) / float(s.draw_count[in_part].sum())
    if design_cap:
        n_design = design_expected_n_eff(part, design) * judged_share
        efficiency = design_efficiency(part, design)
    n_eff = min(n_sample, n_design)
    low, high = interval(p, n_eff, confidence)
    return PartEstimate(total, p, low, high, se if se_ok else None, n_eff, n_design,
                        keys, int(k.sum()), True, efficiency, 1.0 - judged_share)


def _combine(metric: Metric, exact: float, parts: list[tuple[Part, PartEstimate]],
             notes: list[str], confidence: float) -> Estimate:
    """exact + Σ sign·T·p̂ with the SE in quadrature and the MOVER interval."""
    values, lows, highs = [], [], []
    # a part without judged draws: nothing is known of it, so its whole range [0, T]
    # is added to the limits, never in quadrature (which would narrow it)
    unknown_low = unknown_high = 0.0
    variance = 0.0
    z = z_value(confidence)
    se_bounded = False
    for part, r in parts:
        scaled = (r.total * r.p, r.total * r.low, r.total * r.high)
        signed = ((scaled[0], scaled[1], scaled[2]) if part.sign > 0 else
                  (-scaled[0], -scaled[2], -scaled[1]))
        if r.drawn:
            values.append(signed[0]), lows.append(signed[1]), highs.append(signed[2])
        else:
            unknown_low += signed[1] - signed[0]
            unknown_high += signed[2] - signed[0]
            values.append(signed[0]), lows.append(signed[0]), highs.append(signed[0])
        if r.se is None:  # fewer than two draws: the interval's half-width / z
            se_bounded = se_bounded or r.drawn
            variance += (r.total * (r.high - r.low) / (2 * z)) ** 2
        else:
            variance += (r.total * r.se) ** 2
    low, high = mover_limits(values, lows, highs)
    low, high = low + unknown_low, high + unknown_high
    estimate = exact + float(sum(values))
    total = sum(r.total for _, r in parts)
    spread = [r.total ** 2 / max(r.n_eff, 1.0 if not r.drawn else 1e-12) for _, r in parts]
    n_eff = total * total / sum(spread)
    if se_bounded and len(parts) == 1:
        notes.append("standard error undefined: fewer than two draws")
    elif se_bounded:
        notes.append("a part has fewer than two draws: its SE is its interval's half-width / z")
    reason = None
    # the part that weighs most in Σ T²/n_eff; below MIN_N_EFF with at least PART_SHARE of
    # it, the metric is not conclusive even when the others are many (docs/method.md §8.11)
    k = int(np.argmax(spread))
    part, worst = parts[k]
    if n_eff < MIN_N_EFF or (worst.n_eff < MIN_N_EFF and spread[k] >= PART_SHARE * sum(spread)):
        names = ", ".join(CLASS_KEYS[c] for c in part.classes)
        # heavy tails only when the design's weights, not the sample's size, keep n_design
        # small: one draw of evenly weighted pairs gives n_design < 1 under any design
        by_design = (worst.drawn and worst.n_design < MIN_N_EFF
                     and worst.n_design <= worst.n_eff
                     and worst.efficiency < HEAVY_TAIL_EFFICIENCY)
        head = (f"n_eff {n_eff:.1f} < {MIN_N_EFF:g}" if n_eff < MIN_N_EFF else
                f"its {names} part (sign·T = {part.sign * worst.total:+.3g}) rests on "
                f"n_eff {worst.n_eff:.1f} < {MIN_N_EFF:g}")
        reason = head + ": " + (
            f"the design's importance weights toward {part.target} are heavy-tailed for the "
            f"{names} pairs (expected n_eff {worst.n_design:.1f} for the sample's draws; "
            "Kish 1965)" if by_design else
            f"too few effective draws of the {names} pairs ({worst.n_eff:.1f}, from "
            f"{worst.draws:,} judged draw{'s' if worst.draws != 1 else ''})" if worst.drawn
            else f"no judged draw of the {names} pairs")
    if reason is None:
        reason = _unknown_reason(parts)
    pairs = np.unique(np.concatenate([r.pairs for _, r in parts]))
    single_draw = se_bounded and len(parts) == 1
    return Estimate(
        estimate,
        None if single_draw else math.sqrt(variance),
        exact + low,
        exact + high,
        count_distinct(pairs),
        sum(r.draws for _, r in parts),
        total,
        confidence,
        "; ".join(notes) or None,
        "wilson" if len(parts) == 1 else "mover",
        n_eff,
        exact=exact,
        not_conclusive=reason,
    )


def _unknown_reason(parts: list[tuple[Part, PartEstimate]]) -> str | None:
    """Why a metric is not conclusive for its unknown verdicts, or None.

    The reweighting of unknown verdicts within a class (ABCDE §5.8) assumes they are
    missing at random there. Judges who skip one kind of pair (the equivalent ones among
    the split pairs, say) break that in one class while the sample-wide share stays
    low, and the bias then far exceeds the interval: 15% unknown overall, half the
    equivalent split pairs skipped, and ΔPrecision's interval covered in 6% of rounds
    (tests/quality/test_metrics_statistical.py). So a part that carries at least
    PART_SHARE of the metric's Σ|T| with more than MAX_UNKNOWN_SHARE of its draws
    unknown makes the metric not conclusive (docs/method.md §8.11)."""
    mass = sum(r.total for _, r in parts)
    worst = max((pr for pr in parts if pr[1].drawn and pr[1].total >= PART_SHARE * mass),
                key=lambda pr: pr[1].unknown, default=None)
    if worst is None or worst[1].unknown <= MAX_UNKNOWN_SHARE:
        return None
    part, r = worst
    names = ", ".join(CLASS_KEYS[c] for c in part.classes)
    return (f"{UNKNOWN_REASON}: {r.unknown:.0%} of the draws of its {names} pairs (sign·T = "
            f"{part.sign * r.total:+.3g}) have none, more than {MAX_UNKNOWN_SHARE:.0%}; the "
            "reweighting assumes they are missing at random within the class (ABCDE §5.8), "
            "and judges skipping one kind of pair bias it beyond the interval")


def estimate_all(
    s: JudgedSample,
    design: Design,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> dict[str, Estimate]:
    """Every metric of :data:`METRICS` for one judged sample, in table order.

    Parameters
    ----------
    s : JudgedSample
        The judged sample.
    design : Design
        The sample's class totals, exact parts and design quantities.
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se`.

    Returns
    -------
    dict of str to Estimate
        Keyed by :data:`METRIC_KEYS`. When some draws have no verdict, each metric with
        unknown pairs among its draws carries ``unknown_range``: its estimate with every
        unknown verdict equivalent and with every one not equivalent
        (:func:`assign_unknowns`; docs/method.md §8.11).

    References
    ----------
    docs/method.md §8.4–8.6, §8.11. ABCDE §5.7 (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §6.1, §7 (S. van Staden. Decomposing the Jaccard Distance and the
    Jaccard Index in ABCDE. Google Switzerland, 2024).
    """
    cache: dict[Any, PartEstimate] = {}
    results = {key: estimate_metric(metric, s, design, confidence=confidence,
                                    se_method=se_method, cache=cache)
               for key, metric in METRICS.items()}
    if s.known.all():
        return results
    ends = [_point_estimates(assign_unknowns(s, verdict), design) for verdict in (1.0, 0.0)]
    for key, metric in METRICS.items():
        unknown = _unknown_pairs(metric, s, design)
        eq, ne = ends[0][key], ends[1][key]
        if unknown and eq is not None and ne is not None:
            results[key] = replace(results[key],
                                   unknown_range=UnknownRange(eq, ne, unknown))
    return results


def assign_unknowns(s: JudgedSample, verdict: float) -> JudgedSample:
    """The judged sample with every unknown verdict set to ``verdict``.

    Every draw is then judged, so every class's reweighting factor is 1 (ABCDE §5.8 has
    nothing to reweight); the draws, their classes and importance weights are unchanged.

    Parameters
    ----------
    s : JudgedSample
        The judged sample.
    verdict : float
        1.0 ("equivalent") or 0.0 ("not equivalent").

    Returns
    -------
    JudgedSample

    References
    ----------
    docs/method.md §8.3, §8.11 (the sensitivity range of unknown verdicts).
    """
    values = np.where(s.known, s.equivalent, float(verdict))
    known = np.ones(s.rows, dtype=bool)
    tallies = class_tallies(s.class_key, s.draw_count, known, s.pair_key, values)
    return replace(s, equivalent=values, known=known, factor=np.ones(s.rows),
                   tallies=tallies, missing_verdicts=0)


def _point_estimates(s: JudgedSample, design: Design) -> dict[str, float | None]:
    """Every metric's point estimate of a sample without unknowns, by
    :func:`estimate_metric` itself (the intervals it also computes are not used)."""
    cache: dict[Any, PartEstimate] = {}
    return {key: estimate_metric(metric, s, design, cache=cache).estimate
            for key, metric in METRICS.items()}


def _unknown_pairs(metric: Metric, s: JudgedSample, design: Design) -> int:
    """Distinct unknown pairs among the draws of the metric's classes of positive total."""
    codes = [c for part in metric.parts for c in part.classes
             if design.classes[CLASS_KEYS[c]][part.target] > 0]
    rows = np.isin(s.class_key, codes) & ~s.known
    return count_distinct(s.pair_key[rows])


def unavailable(results: Mapping[str, Estimate]) -> dict[str, str]:
    """The metrics a sample's design cannot give, and why.

    Parameters
    ----------
    results : mapping of str to Estimate
        :func:`estimate_all`'s result.

    Returns
    -------
    dict of str to str
        Metric key → reason, in table order (``unavailable`` of ``abcde estimate``).

    References
    ----------
    docs/method.md §8.6. Jaccard decomposition §6.1 (S. van Staden. Decomposing the
    Jaccard Distance and the Jaccard Index in ABCDE. Google Switzerland, 2024).
    """
    prefix = "not available: "
    return {k: (e.note or "")[len(prefix):] for k, e in results.items()
            if e.estimate is None and (e.note or "").startswith(prefix)}


# --------------------------------------------------------------------------- #
# The per-metric estimators, generated from the table
# --------------------------------------------------------------------------- #


def _full_references(metric: Metric) -> str:
    cited = " ".join(metric.references)
    papers = [ABCDE] if "ABCDE" in cited else []
    if "Jaccard" in cited:
        papers.append(JACCARD)
    return "\n    ".join(["docs/method.md §8.4.", *metric.references, *papers])


def _estimator(key: str) -> Callable[..., Estimate]:
    """The function that estimates ``METRICS[key]`` from a judged sample."""
    metric = METRICS[key]

    def estimator(s: JudgedSample, design: Design, *, confidence: float = 0.95,
                  se_method: str = DEFAULT_SE) -> Estimate:
        return estimate_metric(metric, s, design, confidence=confidence, se_method=se_method)

    estimator.__name__ = estimator.__qualname__ = key
    estimator.__doc__ = (
        f"{metric.definition}.\n\n"
        f"    Generated from ``METRICS[{key!r}]``.\n\n"
        "    Parameters\n    ----------\n"
        "    s : JudgedSample\n        The judged sample (:func:`~abcde.quality.sample."
        "judged_sample`).\n"
        "    design : Design\n        The sample's class totals, exact parts and design "
        "quantities.\n"
        "    confidence : float\n        The interval's level.\n"
        "    se_method : {\"pair_clustered\", \"kirchner\"}\n        See "
        ":func:`~abcde.quality.intervals.reweighted_mean_se`.\n\n"
        "    Returns\n    -------\n    Estimate\n        See :func:`estimate_metric`.\n\n"
        "    References\n    ----------\n"
        f"    {_full_references(metric)}\n"
    )
    return estimator


delta_precision = _estimator("delta_precision")
good_split_rate = _estimator("good_split_rate")
bad_split_rate = _estimator("bad_split_rate")
good_merge_rate = _estimator("good_merge_rate")
bad_merge_rate = _estimator("bad_merge_rate")
good_split_distance = _estimator("good_split_distance")
bad_split_distance = _estimator("bad_split_distance")
good_merge_distance = _estimator("good_merge_distance")
bad_merge_distance = _estimator("bad_merge_distance")
good_distance = _estimator("good_distance")
bad_distance = _estimator("bad_distance")
affected_good_index = _estimator("affected_good_index")
affected_bad_index = _estimator("affected_bad_index")
