"""Coverage of `abcde explore`'s contribution ± 1.96·SE by the draws of a group: the
measurement behind `conclusive` (docs/method.md §7.3).

    python benchmarks/run_explore_thin.py [--worlds 1,101] [--sizes 150,500]
        [--replications 150] [--jobs 2] [--json out.json]

A world is a generated population of 1,500 items: Base clusters of Pareto(1.3) sizes,
45% of them changed (half their items moved into 40 shared Exp clusters: splits and
merges), lognormal(0, 1.2) weights, and two attributes: `g`, groups of 1, 2, 3, 5, 8,
13, 21, 40, 80 and 150 items and one of the rest (world 1), or 150 groups of 2–12 items
and two larger ones (world 101, a long tail); `cg`, 60 groups of whole Base clusters
(items of a group share their cells). Each replication draws a sample with
`abcde.sample_items` (the real SQL, seed = the replication) of --sizes unique items and
runs `abcde.explore` grouped by each attribute, ranked by jaccard_distance (x the same on
every draw), split_rate and merge_distance (x varies, often 0). The exact contribution
of each group is summed by brute force over the population (weight·m(i)/W, m(i) from the
cells as in docs/method.md §3.1), as is the group's metric over its affected items.

Per world and size: the coverage (share of groups whose exact contribution lies within
± 1.96·SE) and the median relative error of the group's metric, by the group's draws and
by its effective draws; then the coverage of the groups each candidate rule calls
conclusive, and the share it flags. Prints Markdown tables; `--json` keeps every record.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

METRICS = ("jaccard_distance", "split_rate", "merge_distance")
COLUMNS = ("g", "cg")
Z = 1.96
# (attribute, metric, group, draws, items, effective draws, |relative error| of the
# group's metric or None, |estimate − exact|/SE)
Record = tuple[str, str, str, int, int, float, "float | None", float]


def population(world: int, n: int = 1500) -> tuple[dict, dict, dict, dict]:
    rng = random.Random(world)
    items = [f"i{k}" for k in range(n)]
    base: dict[str, str] = {}
    k = c = 0
    while k < n:
        size = min(n - k, 1 + int(rng.paretovariate(1.3)))
        base.update((i, f"b{c}") for i in items[k:k + size])
        k, c = k + size, c + 1
    changed = {f"b{j}" for j in range(c) if rng.random() < 0.45}
    exp = {i: (f"e{rng.randrange(40)}" if base[i] in changed and rng.random() < 0.5
               else base[i]) for i in items}
    weight = {i: rng.lognormvariate(0, 1.2) for i in items}
    sizes = [1] * 12 + [2] * 10 + [3] * 8 + [5] * 6 + [8] * 5 + [13] * 4 + [21] * 4 \
        + [40] * 3 + [80] * 2 + [150] * 2
    if world >= 100:  # a long tail: many groups that expect a few draws each
        sizes = [rng.randint(2, 12) for _ in range(150)] + [60, 120]
    order = items[:]
    rng.shuffle(order)
    g: dict[str, str] = {}
    pos = 0
    for j, s in enumerate(sizes):
        g.update((i, f"g{j}") for i in order[pos:pos + s])
        pos += s
    g.update((i, "big") for i in order[pos:])
    attrs = {i: {"g": g[i], "cg": f"c{int(base[i][1:]) % 60}"} for i in items}
    return base, exp, weight, attrs


def exact(base: dict, exp: dict, weight: dict, attrs: dict
          ) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict[str, float]]]:
    """Per attribute and group: each metric's contribution Σ weight·m(i)/W, and the
    group's affected weight share."""
    wb: dict[str, float] = defaultdict(float)
    we: dict[str, float] = defaultdict(float)
    wc: dict[tuple[str, str], float] = defaultdict(float)
    for i in base:
        wb[base[i]] += weight[i]
        we[exp[i]] += weight[i]
        wc[(base[i], exp[i])] += weight[i]
    total = sum(weight.values())
    contrib = {col: defaultdict(lambda: defaultdict(float)) for col in COLUMNS}
    affected = {col: defaultdict(float) for col in COLUMNS}
    for i in base:
        b, e = base[i], exp[i]
        cell = wc[(b, e)]
        split, merge = wb[b] - cell, we[e] - cell
        union = wb[b] + we[e] - cell
        m = {"jaccard_distance": (split + merge) / union, "split_rate": split / wb[b],
             "merge_distance": merge / union}
        for col in COLUMNS:
            if split + merge > 0:
                affected[col][attrs[i][col]] += weight[i] / total
            for name, v in m.items():
                contrib[col][attrs[i][col]][name] += weight[i] * v / total
    return contrib, affected


