"""Exact quality metrics against a truth (`abcde.quality.exact`, docs/method.md §8.12):
the SQL per triple cell (Base, Exp, truth) against the brute-force pair sums of
`tests/reference.py` (`quality_exact`: item by item, partner by partner)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from reference import quality_exact
from strategies import clusterings

from abcde.engines import Engine
from abcde.quality.exact import exact_quality

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def assert_close(got: dict[str, float], want: dict[str, float], scale: float) -> None:
    """1e-12 relative, and an absolute 1e-12 of the weight ratio `scale` for the parts
    that subtract (good split, bad merge: S_c − split_eq, docs/method.md §8.12)."""
    for key, value in want.items():
        assert math.isclose(got[key], value, rel_tol=1e-12, abs_tol=1e-12 * scale), (
            key, got[key], value)


@SETTINGS
@given(clusterings(min_items=1, max_items=14, truth=True, extra_items=True))
def test_exact_metrics_are_the_pair_sums(case) -> None:  # type: ignore[no-untyped-def]
    """Every metric equals its definition summed pair by pair, for random clusterings,
    weights from 0.001 to 1000 and truths that are random, Base or Exp."""
    got = exact_quality(case.base, case.exp, case.weight, truth=case.truth)
    assert got.available and got.uncovered_items == 0
    weights = [case.weight[i] for i in case.items]
    want = quality_exact(case.base, case.exp, case.weight, case.truth)
    assert_close(got.values, want, max(weights) / min(weights))


def test_on_every_engine(engine: Engine) -> None:
    """The same values on DuckDB, PostgreSQL and Spark (string ids, weights 1e-3 … 1e3)."""
    base = {f"i{k}": k // 5 for k in range(40)}
    exp = {f"i{k}": (k // 8 if k < 24 else k // 3) for k in range(40)}
    truth = {f"i{k}": (k // 4 if k % 7 else 99) for k in range(40)}
    weight = {f"i{k}": 10.0 ** ((k % 7) - 3) for k in range(40)}
    got = exact_quality(base, exp, weight, truth=truth, engine=engine)
    assert_close(got.values, quality_exact(base, exp, weight, truth), 1e6)


def test_a_truth_that_does_not_cover_t_has_no_exact_values(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Items of T without a truth cluster (missing, or NULL) have no verdicts: the
    values are unavailable, with the count and the reason — never invented."""
    base = {k: k // 3 for k in range(12)}
    exp = {k: k // 4 for k in range(12)}
    missing = {k: k // 2 for k in range(10)}
    got = exact_quality(base, exp, truth=missing)
    assert not got.available and got.uncovered_items == 2 and got.values == {}
    assert "does not cover T" in (got.reason or "")
    path = tmp_path / "truth.csv"
    path.write_text("item_id,cluster_id\n" + "".join(
        f"i{k},{'' if k == 5 else k // 2}\n" for k in range(12)))
    named = {f"i{k}": c for k, c in base.items()}, {f"i{k}": c for k, c in exp.items()}
    got = exact_quality(*named, truth=str(path))
    assert not got.available and got.uncovered_items == 1


@pytest.mark.parametrize("size", [1, 2])
def test_trivial_worlds(size: int) -> None:
    """Base = Exp: every quality metric is 0 except nothing (no affected item)."""
    base = {k: k // size for k in range(6)}
    got = exact_quality(base, dict(base), truth=dict(base))
    assert got.available and all(v == 0 for v in got.values.values())
