"""The 13 quality metrics as one table of definitions, and the estimator they share
(docs/method.md §8.2–8.6).

Every metric is "a weighted mean over the judged draws of some pair classes × the total
weight of the pairs it was sampled from" (ABCDE §5.1; Jaccard decomposition §3.1). A
:class:`Metric` row says which classes, which value is averaged (the indicator: 1(i≡j),
1(i≢j) or l_ij·1(i≡j)), which total multiplies it, whether the draws are importance
weighted, on which populations it exists (and why not elsewhere) and the bounds of its
interval; :data:`METRICS` holds the 13 rows, and :func:`estimate_metric` turns a row and a
judged sample into an :class:`~abcde.quality.result.Estimate`. The per-metric functions
(:func:`delta_precision`, :func:`good_split_rate`, …) are generated from the table.

Decisions where the papers leave room (docs/method.md §8.3–8.6):

- a class drawn but never judged makes every metric that needs it undefined (estimate
  None with a note), never 0; a class with population total 0 gives exactly 0 with SE 0;
- 0/1 indicators get Wilson's interval at an effective sample size, ΔPrecision (values
  in {−1, 0, +1}·label) the Wald interval (:mod:`abcde.quality.result`);
- on the jaccard population the (good|bad)(split|merge) *rates* are importance weighted
  by |l_ij| = u_ij/w_ij as a ratio: SplitRate(T) (exact, from the manifest) × the
  |l|-weighted share of good (bad) verdicts among the split draws — so Good + Bad =
  SplitRate(T) exactly, as on the abcde population;
- the abcde population cannot give the distances or the affected indexes: they are
  returned with estimate None and the reason.

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5.1–5.8.

S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google
Switzerland, 2024, §3.1, §4, §6–8.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from abcde.quality.intervals import DEFAULT_SE, design_n_eff, reweighted_mean_se
from abcde.quality.result import (
    Estimate,
    exact_zero,
    proportion_estimate,
    scaled_estimate,
    sum_independent,
    undefined,
)
from abcde.quality.sample import (
    CLASSES,
    MERGE,
    POPULATIONS,
    SELF,
    SPLIT,
    STABLE,
    JudgedSample,
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

INDICATORS = ("equivalent", "not_equivalent", "label")
"""The value a metric averages: 1(i≡j), 1(i≢j) or l_ij·1(i≡j) (docs/method.md §8.4)."""

MULTIPLIERS = {
    "total": "the population's total pair weight (Σu; SD + MD + AJI on the jaccard "
    "population)",
    "split": "the population's split total (SplitRate(T) or SplitDistance(T))",
    "merge": "the population's merge total (MergeRate(T) or MergeDistance(T))",
    "stable": "the population's stable total, self pairs included (AffectedJaccardIndex(T) "
    "on the jaccard population)",
    "split_rate": "SplitRate(T)",
    "merge_rate": "MergeRate(T)",
}
"""Where a metric's multiplier comes from (docs/method.md §6.4, §8.5): a class total of the
sampled population, or the exact rate (on the abcde population the split / merge total,
on the jaccard one the impact metric recorded in the manifest)."""

_NEEDS_JACCARD_DISTANCE = (
    "needs the jaccard population (Jaccard decomposition §7): abcde draws are "
    "sampled ∝ u_ij and labelled ±1, so they lack the importance weights "
    "w_ij/u_ij (= W_b/U for splits, W_e/U for merges) that would convert them"
)
_NEEDS_JACCARD_INDEX = (
    "needs the jaccard population: the abcde population gives u_ij = 0 to stable "
    "pairs of items whose Base and Exp clusters weigh the same (W_b = W_e), so "
    "they are never sampled (Jaccard decomposition §6.1)"
)
IMPORTANCE_NOTE = (
    "importance-weighted by |l_ij| = u_ij/w_ij from the jaccard population "
    "(Jaccard §6.1); large labels widen the interval"
)
"""The note of an importance-weighted rate on the jaccard population (docs/method.md §8.5)."""


@dataclass(frozen=True)
class Metric:
    """One quality metric: estimate = multiplier × reweighted mean of ``indicator`` over
    the judged draws of ``classes`` (docs/method.md §8.2), or the sum of ``parts``.

    Attributes
    ----------
    key : str
        JSON key in ``abcde estimate --format json``.
    label : str
        The papers' name, e.g. "GoodSplitRate".
    populations : tuple of str
        Populations that can estimate it; on the others, ``unavailable`` says why.
    classes : tuple of int
        Pair classes (codes of :data:`~abcde.quality.sample.CLASSES`) averaged over.
    indicator : str or None
        One of :data:`INDICATORS`; None for a sum.
    multiplier : str or None
        A key of :data:`MULTIPLIERS`; None for a sum (its parts' multipliers add up).
    importance : bool
        Weight each draw by |l_ij| = u_ij/w_ij on the jaccard population (a ratio
        estimator, docs/method.md §8.5).
    parts : tuple of str
        A sum of these (independent, disjoint classes) metrics, by MOVER.
    bounds : tuple of float or None
        The interval lies within bounds × multiplier; None: a Wald interval, not bounded.
    decomposes : str or None
        The exact impact metric this metric is a part of (good + bad = it).
    definition : str
        The formula, in the papers' names.
    references : tuple of str
        Sections and equations, "ABCDE …" or "Jaccard decomposition …".
    unavailable : mapping of str to str
        Population → why the metric cannot be estimated from it.
    """

    key: str
    label: str
    populations: tuple[str, ...]
    classes: tuple[int, ...] = ()
    indicator: str | None = None
    multiplier: str | None = None
    importance: bool = False
    parts: tuple[str, ...] = ()
    bounds: tuple[float, float] | None = (0.0, 1.0)
    decomposes: str | None = None
    definition: str = ""
    references: tuple[str, ...] = ()
    unavailable: Mapping[str, str] = field(default_factory=dict)

    @property
    def proportion(self) -> bool:
        """Whether the averaged value is a 0/1 indicator (Wilson interval)."""
        return self.indicator in ("equivalent", "not_equivalent")


_ALL = (SELF, SPLIT, MERGE, STABLE)
_IMPORTANCE = (
    "; on the jaccard population each draw is importance-weighted by |l_ij| = u_ij/w_ij: "
    "the share is Σ f k |l| v / Σ f k |l|"
)
METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric(
            key="delta_precision", label="ΔPrecision", populations=POPULATIONS,
            classes=_ALL, indicator="label", multiplier="total", bounds=None,
            definition="ΔPrecision(T) = Σu · mean over all draws of l_ij·1(i≡j); on the "
            "jaccard population Σu = SplitDistance(T) + AffectedJaccardIndex(T) + "
            "MergeDistance(T)",
            references=("ABCDE eq. 26, 39, §5.3, §5.7", "Jaccard decomposition eq. 80, §6–7"),
        ),
        Metric(
            key="good_split_rate", label="GoodSplitRate", populations=POPULATIONS,
            classes=(SPLIT,), indicator="not_equivalent", multiplier="split_rate",
            importance=True, decomposes="split_rate",
            definition="GoodSplitRate(T) = SplitRate(T) · share of split draws with 1(i≢j)"
            + _IMPORTANCE,
            references=("ABCDE eq. 41, 47–49, §5.6.1, §5.7", "Jaccard decomposition §6.1"),
        ),
        Metric(
            key="bad_split_rate", label="BadSplitRate", populations=POPULATIONS,
            classes=(SPLIT,), indicator="equivalent", multiplier="split_rate",
            importance=True, decomposes="split_rate",
            definition="BadSplitRate(T) = SplitRate(T) · share of split draws with 1(i≡j)"
            + _IMPORTANCE,
            references=("ABCDE eq. 42, §5.7", "Jaccard decomposition §6.1"),
        ),
        Metric(
            key="good_merge_rate", label="GoodMergeRate", populations=POPULATIONS,
            classes=(MERGE,), indicator="equivalent", multiplier="merge_rate",
            importance=True, decomposes="merge_rate",
            definition="GoodMergeRate(T) = MergeRate(T) · share of merge draws with 1(i≡j)"
            + _IMPORTANCE,
            references=("ABCDE eq. 43, §5.6.2, §5.7", "Jaccard decomposition §6.1"),
        ),
        Metric(
            key="bad_merge_rate", label="BadMergeRate", populations=POPULATIONS,
            classes=(MERGE,), indicator="not_equivalent", multiplier="merge_rate",
            importance=True, decomposes="merge_rate",
            definition="BadMergeRate(T) = MergeRate(T) · share of merge draws with 1(i≢j)"
            + _IMPORTANCE,
            references=("ABCDE eq. 44, §5.7", "Jaccard decomposition §6.1"),
        ),
        Metric(
            key="good_split_distance", label="GoodSplitDistance", populations=("jaccard",),
            classes=(SPLIT,), indicator="not_equivalent", multiplier="split",
            decomposes="split_distance", unavailable={"abcde": _NEEDS_JACCARD_DISTANCE},
            definition="GoodSplitDistance(T) = SplitDistance(T) · mean over split draws of "
            "1(i≢j)",
            references=("Jaccard decomposition eq. 5, 23–30, §4.4",),
        ),
        Metric(
            key="bad_split_distance", label="BadSplitDistance", populations=("jaccard",),
            classes=(SPLIT,), indicator="equivalent", multiplier="split",
            decomposes="split_distance", unavailable={"abcde": _NEEDS_JACCARD_DISTANCE},
            definition="BadSplitDistance(T) = SplitDistance(T) · mean over split draws of "
            "1(i≡j)",
            references=("Jaccard decomposition eq. 6, §4.4",),
        ),
        Metric(
            key="good_merge_distance", label="GoodMergeDistance", populations=("jaccard",),
            classes=(MERGE,), indicator="equivalent", multiplier="merge",
            decomposes="merge_distance", unavailable={"abcde": _NEEDS_JACCARD_DISTANCE},
            definition="GoodMergeDistance(T) = MergeDistance(T) · mean over merge draws of "
            "1(i≡j)",
            references=("Jaccard decomposition eq. 7, §4.3–4.4",),
        ),
        Metric(
            key="bad_merge_distance", label="BadMergeDistance", populations=("jaccard",),
            classes=(MERGE,), indicator="not_equivalent", multiplier="merge",
            decomposes="merge_distance", unavailable={"abcde": _NEEDS_JACCARD_DISTANCE},
            definition="BadMergeDistance(T) = MergeDistance(T) · mean over merge draws of "
            "1(i≢j)",
            references=("Jaccard decomposition eq. 8, §4.4",),
        ),
        Metric(
            key="good_distance", label="GoodDistance", populations=("jaccard",),
            parts=("good_split_distance", "good_merge_distance"),
            decomposes="jaccard_distance", unavailable={"abcde": _NEEDS_JACCARD_DISTANCE},
            definition="GoodDistance(T) = GoodSplitDistance(T) + GoodMergeDistance(T); split "
            "and merge pairs are disjoint, so the SEs add in quadrature",
            references=("Jaccard decomposition eq. 11, 21, §4.4, §8",),
        ),
        Metric(
            key="bad_distance", label="BadDistance", populations=("jaccard",),
            parts=("bad_split_distance", "bad_merge_distance"),
            decomposes="jaccard_distance", unavailable={"abcde": _NEEDS_JACCARD_DISTANCE},
            definition="BadDistance(T) = BadSplitDistance(T) + BadMergeDistance(T)",
            references=("Jaccard decomposition eq. 12, 22, §4.4, §8",),
        ),
        Metric(
            key="affected_good_index", label="AffectedGoodIndex", populations=("jaccard",),
            classes=(SELF, STABLE), indicator="equivalent", multiplier="stable",
            decomposes="affected_jaccard_index", unavailable={"abcde": _NEEDS_JACCARD_INDEX},
            definition="AffectedGoodIndex(T) = AffectedJaccardIndex(T) · mean over stable and "
            "self draws of 1(i≡j); self pairs count as judged equivalent and keep their "
            "sampled weight against the reweighted stable non-self draws",
            references=("Jaccard decomposition eq. 41, 56–58, §7–8",),
        ),
        Metric(
            key="affected_bad_index", label="AffectedBadIndex", populations=("jaccard",),
            classes=(SELF, STABLE), indicator="not_equivalent", multiplier="stable",
            decomposes="affected_jaccard_index", unavailable={"abcde": _NEEDS_JACCARD_INDEX},
            definition="AffectedBadIndex(T) = AffectedJaccardIndex(T) · mean over stable and "
            "self draws of 1(i≢j)",
            references=("Jaccard decomposition eq. 42, 59, §7",),
        ),
    )
}
"""The 13 quality metrics, in the order of ``abcde estimate`` (docs/method.md §8.4)."""

METRIC_KEYS = tuple(METRICS)
RATE_KEYS = tuple(k for k in METRICS if k.endswith("_rate"))
DISTANCE_KEYS = tuple(k for k in METRICS if k.endswith("_distance"))
INDEX_KEYS = tuple(k for k in METRICS if k.endswith("_index"))


def metric_keys(population: str) -> tuple[str, ...]:
    """Metric keys ``population`` can estimate.

    Parameters
    ----------
    population : {"abcde", "jaccard"}
        The pair population.

    Returns
    -------
    tuple of str
        Keys of :data:`METRICS`, in table order (``abcde estimate`` returns every key;
        the others with estimate None and the reason).

    Raises
    ------
    ValueError
        On an unknown population.

    References
    ----------
    docs/method.md §8.4, §8.6.

    Examples
    --------
    >>> metric_keys("abcde")
    ('delta_precision', 'good_split_rate', 'bad_split_rate', 'good_merge_rate', 'bad_merge_rate')
    """
    if population not in POPULATIONS:
        raise ValueError(f"population must be one of {POPULATIONS}, got {population!r}")
    return tuple(k for k, m in METRICS.items() if population in m.populations)


def unavailable(population: str) -> dict[str, str]:
    """The metrics ``population`` cannot give, and why.

    Parameters
    ----------
    population : {"abcde", "jaccard"}
        The pair population.

    Returns
    -------
    dict of str to str
        Metric key → reason, in table order (``unavailable`` of ``abcde estimate``).

    References
    ----------
    docs/method.md §8.6. Jaccard decomposition §6.1, §7 (S. van Staden. Decomposing the
    Jaccard Distance and the Jaccard Index in ABCDE. Google Switzerland, 2024).
    """
    return {k: m.unavailable[population] for k, m in METRICS.items()
            if population in m.unavailable}


def indicator_values(metric: Metric, s: JudgedSample) -> np.ndarray:
    """The value the metric averages, per draw row (0 for unknown rows).

    Parameters
    ----------
    metric : Metric
        A row of :data:`METRICS` with an indicator.
    s : JudgedSample
        The judged sample.

    Returns
    -------
    numpy.ndarray
        1(i≡j), 1 − 1(i≡j), or l_ij·1(i≡j).

    References
    ----------
    docs/method.md §8.4.
    """
    v = equivalent(s)
    if metric.indicator == "equivalent":
        return v
    if metric.indicator == "not_equivalent":
        return 1 - v
    if metric.indicator == "label":
        return s.label * v
    raise ValueError(f"{metric.key}: no indicator (a sum of {metric.parts})")


def estimate_metric(
    metric: Metric,
    s: JudgedSample,
    multiplier: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
    mask: np.ndarray | None = None,
    factors: np.ndarray | None = None,
    what: str | None = None,
) -> Estimate:
    """multiplier × the reweighted mean of the metric's indicator over the judged draws of
    its classes.

    A multiplier of 0 gives an exact 0; a class drawn but never judged, or no draw of
    the classes, an undefined estimate with the reason. Proportions (0/1 indicators) get
    Wilson's interval at the effective sample size, weighted by factor × importance;
    ΔPrecision the Wald interval.

    Parameters
    ----------
    metric : Metric
        A row of :data:`METRICS` that is not a sum.
    s : JudgedSample
        The judged sample.
    multiplier : float
        The metric's population total (or exact rate), finite and ≥ 0.
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
        The name in error messages (default the metric's key).

    Returns
    -------
    Estimate

    Raises
    ------
    ValueError
        When the sample's population cannot give the metric, or on a negative or
        non-finite multiplier.

    References
    ----------
    docs/method.md §8.2–8.8. ABCDE §5.1, §5.7–5.8 (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §3.1, §6.1, §7–8 (S. van Staden. Decomposing the Jaccard Distance and
    the Jaccard Index in ABCDE. Google Switzerland, 2024).
    """
    what = what or metric.key
    why = metric.unavailable.get(s.population)
    if why is not None:
        raise ValueError(f"{what}: {why}")
    if metric.parts:
        raise ValueError(f"{what} is a sum of {metric.parts}: estimate its parts")
    if multiplier < 0 or not math.isfinite(multiplier):
        raise ValueError(f"{what}: the population total must be finite and ≥ 0, got {multiplier}")
    classes = metric.classes
    names = ", ".join(CLASSES[c] for c in classes)
    if multiplier == 0:
        return exact_zero(multiplier, f"the population has no {names} pairs", confidence)
    selected = np.zeros(len(CLASSES), dtype=bool)
    selected[list(classes)] = True
    in_scope = selected[s.pair_class]
    if mask is not None:
        in_scope &= mask
    if factors is None:
        factors = s.factor
        starved = [
            CLASSES[c]
            for c in classes
            if s.tallies[CLASSES[c]].sampled_draws and not s.tallies[CLASSES[c]].judged_draws
        ]
    else:
        starved = [
            CLASSES[c]
            for c in classes
            if (in_scope & (s.pair_class == c)).any()
            and not (in_scope & (s.pair_class == c) & s.known).any()
        ]
    used = in_scope & s.known
    pairs = count_distinct(s.pair_key[used])
    draws = int(s.draw_count[used].sum())
    if starved:
        note = (
            f"undefined: {', '.join(starved)} pairs were drawn but none has a verdict, "
            "so their share cannot be reweighted (ABCDE §5.8)"
        )
        return undefined(multiplier, note, confidence, pairs=pairs, draws=draws)
    if not used.any():
        note = f"undefined: no {names} pairs were drawn (their total weight is {multiplier:.6g})"
        return undefined(multiplier, note, confidence, pairs=pairs, draws=draws)
    importance = np.abs(s.label) if metric.importance and s.population == "jaccard" else None
    m = None if importance is None else importance[used]
    values = indicator_values(metric, s)
    mean, se = reweighted_mean_se(
        values[used],
        factors[used],
        s.draw_count[used],
        s.pair_key[used],
        s.pair_class[used],
        se_method,
        m,
    )
    if not metric.proportion:
        return scaled_estimate(
            mean, se, multiplier, pairs=pairs, draws=draws, confidence=confidence
        )
    return proportion_estimate(
        mean,
        se,
        design_n_eff(factors[used], s.draw_count[used], s.pair_key[used], se_method, m),
        multiplier,
        pairs=pairs,
        draws=draws,
        confidence=confidence,
    )


def estimate_all(
    s: JudgedSample,
    multipliers: Mapping[str, float | None],
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> dict[str, Estimate]:
    """Every metric of :data:`METRICS` for one judged sample, in table order.

    A metric the sample's population cannot give is undefined with "not available: "
    and the reason; one whose multiplier is unknown (None: the manifest lacks the exact
    rate) undefined with a note naming it; a sum combines its parts (MOVER); an
    importance-weighted rate on the jaccard population carries :data:`IMPORTANCE_NOTE`.

    Parameters
    ----------
    s : JudgedSample
        The judged sample.
    multipliers : mapping of str to float or None
        The value of every key of :data:`MULTIPLIERS`.
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se`.

    Returns
    -------
    dict of str to Estimate
        Keyed by :data:`METRIC_KEYS`.

    References
    ----------
    docs/method.md §8.4–8.6. ABCDE §5.7 (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard decomposition §6.1, §7
    (S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE.
    Google Switzerland, 2024).
    """
    out: dict[str, Estimate] = {}
    for key, metric in METRICS.items():
        why = metric.unavailable.get(s.population)
        if why is not None:
            out[key] = undefined(0.0, f"not available: {why}", confidence)
            continue
        if metric.parts:
            out[key] = sum_independent([out[p] for p in metric.parts], confidence)
            continue
        source = metric.multiplier or ""
        value = multipliers[source]
        if value is None:
            out[key] = undefined(
                0.0,
                f"undefined: the manifest lacks metrics.{source} ({MULTIPLIERS[source]}), "
                "the multiplier of the jaccard population's rate estimates",
                confidence,
            )
            continue
        est = estimate_metric(metric, s, value, confidence=confidence, se_method=se_method)
        if (
            metric.importance
            and s.population == "jaccard"
            and est.estimate is not None
            and est.note is None
        ):
            est = replace(est, note=IMPORTANCE_NOTE)
        out[key] = est
    return out


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
    where = " and ".join(metric.populations)
    if metric.parts:

        def estimator(
            s: JudgedSample,
            *multipliers: float,
            confidence: float = 0.95,
            se_method: str = DEFAULT_SE,
        ) -> Estimate:
            parts = [
                estimate_metric(METRICS[p], s, x, confidence=confidence, se_method=se_method)
                for p, x in zip(metric.parts, multipliers, strict=True)
            ]
            return sum_independent(parts, confidence)

        takes = (
            f"    *multipliers : float\n        The multipliers of {', '.join(metric.parts)} "
            "(in this order).\n"
        )
    else:

        def estimator(
            s: JudgedSample,
            multiplier: float,
            *,
            confidence: float = 0.95,
            se_method: str = DEFAULT_SE,
        ) -> Estimate:
            return estimate_metric(metric, s, multiplier, confidence=confidence,
                                   se_method=se_method)

        takes = (
            f"    multiplier : float\n        {MULTIPLIERS[metric.multiplier or '']}.\n"
        )
    estimator.__name__ = estimator.__qualname__ = key
    estimator.__doc__ = (
        f"{metric.definition}.\n\n"
        f"    Generated from ``METRICS[{key!r}]``; populations: {where}.\n\n"
        "    Parameters\n    ----------\n"
        "    s : JudgedSample\n        The judged sample (:func:`~abcde.quality.sample."
        "judged_sample`).\n"
        f"{takes}"
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
