"""Item samples for exploration (abcde.exploration, ABCDE §4.1.1, App. A) and the
exponential-clock step (abcde.sampling), against brute-force definitions.

Stated false-failure rates (for a random seed of a correct sampler): the chi-square test
rejects at p < 1e-5; the draw-count test at |z| > 4.9 per item (≤ 12 items, ≤ 1.2e-5);
the convergence test at |t| > 6 with 19 d.o.f. per slice (≤ 4 slices, ≤ 4e-5).
In all ≤ 1e-4.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference import impact_item_metrics
from scipy import stats

from abcde.engines.duckdb import DuckDBEngine
from abcde.exploration import explore, prepare_items, sample_items
from abcde.impact import impact
from abcde.inputs import open_inputs
from abcde.sampling import add_clock_step, draw_counts
from abcde.templates import render


def random_case(rng: np.random.Generator, n: int) -> tuple[dict, dict, dict, dict]:
    base = {i: int(rng.integers(0, max(2, n // 3))) for i in range(n)}
    exp = {i: f"x{int(rng.integers(0, max(2, n // 3)))}" for i in range(n)}
    weight = {i: float(np.exp(rng.normal())) for i in range(n)}
    attrs = {i: {"color": ["red", "green", "blue"][int(rng.integers(0, 3))],
                 "size": int(rng.integers(0, 2))} for i in range(n)}
    return base, exp, weight, attrs


def q_of(base: dict, exp: dict, weight: dict) -> dict:
    """q(i) ∝ weight(i)·JaccardDistance(i) over affected items (ABCDE eq. 10)."""
    m = impact_item_metrics(base, exp, weight)
    raw = {i: weight[i] * m[i]["jaccard_distance"] for i in m if m[i]["jaccard_distance"] > 0}
    total = math.fsum(raw.values())
    return {i: v / total for i, v in raw.items()}


def multi_seed_clock(base, exp, weight, seeds: int, n: int) -> list[dict]:
    """The real `affected_items` population and clock step, run for seeds 0..seeds−1 at
    once (partitioned by seed): each seed's rows are exactly what sample_items draws."""
    with DuckDBEngine() as eng:
        inputs = open_inputs(eng, base, exp, weight)
        p = prepare_items(eng, inputs, prefix="t_items_")
        p.add("seeds", render("pairs/draw_ids.sql", digits=len(str(seeds - 1)), n=seeds))
        from sqlglot import exp as sx

        p.add("seeded", sx.select("a.*", "s.d AS seed").from_("affected_items AS a")
              .join("seeds AS s", join_type="cross"))
        add_clock_step(p, "clocks", "seeded", columns=["item_id", "seed"], weight="clock_w",
                       keys=["item_id"], seed="seed", stream="items", n=n,
                       partition_by=["seed"])
        p.run(eng, "clocks")
        return eng.fetch(f"SELECT * FROM {p.physical_name('clocks')} ORDER BY seed, clock_rank")


def test_first_drawn_item_is_distributed_as_q() -> None:
    """The first draw of the clocks (the item with the smallest key −ln U/(w·JD)) is
    item i with probability q(i) = w·JD/Σ w·JD (competing exponentials): chi-square over
    20 000 seeds."""
    rng = np.random.default_rng(3)
    base, exp, weight, _ = random_case(rng, 12)
    q = q_of(base, exp, weight)
    rows = multi_seed_clock(base, exp, weight, 20_000, 1)
    counts = {i: 0 for i in q}
    for r in rows:
        counts[r["item_id"]] += 1
    obs = np.array([counts[i] for i in q], float)
    expected = np.array([q[i] * len(rows) for i in q])
    assert expected.min() > 5
    chi2 = float(((obs - expected) ** 2 / expected).sum())
    assert stats.chi2.sf(chi2, len(q) - 1) > 1e-5


def test_draw_counts_are_proportional_to_q() -> None:
    """With replacement (App. A steps 2–3): E[dc(i)] = q(i)·E[Σdc] (optional stopping at
    M), tested per item over 3000 seeds of 3-item samples with the draw counts exactly as
    sample_items computes them."""
    rng = np.random.default_rng(4)
    base, exp, weight, _ = random_case(rng, 12)
    q = q_of(base, exp, weight)
    rows = multi_seed_clock(base, exp, weight, 3000, 3)
    y = {i: [] for i in q}
    by_seed: dict[int, list] = {}
    for r in rows:
        by_seed.setdefault(int(r["seed"]), []).append(r)
    for seed, rs in by_seed.items():
        dc = draw_counts([r["clock_key"] for r in rs], [r["clock_weight"] for r in rs], seed)
        got = dict(zip([r["item_id"] for r in rs], dc, strict=True))
        total = int(dc.sum())
        for i in q:
            y[i].append(got.get(i, 0) - q[i] * total)
    for i, ys in y.items():
        a = np.array(ys)
        z = a.mean() / (a.std(ddof=1) / math.sqrt(a.size))
        assert abs(z) < 4.9, (i, z)


