"""Generic interval statistics of a weighted mean or a weighted proportion (docs/method.md
§8.7–8.8): standard errors, effective sample sizes, the interval of a proportion, the
interval of a sum of independent parts, and z values.

Nothing here knows pairs, classes or metrics: the functions take numbers and arrays.
:mod:`abcde.quality.result` turns them into an :class:`~abcde.quality.result.Estimate`,
:mod:`abcde.quality.metrics` says which metric uses which.

- Standard errors: :func:`weighted_mean_se` (Kirchner's Case I, the paper's SE) and
  :func:`reweighted_mean_se` (Case I, or the pair-clustered SE that also counts which
  pairs got a verdict).
- Effective sample sizes: :func:`kish_n_eff` (Kish 1965), :func:`design_n_eff` (the
  design's, from the weights alone) and :func:`effective_n` (variance-based, Korn &
  Graubard 1998, truncated at the design's).
- Intervals: :func:`interval` (of a proportion, with a method switch: Wilson, Wald,
  Agresti–Coull), :func:`mover_limits` (of a sum of independent parts, MOVER) and
  :func:`z_value`.

References
----------
J. W. Kirchner. Data Analysis Toolkit #12: Weighted averages and their uncertainties.
Course notes, University of California, Berkeley (version 2024-01-01, cited by ABCDE).

E. B. Wilson. Probable inference, the law of succession, and statistical inference.
Journal of the American Statistical Association 22(158):209–212, 1927.

L. Kish. Survey Sampling. John Wiley & Sons, New York, 1965.

E. L. Korn, B. I. Graubard. Confidence intervals for proportions with small expected
number of positive counts estimated from survey data. Survey Methodology 24(2):193–201,
1998.

R. G. Newcombe. Interval estimation for the difference between independent proportions:
comparison of eleven methods. Statistics in Medicine 17(8):873–890, 1998.

G. Y. Zou, A. Donner. Construction of confidence limits about effect measures: a general
approach. Statistics in Medicine 27(10):1693–1702, 2008.

L. D. Brown, T. T. Cai, A. DasGupta. Interval estimation for a binomial proportion.
Statistical Science 16(2):101–133, 2001.

A. Agresti, B. A. Coull. Approximate is better than "exact" for interval estimation of
binomial proportions. The American Statistician 52(2):119–126, 1998.

S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5.8 (Kirchner's SE for the estimators, SE(c·X) = c·SE(X)).
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

INTERVAL_METHODS = ("modified_wilson", "wilson", "wald", "agresti_coull")
"""Interval methods of :func:`interval` (docs/method.md §8.8)."""


# --------------------------------------------------------------------------- #
# Standard errors
# --------------------------------------------------------------------------- #


def weighted_mean_se(
    x: Sequence[float] | np.ndarray,
    w: Sequence[float] | np.ndarray,
    counts: Sequence[float] | np.ndarray | None = None,
) -> tuple[float, float]:
    """Weighted mean and its standard error, Kirchner's Case I.

        x̄_w = Σ w_i x_i / Σ w_i
        SE  = sqrt( (Σ w_i x_i² / Σ w_i − x̄_w²) · Σ w_i² / ((Σ w_i)² − Σ w_i²) )

    With all w = 1 this is the sample standard deviation (ddof = 1) over √n. The first
    factor is computed in its centred form Σ w (x − x̄_w)² / Σ w, which is algebraically
    identical and does not cancel catastrophically.

    Parameters
    ----------
    x : array-like of float
        Values, finite.
    w : array-like of float
        Weights ≥ 0, finite, of the same length.
    counts : array-like of float, optional
        Row r stands for ``counts[r]`` observations (draws) of value x[r] and weight
        w[r], so Σw = Σ k·w, Σw² = Σ k·w² and so on. Default: one each.

    Returns
    -------
    (mean, se) : tuple of float
        ``se`` is NaN with a single observation (no spread to see).

    Raises
    ------
    ValueError
        On arrays of different shapes, non-finite values, negative weights or counts,
        or no observation of positive weight.

    References
    ----------
    docs/method.md §8.7 (``kirchner``). ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430). J. W. Kirchner.
    Data Analysis Toolkit #12: Weighted averages and their uncertainties. Course notes,
    University of California, Berkeley (version 2024-01-01).

    Examples
    --------
    >>> mean, se = weighted_mean_se([1, 2, 4], [1, 2, 1])
    >>> mean, round(se * se, 6)  # 57/80
    (2.25, 0.7125)
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


