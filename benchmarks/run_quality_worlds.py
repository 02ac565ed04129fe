"""Coverage and half-width of the quality estimates in adversarial worlds (issue #11),
through the real SQL sampler and `abcde.quality.estimate`.

    python benchmarks/run_quality_worlds.py [--worlds split_out,glued,...]
        [--designs abcde,jaccard,strat-equal,...] [--budgets 300,1000]
        [--replications 200] [--seed 1] [--json out.json]

Worlds: `tests/adversarial_worlds.py` at the issue's sizes (split_out, glued, pairs_out:
100,000 items; shattered: 233,340 items; noisy, unknown30, wide: 2,000 items); `name:0.2`
makes a share 0.2 of the moved items' moves wrong (verdicts then vary within a class).
Each world's truth covers T, so every metric has an exact value (`abcde.quality.exact`,
SQL per triple cell).

Replications (the statistical tests' trick, for the budget fill): per world and design
the sampler draws ONE long stream with one seed; its draws are iid (draw d uses the
uniforms of (seed, level, d) only), so cutting it into consecutive segments, each ending
at the draw that brings its budget-th unique judgeable pair (ABCDE App. A 3.1–3.2), gives
independent samples, each exactly what `sample-pairs --budget` computes for one seed.
Stratified designs cut one stream per stratum (seed 2·seed + h) and pair the segments.
Each sample is judged by the truth (unknown30: 30% of its unordered pairs made unknown)
and estimated by `abcde.quality.estimate.estimate_with_verdicts`.

Per world, design, budget and metric: coverage (share of 95% intervals holding the exact
value), mean half-width (ci_high − ci_low)/2, bias (mean estimate − exact) with its SE
(sd/√R), replications without an estimate or interval, replications labelled "exact",
and — for ΔPrecision — the share of verdicts that say "not conclusive".
Prints Markdown tables; `--json` keeps every number.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from adversarial_worlds import WORLDS, World  # noqa: E402

from abcde.engines import connect  # noqa: E402
from abcde.inputs.session import open_inputs  # noqa: E402
from abcde.inputs.spec import InputSpec  # noqa: E402
from abcde.quality.estimate import Sample, estimate_with_verdicts  # noqa: E402
from abcde.quality.exact import exact_quality  # noqa: E402
from abcde.sampling.pairs import design_for, draw_stream, prepare, sample_pairs  # noqa: E402
from abcde.sampling.stratified import (  # noqa: E402
    STRATA,
    restricted,
    sample_pairs_stratified,
)

Design = dict[str, Any]

DESIGNS: dict[str, Design] = {
    "mixture": {"population": "mixture"},
    "mixture-0.25": {"population": "mixture", "alpha": 0.25},
    "mixture-0.75": {"population": "mixture", "alpha": 0.75},
    "abcde": {"population": "abcde"},
    "jaccard": {"population": "jaccard"},
    "strat-prop": {"population": "mixture", "allocation": "proportional"},
    "strat-equal": {"population": "mixture", "allocation": "equal"},
    "strat-0.8": {"population": "mixture", "allocation": 0.8},
}
"""Designs: the sampler's population (and α) and, for stratified samples, the allocation
(docs/method.md §6.9, §7.7). Before issue #11 the stratified samples drew from the jaccard
population (benchmarks/RESULTS.md)."""


# --------------------------------------------------------------------------- #
# Streams and their budget-fill segments
# --------------------------------------------------------------------------- #


def fetch_stream(eng: Any, pipeline: Any, n: int, seed: int) -> dict[str, np.ndarray]:
    """Draws 0..n−1 of the SQL stream, in draw order, every column."""
    p = draw_stream(eng, pipeline, n, seed)
    table = p.physical_name("pair_stream")
    return eng.con.execute(f"SELECT * FROM {table} ORDER BY d").fetchnumpy()


def segment_ends(item_i: np.ndarray, item_j: np.ndarray, budget: int) -> list[int]:
    """End positions (exclusive) of consecutive budget-fill segments: each ends at the
    draw that brings its budget-th unique judgeable (non-self, unordered) pair."""
    ends = []
    seen: set[tuple[int, int]] = set()
    for k, (i, j) in enumerate(zip(item_i.tolist(), item_j.tolist(), strict=True)):
        if i == j:
            continue
        key = (i, j) if i < j else (j, i)
        if key not in seen:
            seen.add(key)
            if len(seen) == budget:
                ends.append(k + 1)
                seen = set()
    return ends


MAX_STREAM = 20_000_000
"""Draws per stream at most: a budget fill whose pairs repeat heavily (weights 1e-4 … 1e4)
can need 10⁶ draws per sample; such a cell gets fewer replications (reported)."""


def stream_segments(eng: Any, pipeline: Any, budget: int, replications: int,
                    seed: int) -> tuple[dict[str, np.ndarray], list[tuple[int, int]]]:
    """A stream long enough for `replications` budget-fill segments (or MAX_STREAM draws),
    and the segments (fewer than `replications` when MAX_STREAM was reached)."""
    n = replications * (2 * budget + 50)
    while True:
        stream = fetch_stream(eng, pipeline, n, seed)
        ends = segment_ends(np.asarray(stream["item_i"]), np.asarray(stream["item_j"]), budget)
        if len(ends) >= replications or n >= MAX_STREAM:
            starts = [0, *ends[:-1]]
            return stream, list(zip(starts, ends, strict=True))[:replications]
        per = n / max(len(ends), 1)
        n = min(MAX_STREAM, math.ceil(per * replications * 1.15) + 1000)


def sample_rows(stream: dict[str, np.ndarray], start: int, end: int,
                stratum: str | None = None) -> list[dict[str, Any]]:
    """Draws [start, end) aggregated into unique ordered pairs with draw counts (as
    pairs/sample.sql), every other stream column carried along."""
    rows: dict[tuple[int, int], dict[str, Any]] = {}
    columns = [c for c in stream if c not in ("d",)]
    item_i = stream["item_i"]
    item_j = stream["item_j"]
    for k in range(start, end):
        key = (int(item_i[k]), int(item_j[k]))
        row = rows.get(key)
        if row is not None:
            row["draw_count"] += 1
            continue
        row = {c: _scalar(stream[c][k]) for c in columns}
        row["item_i"], row["item_j"] = key
        lo, hi = min(key), max(key)
        row["pair_id"] = f"{lo}-{hi}"
        row["draw_count"] = 1
        row["first_draw"] = k - start + 1
        if stratum is not None:
            row["stratum"] = stratum
        rows[key] = row
    return list(rows.values())


def _scalar(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


def verdicts_for(rows: list[dict[str, Any]], truth: dict[int, int], unknown_share: float,
                 rng: np.random.Generator) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in rows:
        pid = r["pair_id"]
        if pid in out or r["item_i"] == r["item_j"]:
            continue
        if unknown_share and rng.random() < unknown_share:
            out[pid] = "unknown"
        else:
            same = truth[r["item_i"]] == truth[r["item_j"]]
            out[pid] = "equivalent" if same else "not_equivalent"
    return out


# --------------------------------------------------------------------------- #
# One world × design
# --------------------------------------------------------------------------- #


def run_design(world: World, design: Design, budgets: list[int], replications: int,
               seed: int) -> dict[int, list[dict[str, Any]]]:
    """Estimate documents per budget, `replications` each."""
    population = design["population"]
    alpha = design.get("alpha")
    allocation = design.get("allocation")
    eng = connect("duckdb")
    out: dict[int, list[dict[str, Any]]] = {}
    try:
        inputs = open_inputs(eng, InputSpec(world.base, world.exp, world.weight))
        sampled = design_for(population, alpha)
        pipeline, _ = prepare(eng, inputs, sampled, prefix="abcde_bench_")
        for budget in budgets:
            rng = np.random.default_rng(seed * 7919 + budget)
            if allocation is None:
                manifest = sample_pairs(world.base, world.exp, world.weight,
                                        population=population, alpha=alpha, draws=10,
                                        seed=0).manifest
                stream, segs = stream_segments(eng, pipeline, budget, replications, seed)
                samples = [sample_rows(stream, a, b) for a, b in segs]
            else:
                manifest = sample_pairs_stratified(
                    world.base, world.exp, world.weight, population=population, alpha=alpha,
                    budget=budget, allocation=allocation, seed=0).manifest
                budgets_h = {st["name"]: st["budget"] for st in manifest["strata"]}
                per_stratum = []
                for h, (name, classes) in enumerate(STRATA):
                    if budgets_h[name] == 0:
                        per_stratum.append([[] for _ in range(replications)])
                        continue
                    p = restricted(pipeline, classes, sampled)
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


def summarise(docs: list[dict[str, Any]], exact: dict[str, float]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in exact.items():
        rows = [d.get(key) for d in docs if isinstance(d.get(key), dict)]
        if not rows or all(r["estimate"] is None and "not available" in (r.get("note") or "")
                           for r in rows):
            continue
        ests = [r["estimate"] for r in rows if r["estimate"] is not None]
        with_ci = [r for r in rows if r["ci_low"] is not None and r["ci_high"] is not None]
        tol = 1e-9 * max(abs(value), 1e-12)
        covered = [r["ci_low"] - tol <= value <= r["ci_high"] + tol for r in with_ci]
        halves = [(r["ci_high"] - r["ci_low"]) / 2 for r in with_ci]
        sd = float(np.std(ests, ddof=1)) if len(ests) > 1 else float("nan")
        cell = {
            "exact": value,
            "replications": len(rows),
            "coverage": float(np.mean(covered)) if covered else None,
            "half_width": float(np.mean(halves)) if halves else None,
            "mean": float(np.mean(ests)) if ests else None,
            "bias": float(np.mean(ests) - value) if ests else None,
            # rounding: an estimate that is exact up to the last bits has sd ~ 0
            "bias_se": max(sd / math.sqrt(len(ests)), 1e-12 * max(abs(value), 1.0))
            if ests else None,
            "undefined": len(rows) - len(with_ci),
            "labelled_exact": sum(r.get("interval") == "exact" for r in rows),
            "not_conclusive": sum(bool(r.get("not_conclusive")) for r in rows),
            "n_eff": float(np.median([r["n_eff"] for r in rows if r.get("n_eff") is not None]))
            if any(r.get("n_eff") is not None for r in rows) else None,
        }
        if key == "delta_precision":
            cell["verdict_not_conclusive"] = sum("not conclusive" in d["verdict"] for d in docs)
        out[key] = cell
    return out


# --------------------------------------------------------------------------- #
# Report
# --------------------------------------------------------------------------- #


def machine() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "?"
    import duckdb

    return (f"commit {commit}; {platform.platform()}; Python {platform.python_version()}, "
            f"duckdb {duckdb.__version__}; load {Path('/proc/loadavg').read_text().split()[:3]}"
            if Path("/proc/loadavg").exists() else f"commit {commit}")


def markdown(results: dict[str, Any], budgets: list[int]) -> str:
    lines = []
    head = ["world", "design"]
    for b in budgets:
        head += [f"ΔP cov {b}", f"ΔP ±hw {b}", f"ΔP bias/SE {b}", f"worst other {b}"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * 2 + "---:|" * (len(head) - 2))
    for world, per_design in results["cells"].items():
        for design, per_budget in per_design.items():
            row = [world, design]
            for b in budgets:
                cells = per_budget[str(b)]
                dp = cells.get("delta_precision", {})
                row += [_cov(dp), _pct(dp.get("half_width")), _bias(dp),
                        _worst(cells)]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _cov(c: dict[str, Any]) -> str:
    if not c or c.get("coverage") is None:
        return "–"
    extra = f" ({c['undefined']} undef.)" if c.get("undefined") else ""
    return f"{100 * c['coverage']:.1f}%{extra}"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}%"


def _bias(c: dict[str, Any]) -> str:
    if not c or c.get("bias") is None:
        return "–"
    se = c.get("bias_se") or 0.0
    return f"{100 * c['bias']:+.2f}% ({abs(c['bias']) / se:.1f})" if se > 0 else \
        f"{100 * c['bias']:+.2f}%"


def _worst(cells: dict[str, Any]) -> str:
    others = [(c["coverage"], k) for k, c in cells.items()
              if k != "delta_precision" and c.get("coverage") is not None]
    if not others:
        return "–"
    cov, key = min(others)
    return f"{100 * cov:.1f}% {key}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worlds", default=",".join(WORLDS))
    ap.add_argument("--designs", default=",".join(DESIGNS))
    ap.add_argument("--budgets", default="300,1000")
    ap.add_argument("--replications", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    results: dict[str, Any] = {"machine": machine(), "command": " ".join(sys.argv),
                               "replications": args.replications, "cells": {}}
    for wname in args.worlds.split(","):
        base_name, _, wrong = wname.partition(":")
        world = WORLDS[base_name](wrong=float(wrong)) if wrong else WORLDS[base_name]()
        exact = exact_quality(world.base, world.exp, world.weight, truth=world.truth)
        assert exact.available, exact.reason
        results["cells"][wname] = {}
        results.setdefault("exact", {})[wname] = exact.values
        for dname in args.designs.split(","):
            start = time.perf_counter()
            try:
                docs = run_design(world, DESIGNS[dname], budgets, args.replications,
                                  args.seed)
            except Exception as err:  # a design a world cannot take (e.g. no stable pairs)
                print(f"# {wname} {dname}: {type(err).__name__}: {err}", file=sys.stderr)
                continue
            results["cells"][wname][dname] = {str(b): summarise(d, exact.values)
                                              for b, d in docs.items()}
            print(f"# {wname} {dname}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    print(results["machine"])
    print(markdown(results, budgets))


if __name__ == "__main__":
    main()