def test_sample_items_rows_and_reproducibility() -> None:
    """Rows carry the item's metrics (brute force), draw counts ≥ 1, importance weights
    dc/Σdc·JD(T)/JD(i); same seed → same sample; another seed → another sample."""
    rng = np.random.default_rng(5)
    base, exp, weight, attrs = random_case(rng, 12)
    per_item = impact_item_metrics(base, exp, weight)
    a = sample_items(base, exp, weight, attributes=attrs, size=4, seed=1)
    b = sample_items(base, exp, weight, attributes=attrs, size=4, seed=1)
    c = sample_items(base, exp, weight, attributes=attrs, size=4, seed=2)
    # The sample itself (items, clusters, draw counts, order, attributes) is identical;
    # derived floats may differ in the last ulp because DuckDB sums in parallel.
    assert len(a.rows) == len(b.rows)
    for ra, rb in zip(a.rows, b.rows, strict=True):
        assert ra.keys() == rb.keys()
        for k in ra:
            if isinstance(ra[k], float):
                assert ra[k] == pytest.approx(rb[k], rel=1e-12), k
            else:
                assert ra[k] == rb[k], k
    assert [r["item_id"] for r in a.rows] != [r["item_id"] for r in c.rows] or \
        [r["draw_count"] for r in a.rows] != [r["draw_count"] for r in c.rows]
    total = sum(r["draw_count"] for r in a.rows)
    jd_t = a.manifest["metrics"]["jaccard_distance"]
    for r in a.rows:
        ref = per_item[r["item_id"]]
        assert r["jaccard_distance"] == pytest.approx(ref["jaccard_distance"], rel=1e-12)
        assert r["split_rate"] == pytest.approx(ref["split_rate"], rel=1e-12, abs=1e-15)
        assert r["color"] == attrs[r["item_id"]]["color"]
        assert r["importance_weight"] == pytest.approx(
            r["draw_count"] / total * jd_t / ref["jaccard_distance"], rel=1e-12)


def _write_csv(path, header: str, rows) -> str:
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return str(path)


def test_exploration_estimates_converge_to_exact_slice_contributions(tmp_path) -> None:
    """Σ_{slice} w(i)·JD(i) → weight(slice)·JD(slice)/W (the `contribution` of impact()
    slices): unbiased at the largest sample size (t-test over 20 seeds) and the error
    shrinks as the sample grows (RMSE at 150 items < RMSE at 5 items)."""
    rng = np.random.default_rng(6)
    base, exp, weight, attrs = random_case(rng, 400)
    files = (_write_csv(tmp_path / "b.csv", "item_id,cluster_id", base.items()),
             _write_csv(tmp_path / "e.csv", "item_id,cluster_id", exp.items()),
             _write_csv(tmp_path / "w.csv", "item_id,weight", weight.items()))
    attr_file = _write_csv(tmp_path / "a.csv", "item_id,color,size",
                           ((i, a["color"], a["size"]) for i, a in attrs.items()))
    exact = {r["color"]: r["contribution"]
             for r in impact(base, exp, weight, attributes=attrs, slice_by="color")
             .slices[0]["rows"]}
    errors: dict[int, dict[str, list[float]]] = {}
    for size in (5, 150):
        errors[size] = {c: [] for c in exact}
        for seed in range(20):
            out = tmp_path / f"s{size}_{seed}.parquet"
            sample_items(*files, attributes=attr_file, size=size, seed=seed, out=out)
            est = {g["color"]: g["contribution"]
                   for g in explore(out, "color", top=0, examples=0)["groups"]}
            for c in exact:
                errors[size][c].append(est.get(c, 0.0) - exact[c])
    for c in exact:
        e = np.array(errors[150][c])
        t = e.mean() / (e.std(ddof=1) / math.sqrt(e.size)) if e.std() > 0 else 0.0
        assert abs(t) < 6, (c, t)
    rmse = {n: math.sqrt(np.mean([x * x for v in errors[n].values() for x in v]))
            for n in errors}
    assert rmse[150] < rmse[5]
