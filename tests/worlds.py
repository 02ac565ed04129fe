"""Worlds for the statistical tests of the quality estimators: small clusterings with a
truth, their pair populations enumerated by the reference implementation
(``reference.py``: ``mixture_pairs`` — the pairs i ≠ j of the sampling design with their
q_ij, u_ij and w_ij —, ``self_pair_sums``, ``quality_exact``, ``quality_by_group``, which
follow the papers' definitions and never the estimators' formulas), draws from them,
and the checks of bias and coverage.

Used by tests/quality/test_metrics_statistical.py, tests/quality/test_quality_statistical.py,
tests/quality/test_ppi_statistical.py and tests/sampling/test_stratified.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from reference import (
    impact_overall,
    mixture_pairs,
    quality_by_group,
    quality_exact,
    self_pair_sums,
)

from abcde.engines import connect
from abcde.inputs.session import open_inputs
from abcde.inputs.spec import InputSpec
from abcde.quality.estimate import estimate_from_draws
from abcde.quality.metrics import METRIC_KEYS
from abcde.sampling.pairs import CLASS_KEYS, DESIGN_VERSION, draw_stream, prepare, sample_pairs

COVERAGE_BAND = (0.93, 0.97)
BIAS_SIGMAS = 3.0
ALPHA = 1e-4  # per metric: the chance that a true coverage in the band fails


def coverage_consistent(coverage: float, replications: int, low: float,
                        high: float = 1.0, alpha: float = ALPHA) -> bool:
    """Whether `coverage` (a share of `replications`) is compatible with a true coverage
    in [low, high]: neither P(X ≤ k | low) nor P(X ≥ k | high) is below `alpha`,
    X ~ Binomial(replications, ·), k the number of covering replications."""
    from scipy.stats import binom

    k = round(coverage * replications)
    too_low = binom.cdf(k, replications, low) < alpha
    too_high = high < 1.0 and binom.sf(k - 1, replications, high) < alpha
    return not (too_low or too_high)


# --------------------------------------------------------------------------- #
# A world and its pair populations
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class World:
    base: dict[int, int]
    exp: dict[int, int]
    truth: dict[int, int]
    weight: dict[int, float]
    color: dict[int, str]


@dataclass(frozen=True)
class Population:
    """An enumerated pair population as parallel arrays (only pairs with weight > 0):
    ``weight`` is the design's q_ij."""

    name: str
    item_i: np.ndarray
    item_j: np.ndarray
    pair_class: np.ndarray
    weight: np.ndarray
    label: np.ndarray
    u_over_w: np.ndarray
    pair_id: np.ndarray  # id of the unordered pair
    equivalent: np.ndarray  # bool, from the truth
    color: np.ndarray  # slice attribute of the vantage item
    manifest: dict[str, Any]


def make_world(seed: int, n: int = 400, huge: float = 25.0, cluster: int = 10) -> World:
    """Truth clusters; Base = truth with noise; Exp = Base with fixes and new noise.

    Weights are log-normal(0, 1) with three tiny (1e-6) and two huge (25, ~25×
    the median) items.  Five
    extra items with integer weights form the corner x1, x2, y | z → x1, x2, z | y
    where w(y) = w(z): x1 and x2 are affected yet weight(Base) = weight(Exp) = 6,
    so their stable pairs have u_ij = 0 (never in the abcde population) but
    w_ij > 0 in the jaccard population.
    """
    rng = np.random.default_rng(seed)
    k = n // cluster
    truth = {i: int(rng.integers(k)) for i in range(n)}
    base = {i: truth[i] if rng.random() < 0.75 else int(rng.integers(k)) for i in range(n)}
    exp = {}
    for i in range(n):
        u = rng.random()
        exp[i] = base[i] if u < 0.5 else truth[i] + k if u < 0.85 else int(rng.integers(2 * k))
    w = rng.lognormal(0.0, 1.0, n)
    w[:3] = 1e-6
    w[3:5] = huge
    weight = {i: float(w[i]) for i in range(n)}
    colors = ("red", "green", "blue")
    color = {i: colors[int(rng.integers(3))] for i in range(n)}
    x1, x2, y, z, lone = n, n + 1, n + 2, n + 3, n + 4
    base.update({x1: 1000, x2: 1000, y: 1000, z: 1001, lone: 1002})
    exp.update({x1: 2000, x2: 2000, z: 2000, y: 2001, lone: 2002})
    truth.update({x1: 3000, x2: 3000, z: 3000, y: 3001, lone: 3002})
    weight.update({x1: 1.0, x2: 2.0, y: 3.0, z: 3.0, lone: 5.0})
    color.update({x1: "red", x2: "green", y: "blue", z: "red", lone: "green"})
    return World(base, exp, truth, weight, color)


