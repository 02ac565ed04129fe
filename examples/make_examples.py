"""Write the small example data set in examples/ (seeded, deterministic, plain Python).

    python examples/make_examples.py [--seed 7] [--items 3700] [--out examples]

Story: a population of images (ids img_000000 ...) has an *ideal* clustering
(Zipf-like cluster sizes). Base and Exp are two noisy clusterings of it:

* Base over-splits some large ideal clusters into two, wrongly merges some small
  ideal clusters into unrelated ones, and puts ~1% of items into a random cluster
  (Exp inherits those).
* Exp starts from Base and changes it: it merges back about half of Base's
  over-splits and splits off about half of Base's wrong merges (correct changes),
  and also splits some good clusters and merges some unrelated pairs (wrong changes),
  and misplaces another 0.5% of items.
* The truth is a human-judged sample of whole ideal clusters (a few hundred items).

Files: base.csv, exp.csv (item_id,cluster_id), weights.csv (item_id,weight; lognormal),
attributes.csv (item_id,provenance,size_class,country), truth.csv (item_id,cluster_id),
ideal.csv (item_id,cluster_id: the whole ideal clustering, an oracle for rehearsals).
"""

from __future__ import annotations

import argparse
import csv
import math
import random
from collections.abc import Iterable
from pathlib import Path

PROVENANCES = [("crawl", 0.45), ("upload", 0.30), ("partner", 0.15), ("archive", 0.10)]
COUNTRIES = [("US", 0.30), ("IN", 0.15), ("BR", 0.10), ("DE", 0.10), ("JP", 0.10),
             ("FR", 0.10), ("NG", 0.08), ("MX", 0.07)]
MAX_CLUSTER = 250
TRUTH_ITEMS = 400
TRUTH_MAX_CLUSTER = 40

Cluster = list[str]


def pick(rng: random.Random, table: list[tuple[str, float]]) -> str:
    return rng.choices([v for v, _ in table], weights=[p for _, p in table])[0]


def ideal_clustering(rng: random.Random, n: int) -> list[Cluster]:
    """Zipf-like sizes: P(size >= k) = k^-1.2, capped; ids shuffled across clusters."""
    ids = [f"img_{i:06d}" for i in range(n)]
    rng.shuffle(ids)
    clusters, pos = [], 0
    while pos < n:
        size = min(MAX_CLUSTER, int(rng.paretovariate(1.2)), n - pos)
        clusters.append(ids[pos:pos + size])
        pos += size
    return clusters


def noisy_base(rng: random.Random, ideal: list[Cluster]) -> tuple[list[list[Cluster]], list]:
    """Base clusters as lists of segments (each segment = items of one ideal cluster).

    Returns the clusters and the pairs of Base cluster indices that over-split one
    ideal cluster.
    """
    clusters: list[list[Cluster]] = []
    oversplit_pairs = []
    small: list[Cluster] = []
    for c in ideal:
        if len(c) >= 6 and rng.random() < 0.25:
            cut = rng.randint(1, len(c) - 1)
            oversplit_pairs.append((len(clusters), len(clusters) + 1))
            clusters += [[c[:cut]], [c[cut:]]]
        elif len(c) <= 3 and rng.random() < 0.06:
            small.append(c)  # wrongly merged below
        else:
            clusters.append([list(c)])
    for c in small:  # each joins a random multi-item Base cluster
        target = rng.choice([k for k, segs in enumerate(clusters) if len(segs[0]) > 1])
        clusters[target].append(list(c))
    return clusters, oversplit_pairs


def misplace_in_base(rng: random.Random, base: list[list[Cluster]], rate: float) -> None:
    """Move a fraction of items into a random other Base cluster (untracked noise)."""
    slots = [(k, j, i) for k, segs in enumerate(base) for j, seg in enumerate(segs) for i in seg]
    for k, j, item in rng.sample(slots, int(rate * len(slots))):
        target = rng.randrange(len(base))
        if target != k and len(base[k][j]) > 1:
            base[k][j].remove(item)
            base[target][0].append(item)


def misplace(rng: random.Random, assignment: dict[str, int], rate: float) -> None:
    """Move a fraction of items into a random existing cluster (Exp's own noise)."""
    ids = sorted(assignment)
    targets = sorted(set(assignment.values()))
    for item in rng.sample(ids, int(rate * len(ids))):
        assignment[item] = rng.choice(targets)


