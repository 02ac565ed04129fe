"""Prediction-powered estimates through the real SQL sampler (docs/method.md §8.15): the
stream of tests/quality/test_quality_statistical.py (make_world(seed=1), the mixture
design, DuckDB), 500 blocks of 1,500 draws; a simulated model judges every pair, humans a
uniform quarter of the pairs; `estimate_from_draws(model=…)` against the brute-force
exact values, by tests/worlds.py::check (|mean − exact| ≤ 3 SE, coverage in 93–97% or
the metric flagged not conclusive). Judges: good (90/90), useless (a coin), adversarial
(wrong on every split pair, right elsewhere), biased with the class and the verdict
(says 'equivalent' for 60% of the not-equivalent merge and stable pairs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from worlds import (
    check,
    exact_values,
    flatten,
    make_world,
    sql_manifest,
    sql_stream,
    stream_blocks,
    summarise,
)

from abcde.quality.estimate import estimate_from_draws
from abcde.sample_files.pairs import HUMAN_COLUMN
from abcde.sampling.humans import humans_subset

pytestmark = pytest.mark.slow

REPLICATIONS, DRAWS, HUMAN_SHARE = 500, 1500, 0.25


def _model(kind: str, eq: np.ndarray, split: np.ndarray, rng: np.random.Generator):
    y = eq.astype(float)
    return {"good": np.where(rng.random(y.size) < 0.9, y, 1 - y),
            "useless": (rng.random(y.size) < 0.5) * 1.0,
            "adversarial": np.where(split, 1 - y, y),
            "biased": np.where(~split & (y == 0), (rng.random(y.size) < 0.6) * 1.0, y)}[kind]


@pytest.fixture(scope="module")
def world_stream() -> tuple[Any, dict[str, Any], dict[str, np.ndarray], dict[str, float]]:
    world = make_world(seed=1)
    manifest = {k: v for k, v in sql_manifest(world, "mixture").items() if k != "slices"}
    return world, manifest, sql_stream(world, "mixture", REPLICATIONS * DRAWS, 31), \
        exact_values(world)


def _blocks(world: Any, stream: dict[str, Any]):
    """Per replication, the block's draw rows, its distinct pair ids, their truth and
    whether they are split pairs (the colour column aside: no slices here)."""
    for draws, ids, eq, cls in stream_blocks(world, stream, DRAWS):
        del draws["color"]
        yield draws, ids, eq, cls == "split"


@pytest.mark.parametrize("kind", ["good", "useless", "adversarial", "biased"])
def test_model_judges_through_the_sql_sampler(world_stream: Any, kind: str) -> None:
    world, manifest, stream, exact = world_stream
    rng = np.random.default_rng(41)
    results = []
    for draws, ids, eq, split in _blocks(world, stream):
        f = _model(kind, eq, split, rng)
        human = rng.random(ids.size) < HUMAN_SHARE
        verdicts = {"pair_id": ids[human],
                    "verdict": np.where(eq[human], "equivalent", "not_equivalent")}
        results.append(estimate_from_draws(draws, verdicts, manifest,
                                           model=dict(zip(ids.tolist(), f.tolist(), strict=True))))
    keys = [k for k in flatten(results[0]) if not k.startswith("slice:")]
    check(summarise(results, exact, keys), exact)


@pytest.mark.parametrize("kind", ["good", "adversarial"])
def test_the_recorded_humans_probability_through_the_sql_sampler(world_stream: Any,
                                                                  kind: str) -> None:
    """A model round's draws carry π (`human_probability`) of the humans' subset chosen
    by the sampler's own `humans_subset` (a quarter of the pairs); human verdicts are
    given for every pair, so that only the subset's ξ/π may be used; 5% of the humans'
    verdicts are unknown."""
    world, manifest, stream, exact = world_stream
    rng = np.random.default_rng(43)
    results = []
    for r, (draws, ids, eq, split) in enumerate(_blocks(world, stream)):
        f = _model(kind, eq, split, rng)
        chosen = humans_subset(ids.tolist(), int(HUMAN_SHARE * ids.size), seed=r)
        pi = np.array([chosen.get(p, np.nan) for p in ids.tolist()])
        draws[HUMAN_COLUMN] = pi[np.searchsorted(ids, draws["pair_id"])]
        verdict = np.where(eq, "equivalent", "not_equivalent")
        verdict[rng.random(ids.size) < 0.05] = "unknown"
        results.append(estimate_from_draws(draws, {"pair_id": ids, "verdict": verdict},
                                           manifest,
                                           model=dict(zip(ids.tolist(), f.tolist(), strict=True))))
    keys = [k for k in flatten(results[0]) if not k.startswith("slice:")]
    check(summarise(results, exact, keys), exact)