def reweighted_mean_se(
    x: np.ndarray,
    factor: np.ndarray,
    draw_count: np.ndarray,
    pair_key: np.ndarray,
    stratum: np.ndarray,
    method: str = DEFAULT_SE,
    importance: np.ndarray | None = None,
) -> tuple[float, float]:
    """Mean and SE of judged draws reweighted for unknown verdicts.

    Rows are judged draw rows: value ``x``, ``draw_count`` k, reweighting ``factor`` f of
    their ``stratum`` (pair class), dense ``pair_key`` of their unordered pair, and
    optionally an ``importance`` weight m (|l_ij| for the rates on the jaccard population;
    1 otherwise). The mean is the ratio R = Σ f k m x / Σ f k m.

    ``method="kirchner"``: Kirchner's Case I with weight f·m per draw, exactly as the
    paper prints it (:func:`weighted_mean_se`). It treats every draw as an independent
    observation, but verdicts — and so the unknowns — come per *pair*: a pair drawn k
    times (or drawn as both (i, j) and (j, i)) is dropped or kept with all its draws,
    which Case I does not see, so with unknowns and repeated pairs its interval is too
    narrow (docs/method.md §8.7: 76–80% coverage of a 95% interval with 30% unknowns).

    ``method="pair_clustered"`` (default) adds that variance. With N = Σ f·k the sampled
    draws in scope, V = Σ f k m, residuals e = m (x − R), ē_c their weighted mean in
    stratum c and g_p = Σ_{rows r of pair p} k_r (e_r − ē_c):

        SE² = N/(N − 1) · Σ f k e² / V² + Σ_{judged pairs p} f_p (f_p − 1) g_p² / V²

    i.e. the (linearised) sampling variance of the ratio over all N draws plus the
    variance of keeping each pair of stratum c with probability 1/f_c, given the
    per-stratum calibration (two-phase sampling). With m = 1 the first term is
    s²/(N − 1), s² = Σ f k (x − R)²/N; when every pair is judged (all f = 1) the whole is
    exactly Kirchner's Case I; when no pair repeats and strata share one mean it agrees
    with Case I to O(1/N).

    Parameters
    ----------
    x, factor, draw_count, pair_key, stratum : numpy.ndarray
        Parallel arrays over the judged draw rows (``pair_key`` and ``stratum`` dense
        non-negative integer codes).
    method : {"pair_clustered", "kirchner"}
        See above.
    importance : numpy.ndarray, optional
        Importance weights m > 0; default 1.

    Returns
    -------
    (mean, se) : tuple of float
        ``se`` is NaN when a single draw carries everything.

    Raises
    ------
    ValueError
        On an unknown ``method`` or when no row has positive weight.

    References
    ----------
    docs/method.md §8.3, §8.5, §8.7. ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §6.1, §8 (S. van Staden. Decomposing the Jaccard Distance and the
    Jaccard Index in ABCDE. Google Switzerland, 2024). J. W. Kirchner. Data Analysis
    Toolkit #12: Weighted averages and their uncertainties. University of California,
    Berkeley.
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


def _pair_keep_term(
    values: np.ndarray, k: np.ndarray, pair_key: np.ndarray, factor: np.ndarray
) -> float:
    """Σ_{pairs p} f_p (f_p − 1) g_p², g_p = Σ_{rows r of p} k_r·values_r: the variance
    of keeping each pair of its stratum with probability 1/f (before dividing by V²)."""
    per_pair = np.bincount(pair_key, weights=k * values)
    pair_factor = np.ones(per_pair.size)
    pair_factor[pair_key] = factor
    return float((pair_factor * (pair_factor - 1) * per_pair**2).sum())


# --------------------------------------------------------------------------- #
# Effective sample sizes
# --------------------------------------------------------------------------- #


def kish_n_eff(weights: np.ndarray, draw_count: np.ndarray) -> float:
    """Kish's effective sample size (Σw)²/Σw² of draws with weights w.

    Parameters
    ----------
    weights : numpy.ndarray
        Weight of each row's draws.
    draw_count : numpy.ndarray
        Draws per row (a row with draw count k is k draws).

    Returns
    -------
    float
        (Σ k w)² / Σ k w²; 0 when every weight is 0.

    References
    ----------
    docs/method.md §8.8. L. Kish. Survey Sampling. John Wiley & Sons, New York, 1965.

    Examples
    --------
    >>> round(kish_n_eff(np.array([1.0, 2.0, 1.0]), np.array([1, 1, 2])), 6)  # 25/7
    3.571429
    """
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
    """Effective sample size of a weighted proportion under the sampling design.

    p(1 − p)/SE² when every residual x − p has unit size, i.e. the SE formula of
    :func:`reweighted_mean_se` evaluated on the weights alone (a pair's draws share its
    verdict, so its residuals add up):

        1 / n_eff = N/(N − 1) · Σ f k m² / V² + Σ_{pairs p} f_p (f_p − 1) (Σ_p k m)² / V²

    With every pair judged (f = 1) this is Kish's (Σw)²/Σw² · (N − 1)/N; with unknowns
    it is smaller, as dropping a pair drops all its draws. For ``method="kirchner"`` it is
    Kish's n_eff less one, the same reading of Case I.

    Parameters
    ----------
    factor, draw_count, pair_key : numpy.ndarray
        As for :func:`reweighted_mean_se`.
    method : {"pair_clustered", "kirchner"}
        The SE method whose design effect to read.
    importance : numpy.ndarray, optional
        Importance weights m; default 1.

    Returns
    -------
    float
        The design's effective sample size (Kish's when it cannot be refined).

    References
    ----------
    docs/method.md §8.8. L. Kish. Survey Sampling. John Wiley & Sons, New York, 1965.
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
    """Effective sample size of a weighted proportion p̂ for its interval.

    n* = p̂(1 − p̂)/SE², the size a simple random sample would need for the same variance
    (it carries the design effect of the weights and of the pair-level unknowns),
    truncated at the design's effective sample size. When p̂ is 0 or 1 the SE is 0 and
    says nothing, so the design's n_eff is used.

    Parameters
    ----------
    p : float
        The weighted proportion p̂.
    se : float or None
        Its standard error; None, NaN or 0 when unusable.
    design : float
        The design's effective sample size (:func:`design_n_eff`).

    Returns
    -------
    float
        min(design, p̂(1 − p̂)/SE²), or ``design`` when that cannot be formed.

    References
    ----------
    docs/method.md §8.8. E. L. Korn, B. I. Graubard. Confidence intervals for proportions
    with small expected number of positive counts estimated from survey data. Survey
    Methodology 24(2):193–201, 1998.

    Examples
    --------
    >>> round(effective_n(0.1, 0.05, 100.0), 9), effective_n(0.0, 0.0, 7.0)
    (36.0, 7.0)
    """
    if se is None or not math.isfinite(se) or se <= 0 or not 0 < p < 1:
        return design
    return min(design, p * (1 - p) / (se * se))


