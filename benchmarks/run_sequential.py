"""Verdicts until the stop signal of `abcde estimate --stop-when 'delta_precision>0'` vs a
fixed budget sized in advance for the same question (issue 35; docs/method.md §8.14).

Worlds: the mirror of tests/worlds.make_world(1) (ΔPrecision = 0 exactly) beside a copy
of make_world(1) itself (ΔPrecision > 0) whose weights are scaled so that the union's
ΔPrecision is 1×, 2× and 3× the planned effect δ (ΔPrecision of disjoint parts is their
weight-weighted mean, ABCDE eq. 35). The fixed budget is sized in advance for δ as
`abcde simulate` sizes one: the smallest budget (a multiple of 10 pairs) at which the
fixed 95% interval excludes 0 in 80% of the 1× world's rounds; it is then used, unchanged,
for the 2× and 3× effects, where the sequence may stop earlier.

Per effect, R rounds: one SQL stream (mixture design) of R·N draws cut into blocks; each
block is judged by the truth in stream order and looked at after every verdict.

    .venv/bin/python benchmarks/run_sequential.py [--replications 200] [--draws 4000]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "tests"),
                str(Path(__file__).resolve().parents[1] / "tests" / "quality")]

from reference import quality_exact  # noqa: E402
from test_sequential_statistical import mirror  # noqa: E402
from worlds import World, make_world  # noqa: E402

from abcde.engines import connect  # noqa: E402
from abcde.inputs.session import open_inputs  # noqa: E402
from abcde.inputs.spec import InputSpec  # noqa: E402
from abcde.quality.estimate import judged_design  # noqa: E402
from abcde.quality.intervals import z_value  # noqa: E402
from abcde.quality.metrics import METRICS  # noqa: E402
from abcde.quality.sequential import _Sums, every_prefix, metric_sequence  # noqa: E402
from abcde.sampling.pairs import draw_stream, prepare, sample_pairs  # noqa: E402


def union(a: World, b: World, scale: float) -> World:
    """a beside b (items and clusters of b shifted), b's weights × scale."""
    n = max(a.base) + 1
    shift = 10 * (max(max(a.base.values()), max(a.exp.values()), max(a.truth.values())) + 1)
    return World({**a.base, **{i + n: c + shift for i, c in b.base.items()}},
                 {**a.exp, **{i + n: c + shift for i, c in b.exp.items()}},
                 {**a.truth, **{i + n: c + shift for i, c in b.truth.items()}},
                 {**a.weight, **{i + n: x * scale for i, x in b.weight.items()}},
                 {**a.color, **{i + n: c for i, c in b.color.items()}})


def rounds(world: World, draws: int, replications: int, seed: int) -> list[dict[str, Any]]:
    """Per round: the sequence of ΔPrecision after every verdict, its σ̂ and the times."""
    manifest = sample_pairs(world.base, world.exp, world.weight, draws=10, seed=0).manifest
    eng = connect("duckdb")
    try:
        inputs = open_inputs(eng, InputSpec(world.base, world.exp, world.weight))
        pipeline, _ = prepare(eng, inputs, "mixture")
        table = draw_stream(eng, pipeline, replications * draws, seed).physical_name(
            "pair_stream")
        st = eng.con.execute(  # type: ignore[attr-defined]
            f"SELECT item_i, item_j, pair_class, label, u_over_w FROM {table} ORDER BY d"
        ).fetchnumpy()
    finally:
        eng.close()
    m = max(world.truth) + 1
    truth = np.full(m, -1)
    truth[list(world.truth)] = list(world.truth.values())
    out = []
    for r in range(replications):
        block = slice(r * draws, (r + 1) * draws)
        i, j = st["item_i"][block].astype(np.int64), st["item_j"][block].astype(np.int64)
        _, first, counts = np.unique(i * m + j, return_index=True, return_counts=True)
        i, j = i[first], j[first]
        pair_id = np.minimum(i, j) * m + np.maximum(i, j)
        cols = {"pair_id": pair_id, "item_i": i, "item_j": j,
                "pair_class": st["pair_class"][block][first],
                "label": st["label"][block][first],
                "u_over_w": st["u_over_w"][block][first], "draw_count": counts}
        ids, at = np.unique(pair_id, return_index=True)
        verdict = np.where(truth[i[at]] == truth[j[at]], "equivalent", "not_equivalent")
        s, design = judged_design(cols, {"pair_id": ids, "verdict": verdict}, manifest)
        stream, pairs = every_prefix(first, counts, pair_id)
        sums = [_Sums(first, counts, stream.draws[0], stream.times[0])]
        seq = metric_sequence(METRICS["delta_precision"], s, design, stream, 0.95, sums)
        out.append({"seq": seq, "pairs": pairs, "times": stream.times[0]})
    return out


