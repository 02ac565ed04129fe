"""The parametric UIR ([UIR] §8; docs/method.md §9.6): a normal N(μ, Σ) fitted to the
per-case differences Δ = a − b, and P(Δ ≥ 0 on every metric) − P(Δ ≤ 0 on every metric).
Two metrics integrate the bivariate normal CDF Φ₂ by Sheppard's one-dimensional form
([Genz]) with adaptive Simpson quadrature; three or more draw a seeded Monte Carlo. [UIR]
§8 found it a weaker predictor than UIR, so abcde reports it beside UIR, never instead.

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
from typing import Any

import numpy as np

from abcde.evaluation.scores import UirInputError

#: Monte Carlo draws for 3+ metrics: standard error ≤ 1/√N ≈ 0.0016.
DEFAULT_MC_SAMPLES = 400_000
_MC_CHUNK = 100_000


@dataclass(frozen=True)
class ParametricUirResult:
    """``method``: "closed form" (one free metric, or two perfectly correlated),
    "quadrature" (two), "monte carlo" (three or more: ``n_samples`` draws, ``std_error``)
    or "degenerate" (no difference varies); ``mean`` and ``cov`` as fitted."""

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
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _adaptive_simpson(f: Callable[[float], float], lo: float, hi: float,
                      tol: float = 1e-13, depth: int = 50) -> float:
    """∫_lo^hi f by adaptive Simpson with Richardson correction."""

    def simpson(a: float, fa: float, b: float, fb: float) -> tuple[float, float, float]:
        m = 0.5 * (a + b)
        fm = f(m)
        return m, fm, (b - a) / 6.0 * (fa + 4.0 * fm + fb)

    def rec(a: float, fa: float, b: float, fb: float, m: float, fm: float, whole: float,
            eps: float, d: int) -> float:
        lm, flm, left = simpson(a, fa, m, fm)
        rm, frm, right = simpson(m, fm, b, fb)
        delta = left + right - whole
        if d <= 0 or abs(delta) <= 15.0 * eps:
            return left + right + delta / 15.0
        return (rec(a, fa, m, fm, lm, flm, left, eps / 2, d - 1)
                + rec(m, fm, b, fb, rm, frm, right, eps / 2, d - 1))

    fa, fb = f(lo), f(hi)
    return rec(lo, fa, hi, fb, *simpson(lo, fa, hi, fb), tol, depth)


def _bvn_cdf(h: float, k: float, rho: float) -> float:
    """Φ₂(h, k; ρ) = Φ(h)Φ(k) + 1/(2π) ∫₀^{asin ρ} exp(−(h² + k² − 2hk sin θ)/(2cos²θ)) dθ
    (Sheppard/Owen), the exponent rewritten against cancellation near sin θ = ±1;
    |ρ| = 1 in closed form."""
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
            return math.exp(-((h - k) ** 2 / (2.0 * (1.0 - s) * (1.0 + s)) + h * k / (1.0 + s)))
        return math.exp(-((h + k) ** 2 / (2.0 * (1.0 - s) * (1.0 + s)) - h * k / (1.0 - s)))

    integral = _adaptive_simpson(integrand, 0.0, math.asin(rho))
    return min(1.0, max(0.0, base + integral / (2.0 * math.pi)))


#: 1 − |ρ| at or below this counts as perfect correlation (closed form; the
#: probability then differs from the quadrature by O(√(1 − |ρ|)) ≤ ~1e-6).
_RHO_ONE = 1e-12


def parametric_uir(diffs: Any, *, n_samples: int = DEFAULT_MC_SAMPLES, seed: int = 0,
                   ddof: int = 1, metrics: Sequence[str] | None = None) -> ParametricUirResult:
    """P(Δ ≥ 0 on every metric) − P(Δ ≤ 0 on every metric) under N(μ, Σ) fitted to the
    per-case differences (cases × metrics, `abcde.evaluation.uir.case_differences`;
    Σ with `ddof`, as Matlab's cov, the paper's tool; [UIR] §8). Metrics whose
    difference is constant are a point mass, factored out; one free metric has a closed
    form, two the bivariate normal CDF by quadrature, more a seeded Monte Carlo of
    `n_samples` draws (its standard error reported). `metrics` name the columns in
    messages (docs/method.md §9.6)."""
    d = np.asarray(diffs, dtype=float)
    n, k = d.shape
    if n <= ddof:
        raise UirInputError(f"need more than {ddof} test case(s) to fit a covariance, got {n}")
    with np.errstate(over="ignore", invalid="ignore"):
        mean = d.mean(axis=0)
        cov = np.atleast_2d(np.cov(d, rowvar=False, ddof=ddof))
    if not (np.isfinite(mean).all() and np.isfinite(cov).all()):
        j = next(j for j in range(k) if not (np.isfinite(mean[j]) and np.isfinite(cov[j, j])))
        name = repr(metrics[j]) if metrics is not None else j
        raise UirInputError(f"metric {name}: the differences of the scores are too large "
                            f"for their mean and variance to be floats (beyond about "
                            f"±{math.sqrt(np.finfo(float).max):.2g}), which the parametric "
                            "UIR fits; rescale the metric's scores")
    const = [j for j in range(k) if np.all(d[:, j] == d[0, j])]
    free = [j for j in range(k) if j not in const]
    # constant columns: a point mass at that value (exact, not the float mean)
    ge_const = all(d[0, j] >= 0 for j in const)
    le_const = all(d[0, j] <= 0 for j in const)

    def result(p_ge: float, p_le: float, method: str, ns: int = 0,
               se: float = 0.0) -> ParametricUirResult:
        return ParametricUirResult(p_ge - p_le, p_ge, p_le, method, n,
                                   tuple(map(float, mean)),
                                   tuple(tuple(map(float, row)) for row in cov), ns, se)

    if not free or not (ge_const or le_const):
        return result(float(ge_const and not free), float(le_const and not free),
                      "degenerate")
    mu, sub = mean[free], cov[np.ix_(free, free)]
    sd = np.sqrt(np.diag(sub))
    z = mu / sd  # P(Δ_j ≥ 0) = Φ(z_j), P(Δ_j ≤ 0) = Φ(−z_j)
    if len(free) == 1:
        p_ge, p_le, method = _phi_cdf(z[0]), _phi_cdf(-z[0]), "closed form"
    elif len(free) == 2:
        rho = min(1.0, max(-1.0, float(sub[0, 1] / (sd[0] * sd[1]))))
        method = "quadrature"
        if 1.0 - abs(rho) <= _RHO_ONE:
            rho, method = math.copysign(1.0, rho), "closed form"
        # P(Δ₁ ≥ 0, Δ₂ ≥ 0) = Φ₂(z₁, z₂; ρ); likewise ≤ with −z
        p_ge = _bvn_cdf(float(z[0]), float(z[1]), rho)
        p_le = _bvn_cdf(float(-z[0]), float(-z[1]), rho)
    else:
        rng = np.random.default_rng(seed)
        vals, vecs = np.linalg.eigh(sub)  # a singular Σ is sampled through its eigenvectors
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
        ge_count = le_count = done = 0
        while done < n_samples:  # in chunks, to bound memory
            m = min(_MC_CHUNK, n_samples - done)
            x = mu + rng.standard_normal((m, len(free))) @ root.T
            ge_count += int(np.count_nonzero(np.all(x >= 0, axis=1))) if ge_const else 0
            le_count += int(np.count_nonzero(np.all(x <= 0, axis=1))) if le_const else 0
            done += m
        p_ge, p_le = ge_count / n_samples, le_count / n_samples
        # the per-draw score 1[all ≥ 0] − 1[all ≤ 0] is in {−1, 0, 1}
        est = p_ge - p_le
        var = max(0.0, p_ge + p_le - est * est) * n_samples / max(n_samples - 1, 1)
        return result(p_ge, p_le, "monte carlo", n_samples, math.sqrt(var / n_samples))
    return result(p_ge if ge_const else 0.0, p_le if le_const else 0.0, method)
