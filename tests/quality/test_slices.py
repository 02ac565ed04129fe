"""Per-slice ΔPrecision (ABCDE App. B; docs/method.md §8.9). The exact recovery of the
slices' values is checked with the other metrics in test_metrics.py."""

from __future__ import annotations

import pytest
from toy_draws import ABCDE_MANIFEST, GOOD, draw_rows

from abcde.quality.estimate import estimate_from_draws


def test_slices_need_their_columns() -> None:
    manifest = {**ABCDE_MANIFEST, "slices": [{"color": "red", "weight": 1.0, "pairweight": 0.1}]}
    with pytest.raises(ValueError, match="no such column"):
        estimate_from_draws(draw_rows(*GOOD), {2: "equivalent"}, manifest)
