"""The "before" column of benchmarks/RESULTS.md (issue #11): the adversarial worlds of
`benchmarks/run_quality_worlds.py` through the sampler and estimator as they were BEFORE
issue #11 (main at 81a4c6b: pairs drawn from the abcde or the jaccard population alone,
self pairs drawn, stratified samples from the jaccard population).

Run it with the old package first on the path, and the exact values written by the new
benchmark (`--json`, key "exact"; the old code has no exact metrics):

    git worktree add --detach /tmp/trust-before 81a4c6b
    python benchmarks/run_quality_worlds.py --worlds split_out --designs mixture \\
        --replications 2 --json /tmp/after.json          # any run: keeps "exact"
    PYTHONPATH=/tmp/trust-before/src python benchmarks/run_quality_worlds_before.py \\
        --exact /tmp/after.json [--worlds ...] [--designs abcde,jaccard,strat-prop,...]
        [--budgets 300,1000] [--replications 200] [--seed 1] [--json before.json]

Same worlds, same replication trick (consecutive budget-fill segments of one SQL stream,
`tests/adversarial_worlds.py`), same verdicts and the same summary (coverage, mean
half-width, bias) as the new benchmark.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from adversarial_worlds import (  # noqa: E402
    WORLDS,
    World,
    sample_rows,
    stream_segments,
    verdicts_for,
)
from run_quality_worlds import machine, markdown, summarise  # noqa: E402

OLD_DESIGNS: dict[str, dict[str, Any]] = {
    "abcde": {"population": "abcde"},
    "jaccard": {"population": "jaccard"},
    "strat-prop": {"population": "jaccard", "allocation": "proportional"},
    "strat-equal": {"population": "jaccard", "allocation": "equal"},
    "strat-0.8": {"population": "jaccard", "allocation": 0.8},
}
"""The designs the old sampler offers (its stratified default population: jaccard)."""


def run_old_design(world: World, design: dict[str, Any], budgets: list[int],
                   replications: int, seed: int) -> dict[int, list[dict[str, Any]]]:
    """`adversarial_worlds.run_design` written against the old API (no α, no mixture)."""
    from abcde.engines import connect
    from abcde.inputs.session import open_inputs
    from abcde.inputs.spec import InputSpec
    from abcde.quality.estimate import Sample, estimate_with_verdicts
    from abcde.sampling.pairs import prepare, sample_pairs
    from abcde.sampling.stratified import STRATA, restricted, sample_pairs_stratified

    population = design["population"]
    allocation = design.get("allocation")
    eng = connect("duckdb")
    out: dict[int, list[dict[str, Any]]] = {}
    try:
        inputs = open_inputs(eng, InputSpec(world.base, world.exp, world.weight))
        pipeline, _ = prepare(eng, inputs, population, prefix="abcde_bench_")
        for budget in budgets:
            rng = np.random.default_rng(seed * 7919 + budget)
            if allocation is None:
                manifest = sample_pairs(world.base, world.exp, world.weight,
                                        population=population, draws=10, seed=0).manifest
                stream, segs = stream_segments(eng, pipeline, budget, replications, seed)
                samples = [sample_rows(stream, a, b) for a, b in segs]
            else:
                manifest = sample_pairs_stratified(
                    world.base, world.exp, world.weight, population=population,
                    budget=budget, allocation=allocation, seed=0).manifest
                budgets_h = {st["name"]: st["budget"] for st in manifest["strata"]}
                per_stratum = []
                for h, (name, classes) in enumerate(STRATA):
                    if budgets_h[name] == 0:
                        per_stratum.append([[] for _ in range(replications)])
                        continue
                    p = restricted(pipeline, classes, population)
                    p.run(eng, "pair_strata")
                    stream, segs = stream_segments(eng, p, budgets_h[name], replications,
                                                   2 * seed + h)
                    per_stratum.append([sample_rows(stream, a, b, name) for a, b in segs])
                reps = min(len(s) for s in per_stratum)
                samples = [[row for s in per_stratum for row in s[r]] for r in range(reps)]
            docs = []
            for rows in samples:
                verdicts = verdicts_for(rows, world.truth, world.unknown_share, rng)
                docs.append(estimate_with_verdicts(Sample(rows, manifest, "benchmark"),
                                                   verdicts))
            out[budget] = docs
    finally:
        eng.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--exact", required=True, help="JSON of run_quality_worlds.py --json")
    ap.add_argument("--worlds", default=None, help="default: every world of --exact")
    ap.add_argument("--designs", default=",".join(OLD_DESIGNS))
    ap.add_argument("--budgets", default="300,1000")
    ap.add_argument("--replications", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    exact_all = json.loads(Path(args.exact).read_text())["exact"]
    budgets = [int(b) for b in args.budgets.split(",")]
    import subprocess

    import abcde

    old = Path(abcde.__file__).resolve().parent
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=old, capture_output=True,
                         text=True).stdout.strip()
    results: dict[str, Any] = {"machine": f"{machine()}; old code {old} at {rev}",
                               "command": " ".join(sys.argv),
                               "replications": args.replications, "cells": {},
                               "exact": exact_all}
    for wname in (args.worlds.split(",") if args.worlds else list(exact_all)):
        base_name, _, wrong = wname.partition(":")
        world = WORLDS[base_name](wrong=float(wrong)) if wrong else WORLDS[base_name]()
        exact = exact_all[wname]
        results["cells"][wname] = {}
        for dname in args.designs.split(","):
            start = time.perf_counter()
            try:
                docs = run_old_design(world, OLD_DESIGNS[dname], budgets, args.replications,
                                      args.seed)
            except Exception as err:  # a design a world cannot take (e.g. no stable pairs)
                print(f"# {wname} {dname}: {type(err).__name__}: {err}", file=sys.stderr)
                continue
            results["cells"][wname][dname] = {str(b): summarise(d, exact)
                                              for b, d in docs.items()}
            print(f"# {wname} {dname}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    print(results["machine"])
    print(markdown(results, budgets))


if __name__ == "__main__":
    main()
