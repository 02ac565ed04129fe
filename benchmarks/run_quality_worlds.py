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
import itertools
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

from adversarial_worlds import DESIGNS, WORLDS, run_design  # noqa: E402


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
        cell["by_n_eff"] = by_n_eff(rows, value, tol)
        if key == "delta_precision":
            cell["verdict_not_conclusive"] = sum("not conclusive" in d["verdict"] for d in docs)
        out[key] = cell
    return out


N_EFF_BINS = (0.0, 3.0, 10.0, 30.0, 100.0, math.inf)
"""Bins of a metric's reported n_eff for :func:`by_n_eff` (the "not conclusive" threshold,
MIN_N_EFF = 10, is a bin edge)."""


def by_n_eff(rows: list[dict[str, Any]], value: float, tol: float) -> list[dict[str, Any]]:
    """Coverage and bias per bin of the reported n_eff: the measurement behind MIN_N_EFF
    (docs/method.md §8.11). Bias is in units of the bin's SE of the mean."""
    out = []
    for lo, hi in itertools.pairwise(N_EFF_BINS):
        sel = [r for r in rows if r.get("n_eff") is not None and lo <= r["n_eff"] < hi
               and r["estimate"] is not None]
        if not sel:
            continue
        ests = np.array([r["estimate"] for r in sel])
        ci = [r for r in sel if r["ci_low"] is not None and r["ci_high"] is not None]
        sd = float(np.std(ests, ddof=1)) if len(ests) > 1 else float("nan")
        se = max(sd / math.sqrt(len(ests)), 1e-12 * max(abs(value), 1.0))
        out.append({"lo": lo, "hi": hi, "n": len(sel),
                    "coverage": float(np.mean([r["ci_low"] - tol <= value <= r["ci_high"] + tol
                                               for r in ci])) if ci else None,
                    "bias": float(ests.mean() - value),
                    "bias_in_se": float((ests.mean() - value) / se) if len(ests) > 1 else None})
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
    from abcde.quality.exact import exact_quality

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
