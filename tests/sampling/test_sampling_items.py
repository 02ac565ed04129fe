"""Item samples for exploration (abcde.sampling.items, ABCDE §4.1.1, App. A) and the
exponential-clock step (abcde.sampling.clocks), against brute-force definitions.

Stated false-failure rates (for a random seed of a correct sampler): the chi-square test
rejects at p < 1e-5; the draw-count test at |z| > 4.9 per item (≤ 12 items, ≤ 1.2e-5);
the convergence test at |t| > 6 with 39 d.o.f. per slice (3 slices, ≤ 2e-5), at
|z| > 5 per estimate (120, ≤ 1e-4 with the normal's tails: the estimates are sums of
~150 draws), and at mean z² outside [0.4, 2] (χ²₁₂₀/120: ≤ 1e-6); the Poisson fit at
p < 1e-5 and |z| > 5 per λ (7 λ, ≤ 1e-4); the large-λ draw-count test at |z| > 5 and
variance ratios outside [0.85, 1.15] (≤ 1e-5 per λ). In all ≤ 3e-4. (The Poisson fit's
chi-square is only as good as the approximation above λ = 100: a total-variation
distance below 3e-4, which 20 000 draws cannot see.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from duck import duck
from reference import impact_item_metrics
from scipy import stats

from abcde.comparison import Comparison
from abcde.engines.duckdb import DuckDBEngine
from abcde.errors import InputError
from abcde.explorer.groups import explore
from abcde.impact.run import impact
from abcde.inputs.session import open_inputs
from abcde.inputs.spec import InputSpec
from abcde.sampling.clocks import add_clock_step, add_draw_count_steps
from abcde.sampling.items import prepare_items, sample_items
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render


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


def multi_seed_clock(base, exp, weight, seeds: int, n: int, *,
                     counts: bool = False) -> list[dict]:
    """The real `affected_items` population and clock step, run for seeds 0..seeds−1 at
    once (partitioned by seed): each seed's rows are exactly what sample_items draws;
    with `counts`, each row also has its `draw_count` (sampling/draw_counts.sql, M per
    seed)."""
    with DuckDBEngine() as eng:
        inputs = open_inputs(eng, InputSpec(base, exp, weight))
        p = prepare_items(eng, inputs, prefix="t_items_")
        p.add("seeds", render("pairs/draw_ids.sql", digits=len(str(seeds - 1)), n=seeds))
        from sqlglot import exp as sx

        p.add("seeded", sx.select("a.*", "s.d AS seed").from_("affected_items AS a")
              .join("seeds AS s", join_type="cross"))
        add_clock_step(p, "clocks", "seeded", columns=["item_id", "seed"], weight="clock_w",
                       keys=["item_id"], seed="seed", stream="items", n=n,
                       partition_by=["seed"])
        p.run(eng, "clocks")
        if not counts:
            return eng.fetch(f"SELECT * FROM {p.physical_name('clocks')} "
                             "ORDER BY seed, clock_rank")
        add_draw_count_steps(p, "counts", "clocks", id_col="item_id", seed="seed",
                             partition="seed")
        p.run(eng, "counts")
        return eng.fetch(f"SELECT c.*, d.draw_count FROM {p.physical_name('clocks')} AS c "
                         f"JOIN {p.physical_name('counts')} AS d ON c.seed = d.seed "
                         "AND c.clock_rank = d.clock_rank ORDER BY c.seed, c.clock_rank")


def sql_draw_counts(keys: list[float] | np.ndarray, weights: list[float] | np.ndarray,
                    seeds: int = 1) -> list[np.ndarray]:
    """dc = 1 + Poisson(w·(M − key)) for elements 0..n−1 with these clock keys and
    weights, as sampling/draw_counts.sql draws them (DuckDB), for seeds 0..seeds−1."""
    with DuckDBEngine() as eng:
        eng.register_rows("clock_in", ["item_id", "clock_key", "clock_weight"],
                          [(k, float(a), float(b)) for k, (a, b) in
                           enumerate(zip(keys, weights, strict=True))])
        p = Pipeline(prefix="t_counts_", schema=eng.work_schema)
        p.add("seeds", render("pairs/draw_ids.sql", digits=len(str(seeds - 1)), n=seeds))
        from sqlglot import exp as sx

        p.add("clock", sx.select("c.*", "c.item_id + 1 AS clock_rank", "s.d AS seed")
              .from_("clock_in AS c").join("seeds AS s", join_type="cross"))
        add_draw_count_steps(p, "counts", "clock", id_col="item_id", seed="seed",
                             partition="seed")
        p.run(eng, "counts")
        rows = eng.fetch(f"SELECT seed, draw_count FROM {p.physical_name('counts')} "
                         "ORDER BY seed, clock_rank")
    n = len(keys)
    return [np.array([r["draw_count"] for r in rows[s * n:(s + 1) * n]]) for s in range(seeds)]


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
    rows = multi_seed_clock(base, exp, weight, 3000, 3, counts=True)
    y = {i: [] for i in q}
    by_seed: dict[int, list] = {}
    for r in rows:
        by_seed.setdefault(int(r["seed"]), []).append(r)
    for rs in by_seed.values():
        got = {r["item_id"]: r["draw_count"] for r in rs}
        total = sum(got.values())
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
    slices), through sample_items and explore: at 150 items over 40 seeds every estimate
    lies within 5 of explore's own standard errors of the exact value, the squared
    z-scores average to about 1 (the SEs are honest: mean z² in [0.4, 2]), the estimates
    are unbiased (|t| < 6 per colour) and the error shrinks with the sample (RMSE at 150
    items < RMSE at 5 items / 2; ~√30 ≈ 5.5 expected)."""
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
    z: list[float] = []
    # one comparison: the inputs are read and the cells built once for the 60 samples
    with Comparison(*files, attributes=attr_file) as round_:
        for size, seeds in ((5, 20), (150, 40)):
            errors[size] = {c: [] for c in exact}
            for seed in range(seeds):
                out = tmp_path / f"s{size}_{seed}.parquet"
                round_.sample_items(size, seed=seed, out=out)
                groups = {g["color"]: g for g in explore(out, "color", top=0,
                                                         examples=0)["groups"]}
                for c in exact:
                    est = groups[c]["contribution"] if c in groups else 0.0
                    errors[size][c].append(est - exact[c])
                    if size == 150:
                        z.append((est - exact[c]) / groups[c]["se"])
    assert max(abs(v) for v in z) < 5, z
    assert 0.4 < float(np.mean(np.square(z))) < 2.0, np.mean(np.square(z))
    for c in exact:
        e = np.array(errors[150][c])
        t = e.mean() / (e.std(ddof=1) / math.sqrt(e.size)) if e.std() > 0 else 0.0
        assert abs(t) < 6, (c, t)
    rmse = {n: math.sqrt(np.mean([x * x for v in errors[n].values() for x in v]))
            for n in errors}
    assert rmse[150] < rmse[5] / 2, rmse


