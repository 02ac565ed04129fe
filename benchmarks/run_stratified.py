"""Stratified vs unstratified pair samples: 95% interval half-widths of the quality
metrics for the same budget (abcde.quality.simulation; Jaccard decomposition §7.1).

    python benchmarks/run_stratified.py [--replications 20] [--budgets 300,1000]

Data: examples/ (3,700 images). The judge is the examples' FULL ideal clustering,
examples/ideal.csv (examples/truth.csv holds only 400 of its items), so no verdict is
unknown.
Prints a Markdown table: per metric and budget, the mean half-width of the reported 95%
intervals over the replications for each design ((ci_high − ci_low)/2: Wilson intervals
for the proportions, z·SE for ΔPrecision; RESULTS.md entries before the Wilson change
show z·SE throughout), and the empirical sd of the estimates (the intervals' check).
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import time
from pathlib import Path

from abcde.quality.simulation import simulate

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"

METRICS = ("good_split_distance", "bad_split_distance", "good_merge_distance",
           "bad_merge_distance", "good_distance", "bad_distance", "affected_good_index",
           "affected_bad_index", "delta_precision")


def full_truth() -> dict[str, str]:
    with (EXAMPLES / "ideal.csv").open() as f:
        return {r["item_id"]: r["cluster_id"] for r in csv.DictReader(f)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replications", type=int, default=20)
    ap.add_argument("--budgets", default="300,1000")
    ap.add_argument("--designs", default="none,proportional,0.8")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    truth = full_truth()
    docs = {}
    for design in args.designs.split(","):
        start = time.perf_counter()
        docs[design] = simulate(
            str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
            str(EXAMPLES / "weights.csv"), truth=truth, population="jaccard", budgets=budgets,
            replications=args.replications, seed=1,
            stratify=None if design == "none" else design)
        print(f"# {design}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    designs = list(docs)
    names = {"none": "unstratified", "proportional": "strat. proportional"}
    head = ["metric", "budget"] + [f"{names.get(d, 'strat. ' + d)} ±hw (sd)" for d in designs]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * 2 + "---:|" * len(designs))
    for m in METRICS:
        for b in budgets:
            cells = []
            for d in designs:
                c = docs[d]["metrics"][m][b]
                hw = "-" if c["half_width"] is None else f"{100 * c['half_width']:.2f}%"
                sd = "-" if c["estimate_sd"] is None else f"{100 * c['estimate_sd']:.2f}%"
                cells.append(f"{hw} ({sd})")
            print(f"| {m} | {b} | " + " | ".join(cells) + " |")
    print(f"\n{args.replications} replications, seed 1; Python {platform.python_version()}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
