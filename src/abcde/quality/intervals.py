"""Interval statistics of a weighted proportion (docs/method.md §8.7–8.8): standard errors,
effective sample sizes, the interval of a proportion (one function, a method switch) and
of a sum of independent parts (MOVER). Nothing here knows pairs or metrics.

References: J. W. Kirchner, Data Analysis Toolkit #12 (Berkeley; cited by ABCDE §5.8);
E. B. Wilson, JASA 22:209–212, 1927; L. D. Brown, T. T. Cai, A. DasGupta, Statistical
Science 16:101–133, 2001; A. Agresti, B. A. Coull, Am. Stat. 52:119–126, 1998; L. Kish,
Survey Sampling, 1965; E. L. Korn, B. I. Graubard, Survey Methodology 24:193–201, 1998;
R. G. Newcombe, Stat. Med. 17:873–890, 1998; G. Y. Zou, A. Donner, Stat. Med.
27:1693–1702, 2008.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

SE_METHODS = ("pair_clustered", "kirchner")
"""Standard-error methods of :func:`reweighted_mean_se` (docs/method.md §8.7)."""
DEFAULT_SE = "pair_clustered"
MODIFIED_WILSON_COUNT = 3.0
"""x* of Brown, Cai & DasGupta (2001, §4.1.1): up to this many effective successes (or
failures) the limit at that end is the Poisson one."""


def weighted_mean_se(x: Sequence[float] | np.ndarray, w: Sequence[float] | np.ndarray,
                     counts: Sequence[float] | np.ndarray | None = None) -> tuple[float, float]:
    """Kirchner's Case I: the weighted mean and its SE, row r standing for ``counts[r]``
    observations (NaN SE for a single one; docs/method.md §8.7, ABCDE §5.8).

    >>> mean, se = weighted_mean_se([1, 2, 4], [1, 2, 1])
    >>> mean, round(se * se, 6)  # 57/80
    (2.25, 0.7125)
    """
    xs, ws = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    return _kirchner(xs, ws, np.ones_like(xs) if counts is None else np.asarray(counts, float))


def _kirchner(xs: np.ndarray, ws: np.ndarray, ks: np.ndarray) -> tuple[float, float]:
    kw = ks * ws
    sum_w = float(kw.sum())
    mean = float((kw * xs).sum() / sum_w)
    sum_w2 = float((kw * ws).sum())
    denominator = sum_w * sum_w - sum_w2
    if denominator <= 1e-12 * sum_w * sum_w:
        return mean, math.nan
    spread = float((kw * (xs - mean) ** 2).sum() / sum_w)  # centred: no cancellation
    return mean, math.sqrt(spread * sum_w2 / denominator)


def reweighted_mean_se(x: np.ndarray, factor: np.ndarray, draw_count: np.ndarray,
                       pair_key: np.ndarray, stratum: np.ndarray, method: str = DEFAULT_SE,
                       importance: np.ndarray | None = None) -> tuple[float, float]:
    """The ratio R = Σ f k m x / Σ f k m of judged draw rows and its SE (docs/method.md §8.7).

    ``kirchner`` is the paper's Case I with weight f·m per draw; ``pair_clustered`` (the
    default) adds the variance of which pairs got a verdict, a pair being kept or dropped
    with all its draws (two-phase sampling, calibrated per ``stratum``):

        SE² = N/(N − 1) · Σ f k e² / V² + Σ_pairs f_p (f_p − 1) g_p² / V²

    with e = m (x − R), V = Σ f k m and g_p the pair's Σ k (e − ē_stratum). Identical to
    Case I when every pair is judged. The SE is NaN when one draw carries everything.
    """
    if method == "kirchner":
        m = np.ones_like(x) if importance is None else np.asarray(importance, dtype=float)
        return _kirchner(x, factor * m, draw_count.astype(float))
    mean, first, keep = ratio_terms(x, factor, draw_count, pair_key, stratum, importance)
    return mean, math.sqrt(first + keep)


def ratio_terms(x: np.ndarray, factor: np.ndarray, draw_count: np.ndarray,
                pair_key: np.ndarray, stratum: np.ndarray,
                importance: np.ndarray | None = None) -> tuple[float, float, float]:
    """R and the two terms of the ``pair_clustered`` SE² of :func:`reweighted_mean_se`:
    the draws' (with-replacement) term and the pair-keep (second-phase) term, both linear
    in x before squaring (NaN, 0 when one draw carries everything)."""
    k = draw_count.astype(float)
    m = np.ones_like(x) if importance is None else np.asarray(importance, dtype=float)
    fk = factor * k
    total = float(fk.sum())
    weight = float((fk * m).sum())
    mean = float((fk * m * x).sum() / weight)
    if total * total - float((fk * factor).sum()) <= 1e-12 * total * total:
        return mean, math.nan, 0.0
    e = m * (x - mean)
    first = total / (total - 1) * float((fk * e**2).sum()) / weight**2
    keep = 0.0
    if np.any(factor != 1):
        strata = np.asarray(stratum, dtype=np.int64)
        stratum_mean = np.bincount(strata, weights=fk * e) / np.maximum(
            np.bincount(strata, weights=fk), 1e-300)
        keep = _pair_keep_term(e - stratum_mean[strata], k, pair_key, factor) / weight**2
    return mean, first, keep


def _pair_keep_term(values: np.ndarray, k: np.ndarray, pair_key: np.ndarray,
                    factor: np.ndarray) -> float:
    """Σ_pairs f (f − 1) (Σ_rows k·values)²: keeping each pair with probability 1/f."""
    per_pair = np.bincount(pair_key, weights=k * values)
    pair_factor = np.ones(per_pair.size)
    pair_factor[pair_key] = factor
    return float((pair_factor * (pair_factor - 1) * per_pair**2).sum())


def kish_n_eff(weights: np.ndarray, draw_count: np.ndarray) -> float:
    """Kish's (Σ k w)²/Σ k w² (0 when every weight is 0; Kish 1965).

    >>> round(kish_n_eff(np.array([1.0, 2.0, 1.0]), np.array([1, 1, 2])), 6)  # 25/7
    3.571429
    """
    k, w = np.asarray(draw_count, dtype=float), np.asarray(weights, dtype=float)
    sum_w2 = float((k * w * w).sum())
    return float((k * w).sum()) ** 2 / sum_w2 if sum_w2 > 0 else 0.0


def design_n_eff(factor: np.ndarray, draw_count: np.ndarray, pair_key: np.ndarray,
                 method: str = DEFAULT_SE, importance: np.ndarray | None = None) -> float:
    """The design's effective sample size of a weighted proportion: p(1 − p)/SE² of
    :func:`reweighted_mean_se` with residuals of unit size (docs/method.md §8.8) — Kish's
    (N − 1)/N when every pair is judged, smaller with unknowns; Kish's less one for
    ``kirchner``."""
    k = np.asarray(draw_count, dtype=float)
    m = np.ones_like(k) if importance is None else np.asarray(importance, dtype=float)
    kish = kish_n_eff(factor * m, k)
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
    """p̂(1 − p̂)/SE² truncated at the design's n_eff, or the design's when that cannot be
    formed (p̂ of 0 or 1, no SE; Korn & Graubard 1998; docs/method.md §8.8).

    >>> round(effective_n(0.1, 0.05, 100.0), 9), effective_n(0.0, 0.0, 7.0)
    (36.0, 7.0)
    """
    if se is None or not math.isfinite(se) or se <= 0 or not 0 < p < 1:
        return design
    return min(design, p * (1 - p) / (se * se))


@functools.lru_cache(maxsize=64)
def z_value(confidence: float = 0.95) -> float:
    """Φ⁻¹(½ + confidence/2).

    >>> round(z_value(0.95), 6)
    1.959964
    """
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def interval(p: float, n_eff: float, confidence: float = 0.95,
             method: str = "modified_wilson") -> tuple[float, float]:
    """The interval of a proportion p̂ seen with n_eff effective observations, in [0, 1]
    ([0, 1] itself when n_eff ≤ 0; docs/method.md §8.8):

    - ``wilson``: the score interval; it under-covers near 0 and 1 (Brown, Cai &
      DasGupta 2001, §4.1.1);
    - ``modified_wilson`` (abcde's): Wilson's with the Poisson limit λ_x/n at an end with
      x ≤ 3 effective successes (or failures), which removes that dip;
    - ``wald``: p̂ ± z·sqrt(p̂(1 − p̂)/n), clipped (for comparison: poor near 0 and 1);
    - ``agresti_coull``: Wald's around (p̂n + z²/2)/(n + z²) with n + z² (Agresti & Coull).

    >>> tuple(round(x, 4) for x in interval(81 / 263, 263, method="wilson"))  # Newcombe
    (0.2553, 0.3662)
    >>> round(interval(1 / 150, 150)[0] * 150, 4)  # the Poisson limit λ_1
    0.0253
    """
    z = z_value(confidence)
    if not n_eff > 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, p))
    if method in ("wilson", "modified_wilson"):
        z2n = z * z / n_eff
        centre = (p + z2n / 2) / (1 + z2n)
        half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n_eff + z2n / (4 * n_eff))
        low = 0.0 if p == 0 else max(0.0, centre - half)  # exact ends: rounding may miss
        high = 1.0 if p == 1 else min(1.0, centre + half)
        if method == "modified_wilson":
            successes, failures = n_eff * p, n_eff * (1 - p)
            if 0 < successes <= MODIFIED_WILSON_COUNT:
                low = min(low, poisson_lower(successes, confidence) / n_eff)
            if 0 < failures <= MODIFIED_WILSON_COUNT:
                high = max(high, 1 - poisson_lower(failures, confidence) / n_eff)
        return low, high
    if method == "agresti_coull":
        n_eff, p = n_eff + z * z, (p * n_eff + z * z / 2) / (n_eff + z * z)
    half = z * math.sqrt(p * (1 - p) / n_eff)
    return max(0.0, p - half), min(1.0, p + half)


@functools.lru_cache(maxsize=4096)
def poisson_lower(x: float, confidence: float = 0.95) -> float:
    """The lower limit λ_x of a Poisson mean after x (effective, > 0) events: P(Gamma(x, 1)
    ≤ λ) = (1 − confidence)/2, Garwood's for an integer x and continuous in x.

    >>> round(poisson_lower(1), 4), round(poisson_lower(3), 4)
    (0.0253, 0.6187)
    """
    x, tail = float(x), (1 - confidence) / 2
    low, high = 0.0, x + 10 * math.sqrt(x) + 10
    for _ in range(64):  # bisection past double precision
        mid = (low + high) / 2
        low, high = (mid, high) if _lower_gamma(x, mid) < tail else (low, mid)
    return (low + high) / 2


def _lower_gamma(a: float, t: float) -> float:
    """The regularised lower incomplete gamma function P(a, t), by its series."""
    if t <= 0:
        return 0.0
    term = total = 1.0 / a
    k = 0
    while abs(term) > 1e-17 * abs(total) and k < 1000:
        k += 1
        term *= t / (a + k)
        total += term
    return min(1.0, math.exp(a * math.log(t) - t - math.lgamma(a)) * total)


def mover_limits(estimates: Sequence[float], lows: Sequence[float],
                 highs: Sequence[float]) -> tuple[float, float]:
    """The limits of a sum of independent estimates by MOVER: Σθ̂ ∓ sqrt(Σ distances²) to
    each part's own limits (Newcombe 1998; Zou & Donner 2008; docs/method.md §8.8).

    >>> mover_limits([1.0, 2.0], [0.7, 1.6], [1.3, 2.4])  # 3 ∓ sqrt(0.3² + 0.4²)
    (2.5, 3.5)
    """
    value = float(sum(estimates))
    below = [t - lo for t, lo in zip(estimates, lows, strict=True)]
    above = [hi - t for t, hi in zip(estimates, highs, strict=True)]
    return (value - math.sqrt(sum(d * d for d in below)),
            value + math.sqrt(sum(d * d for d in above)))
