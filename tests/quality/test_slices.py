"""Per-slice ΔPrecision (ABCDE App. B; docs/method.md §8.9). The exact recovery of the
slices' values is checked with the other metrics in test_metrics.py."""

from __future__ import annotations

import pytest
from toy_draws import GOOD, TOY_MANIFEST, draw_rows

from abcde.errors import InputError
from abcde.quality.estimate import estimate_from_draws

ROW = {"color": "red", "weight": 1.0, "pairweight": 0.1, "split": 0.05, "merge": 0.0,
       "stable_plus": 0.04, "stable_minus": 0.0, "self_delta_precision": 0.01}


def test_slices_need_their_columns() -> None:
    manifest = {**TOY_MANIFEST, "slices": [ROW]}
    with pytest.raises(InputError, match="no such column"):
        estimate_from_draws(draw_rows(*GOOD), {2: "equivalent"}, manifest)


def test_slices_of_an_earlier_design_are_refused() -> None:
    """A slice row without the class totals (the earlier pairweight alone) cannot be
    estimated by parts: it is refused with the reason."""
    old = {k: ROW[k] for k in ("color", "weight", "pairweight")}
    draws = {**draw_rows(*GOOD), "color": ["red", "red"]}
    with pytest.raises(InputError, match=r"lacks .*split"):
        estimate_from_draws(draws, {1: "equivalent", 2: "equivalent"},
                            {**TOY_MANIFEST, "slices": [old]})


def test_a_slice_is_its_self_part_plus_its_class_parts() -> None:
    """contribution(I) = Σ_{i∈I} u_ii l_ii + Σ sign·T_k(I)·p̂_k(I); ΔP(I) = W/w(I)·that."""
    draws = {**draw_rows(*GOOD), "color": ["red", "red"]}
    out = estimate_from_draws(draws, {1: "equivalent", 2: "not_equivalent"},
                              {**TOY_MANIFEST, "weight": 10.0, "slices": [ROW]})
    (row,) = out["slices"]
    assert row["contribution"]["estimate"] == pytest.approx(0.01 - 0.05 * 0 + 0.04 * 1)
    assert row["delta_precision"]["estimate"] == pytest.approx(10.0 * 0.05)
