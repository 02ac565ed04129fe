"""CPU milliseconds per `estimate_from_draws` call on the statistical tests' inputs: SQL
blocks of tests/worlds.make_world(1) (jaccard: 4,000 draws, mixture: 1,500), 30% of the
pairs unknown, verdicts as columns of integer pair ids, the manifest sliced by colour, as
tests/quality/test_quality_statistical.py estimates them.

    .venv/bin/python benchmarks/estimate_speed.py [--blocks 20] [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from worlds import make_world, sql_manifest, sql_stream, stream_blocks

from abcde.quality.estimate import estimate_from_draws

DRAWS = {"jaccard": 4000, "mixture": 1500}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    world, rng = make_world(seed=1), np.random.default_rng(123)
    for population, n in DRAWS.items():
        manifest = sql_manifest(world, population)
        calls = [(draws, {"pair_id": ids, "verdict": np.where(
            rng.random(ids.size) < 0.3, "unknown", np.where(eq, "equivalent", "not_equivalent"))})
            for draws, ids, eq, _ in stream_blocks(
                world, sql_stream(world, population, args.blocks * n, seed=23), n)]
        best = np.inf
        for _ in range(args.repeat):
            start = time.process_time()
            for draws, verdicts in calls:
                estimate_from_draws(draws, verdicts, manifest)
            best = min(best, (time.process_time() - start) / len(calls) * 1000)
        print(f"{population}: {n:,} draws, {len(calls)} blocks: {best:.2f} ms per call")


if __name__ == "__main__":
    main()
