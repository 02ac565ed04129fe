"""Human verdicts for a ΔPrecision half-width of 1 point, humans alone vs with a model
judge right 90% of the time on both kinds of pair judging 20,000 pairs (issue 34;
docs/method.md §8.15), by `abcde simulate --model-accuracy` itself: per world, R rounds
of the real SQL sampler's stream filled to the model's pairs, the humans the sampler's
random subset of each budget; the budgets either needs follow the mean half-widths as
1/√b from the largest budget.

Worlds: tests/worlds.make_world(1, n=8000, huge=1) (log-normal weights, three tiny items)
and make_world(2, n=8000, huge=1, cluster=20) (larger clusters). The budgets with the
model fit hw² = a + c/b through the two largest budgets (a: the model's pairs' floor);
"same ± at b" is (hw alone / hw with the model)² at b, measured, not extrapolated.

    .venv/bin/python benchmarks/run_model_judge.py [--replications 10] [--budgets 500,1000,2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "tests"),
                str(Path(__file__).resolve().parent)]

from run_quality_worlds import machine  # noqa: E402
from worlds import make_world  # noqa: E402

from abcde.quality.simulation import simulate  # noqa: E402

WORLDS = {"make_world(1, n=8000, huge=1)": dict(seed=1, n=8000, huge=1.0),
          "make_world(2, n=8000, huge=1, cluster=20)": dict(seed=2, n=8000, huge=1.0,
                                                            cluster=20)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replications", type=int, default=10)
    ap.add_argument("--budgets", default="500,1000,2000")
    ap.add_argument("--model-budget", type=int, default=20000)
    ap.add_argument("--accuracy", type=float, default=0.9)
    ap.add_argument("--target", type=float, default=0.01)
    args = ap.parse_args()
    budgets = tuple(int(b) for b in args.budgets.split(","))
    print(machine())
    print(f"| world | humans judged | ΔPrecision ± alone | ± with model | coverage with model |"
          f" same ± at b: × fewer | humans for ±{100 * args.target:g} pt alone | with model |"
          " fewer |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, kw in WORLDS.items():
        w = make_world(**kw)
        start = time.perf_counter()
        doc = simulate(w.base, w.exp, w.weight, truth=w.truth, budgets=budgets,
                       replications=args.replications, seed=11,
                       model_accuracy=args.accuracy, model_budget=args.model_budget,
                       target_half_width=args.target)
        took = time.perf_counter() - start
        for row in doc["model"]["delta_precision"]:
            cov = doc["model"]["metrics"]["delta_precision"][row["budget"]]["coverage"]
            print(f"| {name} | {row['budget']:,} | ±{100 * row['human_half_width']:.2f} pt | "
                  f"±{100 * row['combined_half_width']:.2f} pt | "
                  f"{'-' if cov is None else f'{cov:.0%}'} | {row['worth'] / row['budget']:.1f}× | "
                  f"{row['humans_alone']:,} | "
                  f"{row['humans_with_model'] or '-'} | "
                  + (f"{row['humans_alone'] / row['humans_with_model']:.1f}× |"
                     if row["humans_with_model"] else "- |"))
        print(f"<!-- {name}: {args.replications} rounds in {took:.0f} s -->")


if __name__ == "__main__":
    main()
