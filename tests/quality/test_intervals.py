"""Generic interval statistics (docs/method.md §8.7–8.8): Kirchner's Case I by hand and
against numpy, the pair-clustered SE, Kish's and the design's effective n, and the
interval of a proportion against scipy and Newcombe's (1998) worked example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from abcde.quality.intervals import (
    design_n_eff,
    interval,
    kish_n_eff,
    reweighted_mean_se,
    weighted_mean_se,
)


def test_kirchner_by_hand() -> None:
    """x = (1, 2, 4), w = (1, 2, 1): Σw = 4, x̄ = 9/4, Σwx²/Σw = 25/4,
    Σw² = 6, so SE² = (25/4 − 81/16)·6/(16 − 6) = (19/16)·(3/5) = 57/80."""
    mean, se = weighted_mean_se([1, 2, 4], [1, 2, 1])
    assert mean == pytest.approx(9 / 4, abs=1e-15)
    assert se == pytest.approx(math.sqrt(57 / 80), rel=1e-14)


def test_kirchner_equal_weights_is_sample_sd_over_sqrt_n() -> None:
    x = np.random.default_rng(3).normal(size=37)
    mean, se = weighted_mean_se(x, np.full(x.size, 2.5))
    assert mean == pytest.approx(x.mean(), rel=1e-12)
    assert se == pytest.approx(np.std(x, ddof=1) / math.sqrt(x.size), rel=1e-12)


def test_kirchner_draw_counts_are_repeated_observations() -> None:
    """A row with draw count k is k observations: Σw = Σ k·f, Σw² = Σ k·f²."""
    x, f, k = np.array([0.0, 1.0, 1.0, -1.0]), np.array([1.0, 1.25, 1.25, 2.0]), [3, 1, 2, 4]
    expanded = weighted_mean_se(np.repeat(x, k), np.repeat(f, k))
    assert weighted_mean_se(x, f, k) == pytest.approx(expanded, rel=1e-13)


def test_kirchner_edge_cases() -> None:
    mean, se = weighted_mean_se([0.7], [2.0])
    assert mean == 0.7 and math.isnan(se)
    assert weighted_mean_se([1.0, 1.0, 1.0], [1, 1, 1]) == (1.0, 0.0)


def test_pair_clustered_se_is_kirchner_when_every_pair_is_judged() -> None:
    rng = np.random.default_rng(5)
    x = rng.choice([-1.0, 0.0, 1.0], size=50)
    k = rng.integers(1, 4, size=50)
    keys = np.arange(50) // 2
    strata = rng.integers(0, 4, size=50)
    ones = np.ones(50)
    clustered = reweighted_mean_se(x, ones, k, keys, strata, "pair_clustered")
    assert clustered == pytest.approx(weighted_mean_se(x, ones, k), rel=1e-12)
    assert reweighted_mean_se(x, ones * 1.5, k, keys, strata, "kirchner") == pytest.approx(
        weighted_mean_se(x, ones * 1.5, k), rel=1e-12
    )


def test_ratio_se_is_the_linearised_variance() -> None:
    """Ratio R = Σ k m x / Σ k m with every pair judged: SE² = N/(N−1)·Σ k e²/V²,
    e = m(x − R) (the delta method), and Kirchner with weights m gives its Case I."""
    x = np.array([1.0, 0.0, 1.0, 0.0])
    m = np.array([2.0, 1.0, 3.0, 1.0])
    k = np.array([1, 2, 1, 1])
    ones = np.ones(4)
    mean, se = reweighted_mean_se(x, ones, k, np.arange(4), np.zeros(4), importance=m)
    v = float((k * m).sum())
    r = float((k * m * x).sum()) / v
    e = m * (x - r)
    n = k.sum()
    assert mean == pytest.approx(r)
    assert se == pytest.approx(math.sqrt(n / (n - 1) * float((k * e**2).sum()) / v**2))
    kirch = reweighted_mean_se(x, ones, k, np.arange(4), np.zeros(4), "kirchner", m)
    assert kirch == pytest.approx(weighted_mean_se(x, m, k))


Z95 = 1.959963984540054


@pytest.mark.parametrize(("k", "n"), [(81, 263), (0, 10), (10, 10), (1, 3), (37, 40)])
def test_wilson_interval_matches_scipy_and_newcombe(k: int, n: int) -> None:
    """Against scipy's independent implementation; 81/263 is Newcombe's (1998)
    worked example, Wilson 0.2553–0.3662."""
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert interval(k / n, n, 0.95, method="wilson") == pytest.approx((ci.low, ci.high),
                                                        abs=1e-12)
    if (k, n) == (81, 263):
        assert interval(k / n, n, 0.95, method="wilson") == pytest.approx((0.2553, 0.3662),
                                                            abs=5e-5)
    assert interval(0.3, 0, 0.95) == (0.0, 1.0)


def test_effective_sample_sizes() -> None:
    """Kish (Σw)²/Σw² by hand; with every pair judged the design's n_eff is Kish's
    (N − 1)/N; unknowns (factors > 1) on repeated pairs make it smaller."""
    assert kish_n_eff(np.array([1.0, 2.0, 1.0]), np.array([1, 1, 2])) == pytest.approx(
        25 / 7
    )
    k = np.array([1, 3, 1, 2])
    keys = np.array([0, 1, 2, 3])
    assert design_n_eff(np.ones(4), k, keys) == pytest.approx(6.0)  # N − 1, N = 7 draws
    m = np.array([1.0, 2.0, 1.0, 4.0])
    kish = kish_n_eff(m, k)
    assert design_n_eff(np.ones(4), k, keys, importance=m) == pytest.approx(kish * 6 / 7)
    assert design_n_eff(np.ones(4), k, keys, "kirchner") == pytest.approx(6.0)
    # half the pairs unknown (f = 2): a pair drawn 3 times is kept or lost as a whole
    f = np.full(4, 2.0)
    got = design_n_eff(f, k, keys)
    total = 14.0  # Σ f k
    by_hand = 1 / (total / (total - 1) * 14 / 14**2 + 2 * (1 + 9 + 1 + 4) / 14**2)
    assert got == pytest.approx(by_hand) and got < 6.0
