"""Quality estimators that run on the small returned sample of judged item pairs.

The SQL side samples ordered item pairs (i, j) with replacement from one of two
pair populations and returns one row per unique ordered pair drawn:

- ``abcde``: the ΔPrecision population of ABCDE §5.7 (eq. 52–58), pair weight
  u_ij, label l_ij ∈ {−1, +1};
- ``jaccard``: the population of the Jaccard decomposition paper §7, pair weight
  w_ij = w_i w_j / (W·U), labels a_i, −b_i, a_i − b_i (eq. 92–95).

Every metric is "a weighted mean over the sample × the total weight of the pairs
it was sampled from" (ABCDE §5.1, Jaccard §3.1).  Observations are *draws*: a
row with ``draw_count`` k counts k times.  Unknown verdicts are dropped and the
remaining draws are reweighted per class (self, split, merge, stable non-self) so
that every class keeps its sampled weight (ABCDE §5.8, Jaccard §8).

Standard errors.  The paper's SE is Kirchner's Case I formula for a weighted mean
(ABCDE §5.8, ``se_method="kirchner"``).  The default ``"pair_clustered"`` adds, when
some verdicts are unknown, the variance of which *pairs* were judged (a pair drawn k
times is kept or dropped with all its draws; see :func:`reweighted_mean_se`).  With
every pair judged the two are identical; with 30% of the pairs unknown Case I's
interval under-covers (tests/test_estimators_statistical.py).

Confidence intervals.  ΔPrecision (values in {−1, 0, +1}·label) gets the normal
(Wald) interval estimate ± z·SE.  Every other metric is a constant × a weighted
proportion of a 0/1 verdict indicator, and a Wald interval of a proportion is
dishonest when few pairs are judged: zero width when every judged pair agrees,
limits below 0.  These get the Wilson (1927) score interval of the proportion,
computed with an effective sample size n_eff, times the constant.  n_eff is the
variance-based p̂(1−p̂)/SE² (Korn & Graubard 1998), truncated at the design's
effective sample size (:func:`design_n_eff`): Kish's (1965) (Σw)²/Σw² of the draw
weights (less one) when every pair is judged, smaller when unknown verdicts drop
pairs with all their draws; the design's alone when p̂ is 0 or 1 (SE = 0 then says
nothing).  The interval stays within [0, constant] and never has zero width.
Sums of independent parts (GoodDistance, strata) combine intervals by MOVER
(Newcombe 1998; Zou & Donner 2008), which is the quadrature sum for symmetric
intervals.  ``se`` is always the SE above.

Decisions where the papers leave room:
- factors count draws (a pair drawn k times is k sampled / judged draws);
- a class drawn but never judged makes every metric that needs it undefined
  (estimate None with a note), never 0; a class with population total 0 gives
  exactly 0 with SE 0;
- slices reweight unknowns per class *within the slice*;
- on the jaccard population the (good|bad)(split|merge) *rates* are importance
  weighted by |l_ij| = u_ij/w_ij (Jaccard §6.1) as a ratio: SplitRate(T) (exact,
  from the manifest) × the |l|-weighted share of good (bad) verdicts among the
  split draws — so Good + Bad = SplitRate(T) exactly, as on the abcde population;
- the abcde population cannot give the distances or the affected indexes: they
  are returned with estimate None and the reason (also under ``unavailable``);
- a non-self pair with no verdict at all counts as unknown (and is reported);
- pair ids of draws and verdicts compare as text (17, 17.0 and "17" are one id);
- the result carries ``warnings`` when the verdicts are too few or too often
  unknown for the intervals to be trusted (:func:`sample_warnings`), and the
  plain-language verdict then draws no conclusion.

Entry points: :func:`estimate` (everything, as a JSON-ready dict),
:func:`judged_sample` plus the per-metric functions, :func:`weighted_mean_se`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any

import numpy as np

from abcde.quality.judgements import id_text

POPULATIONS = ("abcde", "jaccard")
CLASSES = ("self", "split", "merge", "stable")
"""Pair classes of a draw row; 'stable' means stable and not self (i ≠ j)."""
VERDICTS = ("equivalent", "not_equivalent", "unknown")
_VERDICT_CODE = {"equivalent": 1, "not_equivalent": 0, "unknown": -1}

SELF, SPLIT, MERGE, STABLE = range(4)
_CLASS_CODE = {name: code for code, name in enumerate(CLASSES)}
REQUIRED_COLUMNS = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count")

RATE_KEYS = ("good_split_rate", "bad_split_rate", "good_merge_rate", "bad_merge_rate")
DISTANCE_KEYS = (
    "good_split_distance",
    "bad_split_distance",
    "good_merge_distance",
    "bad_merge_distance",
    "good_distance",
    "bad_distance",
)
INDEX_KEYS = ("affected_good_index", "affected_bad_index")
METRIC_KEYS = ("delta_precision", *RATE_KEYS, *DISTANCE_KEYS, *INDEX_KEYS)

_TOLERANCE = 1e-6  # relative tolerance for manifest consistency checks

_UNAVAILABLE_ABCDE = {
    **dict.fromkeys(
        DISTANCE_KEYS,
        "needs the jaccard population (Jaccard decomposition §7): abcde draws are "
        "sampled ∝ u_ij and labelled ±1, so they lack the importance weights "
        "w_ij/u_ij (= W_b/U for splits, W_e/U for merges) that would convert them",
    ),
    **dict.fromkeys(
        INDEX_KEYS,
        "needs the jaccard population: the abcde population gives u_ij = 0 to stable "
        "pairs of items whose Base and Exp clusters weigh the same (W_b = W_e), so "
        "they are never sampled (Jaccard decomposition §6.1)",
    ),
}


# --------------------------------------------------------------------------- #
# Results
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Estimate:
    """An estimated metric with its standard error and confidence interval.

    ``estimate`` is None when the sample cannot estimate the metric (``note``
    says why); ``se`` is None when the standard error is undefined (a single
    draw), ``ci_*`` when no interval can be given.  ``interval`` names how the
    interval was made: "wald" (estimate ± z·SE), "wilson" (score interval of a
    proportion with ``n_eff`` effective observations, module docstring), "mover"
    (a sum of parts, at least one of them Wilson), "exact" (no sampling error).
    ``pairs`` counts the distinct judged unordered pairs used (self pairs
    included), ``draws`` the draws they carry.
    """

    estimate: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    pairs: int
    draws: int
    multiplier: float
    confidence: float = 0.95
    note: str | None = None
    interval: str = "wald"
    n_eff: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form used by :func:`estimate`."""
        return {
            "estimate": self.estimate,
            "se": self.se,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "interval": self.interval,
            "n_eff": self.n_eff,
            "pairs": self.pairs,
            "draws": self.draws,
            "multiplier": self.multiplier,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Estimate:
        """Inverse of :meth:`as_dict`."""
        return cls(**{f: d[f] for f in cls.__dataclass_fields__ if f in d})


@dataclass(frozen=True)
class ClassTally:
    """Draws and pairs of one pair class, before and after dropping unknowns.

    ``factor`` = sampled_draws / judged_draws (ABCDE §5.8); None when the
    class was sampled but nothing in it was judged.
    """

    sampled_draws: int
    judged_draws: int
    sampled_pairs: int
    judged_pairs: int
    factor: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "sampled_draws": self.sampled_draws,
            "judged_draws": self.judged_draws,
            "sampled_pairs": self.sampled_pairs,
            "judged_pairs": self.judged_pairs,
            "factor": self.factor,
        }


@dataclass(frozen=True)
class JudgedSample:
    """Draw rows joined with their verdicts, validated, as parallel numpy arrays.

    ``equivalent`` is 1.0 / 0.0 for judged rows and NaN for unknown ones;
    ``factor`` is the per-row reweighting factor of its class (0 when unknown).
    """

    population: str
    pair_id: np.ndarray
    pair_key: np.ndarray  # dense int code of pair_id
    item_i: np.ndarray
    item_j: np.ndarray
    pair_class: np.ndarray  # int codes, see CLASSES
    label: np.ndarray
    draw_count: np.ndarray
    equivalent: np.ndarray
    known: np.ndarray
    factor: np.ndarray
    tallies: dict[str, ClassTally]
    slice_columns: dict[str, np.ndarray]
    missing_verdicts: int
    unused_verdicts: int

    @property
    def rows(self) -> int:
        return int(self.pair_id.shape[0])


