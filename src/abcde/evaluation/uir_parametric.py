"""The parametric UIR: a normal distribution fitted to the per-case metric differences,
and the integration it needs (docs/method.md §9.6; [UIR] §8).

The differences Δ = a − b (one dimension per metric; `abcde.evaluation.uir.case_differences`
makes differences equal under UIR's equality exactly 0) are fitted by N(μ, Σ), and the
parametric UIR is P(Δ ≥ 0 on every metric) − P(Δ ≤ 0 on every metric). The paper fits a
bivariate normal for two metrics; abcde allows any number:

* a metric whose difference is constant is a point mass and is factored out;
* one remaining metric: closed form with Φ;
* two: the bivariate normal CDF Φ₂ by its one-dimensional integral form ([Genz];
  Sheppard's formula) with adaptive Simpson quadrature, perfect correlation in closed
  form;
* three or more: seeded Monte Carlo (400,000 draws by default), with its standard error.

[UIR] §8 found the parametric version a weaker predictor than the original, so abcde
reports it beside UIR, never instead of it.

References
----------
[UIR] E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. *Journal of
Artificial Intelligence Research* 42 (2011) 689–718. doi:10.1613/jair.3401.
[Genz] A. Genz. Numerical computation of rectangular bivariate and trivariate normal and
t probabilities. *Statistics and Computing* 14 (2004) 251–260.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from abcde.evaluation.scores import UirInputError

__all__ = ["DEFAULT_MC_SAMPLES", "ParametricUirResult", "parametric_uir"]

#: Default Monte Carlo size of `parametric_uir` for 3+ metrics: standard error ≤ 1/√N ≈ 0.0016.
DEFAULT_MC_SAMPLES = 400_000
_MC_CHUNK = 100_000


@dataclass(frozen=True)
class ParametricUirResult:
    """Parametric UIR ([UIR] §8): P(all Δ ≥ 0) − P(all Δ ≤ 0) under a fitted normal.

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
    metrics: Sequence[str] | None = None,
) -> ParametricUirResult:
    """Parametric UIR ([UIR] §8): fit N(μ, Σ) to the per-case differences Δ = a − b.

    μ is the sample mean and Σ the sample covariance (``ddof=1``, as Matlab's ``cov``,
    the paper's tool).

    * Metrics whose difference is the same on every case are degenerate (zero
      variance): a point mass, so "≥ 0" is certain or impossible (both directions
      certain when the constant is 0, exactly like a tie in UIR); they are factored out
      before fitting the rest.
    * 1 remaining metric: closed form with Φ. 2: the bivariate normal CDF by 1-D
      adaptive quadrature (stdlib only); perfect correlation (1 − |ρ| ≤ 1e-12) in
      closed form.
    * 3+ remaining metrics: seeded numpy Monte Carlo with `n_samples` draws (default
      400 000: standard error ≤ 1/√N ≈ 0.0016, reported in ``std_error``); a singular
      Σ is sampled through its eigen-decomposition.

    Parameters
    ----------
    diffs : array-like, shape (n_cases, n_metrics)
        One row per test case and one column per metric, as from
        `abcde.evaluation.uir.case_differences`.
    n_samples : int
        Monte Carlo draws (3+ free metrics only).
    seed : int
        Seed of the Monte Carlo draws.
    ddof : int
        Delta degrees of freedom of the covariance.
    metrics : sequence of str, optional
        The columns' metric names, for messages (else their indexes).

    Returns
    -------
    ParametricUirResult
        P(Δ ≥ 0 on every metric) − P(Δ ≤ 0 on every metric), both probabilities, the
        method used and the fitted parameters.

    Raises
    ------
    UirInputError
        `diffs` not 2-D, no metric, too few cases, a non-finite difference,
        differences too large for their variance to be a float (beyond about
        ±1.3e154), ``n_samples < 1``.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §8. A. Genz. Numerical computation of rectangular bivariate and trivariate
    normal and t probabilities. Statistics and Computing 14 (2004) 251–260.
    docs/method.md §9.6.
    """
    d = np.asarray(diffs, dtype=float)
    if d.ndim != 2:
        raise UirInputError(f"diffs must be 2-D (cases × metrics), got shape {d.shape}")
    n, k = d.shape
    if k == 0:
        raise UirInputError("diffs has no metric column")
    if n <= ddof:
        raise UirInputError(f"need more than {ddof} test case(s) to fit a covariance, got {n}")
    if metrics is not None and len(metrics) != k:
        raise UirInputError(f"{len(metrics)} metric name(s) for {k} column(s) of diffs")

    def metric(j: int) -> str:
        return f"metric {metrics[j]!r}" if metrics is not None else f"metric {j}"

    if not np.all(np.isfinite(d)):
        bad = np.argwhere(~np.isfinite(d))[0]
        raise UirInputError(f"non-finite difference at case {bad[0]}, {metric(bad[1])}")
    if n_samples < 1:
        raise UirInputError(f"n_samples must be >= 1, got {n_samples}")

    with np.errstate(over="ignore", invalid="ignore"):  # refused below, by metric
        mean = d.mean(axis=0)
        cov = np.atleast_2d(np.cov(d, rowvar=False, ddof=ddof))
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        j = next(j for j in range(k) if not (np.isfinite(mean[j]) and np.isfinite(cov[j, j])))
        raise UirInputError(
            f"{metric(j)}: the differences (up to {np.abs(d[:, j]).max():.3g}) are too "
            f"large for their mean and variance to be floats (beyond about "
            f"±{math.sqrt(np.finfo(float).max):.2g}), which the parametric UIR fits; "
            "rescale the metric's scores")
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
