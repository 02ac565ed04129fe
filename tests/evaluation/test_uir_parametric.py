"""abcde.evaluation.uir_parametric against scipy's multivariate normal CDF (Amigó et al.
2011 §8: the parametric UIR; docs/method.md §9.6)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm
from uir_table3 import M, table3

from abcde.evaluation.scores import UirInputError
from abcde.evaluation.uir import case_differences
from abcde.evaluation.uir_parametric import parametric_uir

# ----------------------------------------------------------- parametric UIR


def scipy_parametric(d: np.ndarray) -> float:
    mu = d.mean(axis=0)
    cov = np.cov(d, rowvar=False, ddof=1)
    zero = np.zeros(d.shape[1])
    opts = {"abseps": 1e-12, "releps": 1e-12}
    # P(Δ ≥ 0) = P(−Δ ≤ 0) with −Δ ~ N(−μ, Σ)
    p_ge = multivariate_normal.cdf(zero, mean=-mu, cov=cov, **opts)
    p_le = multivariate_normal.cdf(zero, mean=mu, cov=cov, **opts)
    return float(p_ge - p_le)


@pytest.mark.parametrize(
    ("mean", "sd", "rho"),
    [
        ((0.05, 0.02), (0.1, 0.1), 0.0),
        ((0.05, -0.02), (0.2, 0.05), 0.6),
        ((0.10, 0.05), (0.1, 0.3), -0.7),
        ((-0.3, -0.1), (0.1, 0.1), 0.95),
        ((0.0, 0.0), (0.1, 0.1), -0.99),
    ],
)
def test_parametric_uir_two_metrics_matches_scipy(mean: tuple, sd: tuple, rho: float) -> None:
    rng = np.random.default_rng(7)
    cov = [[sd[0] ** 2, rho * sd[0] * sd[1]], [rho * sd[0] * sd[1], sd[1] ** 2]]
    d = rng.multivariate_normal(mean, cov, size=40)
    res = parametric_uir(d)
    assert res.method == "quadrature"
    assert res.uir == pytest.approx(scipy_parametric(d), abs=1e-9)
    assert res.n_cases == 40


def test_parametric_uir_from_score_tables() -> None:
    a, b = table3()
    d = case_differences(a, b, M)
    assert d.shape == (10, 2)
    assert parametric_uir(d).uir == pytest.approx(scipy_parametric(d), abs=1e-9)


def test_parametric_uir_three_metrics_monte_carlo() -> None:
    rng = np.random.default_rng(3)
    d = rng.multivariate_normal(
        [0.04, 0.02, 0.01],
        [[0.01, 0.004, 0.0], [0.004, 0.02, -0.005], [0.0, -0.005, 0.01]],
        size=50,
    )
    res = parametric_uir(d, seed=11)
    assert res.method == "monte carlo" and res.n_samples == 400_000
    assert 0 < res.std_error < 1 / math.sqrt(res.n_samples)
    assert res.uir == pytest.approx(scipy_parametric(d), abs=5 * res.std_error + 1e-4)
    assert parametric_uir(d, seed=11) == res  # seeded: reproducible


def test_parametric_uir_one_metric_closed_form() -> None:
    d = np.array([[0.1], [0.3], [-0.1], [0.2]])
    res = parametric_uir(d)
    z = d.mean() / d.std(ddof=1)
    assert res.method == "closed form"
    assert res.uir == pytest.approx(norm.cdf(z) - norm.cdf(-z), abs=1e-14)


def test_parametric_uir_perfect_correlation_closed_form() -> None:
    # Δ_2 = 2·Δ_1 exactly: ρ = 1, Σ singular. Then P(both ≥ 0) = P(Δ_1 ≥ 0) = Φ(μ₁/σ₁).
    x = np.array([0.1, -0.05, 0.2, 0.05, 0.0])
    res = parametric_uir(np.column_stack([x, 2 * x]))
    z = x.mean() / x.std(ddof=1)
    assert res.method == "closed form"
    assert res.uir == pytest.approx(norm.cdf(z) - norm.cdf(-z), abs=1e-9)
    # ρ = −1: both ≥ 0 needs Δ_1 ≥ 0 and −Δ_1 + c ≥ 0 … with c = 0 only Δ_1 = 0:
    # P = 0 on both sides, so UIR = 0.
    anti = parametric_uir(np.column_stack([x, -x]))
    assert (anti.p_a_ge_b, anti.p_b_ge_a, anti.uir) == pytest.approx((0, 0, 0), abs=1e-15)


def test_parametric_uir_degenerate_constant_metrics() -> None:
    x = np.array([0.1, -0.05, 0.2, 0.05])
    # metric 2 identical on every case (difference 0: a tie on that metric) →
    # factored out exactly; the rest is the 1-D closed form.
    res = parametric_uir(np.column_stack([x, np.zeros(4)]))
    z = x.mean() / x.std(ddof=1)
    assert res.uir == pytest.approx(norm.cdf(z) - norm.cdf(-z), abs=1e-14)
    # constant negative difference: a can never be ≥ b on all metrics
    res = parametric_uir(np.column_stack([x, np.full(4, -0.1)]))
    assert res.p_a_ge_b == 0.0 and res.p_b_ge_a == pytest.approx(norm.cdf(-z))
    # every difference constant
    assert parametric_uir(np.full((3, 2), 0.1)).uir == 1.0
    assert parametric_uir(np.zeros((3, 2))).uir == 0.0
    assert parametric_uir(np.array([[0.1, -0.1]] * 3)).method == "degenerate"
    # 3 metrics, one constant → the exact 2-D computation on the other two; the
    # constant +0.5 makes "b ≥ a on every metric" impossible, so UIR = P(Δ₁, Δ₂ ≥ 0).
    y = np.array([0.3, 0.1, -0.2, 0.4])
    res = parametric_uir(np.column_stack([x, y, np.full(4, 0.5)]))
    two = np.column_stack([x, y])
    p_ge = multivariate_normal.cdf(
        [0, 0], mean=-two.mean(axis=0), cov=np.cov(two, rowvar=False), abseps=1e-12, releps=1e-12
    )
    assert res.method == "quadrature" and res.p_b_ge_a == 0.0
    assert res.uir == pytest.approx(p_ge, abs=1e-9)
    assert parametric_uir(np.column_stack([x, y, np.zeros(4)])).uir == pytest.approx(
        scipy_parametric(two), abs=1e-9
    )


def test_parametric_uir_input_errors() -> None:
    with pytest.raises(UirInputError, match="more than 1"):
        parametric_uir([[0.1, 0.2]])
    with pytest.raises(UirInputError, match="metric 1"):
        parametric_uir([[0.1, 0.2], [0.0, math.nan]])


def test_differences_beyond_a_float_name_the_metric_not_an_index() -> None:
    """Differences whose variance overflows (|Δ| 2e200 > √1.8e308) are refused naming
    the metric, without numpy's overflow warning and without a result fitted to inf."""
    d = [[2e200, 0.1], [-1.0, 0.5], [0.5, -0.2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UirInputError) as err:
            parametric_uir(d, metrics=["precision", "recall"])
    assert "metric 'precision'" in str(err.value) and "rescale" in str(err.value)
    with pytest.raises(UirInputError, match="metric 'r'"):
        parametric_uir([[0.1, 0.2], [0.3, math.inf]], metrics=["p", "r"])