# --------------------------------------------------------------------------- #
# Statistics
# --------------------------------------------------------------------------- #


def weighted_mean_se(
    x: Sequence[float] | np.ndarray,
    w: Sequence[float] | np.ndarray,
    counts: Sequence[float] | np.ndarray | None = None,
) -> tuple[float, float]:
    """Weighted mean and its standard error, Kirchner Case I (ABCDE §5.8).

        x̄_w = Σ w_i x_i / Σ w_i
        SE  = sqrt( (Σ w_i x_i² / Σ w_i − x̄_w²) · Σ w_i² / ((Σ w_i)² − Σ w_i²) )

    Row r stands for ``counts[r]`` observations (draws) of value x[r] and weight
    w[r], so Σw = Σ k·w, Σw² = Σ k·w² and so on.  With all w = 1 this is the
    sample standard deviation (ddof = 1) over √n.  The first factor is computed
    in its centred form Σ w (x − x̄_w)² / Σ w, which is algebraically identical
    and does not cancel catastrophically.  SE is NaN with a single observation.
    """
    xs = np.asarray(x, dtype=float)
    ws = np.asarray(w, dtype=float)
    ks = np.ones_like(xs) if counts is None else np.asarray(counts, dtype=float)
    if not (xs.shape == ws.shape == ks.shape) or xs.ndim != 1:
        raise ValueError(
            f"x, w and counts must be 1-d and of equal length, got shapes "
            f"{xs.shape}, {ws.shape}, {ks.shape}"
        )
    if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ws)) and np.all(np.isfinite(ks))):
        raise ValueError("x, w and counts must be finite")
    if np.any(ws < 0) or np.any(ks < 0):
        raise ValueError("weights and counts must be non-negative")
    return _kirchner(xs, ws, ks)


def _kirchner(xs: np.ndarray, ws: np.ndarray, ks: np.ndarray) -> tuple[float, float]:
    """Kirchner Case I on validated arrays; see :func:`weighted_mean_se`."""
    kw = ks * ws
    sum_w = float(kw.sum())
    if sum_w <= 0:
        raise ValueError("no observations with positive weight")
    mean = float((kw * xs).sum() / sum_w)
    sum_w2 = float((kw * ws).sum())
    denominator = sum_w * sum_w - sum_w2
    if denominator <= 1e-12 * sum_w * sum_w:
        return mean, math.nan
    spread = float((kw * (xs - mean) ** 2).sum() / sum_w)
    return mean, math.sqrt(spread * sum_w2 / denominator)


SE_METHODS = ("pair_clustered", "kirchner")
DEFAULT_SE = "pair_clustered"


def reweighted_mean_se(
    x: np.ndarray,
    factor: np.ndarray,
    draw_count: np.ndarray,
    pair_key: np.ndarray,
    stratum: np.ndarray,
    method: str = DEFAULT_SE,
    importance: np.ndarray | None = None,
) -> tuple[float, float]:
    """Mean and SE of judged draws reweighted for unknown verdicts (ABCDE §5.8).

    Rows are judged draw rows: value ``x``, ``draw_count`` k, reweighting
    ``factor`` f of their ``stratum`` (pair class), dense ``pair_key`` of their
    unordered pair, and optionally an ``importance`` weight m (|l_ij| for the
    rates on the jaccard population, Jaccard §6.1; 1 otherwise).  The mean is the
    ratio R = Σ f k m x / Σ f k m.

    ``method="kirchner"``: Kirchner Case I with weight f·m per draw, exactly as the
    paper prints it (:func:`weighted_mean_se`).  It treats every draw as an
    independent observation, but verdicts — and so the unknowns — come per
    *pair*: a pair drawn k times (or drawn as both (i, j) and (j, i)) is dropped
    or kept with all its draws, which Case I does not see, so with unknowns and
    repeated pairs its interval is too narrow.

    ``method="pair_clustered"`` (default) adds that variance.  With N = Σ f·k the
    sampled draws in scope, V = Σ f k m, residuals e = m (x − R), ē_c their
    weighted mean in stratum c and g_p = Σ_{rows r of pair p} k_r (e_r − ē_c):

        SE² = N/(N − 1) · Σ f k e² / V² + Σ_{judged pairs p} f_p (f_p − 1) g_p² / V²

    i.e. the (linearised) sampling variance of the ratio over all N draws plus
    the variance of keeping each pair of stratum c with probability 1/f_c, given
    the per-stratum calibration (two-phase sampling).  With m = 1 the first term
    is s²/(N − 1), s² = Σ f k (x − R)²/N; when every pair is judged (all f = 1)
    the whole is exactly Kirchner Case I; when no pair repeats and strata share
    one mean it agrees with Kirchner Case I to O(1/N).
    """
    if method not in SE_METHODS:
        raise ValueError(f"se_method must be one of {SE_METHODS}, got {method!r}")
    k = draw_count.astype(float)
    m = np.ones_like(x) if importance is None else np.asarray(importance, dtype=float)
    if method == "kirchner":
        return _kirchner(x, factor * m, k)
    fk = factor * k
    total = float(fk.sum())
    weight = float((fk * m).sum())
    if total <= 0 or weight <= 0:
        raise ValueError("no observations with positive weight")
    mean = float((fk * m * x).sum() / weight)
    if total * total - float((fk * factor).sum()) <= 1e-12 * total * total:
        return mean, math.nan  # a single draw carries everything: no spread to see
    e = m * (x - mean)
    variance = total / (total - 1) * float((fk * e**2).sum()) / weight**2
    if np.any(factor != 1):
        strata = np.asarray(stratum, dtype=np.int64)
        stratum_mean = np.bincount(strata, weights=fk * e) / np.maximum(
            np.bincount(strata, weights=fk), 1e-300
        )
        variance += _pair_keep_term(e - stratum_mean[strata], k, pair_key, factor) / weight**2
    return mean, math.sqrt(variance)


def _pair_keep_term(values: np.ndarray, k: np.ndarray, pair_key: np.ndarray,
                    factor: np.ndarray) -> float:
    """Σ_{pairs p} f_p (f_p − 1) g_p², g_p = Σ_{rows r of p} k_r·values_r: the variance
    of keeping each pair of its stratum with probability 1/f (before dividing by V²)."""
    per_pair = np.bincount(pair_key, weights=k * values)
    pair_factor = np.ones(per_pair.size)
    pair_factor[pair_key] = factor
    return float((pair_factor * (pair_factor - 1) * per_pair**2).sum())


def kish_n_eff(weights: np.ndarray, draw_count: np.ndarray) -> float:
    """Kish's (1965) effective sample size (Σw)²/Σw² of draws with weights w
    (a row with draw count k is k draws)."""
    k = np.asarray(draw_count, dtype=float)
    w = np.asarray(weights, dtype=float)
    sum_w2 = float((k * w * w).sum())
    return float((k * w).sum()) ** 2 / sum_w2 if sum_w2 > 0 else 0.0