@pytest.mark.parametrize("lam", [0.05, 0.7, 3.0, 30.0, 99.0, 100.5, 400.0])
def test_draw_counts_fit_the_poisson(lam: float) -> None:
    """dc − 1 ~ Poisson(λ) as sampling/draw_counts.sql draws it: exact inversion up to
    λ = 100, the Cornish–Fisher quantile above. 4000 elements × 5 seeds of one λ
    (independent md5 uniforms): chi-square against scipy's Poisson over bins of expected
    count ≥ 5 (p > 1e-5), and the mean within 5 standard errors of λ."""
    n, seeds = 4000, 5
    keys = np.array([10.0] + [0.0] * n)  # an anchor with key M = 10 (λ = 0)
    weights = np.array([1.0] + [lam / 10.0] * n)
    counts = sql_draw_counts(keys, weights, seeds)
    assert all(c[0] == 1 for c in counts)
    x = np.concatenate([c[1:] for c in counts]) - 1.0
    assert (x >= 0).all() and (x == np.floor(x)).all()
    lo, hi = int(stats.poisson.ppf(1e-7, lam)), int(stats.poisson.ppf(1 - 1e-7, lam))
    edges, expected = [], []
    acc, start = 0.0, lo
    for k in range(lo, hi + 1):  # bins [start, k] of expected count >= 5
        acc += stats.poisson.pmf(k, lam) * x.size
        if acc >= 5:
            edges.append((start, k))
            expected.append(acc)
            acc, start = 0.0, k + 1
    edges[-1] = (edges[-1][0], math.inf)
    edges[0] = (-math.inf, edges[0][1])
    expected[-1] += acc
    obs = [np.sum((x >= a) & (x <= b)) for a, b in edges]
    chi2 = float(sum((o - e) ** 2 / e for o, e in zip(obs, expected, strict=True)))
    assert stats.chi2.sf(chi2, len(edges) - 1) > 1e-5, (chi2, len(edges))
    assert abs(x.mean() - lam) < 5 * math.sqrt(lam / x.size)


