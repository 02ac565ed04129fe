"""Estimates with their intervals (docs/method.md §8.7–8.8): scaling, Wilson intervals of a
scaled proportion at the effective sample size, sums of independent parts (quadrature,
MOVER), by hand."""

from __future__ import annotations

import math

import pytest

from abcde.quality.intervals import (
    interval,
)
from abcde.quality.result import (
    proportion_estimate,
    scaled_estimate,
    sum_independent,
)


def test_sum_of_independent_parts_adds_in_quadrature() -> None:
    a = scaled_estimate(0.5, 0.1, 0.2, pairs=3, draws=5)
    b = scaled_estimate(0.25, 0.2, 0.4, pairs=4, draws=6)
    total = sum_independent([a, b])
    assert total.estimate == pytest.approx(0.2)
    assert total.se == pytest.approx(math.hypot(0.02, 0.08))
    assert (total.pairs, total.draws) == (7, 11)


def test_wilson_interval_of_a_scaled_proportion_stays_in_range() -> None:
    """estimate = c·p̂; the limits are c × Wilson(p̂, n*) with n* = p̂(1−p̂)/SE²
    (Korn & Graubard) capped by the design's n_eff, so within [0, c]."""
    est = proportion_estimate(0.1, 0.05, 100.0, 0.3, pairs=40, draws=50)
    n_star = 0.1 * 0.9 / 0.05**2  # 36 < 100
    lo, hi = interval(0.1, n_star, 0.95)
    assert (est.ci_low, est.ci_high) == pytest.approx((0.3 * lo, 0.3 * hi))
    assert est.se == pytest.approx(0.015) and est.n_eff == pytest.approx(36.0)
    assert proportion_estimate(0.1, 0.001, 100.0, 1.0, pairs=9, draws=9).n_eff == 100.0


def test_sums_of_wilson_parts_use_mover() -> None:
    """GoodDistance = GoodSplit + GoodMerge distance: limits by MOVER (Newcombe 1998;
    Zou & Donner 2008), by hand; never below 0."""
    a = proportion_estimate(0.0, 0.0, 5.0, 0.02, pairs=5, draws=5)
    b = proportion_estimate(0.5, 0.1, 30.0, 0.04, pairs=30, draws=30)
    total = sum_independent([a, b])
    assert total.interval == "mover"
    assert total.ci_low == pytest.approx(
        0.02 - math.hypot(0.0 - a.ci_low, 0.02 - b.ci_low)
    )
    assert total.ci_high == pytest.approx(
        0.02 + math.hypot(a.ci_high - 0.0, b.ci_high - 0.02)
    )
    assert total.ci_low >= 0 and total.se == pytest.approx(math.hypot(0.0, 0.004))