def make_rare_world(seed: int, n: int = 400, wide: bool = False) -> World:
    """A world where Exp mostly repairs Base, so "bad" verdicts are rare (about 1–13%
    of a class) and a small sample often sees none — where the normal interval of a
    proportion collapses to zero width.

    Truth clusters of 1–12 items. Base over-splits 30% of the clusters of ≥ 4 items
    into halves and wrongly merges 30% of random pairs of clusters. Exp gives 60% of
    the truth clusters Base broke a cluster of their own (repairs), splits one item
    off 30% of the remaining Base clusters of ≥ 3 items and misplaces 1% of the items
    at random. Weights are log-normal(0, 1) or, with ``wide``, log-uniform over
    1e-4 … 1e4 (then a few heavy pairs carry most of the draws).
    """
    rng = np.random.default_rng(seed)
    clusters: list[list[int]] = []
    while (start := sum(map(len, clusters))) < n:
        size = int(min(n - start, rng.integers(1, 13)))
        clusters.append(list(range(start, start + size)))
    truth = {i: c for c, members in enumerate(clusters) for i in members}
    base = dict(truth)
    label = 10_000
    for members in clusters:
        if len(members) >= 4 and rng.random() < 0.3:
            for i in members[len(members) // 2 :]:
                base[i] = label
            label += 1
    order = rng.permutation(len(clusters))
    for a, b in zip(order[::2], order[1::2], strict=False):
        if rng.random() < 0.3:
            for i in clusters[b]:
                base[i] = base[clusters[a][0]]
    exp = dict(base)
    for members in clusters:
        first = base[members[0]]
        broken = len({base[i] for i in members}) > 1 or any(
            base[j] == first and truth[j] != truth[members[0]] for j in range(n)
        )
        if broken and rng.random() < 0.6:
            for i in members:
                exp[i] = 20_000 + truth[i]
    seen = set()
    for i in range(n):
        if base[i] in seen or exp[i] != base[i]:
            continue
        seen.add(base[i])
        kept = [j for j in range(n) if base[j] == base[i] and exp[j] == base[i]]
        if len(kept) > 2 and rng.random() < 0.3:
            exp[kept[int(rng.integers(len(kept)))]] = 30_000 + i
    for i in range(n):
        if rng.random() < 0.01:
            exp[i] = int(rng.integers(0, len(clusters)))
    w = 10 ** rng.uniform(-4, 4, n) if wide else rng.lognormal(0.0, 1.0, n)
    weight = {i: float(w[i]) for i in range(n)}
    colors = ("red", "green", "blue")
    color = {i: colors[int(rng.integers(3))] for i in range(n)}
    return World(base, exp, truth, weight, color)


ALPHAS = {"mixture": 0.5, "abcde": 1.0, "jaccard": 0.0}


def _class_key(v: Mapping[str, Any]) -> str:
    if v["class"] != "stable":
        return str(v["class"])
    return {1.0: "stable_plus", -1.0: "stable_minus", 0.0: "stable_zero"}[v["label"]]


def enumerate_population(world: World, name: str = "mixture") -> Population:
    """The design's pairs i ≠ j (``reference.mixture_pairs`` at the population's α), and a
    manifest computed from them by brute force: per class the u and w totals, the design
    probability, the expected Kish n_eff per draw (Σ p²/q over the pairs: within a
    stratum the weight is constant, so this is the strata's sum) and the uncovered mass;
    the self pairs' exact parts; the impact metrics; per-colour slices."""
    alpha = ALPHAS[name]
    every = mixture_pairs(world.base, world.exp, world.weight, 0.5)  # every pair i ≠ j
    pairs = mixture_pairs(world.base, world.exp, world.weight, alpha)
    keys = sorted(pairs)
    item_i = np.array([i for i, _ in keys])
    item_j = np.array([j for _, j in keys])
    pair_class = np.array([pairs[key]["class"] for key in keys])
    weight = np.array([pairs[key]["q"] for key in keys])
    label = np.array([pairs[key]["label"] for key in keys])
    u_over_w = np.array([pairs[key]["u"] / pairs[key]["w"] for key in keys])
    unordered = {frozenset(key) for key in keys}
    ids = {pair: n for n, pair in enumerate(sorted(unordered, key=sorted))}
    pair_id = np.array([ids[frozenset(key)] for key in keys])
    equivalent = np.array([world.truth[i] == world.truth[j] for i, j in keys])
    color = np.array([world.color[i] for i in item_i])
    sums = {t: math.fsum(v[t] for v in every.values()) for t in ("u", "w")}
    classes = {}
    for k in CLASS_KEYS:
        mine = [v for v in every.values() if _class_key(v) == k]
        drawn = [v for p, v in pairs.items() if _class_key(v) == k]
        entry = {t: math.fsum(v[t] for v in mine) for t in ("u", "w")}
        entry["q"] = math.fsum(v["q"] for v in drawn)
        for t in ("u", "w"):
            share = entry[t] / sums[t]
            square = math.fsum((v[t] / sums[t]) ** 2 / v["q"] for v in drawn)
            entry[f"kish_{t}"] = share * share / square if square > 0 else 0.0
            entry[f"{t}_uncovered"] = math.fsum(v[t] for p, v in every.items()
                                                if _class_key(v) == k and p not in pairs)
        classes[k] = entry
    selves = self_pair_sums(world.base, world.exp, world.weight)
    total_weight = math.fsum(world.weight.values())
    impact = impact_overall(world.base, world.exp, world.weight)
    slices = []
    for value in ("red", "green", "blue"):
        members = [i for i in world.color if world.color[i] == value]
        row: dict[str, Any] = {"color": value,
                               "weight": math.fsum(world.weight[i] for i in members)}
        for k in ("split", "merge", "stable_plus", "stable_minus"):
            row[k] = math.fsum(v["u"] for p, v in every.items()
                               if world.color[p[0]] == value and _class_key(v) == k)
        self_dp = self_pair_sums(world.base, world.exp, world.weight, members)
        row["self_delta_precision"] = self_dp["delta_precision"]
        row["pairweight"] = (row["split"] + row["merge"] + row["stable_plus"]
                             + row["stable_minus"] + self_dp["u_self"])
        slices.append(row)
    manifest = {
        "design": {"version": DESIGN_VERSION, "population": name, "alpha": alpha},
        "population": name, "alpha": alpha, "classes": classes, "totals": sums,
        "exact": {k: selves[k] for k in ("delta_precision", "affected_good_index", "u_self")},
        "metrics": impact, "weight": total_weight, "slices": slices,
    }
    return Population(name, item_i, item_j, pair_class, weight, label, u_over_w, pair_id,
                      equivalent, color, manifest)


def exact_values(world: World) -> dict[str, float]:
    """Exact metric values by definition (reference.quality_exact, quality_by_group)."""
    exact = dict(quality_exact(world.base, world.exp, world.weight, world.truth))
    by_color = quality_by_group(world.base, world.exp, world.weight, world.truth, world.color)
    for value, row in by_color.items():
        exact[f"slice:{value}:delta_precision"] = row["delta_precision"]
        exact[f"slice:{value}:contribution"] = row["delta_precision_contribution"]
    return exact


# --------------------------------------------------------------------------- #
# Sampling and judging
# --------------------------------------------------------------------------- #


def draw_counts(pop: Population, draws: int, replications: int, seed: int) -> np.ndarray:
    """replications × pairs matrix of draw counts: ``draws`` iid draws ∝ pair weight."""
    rng = np.random.default_rng(seed)
    p = pop.weight / pop.weight.sum()
    return rng.multinomial(draws, p, size=replications)


def budget_fill_counts(
    pop: Population, budget: int, replications: int, seed: int
) -> list[np.ndarray]:
    """Draw counts of a with-replacement stream cut at the draw that brings the
    ``budget``-th distinct (unordered) pair (ABCDE App. A 3.1–3.2)."""
    rng = np.random.default_rng(seed)
    p = pop.weight / pop.weight.sum()
    judgeable = np.ones(p.size, dtype=bool)
    out = []
    length = 8 * budget
    for _ in range(replications):
        stream = rng.choice(p.size, size=length, p=p)
        ok = judgeable[stream]
        _, first = np.unique(pop.pair_id[stream[ok]], return_index=True)
        positions = np.flatnonzero(ok)[np.sort(first)]
        assert positions.size >= budget, "stream too short for the budget"
        cut = positions[budget - 1] + 1
        out.append(np.bincount(stream[:cut], minlength=p.size))
    return out


def run_estimate(
    pop: Population, counts: np.ndarray, rng: np.random.Generator, unknown_share: float
) -> dict[str, Any]:
    rows = np.flatnonzero(counts)
    draws = {
        "pair_id": pop.pair_id[rows],
        "item_i": pop.item_i[rows],
        "item_j": pop.item_j[rows],
        "pair_class": pop.pair_class[rows],
        "label": pop.label[rows],
        "draw_count": counts[rows],
        "u_over_w": pop.u_over_w[rows],
        "color": pop.color[rows],
    }
    ids, first = np.unique(pop.pair_id[rows], return_index=True)
    equivalent = pop.equivalent[rows][first]
    unknown = rng.random(ids.size) < unknown_share
    verdict = np.where(unknown, "unknown", np.where(equivalent, "equivalent", "not_equivalent"))
    return estimate_from_draws(draws, {"pair_id": ids, "verdict": verdict}, pop.manifest)


def flatten(result: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Metric name → estimate dict, slices included as 'slice:<color>:<what>'."""
    out = {k: result[k] for k in METRIC_KEYS if k not in result["unavailable"]}
    for row in result.get("slices", []):
        out[f"slice:{row['slice']['color']}:delta_precision"] = row["delta_precision"]
        out[f"slice:{row['slice']['color']}:contribution"] = row["contribution"]
    return out


@dataclass
class Summary:
    mean: float
    sd: float
    coverage: float
    replications: int

    def bias_sigmas(self, exact: float) -> float:
        return abs(self.mean - exact) / (self.sd / math.sqrt(self.replications) or 1e-300)


def summarise(
    results: list[dict[str, Any]], exact: Mapping[str, float], keys: list[str]
) -> dict[str, Summary]:
    out = {}
    for key in keys:
        rows = [flatten(r)[key] for r in results]
        assert all(r["estimate"] is not None and r["se"] is not None for r in rows), key
        est = np.array([r["estimate"] for r in rows])
        covered = np.mean([r["ci_low"] <= exact[key] <= r["ci_high"] for r in rows])
        out[key] = Summary(float(est.mean()), float(est.std(ddof=1)), float(covered), len(rows))
    return out


def check(summaries: Mapping[str, Summary], exact: Mapping[str, float]) -> None:
    problems = []
    for key, s in summaries.items():
        sigmas = s.bias_sigmas(exact[key])
        if sigmas > BIAS_SIGMAS:
            problems.append(f"{key}: mean {s.mean:.6g} vs exact {exact[key]:.6g} ({sigmas:.1f} SE)")
        if not coverage_consistent(s.coverage, s.replications, *COVERAGE_BAND):
            problems.append(f"{key}: coverage {s.coverage:.3f} of {s.replications} "
                            f"replications: not compatible with {COVERAGE_BAND}")
    assert not problems, "\n".join(problems)


def replicate(
    pop: Population,
    counts: Any,
    seed: int,
    unknown_share: float,
) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    return [run_estimate(pop, c, rng, unknown_share) for c in counts]


def sql_stream(world: World, population: str, n: int, seed: int) -> dict[str, np.ndarray]:
    """n draws of the SQL sampler's stream on DuckDB, in draw order, as numpy arrays."""
    eng = connect("duckdb")
    try:
        inputs = open_inputs(eng, InputSpec(world.base, world.exp, world.weight))
        pipeline, _ = prepare(eng, inputs, population)
        p = draw_stream(eng, pipeline, n, seed)
        table = p.physical_name("pair_stream")
        return eng.con.execute(  # type: ignore[attr-defined]
            f"SELECT d, item_i, item_j, pair_class, label, u_over_w FROM {table} ORDER BY d"
        ).fetchnumpy()
    finally:
        eng.close()


def sql_manifest(world: World, population: str) -> dict[str, Any]:
    """The manifest `sample_pairs` writes: class totals, impact metrics, slices by colour."""
    attributes = {i: {"color": c} for i, c in world.color.items()}
    s = sample_pairs(world.base, world.exp, world.weight, attributes=attributes,
                     population=population, draws=10, seed=0, slice_by="color")
    return s.manifest


def stream_blocks(world: World, stream: Mapping[str, np.ndarray], n: int):
    """The consecutive blocks of n draws of a SQL stream, each an independent sample of n
    draws (draw d uses the uniforms of (seed, level, d) only), aggregated into unique
    ordered pairs with draw counts as `pairs/sample.sql` does: per block the draw rows
    (with the first item's colour), the distinct pair ids, their truth (equivalent or
    not) and their class."""
    items = np.asarray(stream["item_i"], dtype=np.int64)
    partners = np.asarray(stream["item_j"], dtype=np.int64)
    classes = np.asarray(stream["pair_class"]).astype(str)
    labels = np.asarray(stream["label"], dtype=float)
    ratios = np.asarray(stream["u_over_w"], dtype=float)
    m = max(world.truth) + 1
    truth = np.full(m, -1, dtype=np.int64)
    color = np.empty(m, dtype=object)
    for i, c in world.truth.items():
        truth[i] = c
    for i, c in world.color.items():
        color[i] = c
    for r in range(items.size // n):
        block = slice(r * n, (r + 1) * n)
        i, j = items[block], partners[block]
        _, first, counts = np.unique(i * m + j, return_index=True, return_counts=True)
        i, j = i[first], j[first]
        pair_id = np.minimum(i, j) * m + np.maximum(i, j)
        cls = classes[block][first]
        draws = {"pair_id": pair_id, "item_i": i, "item_j": j, "pair_class": cls,
                 "label": labels[block][first], "u_over_w": ratios[block][first],
                 "draw_count": counts, "color": color[i]}
        ids, at = np.unique(pair_id, return_index=True)
        yield draws, ids, truth[i[at]] == truth[j[at]], cls[at]