# --------------------------------------------------------------------------- #
# Intervals
# --------------------------------------------------------------------------- #


def z_value(confidence: float = 0.95) -> float:
    """Two-sided standard normal quantile z = Φ⁻¹(½ + confidence/2).

    Parameters
    ----------
    confidence : float
        The interval's level, in (0, 1).

    Returns
    -------
    float
        e.g. 1.959964 for 0.95.

    Raises
    ------
    ValueError
        When ``confidence`` is not in (0, 1).

    References
    ----------
    docs/method.md §8.8.

    Examples
    --------
    >>> round(z_value(0.95), 6)
    1.959964
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def interval(
    p: float, n_eff: float, confidence: float = 0.95, method: str = "modified_wilson"
) -> tuple[float, float]:
    """Confidence interval of a proportion p̂ observed with n_eff effective observations.

    ``n_eff`` need not be an integer: with a weighted sample it is the effective sample
    size (:func:`effective_n`), which carries the design effect into the interval. With
    z = :func:`z_value` (``confidence``):

    - ``"wilson"``: the score interval

          (p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).

      Within [0, 1], never of zero width for n < ∞. Its coverage is close to nominal on
      average, but it under-covers for p close to 0 or 1 (Brown, Cai & DasGupta 2001,
      §4.1.1): for n·p = λ just under 0.18 (a 95% interval's lower limit after one
      success, in units of 1/n) only the samples without a success cover p, so the
      coverage tends to e^(−λ) ≈ 0.84 as n grows. A weighted sample adds another source: n_eff is
      itself estimated (Korn & Graubard 1998), and when the weights are concentrated
      on few pairs it overstates the information and the interval under-covers.
    - ``"modified_wilson"`` (default; abcde's rates, distances, indexes and the parts of
      ΔPrecision): Wilson's interval with the modification of Brown, Cai & DasGupta
      (2001, §4.1.1) at the ends: when x = n·p̂ is in (0, 3], the lower limit is
      lowered to the Poisson lower limit λ_x/n (:func:`poisson_lower`), and likewise the
      upper limit near 1 with n − x. This removes the dip above (measured: a rare "bad"
      class, p = 0.0008 at n_eff ≈ 150, covered 88% with Wilson's limits;
      benchmarks/RESULTS.md).
    - ``"wald"``: p̂ ± z·sqrt(p̂(1−p̂)/n), clipped to [0, 1]. Kept for comparison:
      Brown, Cai & DasGupta (2001) show its coverage is poor and erratic even for large
      n ("lucky" and "unlucky" n), far below nominal for p near 0 or 1, and of zero width
      when p̂ is 0 or 1 — which is why abcde does not use it for proportions.
    - ``"agresti_coull"``: the Wald interval around p̃ = (p̂ n + z²/2)/(n + z²) with
      ñ = n + z², clipped to [0, 1] (Agresti & Coull 1998). Brown, Cai & DasGupta (2001)
      recommend it with Wilson's for n ≥ 40; it is conservative (over-covers) near 0
      and 1 and slightly wider than Wilson's.

    Parameters
    ----------
    p : float
        The observed proportion p̂ (clipped to [0, 1]).
    n_eff : float
        Effective number of observations; with n_eff ≤ 0 nothing is known and the
        interval is [0, 1].
    confidence : float
        The interval's level, in (0, 1).
    method : {"modified_wilson", "wilson", "wald", "agresti_coull"}
        See above.

    Returns
    -------
    (low, high) : tuple of float
        Within [0, 1]. At p̂ = 0 (1) Wilson's lower (upper) limit is exactly 0 (1).

    Raises
    ------
    ValueError
        On an unknown ``method`` or a ``confidence`` outside (0, 1).

    References
    ----------
    docs/method.md §8.8.
    E. B. Wilson. Probable inference, the law of succession, and statistical inference.
    Journal of the American Statistical Association 22(158):209–212, 1927.
    L. D. Brown, T. T. Cai, A. DasGupta. Interval estimation for a binomial proportion.
    Statistical Science 16(2):101–133, 2001.
    A. Agresti, B. A. Coull. Approximate is better than "exact" for interval estimation
    of binomial proportions. The American Statistician 52(2):119–126, 1998.
    E. L. Korn, B. I. Graubard. Confidence intervals for proportions with small expected
    number of positive counts estimated from survey data. Survey Methodology
    24(2):193–201, 1998.
    R. G. Newcombe. Interval estimation for the difference between independent
    proportions: comparison of eleven methods. Statistics in Medicine 17(8):873–890, 1998
    (the worked example 81/263: Wilson 0.2553–0.3662).

    Examples
    --------
    >>> tuple(round(x, 4) for x in interval(81 / 263, 263, method="wilson"))
    (0.2553, 0.3662)
    >>> interval(0.3, 0)
    (0.0, 1.0)
    >>> round(interval(1 / 150, 150, method="wilson")[0] * 150, 3)  # Wilson, one success
    0.177
    >>> round(interval(1 / 150, 150)[0] * 150, 4)  # modified: the Poisson limit λ_1
    0.0253
    """
    if method not in INTERVAL_METHODS:
        raise ValueError(f"interval method must be one of {INTERVAL_METHODS}, got {method!r}")
    z = z_value(confidence)
    if not n_eff > 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, p))
    if method in ("wilson", "modified_wilson"):
        low, high = _wilson(p, n_eff, z)
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


MODIFIED_WILSON_COUNT = 3.0
"""x* of Brown, Cai & DasGupta's (2001, §4.1.1) modified Wilson interval: up to this many
(effective) successes or failures, the limit at that end is the Poisson one."""


def poisson_lower(x: float, confidence: float = 0.95) -> float:
    """Lower confidence limit λ_x of a Poisson mean after observing x events.

    λ_x solves P(Gamma(x, 1) ≤ λ) = (1 − confidence)/2: for an integer x the exact
    (Garwood) limit, and continuous in x, so that an effective count n_eff·p̂ of a
    weighted sample can be used.

    Parameters
    ----------
    x : float
        The (effective) count, > 0.
    confidence : float
        The two-sided level, in (0, 1).

    Returns
    -------
    float

    References
    ----------
    docs/method.md §8.8. L. D. Brown, T. T. Cai, A. DasGupta. Interval estimation for a
    binomial proportion. Statistical Science 16(2):101–133, 2001, §4.1.1. F. Garwood.
    Fiducial limits for the Poisson distribution. Biometrika 28(3/4):437–442, 1936.

    Examples
    --------
    >>> round(poisson_lower(1), 4), round(poisson_lower(3), 4)
    (0.0253, 0.6187)
    """
    return _poisson_lower(float(x), float(confidence))


@functools.lru_cache(maxsize=4096)
def _poisson_lower(x: float, confidence: float) -> float:
    tail = (1 - confidence) / 2
    low, high = 0.0, x + 10 * math.sqrt(x) + 10
    for _ in range(64):  # the bracket shrinks to 2⁻⁶⁴ of its width: past double precision
        mid = (low + high) / 2
        if _lower_gamma(x, mid) < tail:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _lower_gamma(a: float, t: float) -> float:
    """The regularised lower incomplete gamma function P(a, t) by its series."""
    if t <= 0:
        return 0.0
    term = 1.0 / a
    total = term
    k = 0
    while abs(term) > 1e-17 * abs(total) and k < 1000:
        k += 1
        term *= t / (a + k)
        total += term
    return min(1.0, math.exp(a * math.log(t) - t - math.lgamma(a)) * total)


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of p̂ ∈ [0, 1] with n > 0 observations; see :func:`interval`."""
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    # at p̂ = 0 (1) the lower (upper) limit is exactly 0 (1); rounding may miss it
    low = 0.0 if p == 0 else max(0.0, centre - half)
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return low, high