def design_n_eff(
    factor: np.ndarray,
    draw_count: np.ndarray,
    pair_key: np.ndarray,
    method: str = DEFAULT_SE,
    importance: np.ndarray | None = None,
) -> float:
    """Effective sample size of a weighted proportion under the sampling design:
    p(1 − p)/SE² when every residual x − p has unit size, i.e. the SE formula of
    :func:`reweighted_mean_se` evaluated on the weights alone (a pair's draws share
    its verdict, so its residuals add up):

        1 / n_eff = N/(N − 1) · Σ f k m² / V² + Σ_{pairs p} f_p (f_p − 1) (Σ_p k m)² / V²

    With every pair judged (f = 1) this is Kish's (Σw)²/Σw² · (N − 1)/N; with
    unknowns it is smaller, as dropping a pair drops all its draws.  For
    ``method="kirchner"`` it is Kish's n_eff less one, the same reading of Case I.
    """
    k = np.asarray(draw_count, dtype=float)
    m = np.ones_like(k) if importance is None else np.asarray(importance, dtype=float)
    w = factor * m
    kish = kish_n_eff(w, k)
    if method == "kirchner":
        return max(kish - 1.0, 0.0) if kish > 1 else kish
    fk = factor * k
    total = float(fk.sum())
    weight = float((fk * m).sum())
    if total <= 1 or weight <= 0:
        return kish
    inverse = total / (total - 1) * float((fk * m * m).sum()) / weight**2
    if np.any(factor != 1):
        inverse += _pair_keep_term(m, k, pair_key, factor) / weight**2
    return 1.0 / inverse if inverse > 0 else kish


def effective_n(p: float, se: float | None, design: float) -> float:
    """Effective sample size of a weighted proportion p̂ for a Wilson interval.

    Korn & Graubard (1998): n* = p̂(1 − p̂)/SE², the sample size a simple random
    sample would need for the same variance (it carries the design effect of the
    weights and of the pair-level unknowns), truncated at the design's effective
    sample size (:func:`design_n_eff`; Kish's n_eff when every pair is judged).
    When p̂ is 0 or 1 the SE is 0 and says nothing, so the design's n_eff is used.
    """
    if se is None or not math.isfinite(se) or se <= 0 or not 0 < p < 1:
        return design
    return min(design, p * (1 - p) / (se * se))


def wilson_interval(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson (1927) score interval of a proportion p̂ from n (effective) observations:

        (p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),

    within [0, 1]; never of zero width for n < ∞, and [0, 1] when n = 0.
    """
    if not n > 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, p))
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    # at p̂ = 0 (1) the lower (upper) limit is exactly 0 (1); rounding may miss it
    low = 0.0 if p == 0 else max(0.0, centre - half)
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return low, high


def z_value(confidence: float = 0.95) -> float:
    """Two-sided standard normal quantile, e.g. 1.959964 for 95%."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def scaled_estimate(
    mean: float | None,
    se: float | None,
    multiplier: float,
    *,
    pairs: int,
    draws: int,
    confidence: float = 0.95,
    note: str | None = None,
) -> Estimate:
    """multiplier × mean with SE(c·X) = c·SE(X) (ABCDE §5.8) and a normal (Wald) CI."""
    if mean is None:
        return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)
    value = multiplier * mean
    if se is None or math.isnan(se):
        note = note or "standard error undefined: fewer than two draws"
        return Estimate(value, None, None, None, pairs, draws, multiplier, confidence, note)
    scaled_se = abs(multiplier) * se
    half = z_value(confidence) * scaled_se
    return Estimate(
        value, scaled_se, value - half, value + half, pairs, draws, multiplier, confidence, note
    )


def proportion_estimate(
    p: float,
    se: float | None,
    n_eff_design: float,
    multiplier: float,
    *,
    pairs: int,
    draws: int,
    confidence: float = 0.95,
    note: str | None = None,
) -> Estimate:
    """multiplier × a weighted proportion p̂, with SE(c·X) = c·SE(X) and the Wilson
    interval of p̂ at the effective sample size :func:`effective_n` (module
    docstring), so the interval lies in [0, multiplier] and has positive width."""
    se_ok = se is not None and math.isfinite(se)
    n_eff = effective_n(p, se if se_ok else None, n_eff_design)
    lo, hi = wilson_interval(p, n_eff, z_value(confidence))
    if not se_ok:
        note = note or "standard error undefined: fewer than two draws"
    return Estimate(
        multiplier * p,
        multiplier * se if se_ok and se is not None else None,
        multiplier * lo,
        multiplier * hi,
        pairs,
        draws,
        multiplier,
        confidence,
        note,
        "wilson",
        n_eff,
    )


def rescaled(est: Estimate, factor: float) -> Estimate:
    """``est`` × a known constant factor > 0: estimate, SE, limits and multiplier."""

    def times(x: float | None) -> float | None:
        return None if x is None else x * factor

    return replace(
        est,
        estimate=times(est.estimate),
        se=times(est.se),
        ci_low=times(est.ci_low),
        ci_high=times(est.ci_high),
        multiplier=est.multiplier * factor,
    )


def exact_zero(multiplier: float, what: str, confidence: float = 0.95) -> Estimate:
    """A metric over an empty pair class: exactly 0, no sampling error."""
    return Estimate(
        0.0, 0.0, 0.0, 0.0, 0, 0, multiplier, confidence, f"exactly 0: {what}", "exact"
    )


def sum_independent(parts: Sequence[Estimate], confidence: float = 0.95) -> Estimate:
    """Sum of estimates from disjoint pair classes or independent strata (Jaccard §4.4, §8).

    SEs add in quadrature.  Intervals combine by MOVER (Newcombe 1998; Zou & Donner
    2008): with each part's distances to its own limits, the sum's limits are
    Σθ̂ − sqrt(Σ(θ̂ − l)²) and Σθ̂ + sqrt(Σ(u − θ̂)²) — the quadrature sum for
    symmetric (Wald) parts, and it keeps the asymmetry of Wilson parts.
    """
    undefined = [p.note or "undefined" for p in parts if p.estimate is None]
    pairs = sum(p.pairs for p in parts)
    draws = sum(p.draws for p in parts)
    multiplier = sum(p.multiplier for p in parts)
    if undefined:
        return Estimate(
            None, None, None, None, pairs, draws, multiplier, confidence, "; ".join(undefined)
        )
    value = float(sum(p.estimate for p in parts if p.estimate is not None))
    notes = [p.note for p in parts if p.note]
    se = None
    if all(p.se is not None for p in parts):
        se = math.sqrt(sum(p.se**2 for p in parts if p.se is not None))
    elif not notes:
        notes = ["standard error undefined: a part has fewer than two draws"]
    kinds = {p.interval for p in parts} - {"exact"}
    interval = "exact" if not kinds else "wald" if kinds == {"wald"} else "mover"
    lo = hi = None
    if all(p.ci_low is not None and p.ci_high is not None for p in parts):
        below = [(p.estimate or 0.0) - (p.ci_low or 0.0) for p in parts]
        above = [(p.ci_high or 0.0) - (p.estimate or 0.0) for p in parts]
        lo = value - math.sqrt(sum(d * d for d in below))
        hi = value + math.sqrt(sum(d * d for d in above))
    return Estimate(
        value,
        se,
        lo,
        hi,
        pairs,
        draws,
        multiplier,
        confidence,
        "; ".join(dict.fromkeys(notes)) or None,
        interval,
    )


# --------------------------------------------------------------------------- #
# Unknown verdicts
# --------------------------------------------------------------------------- #


def _count_distinct(keys: np.ndarray) -> int:
    """Number of distinct values of dense non-negative integer codes."""
    return int(np.count_nonzero(np.bincount(keys))) if keys.size else 0


def class_tallies(
    pair_class: np.ndarray, draw_count: np.ndarray, known: np.ndarray, pair_key: np.ndarray
) -> dict[str, ClassTally]:
    """Sampled and judged draws per class and the reweighting factor (ABCDE §5.8).

    factor(class) = draws sampled in class / draws judged in class, so the judged
    draws of every class keep the class's sampled weight (e.g. 1000 split draws
    sampled, 800 judged → each judged split draw weighs 1.25).  Classes are
    self, split, merge and stable non-self (ABCDE §5.8, Jaccard §8); ``pair_class``
    holds their integer codes.
    """
    tallies: dict[str, ClassTally] = {}
    for code, name in enumerate(CLASSES):
        in_class = pair_class == code
        judged = in_class & known
        sampled_draws = int(draw_count[in_class].sum())
        judged_draws = int(draw_count[judged].sum())
        factor = sampled_draws / judged_draws if judged_draws else None
        tallies[name] = ClassTally(
            sampled_draws,
            judged_draws,
            _count_distinct(pair_key[in_class]),
            _count_distinct(pair_key[judged]),
            factor,
        )
    return tallies