@pytest.mark.parametrize("lam", [1e11, 1e13, 1e40])
def test_draw_counts_for_huge_poisson_means(lam: float) -> None:
    """dc − 1 has mean and variance λ for λ up to 1e40 — weights spanning many orders of
    magnitude (the Cornish–Fisher quantile in SQL); counts are integer-valued doubles,
    λ itself to 16 digits where √λ is below a double's resolution at λ."""
    n = 2000
    keys = np.array([10.0] + [0.0] * n)
    weights = np.array([1.0] + [lam / 10.0] * n)
    [dc] = sql_draw_counts(keys, weights)
    assert dc[0] == 1
    x = dc[1:].astype(float) - 1.0
    ulp = lam * 2.0**-52
    assert abs(x.mean() - lam) < 5 * math.sqrt(lam / n) + 4 * ulp
    if math.sqrt(lam) > 1e6 * ulp:
        assert 0.85 < x.var(ddof=1) / lam < 1.15
    else:
        assert x.std() < 4 * ulp


@pytest.mark.parametrize("spread", [1e20, 1e40])
def test_sample_items_with_weights_many_orders_apart(spread: float) -> None:
    """Light and heavy affected items (weight ratio 1e20, 1e40): sampling succeeds, the
    heavy items get huge draw counts, and every importance weight is dc/Σdc·JD(T)/JD(i)
    (brute force)."""
    base = {i: i // 4 for i in range(12)}
    exp = {i: (i + 1) // 4 for i in range(12)}
    light = math.sqrt(1 / spread)
    weight = {i: (light if i % 2 else 1 / light) for i in base}
    per_item = impact_item_metrics(base, exp, weight)
    s = sample_items(base, exp, weight, size=12, seed=3)
    assert len(s.rows) == sum(per_item[i]["jaccard_distance"] > 0 for i in base)
    total = math.fsum(r["draw_count"] for r in s.rows)
    assert s.manifest["draws"] == pytest.approx(total, rel=1e-12)
    assert total > spread / 10
    jd_t = s.manifest["metrics"]["jaccard_distance"]
    for r in s.rows:
        assert r["importance_weight"] == pytest.approx(
            r["draw_count"] / total * jd_t / per_item[r["item_id"]]["jaccard_distance"],
            rel=1e-9)


def test_sample_items_when_nothing_is_affected(tmp_path) -> None:
    """Base == Exp: an empty sample with its manifest (as sample-pairs writes an empty
    pair sample), which explore reads; it used to fail on an empty draw-count CSV."""
    from click.testing import CliRunner

    from abcde.cli import main

    b = _write_csv(tmp_path / "b.csv", "item_id,cluster_id", [(1, "a"), (2, "a"), (3, "b")])
    for name in ("items.csv", "items.parquet"):
        out = tmp_path / name
        res = CliRunner().invoke(main, ["sample-items", "--base", b, "--exp", b, "--size", "5",
                                        "--out", str(out)])
        assert res.exit_code == 0, res.output
        assert "no affected items" in res.output
        res = CliRunner().invoke(main, ["explore", str(out), "--format", "json"])
        assert res.exit_code == 0, res.output
        assert '"groups": []' in res.output
    assert (tmp_path / "items.csv").read_text().startswith("item_id,base_cluster")
    s = sample_items({1: "a", 2: "a"}, {1: "a", 2: "a"}, size=5, seed=0)
    assert s.rows == [] and s.manifest["unique_items"] == 0 and s.manifest["draws"] == 0


def test_explore_reports_user_mistakes_as_input_errors(tmp_path) -> None:
    from click.testing import CliRunner

    from abcde.cli import main
    from abcde.errors import InputError

    rng = np.random.default_rng(8)
    base, exp, weight, attrs = random_case(rng, 30)
    out = tmp_path / "items.parquet"
    sample_items(base, exp, weight, attributes=attrs, size=10, seed=1, out=out)
    for args, words in ((["--where", "nosuch > 1"], ["--where", "nosuch"]),
                        (["--where", "color > 1"], ["--where", "color"]),
                        (["--group-by", "color,color"], ["--group-by", "'color' more than once"]),
                        (["--top", "-1"], ["--top"]),
                        (["--examples", "-1"], ["--examples"])):
        res = CliRunner().invoke(main, ["explore", str(out), "--group-by", "color", *args])
        assert res.exit_code == 2, (args, res.output)
        assert all(w in res.output for w in words), (args, res.output)
        assert "bug" not in res.output
    for kw in ({"top": -1}, {"examples": -2}, {"top": 1.5}):
        with pytest.raises(InputError):
            explore(out, "color", **kw)
    assert len(explore(out, "color", top=0)["groups"]) == len({a["color"] for a in attrs.values()
                                                              if a})


@pytest.mark.parametrize("where", ["weight >", "weight > 1 AND", "weight > (1",
                                   "weight > 1 1", "color = 'red"])
def test_explore_bad_where_is_worded_plainly(tmp_path, where: str) -> None:
    """A filter that does not parse: exit 2 naming the filter and what to write, never
    sqlglot's wording (its class names) nor an internal error."""
    from click.testing import CliRunner

    from abcde.cli import main

    rng = np.random.default_rng(8)
    base, exp, weight, attrs = random_case(rng, 30)
    out = tmp_path / "items.parquet"
    sample_items(base, exp, weight, attributes=attrs, size=10, seed=1, out=out)
    res = CliRunner().invoke(main, ["explore", str(out), "--where", where])
    assert res.exit_code == 2, res.output
    assert f"--where {where!r} is not one SQL condition" in res.output
    assert "Write one condition" in res.output and "<class" not in res.output
    assert "The sample's columns are" in res.output and "color" in res.output
    assert "class" not in res.output and "sqlglot" not in res.output, res.output


def test_item_sample_file_is_not_replaced_without_overwrite(tmp_path) -> None:
    """An existing sample file (or its manifest) is refused; --overwrite replaces both."""
    from click.testing import CliRunner

    from abcde.cli import main

    rng = np.random.default_rng(9)
    base, exp, _, _ = random_case(rng, 30)
    b = _write_csv(tmp_path / "b.csv", "item_id,cluster_id", base.items())
    e = _write_csv(tmp_path / "e.csv", "item_id,cluster_id", exp.items())
    out = tmp_path / "items.parquet"
    args = ["sample-items", "--base", b, "--exp", e, "--size", "5", "--out", str(out)]
    assert CliRunner().invoke(main, args).exit_code == 0
    before = out.read_bytes()
    res = CliRunner().invoke(main, [*args[:-4], "--size", "7", "--out", str(out)])
    assert res.exit_code == 2 and "--overwrite" in res.output, res.output
    assert out.read_bytes() == before
    res = CliRunner().invoke(main, [*args[:-4], "--size", "7", "--out", str(out),
                                    "--overwrite"])
    assert res.exit_code == 0, res.output
    assert '"size": 7' in (tmp_path / "items.parquet.manifest.json").read_text()
    with pytest.raises(InputError) as err:
        sample_items(base, exp, size=2.5)
    assert err.value.option == "size"


def test_item_sample_files_are_byte_identical_whatever_the_threads(tmp_path) -> None:
    """Rows are written in order of first draw, so one seed gives one file."""
    rng = np.random.default_rng(10)
    base, exp, weight, attrs = random_case(rng, 3000)
    for ext in ("parquet", "csv"):
        got = []
        for threads in (1, 2):
            out = tmp_path / f"t{threads}.{ext}"
            sample_items(base, exp, weight, attributes=attrs, size=2000, seed=4, out=out,
                         threads=threads)
            got.append(out.read_bytes())
        assert got[0] == got[1], ext
    ranks = [r[0] for r in duck(f"SELECT first_draw FROM "
                                f"read_parquet('{tmp_path / 't1.parquet'}')")]
    assert ranks == sorted(ranks)


def test_sample_items_says_which_attributes_it_renamed(tmp_path) -> None:
    """Attribute columns `weight` and `draw_count` are `attr_weight`, `attr_draw_count`
    in the sample (the sample has columns of those names) and sample-items says so: it
    renamed them silently, and `explore --group-by weight` grouped by the item weight."""
    import duckdb
    from click.testing import CliRunner

    from abcde.cli import main

    rng = np.random.default_rng(9)
    base, exp, _, attrs = random_case(rng, 30)
    b = _write_csv(tmp_path / "b.csv", "item_id,cluster_id", base.items())
    e = _write_csv(tmp_path / "e.csv", "item_id,cluster_id", exp.items())
    a = _write_csv(tmp_path / "a.csv", "item_id,color,weight,draw_count",
                   ((i, v["color"], "heavy", 7) for i, v in attrs.items()))
    out = tmp_path / "items.parquet"
    res = CliRunner().invoke(main, ["sample-items", b, e, "--attributes", a, "--size", "5",
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "weight -> attr_weight, draw_count -> attr_draw_count" in res.output, res.output
    described = duckdb.connect().execute(f"DESCRIBE SELECT * FROM '{out}'").fetchall()
    cols = [r[0] for r in described]
    assert {"color", "attr_weight", "attr_draw_count"} <= set(cols) and "attr_color" not in cols
    plain = _write_csv(tmp_path / "p.csv", "item_id,color",
                       ((i, v["color"]) for i, v in attrs.items()))
    res = CliRunner().invoke(main, ["sample-items", b, e, "--attributes", plain, "--size",
                                    "5", "--out", str(tmp_path / "plain.parquet")])
    assert res.exit_code == 0 and "renamed" not in res.output, res.output


def test_sample_items_says_when_size_exceeds_the_affected_items(tmp_path) -> None:
    """--size above the number of affected items draws all of them (exit 0) and says so:
    it returned them quietly, a sample smaller than --size with no word why."""
    from click.testing import CliRunner

    from abcde.cli import main

    # Base pairs up items 0..9; Exp splits item 0 off: items 0 and 1 are the affected ones
    base = {i: i // 2 for i in range(10)}
    exp = {**base, 0: 100}
    b = _write_csv(tmp_path / "b.csv", "item_id,cluster_id", base.items())
    e = _write_csv(tmp_path / "e.csv", "item_id,cluster_id", exp.items())
    args = ["sample-items", b, e, "--out", str(tmp_path / "items.parquet")]
    res = CliRunner().invoke(main, [*args, "--size", "100000"])
    assert res.exit_code == 0, res.output
    assert "sampled 2 unique affected items" in res.output, res.output
    assert "all 2 affected items were drawn; --size 100000 asks for more" in res.output
    for size in ("2", "1"):  # as many or fewer: nothing to say
        res = CliRunner().invoke(main, [*args, "--size", size, "--overwrite"])
        assert res.exit_code == 0 and "asks for more" not in res.output, res.output