POWER = 0.8


def _fixed_says_yes(run: dict[str, Any], pairs: int, z: float) -> bool:
    """The fixed-sample normal interval of the same terms at ``pairs`` verdicts excludes 0
    from below (the interval looked at once, at the budget)."""
    at = min(int(np.searchsorted(run["pairs"], pairs)), run["pairs"].size - 1)
    seq = run["seq"]
    return bool(seq.estimate[at] - z * seq.sigma[0][at] / math.sqrt(run["times"][at]) > 0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replications", type=int, default=200)
    ap.add_argument("--draws", type=int, default=4000)
    ap.add_argument("--effect", type=float, default=None,
                    help="the planned ΔPrecision δ (default: a quarter of make_world(1)'s)")
    args = ap.parse_args()
    started = time.monotonic()
    null, moving = mirror(make_world(seed=1)), make_world(seed=1)
    d0 = quality_exact(moving.base, moving.exp, moving.weight, moving.truth)["delta_precision"]
    w_null, w_moving = sum(null.weight.values()), sum(moving.weight.values())
    args.effect = args.effect or d0 / 4
    z = z_value(0.95)
    fixed_pairs = None
    print("| effect | ΔPrecision | fixed budget (pairs, sized for 1×) | its power | "
          "sequence: stopped 'yes' | verdicts until stop: median (p10–p90) | "
          "stopped by the fixed budget | wrong ('no') |")
    print("|---|---|---|---|---|---|---|---|")
    for k, times in enumerate((1, 2, 3)):
        target = times * args.effect
        scale = target * w_null / (w_moving * (d0 - target))  # W_b·d0/(W_a + W_b) = target
        world = union(null, moving, scale)
        exact = quality_exact(world.base, world.exp, world.weight, world.truth)
        runs = rounds(world, args.draws, args.replications, seed=100 + k)
        if fixed_pairs is None:  # sized in advance on the planned effect (1×), as
            # `abcde simulate` sizes a budget: the smallest with 80% power
            grid = np.arange(50, min(r["pairs"][-1] for r in runs) + 1, 10)
            power = [np.mean([_fixed_says_yes(r, g, z) for r in runs]) for g in grid]
            fixed_pairs = int(grid[np.argmax(np.asarray(power) >= POWER)])
        stops, power, wrong, by_fixed = [], 0, 0, 0
        for r in runs:
            seq, pairs = r["seq"], r["pairs"]
            power += _fixed_says_yes(r, fixed_pairs, z)
            yes = np.flatnonzero(seq.low > 0)
            no = np.flatnonzero(seq.high < 0)
            if no.size and (not yes.size or no[0] < yes[0]):
                wrong += 1
            if yes.size and (not no.size or yes[0] < no[0]):
                stops.append(int(pairs[yes[0]]))
                by_fixed += int(pairs[yes[0]]) <= fixed_pairs
        n = len(runs)
        q = np.percentile(stops, [10, 50, 90]) if stops else [math.nan] * 3
        print(f"| {times}× | {exact['delta_precision']:+.4f} | {fixed_pairs:,} | "
              f"{power / n:.0%} | {len(stops) / n:.0%} | {q[1]:,.0f} ({q[0]:,.0f}–{q[2]:,.0f}) "
              f"| {by_fixed / n:.0%} | {wrong / n:.1%} |")
    print(f"\n{args.replications} rounds per effect of {args.draws:,} draws, planned δ = "
          f"{args.effect:g}; {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