def mover_limits(
    estimates: Sequence[float], lows: Sequence[float], highs: Sequence[float]
) -> tuple[float, float]:
    """Confidence limits of a sum of independent estimates by MOVER.

    With each part's distances to its own limits, the sum's limits are

        L = Σθ̂ − sqrt(Σ(θ̂ − l)²),   U = Σθ̂ + sqrt(Σ(u − θ̂)²)

    — the quadrature sum for symmetric (Wald) parts, and it keeps the asymmetry of
    Wilson parts. For parts whose intervals lie in [0, c_i] the limits lie in [0, Σc_i].
    Its coverage is that of the parts' intervals combined: it under-covers where they do
    (e.g. Wilson parts near 0 or 1) and assumes the parts independent.

    Parameters
    ----------
    estimates, lows, highs : sequence of float
        Each part's estimate θ̂ and limits l ≤ θ̂ ≤ u.

    Returns
    -------
    (low, high) : tuple of float

    References
    ----------
    docs/method.md §8.8. R. G. Newcombe. Interval estimation for the difference between
    independent proportions: comparison of eleven methods. Statistics in Medicine
    17(8):873–890, 1998. G. Y. Zou, A. Donner. Construction of confidence limits about
    effect measures: a general approach. Statistics in Medicine 27(10):1693–1702, 2008.

    Examples
    --------
    >>> mover_limits([1.0, 2.0], [0.7, 1.6], [1.3, 2.4])  # 3 ∓ sqrt(0.3² + 0.4²)
    (2.5, 3.5)
    """
    value = float(sum(estimates))
    below = [t - lo for t, lo in zip(estimates, lows, strict=True)]
    above = [hi - t for t, hi in zip(estimates, highs, strict=True)]
    return value - math.sqrt(sum(d * d for d in below)), value + math.sqrt(
        sum(d * d for d in above)
    )