def run(world: int, size: int, replications: int) -> list[Record]:
    import abcde

    base, exp, weight, attrs = population(world)
    truth, affected = exact(base, exp, weight, attrs)
    records: list[Record] = []
    for seed in range(replications):
        sample = abcde.sample_items(base, exp, weight, attributes=attrs, size=size,
                                    seed=seed)
        for col in COLUMNS:
            for metric in METRICS:
                doc = abcde.explore(sample.rows, col, metric=metric, top=0, examples=0)
                for r in doc["groups"]:
                    t = truth[col][r[col]][metric]
                    ratio = t / affected[col][r[col]]
                    se = r["se"] or 0.0
                    z = (abs(r["contribution"] - t) / se if se > 0
                         else 0.0 if r["contribution"] == t else float("inf"))
                    records.append((col, metric, r[col], r["draws"], r["items"],
                                    r["effective_draws"],
                                    abs(r[metric] - ratio) / ratio if ratio > 0 else None,
                                    z))
    return records


def _cover(rs: list[Record]) -> str:
    return f"{sum(r[7] <= Z for r in rs) / len(rs):.3f}" if rs else "–"


def _median(values: list[float]) -> str:
    v = sorted(values)
    return f"{v[len(v) // 2]:.2f}" if v else "–"


BINS = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 8), (8, 10), (10, 15),
        (15, 20), (20, 30), (30, 50), (50, float("inf"))]


def by_bins(records: list[Record], key: int, name: str) -> str:
    out = [f"| {name} | " + " | ".join(METRICS) + " |", "|---|" + "---:|" * len(METRICS)]
    for lo, hi in BINS:
        cells = []
        for m in METRICS:
            rs = [r for r in records if r[1] == m and lo <= r[key] < hi]
            rel = [r[6] for r in rs if r[6] is not None]
            cells.append(f"{_cover(rs)} ({_median(rel)}; n={len(rs):,})" if rs else "")
        if any(cells):
            label = f"{lo}–{hi - 1}" if key == 3 else f"[{lo}, {hi})"
            label = f"≥ {lo}" if hi == float("inf") else label
            out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _rule(least_draws: int, least_effective: float) -> Callable[[int, float], bool]:
    return lambda draws, effective: draws >= least_draws and effective >= least_effective


RULES: dict[str, Callable[[int, float], bool]] = {
    **{f"draws ≥ {k}": _rule(k, 0) for k in (5, 10, 15)},
    **{f"effective ≥ {k}": _rule(0, k) for k in (5, 10, 15)},
    **{f"draws ≥ {k} and effective ≥ {k2}": _rule(k, k2) for k in (5, 10) for k2 in (1, 5)},
}


def rules(records_by: dict[str, list[Record]]) -> str:
    out = ["| rule | " + " | ".join(records_by) + " |", "|---|" + "---|" * len(records_by),
           "| | " + " | ".join("JD / SR / MD coverage; flagged" for _ in records_by) + " |"]
    for name, rule in RULES.items():
        cells = []
        for recs in records_by.values():
            cov = " / ".join(_cover([r for r in recs if r[1] == m and rule(r[3], r[5])])
                             for m in METRICS)
            flagged = sum(not rule(r[3], r[5]) for r in recs) / len(recs)
            cells.append(f"{cov}; {flagged:.2f}")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", default="1,101")
    ap.add_argument("--sizes", default="150,500")
    ap.add_argument("--replications", type=int, default=150)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    configs = [(int(w), int(s)) for w in args.worlds.split(",") for s in args.sizes.split(",")]
    with ProcessPoolExecutor(args.jobs) as pool:
        done = list(pool.map(run, *zip(*configs, strict=True),
                             [args.replications] * len(configs)))
    records_by = {f"world {w}, {s} items": recs
                  for (w, s), recs in zip(configs, done, strict=True)}
    print(f"{args.replications} replications per world and size; cells: coverage of ± "
          f"{Z}·SE (median |relative error| of the group's metric; groups)\n")
    for name, recs in records_by.items():
        print(f"### {name}\n\n{by_bins(recs, 3, 'draws')}\n\n"
              f"{by_bins(recs, 5, 'effective draws')}\n")
    print("### Rules: coverage of the groups called conclusive, share flagged\n")
    print(rules(records_by))
    if args.json:
        Path(args.json).write_text(json.dumps(records_by))


if __name__ == "__main__":
    main()