def reweighting_factors(
    pair_class: Sequence[str], draw_count: Sequence[int], judged: Sequence[bool]
) -> dict[str, float | None]:
    """Per-class weight of a judged draw: sampled draws / judged draws (ABCDE §5.8).

    A convenience wrapper over :func:`class_tallies` for plain sequences; a class
    that was not sampled is absent, one with no judged draws maps to None.
    """
    codes = _class_codes(np.asarray(pair_class, dtype=object))
    counts = np.asarray(draw_count, dtype=np.int64)
    known = np.asarray(judged, dtype=bool)
    keys = np.arange(codes.size)
    tallies = class_tallies(codes, counts, known, keys)
    return {name: t.factor for name, t in tallies.items() if t.sampled_draws}


def _row_factors(s: JudgedSample, mask: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Reweighting factors recomputed within ``mask`` (a slice), per class.

    Returns the per-row factors (0 outside the mask or when unknown) and the
    classes that were sampled inside the mask but have no judged draw there.
    """
    factors = np.zeros(s.rows)
    starved = []
    for code, name in enumerate(CLASSES):
        in_class = mask & (s.pair_class == code)
        judged = in_class & s.known
        sampled = s.draw_count[in_class].sum()
        judged_draws = s.draw_count[judged].sum()
        if sampled and not judged_draws:
            starved.append(name)
        elif judged_draws:
            factors[judged] = sampled / judged_draws
    return factors, starved


# --------------------------------------------------------------------------- #
# Input normalisation and validation
# --------------------------------------------------------------------------- #


def _as_columns(table: Any, what: str) -> dict[str, np.ndarray]:
    """Columns of a mapping of sequences, a list of row mappings, a pyarrow
    table, a pandas DataFrame or a DuckDB relation, as numpy arrays."""
    if hasattr(table, "fetchnumpy"):
        table = table.fetchnumpy()
    elif hasattr(table, "to_pydict"):
        table = table.to_pydict()
    elif (
        hasattr(table, "columns") and hasattr(table, "to_numpy") and not isinstance(table, Mapping)
    ):
        table = {str(c): table[c].to_numpy() for c in table.columns}
    if isinstance(table, Mapping):
        columns = {str(k): _array(v) for k, v in table.items()}
    else:
        rows = list(table)
        if rows and not all(isinstance(r, Mapping) for r in rows):
            raise ValueError(f"{what}: expected a mapping of columns or a list of row mappings")
        names: list[str] = []
        for r in rows:
            names.extend(k for k in r if k not in names)
        columns = {str(n): _array([r.get(n) for r in rows]) for n in names}
    lengths = {name: col.shape[0] for name, col in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"{what}: columns have different lengths {lengths}")
    return columns


def _array(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        arr = np.asarray(list(values), dtype=object)
    return arr


def _examples(values: np.ndarray, limit: int = 5) -> list[Any]:
    return [v.item() if hasattr(v, "item") else v for v in values[:limit]]


def _class_codes(pair_class: np.ndarray) -> np.ndarray:
    """Integer codes (see CLASSES) of the pair_class column."""
    distinct, inverse = np.unique(np.asarray(pair_class).astype(str), return_inverse=True)
    lookup = np.full(distinct.size, -1, dtype=np.int8)
    for slot, name in enumerate(distinct):
        lookup[slot] = _CLASS_CODE.get(str(name).strip().lower(), -1)
    codes = lookup[np.asarray(inverse).reshape(-1)]
    bad = codes < 0
    if bad.any():
        raise ValueError(
            f"draws.pair_class must be one of {CLASSES}; got {_examples(pair_class[bad])}"
        )
    return codes


def _dense_codes(*arrays: np.ndarray) -> list[np.ndarray]:
    """Factorise values shared across arrays into dense integer codes."""
    joined = np.concatenate(arrays) if arrays else np.array([])
    try:
        _, inverse = np.unique(joined, return_inverse=True)
    except TypeError:  # mixed, unorderable types: fall back to a dict
        index: dict[Any, int] = {}
        inverse = np.fromiter((index.setdefault(v, len(index)) for v in joined), np.int64)
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    out, start = [], 0
    for a in arrays:
        out.append(inverse[start : start + a.shape[0]])
        start += a.shape[0]
    return out


def _normalise_verdict(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    if isinstance(value, (bool, np.bool_)):
        return "equivalent" if value else "not_equivalent"
    text = str(value).strip().lower().replace(" ", "_").replace("-", "_")
    if text not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS} (or True/False/None), got {value!r}")
    return text


def _normalise_all(values: Any) -> list[str]:
    """Normalised verdicts, each distinct raw value parsed once."""
    seen: dict[Any, str] = {}
    out = []
    for v in _plain(values):
        try:
            text = seen.get(v)
            if text is None:
                text = seen[v] = _normalise_verdict(v)
        except TypeError:  # unhashable
            text = _normalise_verdict(v)
        out.append(text)
    return out


def _plain(values: Any) -> list[Any]:
    """Python scalars from a numpy array or any iterable (np.int64(3) → 3)."""
    if isinstance(values, np.ndarray):
        return values.tolist()
    return [_scalar(v) for v in values]


def _verdict_map(verdicts: Any) -> dict[str | None, str]:
    """pair_id (as text, :func:`abcde.quality.judgements.id_text`) → verdict from a mapping,
    columns {pair_id, verdict} or rows."""
    raw = _raw_verdict_map(verdicts)
    out: dict[str | None, str] = {}
    for pair_id, verdict in raw.items():
        key = id_text(pair_id)
        if key in out and out[key] != verdict:
            raise ValueError(
                f"verdicts: pair ids {key!r} name one pair (ids compare as text) but have "
                f"different verdicts {out[key]!r} and {verdict!r}"
            )
        out[key] = verdict
    return out


def _raw_verdict_map(verdicts: Any) -> dict[Any, str]:
    if hasattr(verdicts, "to_pydict") or hasattr(verdicts, "fetchnumpy"):
        verdicts = _as_columns(verdicts, "verdicts")
    if isinstance(verdicts, Mapping) and "pair_id" in verdicts and "verdict" in verdicts:
        ids, values = verdicts["pair_id"], verdicts["verdict"]
        if not isinstance(ids, (str, bytes)) and isinstance(ids, (Sequence, np.ndarray)):
            ids, values = _plain(ids), _normalise_all(values)
            if len(ids) != len(values):
                raise ValueError("verdicts: pair_id and verdict columns differ in length")
            return dict(zip(ids, values, strict=True))
    if isinstance(verdicts, Mapping):
        return dict(zip(_plain(verdicts.keys()), _normalise_all(verdicts.values()), strict=True))
    out: dict[Any, str] = {}
    for row in verdicts:
        if isinstance(row, Mapping):
            out[_scalar(row["pair_id"])] = _normalise_verdict(row["verdict"])
        else:
            pair_id, verdict = row
            out[_scalar(pair_id)] = _normalise_verdict(verdict)
    return out


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _check_pair_structure(
    pair_key: np.ndarray, i_code: np.ndarray, j_code: np.ndarray, codes: np.ndarray, pair_id: Any
) -> None:
    """Rows are unique ordered pairs; a pair_id names {i, j} and at most (i,j), (j,i)."""
    n = pair_key.size
    if n == 0:
        return
    m = int(max(i_code.max(), j_code.max())) + 1
    ordered = i_code * m + j_code
    uniq, counts = np.unique(ordered, return_counts=True)
    if (counts > 1).any():
        dup = np.isin(ordered, uniq[counts > 1])
        raise ValueError(
            "draws: each ordered pair (item_i, item_j) must appear once (aggregate "
            f"repeats into draw_count); repeated pair_ids {_examples(pair_id[dup])}"
        )
    lo, hi = np.minimum(i_code, j_code), np.maximum(i_code, j_code)
    unordered = lo * m + hi
    order = np.argsort(pair_key, kind="stable")
    keys, first = np.unique(pair_key[order], return_index=True)
    per_key_unordered = unordered[order][first]
    per_key_class = codes[order][first]
    group = np.searchsorted(keys, pair_key)
    bad = (unordered != per_key_unordered[group]) | (codes != per_key_class[group])
    if bad.any():
        raise ValueError(
            "draws: rows sharing a pair_id must be (i, j) and (j, i) of one unordered pair "
            f"with one pair_class; offending pair_ids {_examples(pair_id[bad])}"
        )


def _check_labels(population: str, codes: np.ndarray, label: np.ndarray, pair_id: Any) -> None:
    if not np.all(np.isfinite(label)):
        raise ValueError(
            f"draws.label must be finite; pair_ids {_examples(pair_id[~np.isfinite(label)])}"
        )
    if population == "abcde":
        bad = np.abs(label) != 1
        bad |= (codes == SPLIT) & (label != -1)
        bad |= (codes == MERGE) & (label != 1)
        rule = "abcde labels are −1 (split), +1 (merge), sgn(W_b − W_e) = ±1 (stable, self)"
    else:
        bad = ((codes == SPLIT) & (label > -1)) | ((codes == MERGE) & (label < 1))
        rule = "jaccard labels are −b ≤ −1 (split), a ≥ 1 (merge), a − b (stable, self)"
    if bad.any():
        raise ValueError(f"draws.label: {rule}; offending pair_ids {_examples(pair_id[bad])}")


def judged_sample(draws: Any, verdicts: Any, population: str) -> JudgedSample:
    """Validate the draw rows, join the verdicts and compute per-class reweighting.

    ``draws``: one row per unique ordered pair drawn with columns pair_id,
    item_i (vantage item), item_j, pair_class ∈ CLASSES, label, draw_count ≥ 1,
    and optional slice columns of the vantage item.  ``verdicts``: pair_id →
    'equivalent' | 'not_equivalent' | 'unknown' (also accepted: a
    {pair_id: [...], verdict: [...]} column mapping, (pair_id, verdict) rows,
    True/False/None).  Self pairs are always equivalent (ABCDE §5.8); a non-self
    pair without a verdict counts as unknown.
    """
    if population not in POPULATIONS:
        raise ValueError(f"population must be one of {POPULATIONS}, got {population!r}")
    cols = _as_columns(draws, "draws")
    missing = [c for c in REQUIRED_COLUMNS if c not in cols]
    if missing:
        raise ValueError(f"draws lacks columns {missing}; it has {sorted(cols)}")
    pair_id = cols["pair_id"]
    item_i, item_j = cols["item_i"], cols["item_j"]
    codes = _class_codes(cols["pair_class"])
    try:
        label = np.asarray(cols["label"], dtype=float)
        raw_count = np.asarray(cols["draw_count"], dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"draws.label and draws.draw_count must be numeric: {err}") from None
    bad_count = ~np.isfinite(raw_count) | (raw_count < 1) | (raw_count != np.floor(raw_count))
    if bad_count.any():
        raise ValueError(
            f"draws.draw_count must be an integer ≥ 1; pair_ids {_examples(pair_id[bad_count])}"
        )
    draw_count = raw_count.astype(np.int64)
    _check_labels(population, codes, label, pair_id)
    i_code, j_code = _dense_codes(item_i, item_j)
    (pair_key,) = _dense_codes(pair_id)
    is_self = i_code == j_code
    if (is_self != (codes == SELF)).any():
        raise ValueError(
            "draws: pair_class is 'self' exactly when item_i = item_j; offending pair_ids "
            f"{_examples(pair_id[is_self != (codes == SELF)])}"
        )
    _check_pair_structure(pair_key, i_code, j_code, codes, pair_id)

    verdict_of = _verdict_map(verdicts)
    unique_keys, first = np.unique(pair_key, return_index=True)
    first_ids = [id_text(p) for p in _plain(pair_id[first])]
    found = [verdict_of.get(p) for p in first_ids]
    verdict_code = np.array([_VERDICT_CODE.get(v, -2) for v in found], dtype=np.int8)
    first_self = codes[first] == SELF
    contradiction = first_self & (verdict_code == 0)
    if contradiction.any():
        raise ValueError(
            "verdicts: self pairs are always equivalent; got 'not_equivalent' for "
            f"{_examples(pair_id[first][contradiction])}"
        )
    equivalent_by_key = np.where(verdict_code >= 0, verdict_code, np.nan).astype(float)
    equivalent_by_key[first_self] = 1.0
    missing_verdicts = int(((verdict_code == -2) & ~first_self).sum())
    unused_verdicts = len(verdict_of) - int((verdict_code != -2).sum())
    equivalent = equivalent_by_key[np.searchsorted(unique_keys, pair_key)]
    known = ~np.isnan(equivalent)
    tallies = class_tallies(codes, draw_count, known, pair_key)
    factor = np.zeros(label.size)
    for code, name in enumerate(CLASSES):
        f = tallies[name].factor
        if f is not None:
            factor[(codes == code) & known] = f
    slices = {k: v for k, v in cols.items() if k not in REQUIRED_COLUMNS}
    return JudgedSample(
        population,
        pair_id,
        pair_key,
        item_i,
        item_j,
        codes,
        label,
        draw_count,
        equivalent,
        known,
        factor,
        tallies,
        slices,
        missing_verdicts,
        unused_verdicts,
    )


# --------------------------------------------------------------------------- #
# Metric estimators
# --------------------------------------------------------------------------- #


def _class_mean(
    s: JudgedSample,
    classes: Sequence[int],
    values: np.ndarray,
    multiplier: float,
    what: str,
    confidence: float,
    se_method: str,
    mask: np.ndarray | None = None,
    factors: np.ndarray | None = None,
    *,
    proportion: bool = False,
    importance: np.ndarray | None = None,
) -> Estimate:
    """multiplier × reweighted mean of ``values`` over the judged draws of ``classes``.

    ``proportion``: ``values`` is a 0/1 indicator and the interval is Wilson's with
    the effective sample size (module docstring); the draws are then weighted by
    factor × ``importance`` (default 1).  Otherwise the interval is Wald's.
    """
    if multiplier < 0 or not math.isfinite(multiplier):
        raise ValueError(f"{what}: the population total must be finite and ≥ 0, got {multiplier}")
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
    pairs = _count_distinct(s.pair_key[used])
    draws = int(s.draw_count[used].sum())
    if starved:
        note = (
            f"undefined: {', '.join(starved)} pairs were drawn but none has a verdict, "
            "so their share cannot be reweighted (ABCDE §5.8)"
        )
        return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)
    if not used.any():
        note = f"undefined: no {names} pairs were drawn (their total weight is {multiplier:.6g})"
        return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)
    m = None if importance is None else importance[used]
    mean, se = reweighted_mean_se(
        values[used],
        factors[used],
        s.draw_count[used],
        s.pair_key[used],
        s.pair_class[used],
        se_method,
        m,
    )
    if not proportion:
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


def _equiv(s: JudgedSample) -> np.ndarray:
    return np.where(s.known, s.equivalent, 0.0)


def _importance(s: JudgedSample) -> np.ndarray | None:
    """u_ij / w_ij: None (all 1) on the abcde population, |l_ij| on the jaccard one
    (Jaccard §6.1)."""
    return None if s.population == "abcde" else np.abs(s.label)


def _require_jaccard(s: JudgedSample, what: str) -> None:
    if s.population != "jaccard":
        raise ValueError(f"{what}: {_UNAVAILABLE_ABCDE[what]}")


def delta_precision(
    s: JudgedSample, total: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """ΔPrecision(T) = Σu · mean over all draws of l_ij·1(i≡j).

    ABCDE §5.3 eq. 39 and §5.7; on the jaccard population Jaccard §6 eq. 80 and
    §7, where ``total`` = SplitDistance(T) + AffectedJaccardIndex(T) +
    MergeDistance(T).  ``total`` is the population's pair-weight sum.  Wald
    interval (the values are not a 0/1 proportion).
    """
    values = s.label * _equiv(s)
    classes = (SELF, SPLIT, MERGE, STABLE)
    return _class_mean(s, classes, values, total, "delta_precision", confidence, se_method)


def _rate(
    s: JudgedSample,
    cls: int,
    indicator: np.ndarray,
    rate: float,
    what: str,
    confidence: float,
    se_method: str,
) -> Estimate:
    """rate × the share of draws of ``cls`` with ``indicator`` = 1, importance-weighted
    by u_ij/w_ij on the jaccard population (a ratio estimator, Jaccard §6.1)."""
    return _class_mean(
        s,
        (cls,),
        indicator,
        rate,
        what,
        confidence,
        se_method,
        proportion=True,
        importance=_importance(s),
    )


def good_split_rate(
    s: JudgedSample, split_rate: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodSplitRate(T) = SplitRate(T) · share of split draws with 1(i≢j).

    ABCDE eq. 41, 47–49, §5.6.1, §5.7 (``split_rate`` = SplitRate(T), the abcde
    population's split total).  On the jaccard population each draw is
    importance-weighted by |l_ij| = b_i = u_ij/w_ij (Jaccard §6.1): the share is
    Σ f k |l| 1(i≢j) / Σ f k |l|.
    """
    return _rate(s, SPLIT, 1 - _equiv(s), split_rate, "good_split_rate", confidence, se_method)


def bad_split_rate(
    s: JudgedSample, split_rate: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadSplitRate(T) = SplitRate(T) · share of split draws with 1(i≡j).

    ABCDE eq. 42, §5.7; importance-weighted by |l_ij| on the jaccard population.
    """
    return _rate(s, SPLIT, _equiv(s), split_rate, "bad_split_rate", confidence, se_method)


def good_merge_rate(
    s: JudgedSample, merge_rate: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodMergeRate(T) = MergeRate(T) · share of merge draws with 1(i≡j).

    ABCDE eq. 43, §5.6.2, §5.7; on the jaccard population each draw is weighted by
    |l_ij| = a_i = u_ij/w_ij (Jaccard §6.1).
    """
    return _rate(s, MERGE, _equiv(s), merge_rate, "good_merge_rate", confidence, se_method)


def bad_merge_rate(
    s: JudgedSample, merge_rate: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadMergeRate(T) = MergeRate(T) · share of merge draws with 1(i≢j).

    ABCDE eq. 44, §5.7; importance-weighted by |l_ij| on the jaccard population.
    """
    return _rate(s, MERGE, 1 - _equiv(s), merge_rate, "bad_merge_rate", confidence, se_method)


def good_split_distance(
    s: JudgedSample, split_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodSplitDistance(T) = SplitDistance(T) · mean over split draws of 1(i≢j).

    Jaccard decomposition eq. 5, 23–30, §4.4.
    """
    _require_jaccard(s, "good_split_distance")
    values = 1 - _equiv(s)
    return _class_mean(
        s, (SPLIT,), values, split_distance, "good_split_distance", confidence, se_method,
        proportion=True,
    )


def bad_split_distance(
    s: JudgedSample, split_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadSplitDistance(T) = SplitDistance(T) · mean over split draws of 1(i≡j).

    Jaccard decomposition eq. 6, §4.4.
    """
    _require_jaccard(s, "bad_split_distance")
    values = _equiv(s)
    return _class_mean(
        s, (SPLIT,), values, split_distance, "bad_split_distance", confidence, se_method,
        proportion=True,
    )


def good_merge_distance(
    s: JudgedSample, merge_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodMergeDistance(T) = MergeDistance(T) · mean over merge draws of 1(i≡j).

    Jaccard decomposition eq. 7, §4.4.
    """
    _require_jaccard(s, "good_merge_distance")
    values = _equiv(s)
    return _class_mean(
        s, (MERGE,), values, merge_distance, "good_merge_distance", confidence, se_method,
        proportion=True,
    )


def bad_merge_distance(
    s: JudgedSample, merge_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadMergeDistance(T) = MergeDistance(T) · mean over merge draws of 1(i≢j).

    Jaccard decomposition eq. 8, §4.4.
    """
    _require_jaccard(s, "bad_merge_distance")
    values = 1 - _equiv(s)
    return _class_mean(
        s, (MERGE,), values, merge_distance, "bad_merge_distance", confidence, se_method,
        proportion=True,
    )


def good_distance(
    s: JudgedSample,
    split_distance: float,
    merge_distance: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """GoodDistance(T) = GoodSplitDistance(T) + GoodMergeDistance(T) (Jaccard eq. 11, 21, §8).

    Split and merge pairs are disjoint, so the SEs add in quadrature.
    """
    opts = {"confidence": confidence, "se_method": se_method}
    parts = [
        good_split_distance(s, split_distance, **opts),
        good_merge_distance(s, merge_distance, **opts),
    ]
    return sum_independent(parts, confidence)


def bad_distance(
    s: JudgedSample,
    split_distance: float,
    merge_distance: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """BadDistance(T) = BadSplitDistance(T) + BadMergeDistance(T) (Jaccard eq. 12, 22, §8)."""
    opts = {"confidence": confidence, "se_method": se_method}
    parts = [
        bad_split_distance(s, split_distance, **opts),
        bad_merge_distance(s, merge_distance, **opts),
    ]
    return sum_independent(parts, confidence)


def affected_good_index(
    s: JudgedSample,
    affected_jaccard_index: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """AffectedGoodIndex(T) = AffectedJaccardIndex(T) · mean over stable+self draws of 1(i≡j).

    Jaccard eq. 56–58, §7; self pairs count as judged equivalent and keep their
    sampled weight against the reweighted stable non-self draws (Jaccard §8).
    """
    _require_jaccard(s, "affected_good_index")
    values = _equiv(s)
    return _class_mean(
        s,
        (SELF, STABLE),
        values,
        affected_jaccard_index,
        "affected_good_index",
        confidence,
        se_method,
        proportion=True,
    )


def affected_bad_index(
    s: JudgedSample,
    affected_jaccard_index: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """AffectedBadIndex(T) = AffectedJaccardIndex(T) · mean over stable+self draws of 1(i≢j).

    Jaccard decomposition eq. 59, §7.
    """
    _require_jaccard(s, "affected_bad_index")
    values = 1 - _equiv(s)
    return _class_mean(
        s,
        (SELF, STABLE),
        values,
        affected_jaccard_index,
        "affected_bad_index",
        confidence,
        se_method,
        proportion=True,
    )


# --------------------------------------------------------------------------- #
# Slices (ABCDE Appendix B)
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class SliceEstimate:
    """ΔPrecision(I) and ΔPrecisionContribution(I) of one slice I of vantage items."""

    slice: dict[str, Any]
    weight: float
    pairweight: float
    draws: int
    delta_precision: Estimate
    contribution: Estimate

    def as_dict(self) -> dict[str, Any]:
        return {
            "slice": self.slice,
            "weight": self.weight,
            "pairweight": self.pairweight,
            "draws": self.draws,
            "delta_precision": self.delta_precision.as_dict(),
            "contribution": self.contribution.as_dict(),
        }


def slice_delta_precision(
    s: JudgedSample,
    in_slice: np.ndarray,
    slice_weight: float,
    pairweight: float,
    total_weight: float,
    *,
    key: Mapping[str, Any] | None = None,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> SliceEstimate:
    """ΔPrecision(I) and its contribution from the draws whose vantage item is in I.

    ΔPrecision(I) = mean_{draws, i∈I} l_ij·1(i≡j) × (W / w(I))·pairweight(I)
    (ABCDE App. B.1, eq. 59–63); contribution = w(I)/W·ΔPrecision(I) = mean ×
    pairweight(I) (App. B.2, eq. 64–67).  Unknown verdicts are reweighted per
    class *within the slice*.  ``in_slice`` is a boolean mask over draw rows.
    """
    if not (slice_weight > 0 and total_weight > 0):
        raise ValueError(f"slice {dict(key or {})}: weights must be > 0")
    if pairweight < 0:
        raise ValueError(f"slice {dict(key or {})}: pairweight must be ≥ 0")
    mask = np.asarray(in_slice, dtype=bool)
    factors, _ = _row_factors(s, mask)
    values = s.label * _equiv(s)
    classes = (SELF, SPLIT, MERGE, STABLE)
    contribution = _class_mean(
        s, classes, values, pairweight, "slice", confidence, se_method, mask=mask, factors=factors
    )
    dp = rescaled(contribution, total_weight / slice_weight)
    return SliceEstimate(
        dict(key or {}),
        float(slice_weight),
        float(pairweight),
        int(s.draw_count[mask].sum()),
        dp,
        contribution,
    )


def _equal_mask(column: np.ndarray, value: Any) -> np.ndarray:
    """Rows of ``column`` equal to ``value`` (None matches None)."""
    if value is None:
        return np.array([v is None for v in column], dtype=bool)
    result = np.asarray(column == value)
    if result.shape != column.shape:  # numpy declined an elementwise comparison
        result = np.array([v == value for v in column], dtype=bool)
    return result.astype(bool)


def _slice_rows(slices: Any) -> list[dict[str, Any]]:
    """Manifest slices as rows {<column>: value, ..., weight, pairweight}.

    Accepted: a list of such rows, or {column: {value: {weight, pairweight}}}.
    """
    if slices is None:
        return []
    if isinstance(slices, Mapping):
        rows = []
        for column, per_value in slices.items():
            for value, stats in per_value.items():
                rows.append({column: value, **stats})
        return rows
    return [dict(r) for r in slices]


def estimate_slices(
    s: JudgedSample,
    slices: Any,
    total_weight: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> list[SliceEstimate]:
    """Per-slice ΔPrecision and contribution for every slice row of the manifest (ABCDE App. B)."""
    out = []
    for row in _slice_rows(slices):
        if "weight" not in row or "pairweight" not in row:
            raise ValueError(f"manifest slice {row} needs 'weight' and 'pairweight'")
        key = {k: v for k, v in row.items() if k not in ("weight", "pairweight")}
        if not key:
            raise ValueError(f"manifest slice {row} names no slice column")
        mask = np.ones(s.rows, dtype=bool)
        for column, value in key.items():
            if column not in s.slice_columns:
                raise ValueError(
                    f"manifest slices by {column!r} but draws have no such column "
                    f"(slice columns: {sorted(s.slice_columns)})"
                )
            mask &= _equal_mask(s.slice_columns[column], value)
        out.append(
            slice_delta_precision(
                s,
                mask,
                float(row["weight"]),
                float(row["pairweight"]),
                total_weight,
                key=key,
                confidence=confidence,
                se_method=se_method,
            )
        )
    return out


# --------------------------------------------------------------------------- #
# Reporting
# --------------------------------------------------------------------------- #


def _percent(value: float, digits: int) -> str:
    return f"{100 * value:+.{digits}f}%"


MAX_UNKNOWN_SHARE = 0.2
"""Above this share of unknown verdicts (among the pairs that need one) a warning."""
MIN_JUDGED_PAIRS = 10
"""Below this many judged pairs in a class (split, merge, stable) a warning."""


def sample_warnings(sample: Mapping[str, Any], totals: Mapping[str, float]) -> list[str]:
    """Why the intervals of a judged sample may not be trusted (empty when fine).

    ``sample`` is the ``sample`` section of :func:`estimate` (per-class tallies),
    ``totals`` the population's class totals.  Two conditions:

    - more than :data:`MAX_UNKNOWN_SHARE` of the judgeable pairs are unknown: the
      reweighting of ABCDE §5.8 assumes the unknown pairs are missing at random
      within their class; a partial truth or judges skipping the hard pairs break
      that, and the intervals do not include the resulting bias;
    - a class with pairs in the population has fewer than :data:`MIN_JUDGED_PAIRS`
      judged pairs: its part of ΔPrecision rests on a handful of verdicts and the
      normal interval is unreliable (the Wilson intervals of the rates stay valid
      but are wide).
    """
    classes = sample.get("classes") or {}
    out = []
    judgeable = sum(int(classes[c]["sampled_pairs"]) for c in CLASSES[1:] if c in classes)
    judged = sum(int(classes[c]["judged_pairs"]) for c in CLASSES[1:] if c in classes)
    unknown = judgeable - judged
    if judgeable and unknown / judgeable > MAX_UNKNOWN_SHARE:
        out.append(
            f"{unknown:,} of {judgeable:,} judgeable pairs ({100 * unknown / judgeable:.0f}%) "
            "have no verdict (unknown). The estimates reweight the judged pairs of each "
            "class (ABCDE §5.8), which assumes the unknown pairs are missing at random "
            "within their class; the intervals do not cover a bias if they are not (e.g. "
            "a truth that labels only some items, or judges skipping hard pairs). Judge "
            "more of the pairs, or use a truth that covers the sampled items."
        )
    few = []
    for name in CLASSES[1:]:
        t = classes.get(name) or {}
        in_population = float(totals.get(name, 0.0)) > 0
        if name == "stable":  # stable non-self pairs may not exist (only self pairs)
            in_population = in_population and int(t.get("sampled_pairs", 0)) > 0
        if in_population and int(t.get("judged_pairs", 0)) < MIN_JUDGED_PAIRS:
            few.append(f"{name} {int(t.get('judged_pairs', 0))}")
    if few:
        out.append(
            f"few judged pairs in a class ({', '.join(few)}; fewer than {MIN_JUDGED_PAIRS}): "
            "the metrics of that class and its share of ΔPrecision rest on a handful of "
            "verdicts, and ΔPrecision's normal interval is unreliable. Increase the budget "
            "(or stratify: abcde sample-pairs --strata-allocation)."
        )
    return out


def _percent(value: float, digits: int) -> str:
    return f"{100 * value:+.{digits}f}%"


def precision_verdict(
    est: Estimate, name: str = "ΔPrecision", warnings: Sequence[str] = ()
) -> str:
    """Plain-language reading of a ΔPrecision estimate and its confidence interval.

    "ΔPrecision +0.8% ± 0.3% (95% CI): the Experiment is more precise" when the
    interval excludes 0, "…: no significant difference" when it contains 0.  With
    ``warnings`` (:func:`sample_warnings`) no conclusion is drawn: "…: not
    conclusive — see the warnings".
    """
    level = f"{100 * est.confidence:g}% CI"
    if est.estimate is None:
        return f"{name} could not be estimated: {est.note}"
    if est.se is None or est.ci_low is None or est.ci_high is None:
        return f"{name} {_percent(est.estimate, 2)} (no confidence interval: {est.note})"
    half = (est.ci_high - est.ci_low) / 2
    if half == 0:
        tail = "no difference" if est.estimate == 0 else "no sampling error"
        return f"{name} {_percent(est.estimate, 2)} ({tail}; {est.note or 'exact'})"
    # enough decimals for two significant digits of the half-width, at least one
    digits = min(6, max(1, 1 - math.floor(math.log10(100 * half))))
    head = f"{name} {_percent(est.estimate, digits)} ± {100 * half:.{digits}f}% ({level})"
    if warnings:
        return (
            f"{head}: not conclusive — the sample does not support a conclusion "
            f"({len(warnings)} warning{'s' if len(warnings) > 1 else ''} below)"
        )
    if est.ci_low > 0:
        return f"{head}: the Experiment is more precise"
    if est.ci_high < 0:
        return f"{head}: the Experiment is less precise"
    return f"{head}: no significant difference"


# --------------------------------------------------------------------------- #
# Manifest and top level
# --------------------------------------------------------------------------- #


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(abs(a), abs(b)) + 1e-15


def _metric(manifest: Mapping[str, Any], name: str) -> float | None:
    for section in ("metrics", "impact"):
        inner = manifest.get(section)
        if isinstance(inner, Mapping) and inner.get(name) is not None:
            return float(inner[name])
    value = manifest.get(name)
    return None if value is None else float(value)


def _totals(manifest: Mapping[str, Any], population: str) -> dict[str, float]:
    """Class totals of the pair population, checked against the impact metrics."""
    raw = manifest.get("totals")
    if not isinstance(raw, Mapping):
        raise ValueError("manifest.totals must map total, split, merge, stable to pair-weight sums")
    missing = [k for k in ("total", "split", "merge", "stable") if raw.get(k) is None]
    if missing:
        raise ValueError(f"manifest.totals lacks {missing}")
    totals = {k: float(raw[k]) for k in ("total", "split", "merge", "stable")}
    for k, v in totals.items():
        if not (math.isfinite(v) and v >= 0):
            raise ValueError(f"manifest.totals.{k} must be finite and ≥ 0, got {v}")
    parts = totals["split"] + totals["merge"] + totals["stable"]
    if not _close(totals["total"], parts):
        raise ValueError(
            f"manifest.totals: total {totals['total']!r} ≠ split + merge + stable {parts!r}"
        )
    expected = (
        {"split": "split_rate", "merge": "merge_rate"}
        if population == "abcde"
        else {
            "split": "split_distance",
            "merge": "merge_distance",
            "stable": "affected_jaccard_index",
        }
    )
    for k, metric in expected.items():
        value = _metric(manifest, metric)
        if value is not None and not _close(value, totals[k]):
            raise ValueError(
                f"manifest: totals.{k} = {totals[k]!r} but {metric} = {value!r}; for the "
                f"{population} population they are the same sum (is the population right?)"
            )
    return totals


def _check_classes_against_totals(s: JudgedSample, totals: Mapping[str, float]) -> None:
    for code, name in enumerate(CLASSES):
        total_key = "stable" if name == "self" else name
        if totals[total_key] == 0 and (s.pair_class == code).any():
            raise ValueError(f"draws include {name} pairs but manifest.totals.{total_key} is 0")


def _rate_multipliers(
    manifest: Mapping[str, Any], population: str, totals: Mapping[str, float]
) -> dict[str, float | None]:
    """SplitRate(T) and MergeRate(T), the multipliers of the rates: the abcde
    population's split and merge totals, or the manifest's exact impact metrics on
    the jaccard population (None when the manifest lacks them); 0 for a class with
    no pairs (e.g. a stratum without it)."""
    out: dict[str, float | None] = {}
    for cls in ("split", "merge"):
        if population == "abcde" or totals[cls] == 0:
            out[cls] = totals[cls]
        else:
            out[cls] = _metric(manifest, f"{cls}_rate")
    return out


def estimate(
    draws: Any,
    verdicts: Any,
    manifest: Mapping[str, Any],
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> dict[str, Any]:
    """All quality estimates of the sample, as a JSON-ready dict.

    Keys: ``population``; every key of :data:`METRIC_KEYS` — ``delta_precision``,
    the four (good|bad)(split|merge) rates (importance-weighted ratios on the
    jaccard population, Jaccard §6.1), the six distances and the two affected
    indexes — each a dict estimate, se, ci_low, ci_high, interval, n_eff, pairs,
    draws, multiplier, note (estimate None + note when the sample cannot tell; on
    the abcde population the distances and indexes always, with the reason, which
    ``unavailable`` also lists).  ``verdict`` reads ΔPrecision in words;
    ``warnings`` lists why the intervals may not be trusted
    (:func:`sample_warnings`); ``slices`` gives per-slice ΔPrecision and
    contribution (ABCDE App. B) when the manifest has slices; ``sample`` reports
    draws, pairs, unknowns and reweighting factors per class.  On the jaccard
    population the manifest must hold the exact ``split_rate`` and ``merge_rate``
    (under ``metrics``) for the rates.
    ``se_method``: see :func:`reweighted_mean_se` ("pair_clustered" or the
    paper's plain "kirchner"; identical when every pair has a verdict).
    """
    if se_method not in SE_METHODS:
        raise ValueError(f"se_method must be one of {SE_METHODS}, got {se_method!r}")
    population = manifest.get("population")
    if population not in POPULATIONS:
        raise ValueError(f"manifest.population must be one of {POPULATIONS}, got {population!r}")
    totals = _totals(manifest, population)
    s = judged_sample(draws, verdicts, population)
    _check_classes_against_totals(s, totals)

    opts: dict[str, Any] = {"confidence": confidence, "se_method": se_method}
    rates = _rate_multipliers(manifest, population, totals)
    results: dict[str, Estimate] = {
        "delta_precision": delta_precision(s, totals["total"], **opts)
    }
    for key, fn in (
        ("good_split_rate", good_split_rate),
        ("bad_split_rate", bad_split_rate),
        ("good_merge_rate", good_merge_rate),
        ("bad_merge_rate", bad_merge_rate),
    ):
        cls = "split" if "split" in key else "merge"
        rate = rates[cls]
        if rate is None:
            note = (
                f"undefined: the manifest lacks metrics.{cls}_rate ({cls.title()}Rate(T)), "
                "the multiplier of the jaccard population's rate estimates"
            )
            results[key] = Estimate(None, None, None, None, 0, 0, 0.0, confidence, note)
        else:
            results[key] = fn(s, rate, **opts)
    unavailable: dict[str, str] = {}
    if population == "jaccard":
        sd, md, aji = totals["split"], totals["merge"], totals["stable"]
        results.update(
            good_split_distance=good_split_distance(s, sd, **opts),
            bad_split_distance=bad_split_distance(s, sd, **opts),
            good_merge_distance=good_merge_distance(s, md, **opts),
            bad_merge_distance=bad_merge_distance(s, md, **opts),
            affected_good_index=affected_good_index(s, aji, **opts),
            affected_bad_index=affected_bad_index(s, aji, **opts),
        )
        for side in ("good", "bad"):  # = good_distance(...), bad_distance(...)
            parts = [results[f"{side}_split_distance"], results[f"{side}_merge_distance"]]
            results[f"{side}_distance"] = sum_independent(parts, confidence)
        note = (
            "importance-weighted by |l_ij| = u_ij/w_ij from the jaccard population "
            "(Jaccard §6.1); large labels widen the interval"
        )
        for key in RATE_KEYS:
            if results[key].estimate is not None and results[key].note is None:
                results[key] = replace(results[key], note=note)
    else:
        unavailable.update(_UNAVAILABLE_ABCDE)
        for key, why in _UNAVAILABLE_ABCDE.items():  # a stable JSON shape
            results[key] = Estimate(
                None, None, None, None, 0, 0, 0.0, confidence, f"not available: {why}"
            )

    out: dict[str, Any] = {"population": population, "se_method": se_method}
    out.update({k: results[k].as_dict() for k in METRIC_KEYS})
    out["unavailable"] = unavailable
    slices = manifest.get("slices")
    if slices:
        total_weight = _metric(manifest, "weight")
        if total_weight is None:
            raise ValueError("manifest has slices but no total item weight 'weight' (W)")
        out["slices"] = [e.as_dict() for e in estimate_slices(s, slices, total_weight, **opts)]
    known = s.known
    out["sample"] = {
        "rows": s.rows,
        "draws": int(s.draw_count.sum()),
        "pairs": _count_distinct(s.pair_key),
        "judged_pairs": _count_distinct(s.pair_key[known]),
        "unknown_pairs": _count_distinct(s.pair_key[~known]),
        "missing_verdicts": s.missing_verdicts,
        "unused_verdicts": s.unused_verdicts,
        "classes": {name: t.as_dict() for name, t in s.tallies.items()},
    }
    out["warnings"] = sample_warnings(out["sample"], totals)
    out["verdict"] = precision_verdict(results["delta_precision"], warnings=out["warnings"])
    return out


def metric_keys(population: str) -> tuple[str, ...]:
    """Metric keys ``population`` can estimate (:func:`estimate` returns every key of
    :data:`METRIC_KEYS`; the others with estimate None and the reason)."""
    if population not in POPULATIONS:
        raise ValueError(f"population must be one of {POPULATIONS}, got {population!r}")
    if population == "jaccard":
        return METRIC_KEYS
    return ("delta_precision", *RATE_KEYS)
