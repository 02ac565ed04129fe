"""The humans' part of a round with a model judge (docs/method.md §8.15): of the M pairs
drawn for the model, a simple random sample of B are the humans', each with the recorded
inclusion probability π = B/M that the estimator divides by (ξ/π; Zrnic & Candès, Active
statistical inference, ICML 2024)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def humans_subset(pair_ids: Sequence[str], budget: int, seed: int) -> dict[str, float]:
    """pair id → π of the humans' pairs: ``budget`` of the distinct ``pair_ids`` drawn
    without replacement by a generator of ``seed`` (the same sample gives the same subset)."""
    ids = sorted(set(pair_ids))
    if not ids:
        return {}
    take = min(budget, len(ids))
    chosen = np.random.default_rng([seed, 34]).choice(len(ids), size=take, replace=False)
    return {ids[k]: take / len(ids) for k in sorted(chosen.tolist())}
