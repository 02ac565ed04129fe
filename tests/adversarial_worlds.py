"""Adversarial clustering worlds for the quality estimators (issue #11): the regimes
where a pair sample drawn from one population is dominated by pairs it almost never
draws — and the replication machinery that runs them through the real SQL sampler.
Shared by tests/quality/test_adversarial_statistical.py (small sizes) and
`benchmarks/run_quality_worlds.py` (the issue's sizes).

Every world has Base, Exp, a truth clustering that covers T (the judge) and item
weights, as mappings with integer item ids. Sizes are parameters: the tests use small
worlds (seconds per replication batch), the benchmark the sizes of the issue.

Replications (:func:`run_design`): per world and design the sampler draws ONE long
stream with one seed; its draws are iid (draw d uses the uniforms of (seed, level, d)
only), so cutting it into consecutive segments, each ending at the draw that brings its
budget-th unique judgeable pair (ABCDE App. A 3.1–3.2), gives independent samples, each
exactly what `sample-pairs --budget` computes for one seed. Stratified designs cut one
stream per stratum (seed 2·seed + h) and pair the segments. Each sample is judged by the
truth (a share `unknown_share` of its pairs made unknown) and estimated by
`abcde.quality.estimate.estimate_with_verdicts`.

The sampler and estimator are imported inside the functions that use them, so that the
worlds and the stream machinery also run against the code before issue #11
(`benchmarks/run_quality_worlds_before.py`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class World:
    name: str
    base: dict[int, int]
    exp: dict[int, int]
    truth: dict[int, int]
    weight: dict[int, float]
    unknown_share: float = 0.0  # share of judgeable pairs whose verdict is made unknown


def _truth(moved: dict[int, int], stay: dict[int, int], wrong: float, seed: int,
           noise: float = 0.0) -> dict[int, int]:
    """`moved` (the clustering that is right) except for a share `wrong` of the items it
    moves, which truly belong where `stay` puts them, and a share `noise` of all items,
    which truly belong to no one else (so that no class's verdicts all agree)."""
    rng = np.random.default_rng(seed)
    out: dict[int, int] = {}
    for i in moved:
        out[i] = stay[i] if moved[i] != stay[i] and rng.random() < wrong else moved[i]
        if noise and rng.random() < noise:
            out[i] = -1 - i  # a truth cluster of its own (cluster ids are ≥ 0)
    return out


def split_out(clusters: int = 100, size: int = 1000, share: float = 0.3,
              wrong: float = 0.0, seed: int = 1, noise: float = 0.0) -> World:
    """The issue's reproduction: `clusters` Base clusters of `size` items; Exp splits the
    first `share` of each into singletons; the split is right (truth = Exp) except for
    a share `wrong` of the split-out items (truly in their Base cluster). Exact
    ΔPrecision +0.5097 at the default sizes."""
    n = clusters * size
    base = {i: i // size for i in range(n)}
    cut = round(share * size)
    exp = {i: (n + i if i % size < cut else i // size) for i in range(n)}
    return World("split_out", base, exp, _truth(exp, base, wrong, seed, noise),
                 dict.fromkeys(range(n), 1.0))


def glued(clusters: int = 100, size: int = 1000, share: float = 0.3,
          wrong: float = 0.0, seed: int = 1, noise: float = 0.0) -> World:
    """The mirror of :func:`split_out`: singletons glued into big clusters, a bad merge
    (truth = Base, except for a share `wrong` of the glued items that truly belong)."""
    w = split_out(clusters, size, share)
    return World("glued", w.exp, w.base, _truth(w.exp, w.base, wrong, seed, noise),
                 w.weight)


def pairs_out(clusters: int = 100, size: int = 1000, share: float = 0.3,
              wrong: float = 0.0, seed: int = 1, noise: float = 0.0) -> World:
    """Like :func:`split_out`, but the split-out items leave in pairs (two-item Exp
    clusters), truth = Exp (but for a share `wrong`). Their stable pairs carry
    ΔPrecision ≈ +0.15 with importance weights |l| = U|W_b − W_e|/(W_b W_e) ≈ size/2 on
    the jaccard population: what the exact self pairs alone cannot fix."""
    n = clusters * size
    base = {i: i // size for i in range(n)}
    cut = round(share * size) // 2 * 2
    exp = {i: (n + i // 2 if i % size < cut else i // size) for i in range(n)}
    return World("pairs_out", base, exp, _truth(exp, base, wrong, seed, noise),
                 dict.fromkeys(range(n), 1.0))


def shattered(size: int = 200_000, others: int = 33_340, other_size: int = 10,
              wrong: float = 0.0, seed: int = 1, noise: float = 0.0) -> World:
    """One Base cluster of `size` items shattered into singletons in Exp (truth = Exp,
    but for a share `wrong` of the items, which truly stay together), beside `others`
    unchanged items in clusters of `other_size`. Exact ΔPrecision +85.7% at the default
    sizes."""
    n = size + others
    base = {i: (0 if i < size else 1 + (i - size) // other_size) for i in range(n)}
    exp = {i: (n + i if i < size else base[i]) for i in range(n)}
    return World("shattered", base, exp, _truth(exp, base, wrong, seed, noise),
                 dict.fromkeys(range(n), 1.0))


def noisy(n: int = 2000, seed: int = 1, cluster: int = 10, unknown_share: float = 0.0,
          name: str = "noisy") -> World:
    """A realistic control: truth clusters of ~`cluster` items; Base = truth with 25%
    of the items misplaced; Exp repairs half of Base's errors and misplaces 15% anew;
    log-normal(0, 1) weights."""
    rng = np.random.default_rng(seed)
    k = n // cluster
    truth = {i: int(rng.integers(k)) for i in range(n)}
    base = {i: truth[i] if rng.random() < 0.75 else int(rng.integers(k)) for i in range(n)}
    exp = {}
    for i in range(n):
        u = rng.random()
        exp[i] = base[i] if u < 0.5 else truth[i] + k if u < 0.85 else int(rng.integers(2 * k))
    w = rng.lognormal(0.0, 1.0, n)
    return World(name, base, exp, truth, {i: float(w[i]) for i in range(n)}, unknown_share)


def unknown30(n: int = 2000, seed: int = 1) -> World:
    """:func:`noisy` with 30% of the judgeable pairs' verdicts unknown (at random)."""
    return noisy(n, seed, unknown_share=0.3, name="unknown30")


def wide(n: int = 2000, seed: int = 2) -> World:
    """:func:`noisy`'s clusterings with weights log-uniform over 1e-4 … 1e4, the heaviest
    on affected items: the affected items get the largest weights, the unaffected the
    smallest (heavy pairs in affected cells carry most of every metric)."""
    w0 = noisy(n, seed)
    rng = np.random.default_rng(seed + 100)
    weights = np.sort(10 ** rng.uniform(-4, 4, n))[::-1]
    base_members: dict[int, set[int]] = {}
    exp_members: dict[int, set[int]] = {}
    for i in range(n):
        base_members.setdefault(w0.base[i], set()).add(i)
        exp_members.setdefault(w0.exp[i], set()).add(i)
    affected = [i for i in range(n) if base_members[w0.base[i]] != exp_members[w0.exp[i]]]
    rest = [i for i in range(n) if base_members[w0.base[i]] == exp_members[w0.exp[i]]]
    order = [*(int(x) for x in rng.permutation(affected)), *(int(x) for x in rng.permutation(rest))]
    weight = {i: float(weights[k]) for k, i in enumerate(order)}
    return World("wide", w0.base, w0.exp, w0.truth, weight)


def examples() -> World:
    """The repository's example data (examples/: 3,700 items, weights, Base and Exp with
    their errors) judged by examples/ideal.csv, the whole clustering they were made from:
    the world of the earlier stratified measurements (benchmarks/RESULTS.md)."""
    import csv
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "examples"

    def read(name: str) -> dict[str, str]:
        with open(root / name, newline="") as f:
            return {r[0]: r[1] for r in list(csv.reader(f))[1:]}

    base, exp, ideal, weights = (read(n) for n in
                                 ("base.csv", "exp.csv", "ideal.csv", "weights.csv"))
    ids = {item: k for k, item in enumerate(sorted(base))}
    clusters: dict[str, int] = {}

    def cid(kind: str, c: str) -> int:
        return clusters.setdefault(f"{kind}:{c}", len(clusters))

    return World("examples", {ids[i]: cid("b", c) for i, c in base.items()},
                 {ids[i]: cid("e", c) for i, c in exp.items()},
                 {ids[i]: cid("t", c) for i, c in ideal.items()},
                 {ids[i]: float(weights[i]) for i in base})


def _mixed(make: Callable[..., World]) -> Callable[..., World]:
    """The world with 20% wrong moves and 5% noise in the truth (verdicts vary)."""
    def world(**kw: float) -> World:
        w = make(**{"wrong": 0.2, "noise": 0.05, **kw})
        return World(f"{w.name}_mixed", w.base, w.exp, w.truth, w.weight, w.unknown_share)
    return world


WORLDS: dict[str, Callable[..., World]] = {
    "split_out": split_out, "glued": glued, "pairs_out": pairs_out, "shattered": shattered,
    "noisy": noisy, "unknown30": unknown30, "wide": wide,
    "split_out_mixed": _mixed(split_out), "glued_mixed": _mixed(glued),
    "pairs_out_mixed": _mixed(pairs_out), "shattered_mixed": _mixed(shattered),
    "examples": examples,
}


# --------------------------------------------------------------------------- #
# Replications through the real SQL sampler
# --------------------------------------------------------------------------- #

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
    from abcde.sampling.pairs import draw_stream  # same signature before issue #11

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
    from abcde.engines import connect
    from abcde.inputs.session import open_inputs
    from abcde.inputs.spec import InputSpec
    from abcde.quality.estimate import Sample, estimate_with_verdicts
    from abcde.sampling.pairs import design_for, prepare, sample_pairs, strata_query
    from abcde.sampling.stratified import STRATA, sample_pairs_stratified
    from abcde.sql.pipeline import Step

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
                    p = pipeline.copy()  # pair_strata of this stratum's classes only
                    p.steps["pair_strata"] = Step("pair_strata",
                                                  strata_query(sampled, classes), True)
                    p.built.discard("pair_strata")
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