def derive_exp(rng: random.Random, base: list[list[Cluster]],
               oversplit_pairs: list[tuple[int, int]]) -> list[Cluster]:
    """Exp = Base with correct and wrong splits and merges."""
    groups: list[list[int]] = []  # Exp cluster = union of these Base clusters (or parts)
    merged: set[int] = set()
    for a, b in oversplit_pairs:  # correct merges
        if rng.random() < 0.5:
            groups.append([a, b])
            merged |= {a, b}
    rest = [k for k in range(len(base)) if k not in merged]
    rng.shuffle(rest)
    wrong_merges = [k for k in rest if rng.random() < 0.03]
    for a, b in zip(wrong_merges[::2], wrong_merges[1::2], strict=False):  # wrong merges
        groups.append([a, b])
        merged |= {a, b}
    exp: list[Cluster] = [[i for k in g for seg in base[k] for i in seg] for g in groups]
    for k in sorted(set(range(len(base))) - merged):
        segs = base[k]
        if len(segs) > 1 and rng.random() < 0.5:  # correct split of a wrong merge
            exp += [list(s) for s in segs]
        elif len(segs) == 1 and len(segs[0]) >= 8 and rng.random() < 0.08:  # wrong split
            items = list(segs[0])
            cut = rng.randint(1, len(items) // 2)
            exp += [items[cut:], items[:cut]]
        else:
            exp.append([i for s in segs for i in s])
    return exp


def assignment_of(clusters: Iterable[Cluster], first_id: int) -> dict[str, int]:
    return {i: first_id + k for k, c in enumerate(clusters) for i in c}


def write_csv(path: Path, header: list[str], rows: Iterable[tuple]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def size_class(n: int) -> str:
    return "singleton" if n == 1 else "small" if n < 10 else "medium" if n < 100 else "large"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--items", type=int, default=3700)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    ideal = ideal_clustering(rng, args.items)
    base_segs, oversplit_pairs = noisy_base(rng, ideal)
    misplace_in_base(rng, base_segs, 0.01)  # inherited by Exp
    exp_clusters = derive_exp(rng, base_segs, oversplit_pairs)
    base = assignment_of(([i for s in segs for i in s] for segs in base_segs), 1)
    exp = assignment_of(exp_clusters, 10001)
    misplace(rng, exp, 0.005)

    # Truth: whole ideal clusters, not too large, until ~TRUTH_ITEMS items.
    candidates = [c for c in ideal if len(c) <= TRUTH_MAX_CLUSTER]
    rng.shuffle(candidates)
    truth: list[Cluster] = []
    for c in candidates:
        if sum(map(len, truth)) + len(c) > TRUTH_ITEMS:
            continue
        truth.append(c)
    truth_assign = assignment_of(truth, 1)

    # Attributes: provenance mostly shared within an ideal cluster, country per item.
    attrs = {}
    for c in ideal:
        main_prov = pick(rng, PROVENANCES)
        for i in c:
            prov = main_prov if rng.random() < 0.8 else pick(rng, PROVENANCES)
            attrs[i] = (prov, pick(rng, COUNTRIES))
    base_size: dict[int, int] = {}
    for b in base.values():
        base_size[b] = base_size.get(b, 0) + 1

    items = sorted(base)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)  # `--out DIR` may name a new directory
    write_csv(out / "base.csv", ["item_id", "cluster_id"], ((i, base[i]) for i in items))
    write_csv(out / "exp.csv", ["item_id", "cluster_id"], ((i, exp[i]) for i in items))
    write_csv(out / "weights.csv", ["item_id", "weight"],
              ((i, f"{math.exp(rng.gauss(0.0, 1.0)):.3g}") for i in items))
    write_csv(out / "attributes.csv", ["item_id", "provenance", "size_class", "country"],
              ((i, attrs[i][0], size_class(base_size[base[i]]), attrs[i][1]) for i in items))
    write_csv(out / "truth.csv", ["item_id", "cluster_id"],
              sorted(truth_assign.items()))
    # The whole ideal clustering: an oracle for rehearsals (`abcde estimate --truth`,
    # `abcde simulate`), which a real team does not have.
    write_csv(out / "ideal.csv", ["item_id", "cluster_id"],
              sorted(assignment_of(ideal, 1).items()))
    print(f"{len(items)} items; ideal {len(ideal)} clusters, Base {len(set(base.values()))}, "
          f"Exp {len(set(exp.values()))}; truth {len(truth_assign)} items in {len(truth)} "
          f"clusters; wrote {out}")


if __name__ == "__main__":
    main()
