"""abcde.evaluation.run against independent references: the pointwise paper's definitions
(brute force, tests/reference.py) and Figure 2, scikit-learn's classic metrics, the
Yandex cluster_metrics reference (tests/reference_yandex.py) and the article's sample.
"""

from __future__ import annotations

import math
import random
import tempfile
from collections.abc import Iterator
from fractions import Fraction as Fr
from pathlib import Path

import duckdb
import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import (
    POINTWISE_METRICS,
    fmeasure,
    inverse_purity,
    pair_confusion,
    pairwise_f1,
    pairwise_precision,
    pairwise_recall,
    pointwise_by_group,
    pointwise_overall,
    purity,
)
from reference_yandex import yandex_metrics
from sklearn.metrics import (
    adjusted_rand_score,
    homogeneity_completeness_v_measure,
    normalized_mutual_info_score,
)
from sklearn.metrics.cluster import pair_confusion_matrix
from sqlglot import exp
from strategies import clusterings

from abcde.engines import connect
from abcde.errors import InputError
from abcde.evaluation.run import CLASSIC_METRICS, evaluate, evaluation_pipeline, run_names
from abcde.inputs.session import open_inputs
from abcde.inputs.spec import InputSpec
from abcde.sql.dialects import DIALECTS, to_sql
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render

YANDEX = Path(__file__).parents[1] / "data" / "yandex"
EXAMPLES = Path(__file__).parents[2] / "examples"
REL = 1e-9
HYPOTHESIS = settings(max_examples=15, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow,
                                             HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def eng() -> Iterator[object]:
    e = connect("duckdb")
    yield e
    e.close()


def close(a: float | None, b: float | None, rel: float = REL) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def read_out(path: str) -> list[dict]:
    con = duckdb.connect()
    try:
        cur = con.execute("SELECT * FROM read_parquet(?)", [path])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    finally:
        con.close()


# ------------------------------------------------------------ pointwise, Figure 2


FIG2_TRUTH = {"i1": "t12", "i2": "t12", "i3": "t3"}
FIG2_ACTUAL = {"i1": "a13", "i3": "a13", "i2": "a2"}
FIG2_WEIGHT = {"i1": 1.0, "i2": 2.0, "i3": 3.0}


def test_figure_2(eng: object, tmp_path: Path) -> None:
    """Pointwise paper Figure 2(g): overall, ideal clusters, actual cluster, slice."""
    attrs = {"i1": {"part": "other"}, "i2": {"part": "i2i3"}, "i3": {"part": "i2i3"}}
    res = evaluate(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT, attributes=attrs, slice_by="part",
                   engine=eng, out=tmp_path, top=10)
    run = res.runs[0]
    o = run.overall
    assert (o["precision"], o["recall"], o["jaccard_distance"]) == (
        pytest.approx(3 / 4), pytest.approx(7 / 9), pytest.approx(3 / 8))
    # per item (Figure 2f): P 1/4, 1, 3/4; R 1/3, 2/3, 1 → F1 per item, then lifted
    f1 = [2 * p * r / (p + r) for p, r in ((Fr(1, 4), Fr(1, 3)), (1, Fr(2, 3)),
                                           (Fr(3, 4), 1))]
    assert o["f1"] == pytest.approx(float((1 * f1[0] + 2 * f1[1] + 3 * f1[2]) / 6))
    assert o["f1_of_overall"] == pytest.approx(2 * (3 / 4) * (7 / 9) / (3 / 4 + 7 / 9))
    # accuracy (TP + TN)/W per item from Figure 2e: (1+0)/6, (2+3)/6, (3+2)/6
    assert o["accuracy"] == pytest.approx((1 * 1 / 6 + 2 * 5 / 6 + 3 * 5 / 6) / 6)
    truth_rows = {r["cluster_id"]: r for r in read_out(run.files["truth_clusters"])}
    assert truth_rows["t12"]["precision"] == pytest.approx(3 / 4)
    assert truth_rows["t12"]["recall"] == pytest.approx(5 / 9)
    assert truth_rows["t12"]["jaccard_distance"] == pytest.approx(1 / 2)
    assert truth_rows["t3"]["precision"] == pytest.approx(3 / 4)
    assert truth_rows["t3"]["recall"] == pytest.approx(1)
    assert truth_rows["t3"]["jaccard_distance"] == pytest.approx(1 / 4)
    actual_rows = {r["cluster_id"]: r for r in read_out(run.files["actual_clusters"])}
    assert actual_rows["a13"]["precision"] == pytest.approx(5 / 8)
    assert actual_rows["a13"]["recall"] == pytest.approx(5 / 6)
    assert actual_rows["a13"]["jaccard_distance"] == pytest.approx(19 / 48)
    assert actual_rows["a2"]["precision"] == pytest.approx(1)  # property 2, singleton
    (slicing,) = run.slices
    sl = {r["part"]: r for r in slicing["rows"]}["i2i3"]
    assert (sl["precision"], sl["recall"], sl["jaccard_distance"]) == (
        pytest.approx(17 / 20), pytest.approx(13 / 15), pytest.approx(17 / 60))
    # the worst truth cluster by recall loss is {i1, i2}: 3·(1 − 5/9)/6
    assert run.worst_truth_clusters[0]["cluster_id"] == "t12"
    assert run.worst_truth_clusters[0]["loss"] == pytest.approx(3 * (4 / 9) / 6)
    assert run.worst_actual_clusters[0]["cluster_id"] == "a13"
    assert run.worst_actual_clusters[0]["loss"] == pytest.approx(4 * (3 / 8) / 6)


@HYPOTHESIS
@given(case=clusterings(max_items=10, attributes=True, extra_items=True, string_ids=True))
def test_pointwise_matches_brute_force(eng: object, case: object) -> None:
    """Overall, per truth cluster, per actual cluster and per slice: the per-cell SQL
    equals the item-by-item definitions (pointwise paper eq. 3–18)."""
    truth, actual, weight = case.base, case.exp, case.weight
    with tempfile.TemporaryDirectory() as tmp:
        res = evaluate(truth, actual, weight, attributes=case.attributes,
                       slice_by=",".join(next(iter(case.attributes.values()))),
                       engine=eng, out=tmp, uir_cases=None)
        run = res.runs[0]
        want = pointwise_overall(truth, actual, weight)
        assert run.overall["items"] == want["items"]
        for m in (*POINTWISE_METRICS, "f1_of_overall", "weight"):
            assert close(run.overall[m], want[m]), m
        for file, of in (("truth_clusters", truth), ("actual_clusters", actual)):
            got = {r["cluster_id"]: r for r in read_out(run.files[file])}
            ref = pointwise_by_group(truth, actual, weight, of)
            assert set(got) == set(ref)
            for key, row in ref.items():
                for m in (*POINTWISE_METRICS, "f1_of_overall", "weight", "items"):
                    assert close(got[key][m], row[m]), (file, key, m)
        columns = list(next(iter(case.attributes.values())))
        group = {i: tuple(case.attributes[i][c] for c in columns) for i in truth}
        ref = pointwise_by_group(truth, actual, weight, group)
        got = {tuple(r[c] for c in columns): r for r in run.slices[0]["rows"]}
        assert set(got) == set(ref)
        for key, row in ref.items():
            for m in (*POINTWISE_METRICS, "f1_of_overall", "weight"):
                assert close(got[key][m], row[m]), (key, m)
    cov = run.coverage
    assert cov["only_in_truth"]["items"] == len(case.only_base)
    assert cov["only_in_actual"]["items"] == len(case.only_exp)
    assert close(cov["only_in_truth"]["weight"], math.fsum(weight[i] for i in case.only_base))


# ------------------------------------------------------------ classic vs scikit-learn


@HYPOTHESIS
@given(case=clusterings(min_items=1, max_items=14, weights=False))
def test_classic_metrics_match_scikit_learn(eng: object, case: object) -> None:
    truth, actual = case.base, case.exp
    items = list(truth)
    y_true = [truth[i] for i in items]
    y_pred = [actual[i] for i in items]
    run = evaluate(truth, actual, engine=eng, uir_cases=None).runs[0]
    c = run.classic
    # scikit-learn's pair confusion counts ordered pairs: twice ours
    (tn, fp), (fn, tp) = pair_confusion_matrix(y_true, y_pred)
    pc = run.pair_counts
    assert (pc["true_positive_pairs"], pc["false_positive_pairs"],
            pc["false_negative_pairs"], pc["true_negative_pairs"]) == (
        tp / 2, fp / 2, fn / 2, tn / 2)
    assert pc["true_positive_pairs"] == pair_confusion(truth, actual)["tp"]
    assert close(c["adjusted_rand_index"], adjusted_rand_score(y_true, y_pred))
    h, comp, v = homogeneity_completeness_v_measure(y_true, y_pred)
    assert close(c["homogeneity"], h)
    assert close(c["completeness"], comp)
    assert close(c["v_measure"], v)
    # scikit-learn's default average_method is "arithmetic" (NMI = V-measure then)
    assert close(c["nmi"], normalized_mutual_info_score(y_true, y_pred))
    assert close(c["nmi"], normalized_mutual_info_score(y_true, y_pred,
                                                        average_method="arithmetic"))
    assert close(c["pairwise_precision"], pairwise_precision(truth, actual))
    assert close(c["pairwise_recall"], pairwise_recall(truth, actual))
    assert close(c["pairwise_f1"], pairwise_f1(truth, actual))
    assert close(c["purity"], purity(truth, actual))
    assert close(c["inverse_purity"], inverse_purity(truth, actual))
    assert close(c["fmeasure"], fmeasure(truth, actual))
    assert set(c) == set(CLASSIC_METRICS)


def test_pair_counts_in_double_for_a_huge_cell(eng: object) -> None:
    """A cell of n = 5·10⁹ items: C(n, 2) ≈ 1.25·10¹⁹ exceeds 2⁶³; summed in DOUBLE it
    is n(n − 1)/2 (docs/method.md §5.1, §11.1)."""
    n = 5_000_000_000
    p = Pipeline(prefix="abcde_test_huge_")
    p.add("cells", render_literal_cells([("t", "a", n), ("t", "b", 3), ("u", "b", 2)]),
          materialise=True)
    p.add("cell_metrics", render("cells/cell_metrics.sql", squares=False), materialise=True)
    p.add("classic", render("evaluate/classic.sql"))
    p.run(eng, "cells", "cell_metrics")
    row = p.fetch(eng, "classic")[0]
    tp = n * (n - 1) // 2 + 3 + 1
    assert row["true_positive_pairs"] == pytest.approx(tp, rel=1e-15)
    s_b = (n + 3) * (n + 2) // 2 + 1
    s_e = n * (n - 1) // 2 + 10
    assert row["false_negative_pairs"] == pytest.approx(s_b - tp, rel=1e-6)
    assert row["false_positive_pairs"] == pytest.approx(s_e - tp, rel=1e-6)
    assert 0 < row["pairwise_recall"] < 1
    assert row["pairwise_precision"] == pytest.approx((n * (n - 1) / 2 + 4) / s_e)


def render_literal_cells(rows: list[tuple[str, str, int]]):
    from sqlglot import parse_one

    sql = " UNION ALL ".join(
        f"SELECT '{b}' AS b, '{e}' AS e, CAST({n} AS BIGINT) AS n, CAST({n} AS DOUBLE) AS w"
        for b, e, n in rows)
    return parse_one(sql, read="duckdb")


# ------------------------------------------------------------ Yandex


@pytest.mark.parametrize("kind", ["basic", "optimistic"])
def test_yandex_article_sample(kind: str) -> None:
    """Article §4: ECC 0.61250, BCP 0.65125, BCR 0.65250, BCF1 0.65187 (both scenarios)."""
    run = evaluate(YANDEX / "sample_markup.csv", YANDEX / "sample_clusters.csv").runs[0]
    y = run.yandex[kind]
    assert [f"{y[m]:.5f}" for m in ("ecc", "bcp", "bcr", "bcf1")] == [
        "0.61250", "0.65125", "0.65250", "0.65187"]
    assert y["ecc"] == pytest.approx(245 / 400)
    assert y["bcp"] == pytest.approx(521 / 800)
    assert y["bcr"] == pytest.approx(522 / 800)


def yandex_run(eng: object, truth: dict, actual: dict, tmp: str) -> tuple[dict, dict]:
    run = evaluate(truth, actual, engine=eng, out=tmp, uir_cases=None).runs[0]
    themes = {r["cluster_id"]: r for r in read_out(run.files["yandex_themes"])}
    return run.yandex, themes


def test_yandex_unlabelled_items_by_hand(eng: object, tmp_path: Path) -> None:
    """Unlabelled items x, y (absent from the truth) in clusters that meet it.

    truth g1 = {a, b, c}, g2 = {d}; actual c1 = {a, b, x} (|c1| = 3, marked 2),
    c2 = {c, d, y} (|c2| = 3, marked 2).
    g1: c1 common 2 → r = 2/3, p = 2/3 basic, (2 + 1)/3 = 1 optimistic;
        c2 common 1 → r = 1/3, p = 1/3 basic, (1 + 1)/3 = 2/3 optimistic.
        ECC basic = (2/3)(2/3) + (1/3)(1/3)(1 − 2/3) = 4/9 + 1/27 = 13/27;
        ECC optimistic = (2/3)·1 + (1/3)(2/3)·(1 − 1) = 2/3 (p = 1: product 0, no ln 0);
        BCP basic = (2·2/3 + 1·1/3)/3 = 5/9; optimistic (2·1 + 1·2/3)/3 = 8/9;
        BCR = (2·2/3 + 1·1/3)/3 = 5/9.
    g2: c2 common 1 → r = 1, p = 1/3 basic, 2/3 optimistic: ECC = BCP = p, BCR = 1.
    Overall ECC basic = (13/27 + 1/3)/2 = 11/27; optimistic (2/3 + 2/3)/2 = 2/3;
    BCP basic (5/9 + 1/3)/2 = 4/9; optimistic (8/9 + 2/3)/2 = 7/9; BCR (5/9 + 1)/2 = 7/9.
    """
    truth = {"a": "g1", "b": "g1", "c": "g1", "d": "g2"}
    actual = {"a": "c1", "b": "c1", "x": "c1", "c": "c2", "d": "c2", "y": "c2"}
    y, themes = yandex_run(eng, truth, actual, str(tmp_path))
    assert themes["g1"]["ecc_basic"] == pytest.approx(13 / 27)
    assert themes["g1"]["ecc_optimistic"] == pytest.approx(2 / 3)
    assert themes["g1"]["bcp_basic"] == pytest.approx(5 / 9)
    assert themes["g1"]["bcp_optimistic"] == pytest.approx(8 / 9)
    assert themes["g1"]["bcr"] == pytest.approx(5 / 9)
    # BCF1(g1) = F1(BCP(g1), BCR(g1)): basic F1(5/9, 5/9) = 5/9; optimistic
    # 2·(8/9)(5/9)/(8/9 + 5/9) = 80/117
    assert themes["g1"]["bcf1_basic"] == pytest.approx(5 / 9)
    assert themes["g1"]["bcf1_optimistic"] == pytest.approx(80 / 117)
    # g2: BCP 1/3 basic, 2/3 optimistic, BCR 1: F1 = 1/2 and 4/5
    assert themes["g2"]["bcf1_basic"] == pytest.approx(1 / 2)
    assert themes["g2"]["bcf1_optimistic"] == pytest.approx(4 / 5)
    assert y["basic"]["ecc"] == pytest.approx(11 / 27)
    assert y["optimistic"]["ecc"] == pytest.approx(2 / 3)
    assert y["basic"]["bcp"] == pytest.approx(4 / 9)
    assert y["optimistic"]["bcp"] == pytest.approx(7 / 9)
    assert y["basic"]["bcr"] == y["optimistic"]["bcr"] == pytest.approx(7 / 9)
    ref = yandex_metrics(truth, actual, optimistic=False)
    assert y["basic"]["ecc"] == pytest.approx(ref["ecc"])


def test_yandex_unclustered_truth_items_by_hand(eng: object, tmp_path: Path) -> None:
    """Truth items the actual lacks count in |g| with recall 0; a theme with no
    clustered item is left out of BCP (the exclusion rule) but counts 0 in ECC, BCR.

    truth g1 = {a, b, c, d}, g2 = {e, f}, g3 = {h}; actual c1 = {a, b}, c2 = {c, e}.
    g1: c1 common 2 → p = 1, r = 1/2; c2 common 1 → p = 1/2, r = 1/4:
        ECC = 1/2 + (1/4)(1/2)(1 − 1) = 1/2; BCP = (2 + 1/2)/3 = 5/6; BCR = 5/16.
    g2: c2 common 1 → p = 1/2, r = 1/2: ECC 1/4, BCP 1/2, BCR 1/4.
    g3: nothing clustered: ECC 0, BCR 0, BCP undefined (excluded).
    ECC = 1/4, BCR = 3/16, BCP = (5/6 + 1/2)/2 = 2/3, BCF1 = 12/41.
    """
    truth = {"a": "g1", "b": "g1", "c": "g1", "d": "g1", "e": "g2", "f": "g2", "h": "g3"}
    actual = {"a": "c1", "b": "c1", "c": "c2", "e": "c2"}
    y, themes = yandex_run(eng, truth, actual, str(tmp_path))
    for kind in ("basic", "optimistic"):
        assert y[kind]["ecc"] == pytest.approx(1 / 4)
        assert y[kind]["bcr"] == pytest.approx(3 / 16)
        assert y[kind]["bcp"] == pytest.approx(2 / 3)
        assert y[kind]["bcf1"] == pytest.approx(12 / 41)
    assert themes["g3"]["bcp_basic"] is None
    assert themes["g3"]["ecc_basic"] == 0 and themes["g3"]["bcr"] == 0
    assert themes["g3"]["bcf1_basic"] == 0 == themes["g3"]["bcf1_optimistic"]
    # g1: F1(5/6, 5/16) = 2·(25/96)/(55/48) = 5/11; g2: F1(1/2, 1/4) = 1/3
    assert themes["g1"]["bcf1_basic"] == pytest.approx(5 / 11)
    assert themes["g2"]["bcf1_basic"] == pytest.approx(1 / 3)
    # worst themes by ECC (basic): g3 (0), g2 (1/4), g1 (1/2)
    assert [t["cluster_id"] for t in y["worst_themes"]] == ["g3", "g2", "g1"]
    assert y["worst_themes"][1]["bcf1_basic"] == pytest.approx(1 / 3)
    assert y["worst_themes"][0]["items"] == 1
    assert themes["g1"]["items"] == 4 and themes["g1"]["clustered_items"] == 3
    assert y["themes"] == 3 and y["themes_with_recall"] == 2


@st.composite
def yandex_inputs(draw: st.DrawFn) -> tuple[dict, dict]:
    """Truth over some items, actual over others: shared, truth-only (unclustered),
    actual-only (unlabelled)."""
    n = draw(st.integers(1, 12))
    truth_ids = draw(st.sets(st.integers(0, n - 1), min_size=1))
    actual_ids = draw(st.sets(st.integers(0, n + 3), min_size=1))
    if not truth_ids & actual_ids:
        actual_ids |= {min(truth_ids)}
    k_t = draw(st.integers(1, 4))
    k_a = draw(st.integers(1, 4))
    truth = {f"i{i}": f"g{draw(st.integers(0, k_t - 1))}" for i in sorted(truth_ids)}
    actual = {f"i{i}": f"c{draw(st.integers(0, k_a - 1))}" for i in sorted(actual_ids)}
    return truth, actual


@HYPOTHESIS
@given(data=yandex_inputs())
def test_yandex_matches_reference(eng: object, data: tuple[dict, dict]) -> None:
    truth, actual = data
    with tempfile.TemporaryDirectory() as tmp:
        y, themes = yandex_run(eng, truth, actual, tmp)
    for kind, optimistic in (("basic", False), ("optimistic", True)):
        ref = yandex_metrics(truth, actual, optimistic=optimistic)
        for m in ("ecc", "bcp", "bcr", "bcf1"):
            assert close(y[kind][m], ref[m]), (kind, m)
        assert set(themes) == set(ref["themes"])
        for g, t in ref["themes"].items():
            assert close(themes[g][f"ecc_{kind}"], t["ecc"]), (g, kind)
            assert close(themes[g][f"bcp_{kind}"], t["bcp"]), (g, kind)
            assert close(themes[g]["bcr"], t["bcr"]), g
            assert close(themes[g][f"bcf1_{kind}"], t["bcf1"]), (g, kind)
    # the worst themes: ECC (basic) ascending among themes with ECC < 1, at most `top`
    ref = yandex_metrics(truth, actual, optimistic=False)["themes"]
    want = sorted(t["ecc"] for t in ref.values() if t["ecc"] < 1 - 1e-12)[:10]
    got = y["worst_themes"]
    assert len(got) == len(want)
    assert all(close(a["ecc_basic"], b) for a, b in zip(got, want, strict=True))
    for row in got:
        assert close(row["bcf1_basic"], ref[row["cluster_id"]]["bcf1"])


# ------------------------------------------------------------ several runs, UIR


def test_runs_compared_pairwise(eng: object) -> None:
    """Deltas are experiment − baseline; UIR(experiment, baseline) over truth clusters
    counts the cases where one run is ≥ on both precision and recall."""
    truth = {"a": 1, "b": 1, "c": 2, "d": 2, "e": 3, "f": 3}
    perfect = dict(truth)
    split = {"a": 1, "b": 9, "c": 2, "d": 2, "e": 3, "f": 3}  # worse recall on case 1
    merged = {"a": 1, "b": 1, "c": 1, "d": 1, "e": 3, "f": 3}  # worse precision on 1, 2
    res = evaluate(truth, [split, perfect, merged], names=["split", "perfect", "merged"],
                   engine=eng)
    assert [r.name for r in res.runs] == ["split", "perfect", "merged"]
    assert [(c["baseline"], c["experiment"]) for c in res.comparisons] == [
        ("split", "perfect"), ("split", "merged"), ("perfect", "merged")]
    sp = res.comparisons[0]
    assert sp["deltas"]["overall"]["recall"] == pytest.approx(
        res.run("perfect").overall["recall"] - res.run("split").overall["recall"])
    # perfect ≥ split on all 3 cases, split ≥ perfect on the 2 ties → (3 − 2)/3
    assert sp["uir"]["value"] == pytest.approx(1 / 3)
    assert (sp["uir"]["experiment_ge_baseline"], sp["uir"]["ties"]) == (3, 2)
    m = res.uir["matrix"]
    assert m["perfect"]["split"] == pytest.approx(1 / 3) == -m["split"]["perfect"]
    # split vs merged: case 1 split has P 1, R 1/2 vs merged P 1/2, R 1 → biased;
    # case 2 split P 1, R 1 vs merged P 1/2, R 1 → split ≥; case 3 tie.
    assert m["split"]["merged"] == pytest.approx((2 - 1) / 3)
    assert res.uir["reference_systems"]["split"]["reference"] == "perfect"
    assert res.uir["f_alpha"]["perfect"]["0.5"] == 1.0
    with pytest.raises(InputError):
        evaluate(truth, [split, perfect], names=["x", "x"], engine=eng)
    with pytest.raises(InputError):
        evaluate(truth, split, uir_metrics="jaccard_distance", engine=eng)


def test_uir_cases_by_slice(eng: object) -> None:
    truth = {"a": 1, "b": 1, "c": 2, "d": 2}
    attrs = {"a": {"lang": "en"}, "b": {"lang": "en"}, "c": {"lang": "de"},
             "d": {"lang": "de"}}
    worse = {"a": 1, "b": 2, "c": 3, "d": 3}
    res = evaluate(truth, [worse, truth], names=["worse", "truth_copy"], attributes=attrs,
                   uir_cases="slice:lang", engine=eng)
    assert res.uir["cases"] == "slice:lang" and res.uir["n_cases"] == 2
    # "en" is split in worse: truth_copy ≥ worse there; "de" is equal: a tie.
    assert res.uir["matrix"]["truth_copy"]["worse"] == pytest.approx((2 - 1) / 2)


def write_csv(path: Path, header: str, rows: list[tuple[object, object]]) -> Path:
    path.write_text(header + "\n" + "".join(f"{a},{b}\n" for a, b in rows))
    return path


def test_identical_partitions_shuffled_and_renamed_tie(eng: object, tmp_path: Path) -> None:
    """The same partition with renamed clusters and shuffled rows scores each truth
    cluster identically (as exact rationals): UIR 0 with every case tied, parametric UIR
    0 — although the engine's per-case sums, taken in another order, differ in their last
    bits (compared exactly they produce spurious wins)."""
    rng = random.Random(5)
    truth = {f"i{j}": f"g{rng.randrange(20)}" for j in range(1000)}
    run = {i: f"{g}_{rng.random() < 0.5}" for i, g in truth.items()}
    items = list(run)
    rng.shuffle(items)
    t = write_csv(tmp_path / "t.csv", "item_id,cluster_id", list(truth.items()))
    r1 = write_csv(tmp_path / "r1.csv", "item_id,cluster_id", list(run.items()))
    r2 = write_csv(tmp_path / "r2.csv", "item_id,cluster_id", [(i, "Z" + run[i]) for i in items])
    w = write_csv(tmp_path / "w.csv", "item_id,weight", [(i, rng.random()) for i in truth])
    res = evaluate(t, [r1, r2], w, engine=eng, top=0)
    (cmp_,) = res.comparisons
    u = cmp_["uir"]
    assert (u["value"], u["ties"], u["biased"], u["n_cases"]) == (0.0, 20, 0, 20)
    assert u["parametric"]["value"] == 0.0
    assert res.uir["matrix"] == {"r1": {"r1": 0.0, "r2": 0.0}, "r2": {"r1": 0.0, "r2": 0.0}}
    assert "no difference" in u["reading"]
    for m, d in cmp_["deltas"]["overall"].items():
        assert d == pytest.approx(0, abs=1e-12), m


def test_one_uir_per_pair_and_f_alpha_over_the_uir_metrics(eng: object) -> None:
    """A run lacking truth cluster 3 entirely: the pairwise comparisons and the matrix
    use the same cases (those every run has), so each pair has one UIR."""
    truth = {"a": 1, "b": 1, "c": 2, "d": 2, "e": 3, "f": 3}
    split = {"a": 1, "b": 9, "c": 2, "d": 2, "e": 3, "f": 3}
    perfect = dict(truth)
    partial = {"a": 1, "b": 1, "c": 2, "d": 7}  # no item of truth cluster 3
    res = evaluate(truth, [split, perfect, partial], names=["split", "perfect", "partial"],
                   engine=eng)
    assert res.uir["n_cases"] == 2 and res.uir["cases_excluded"] == 1
    for c in res.comparisons:
        assert c["uir"]["n_cases"] == 2 and c["uir"]["cases_excluded"] == 1
        assert c["uir"]["value"] == res.uir["matrix"][c["experiment"]][c["baseline"]]
    # on cases 1, 2: perfect ≥ split on both (tie on 2) → (2 − 1)/2
    sp = res.comparisons[0]
    assert sp["uir"]["value"] == pytest.approx(1 / 2)
    assert "perfect" in sp["uir"]["reading"] and "split" in sp["uir"]["reading"]
    assert res.uir["f_alpha_metrics"] == ["precision", "recall"]
    # f1 and accuracy: α weighs f1 (the first); mean over the cases of F_α(f1, accuracy)
    res2 = evaluate(truth, [split, perfect], names=["split", "perfect"],
                    uir_metrics="accuracy,f1", engine=eng)
    assert res2.uir["f_alpha_metrics"] == ["accuracy", "f1"]
    assert res2.uir["f_alpha"]["perfect"]["0.5"] == 1.0
    # split, truth cluster 1 = {a, b}: cells (1, 1) and (1, 9), each of one item of
    # weight 1; f1 per cell 2·1/(2 + 1) = 2/3 (both). Accuracy: W = 6, the split pair
    # is the only error: FN of each cell 1 → (6 − 1)/6. Cases 2 and 3: all 1.
    f_half = 1 / (0.5 / (5 / 6) + 0.5 / (2 / 3))
    assert res2.uir["f_alpha"]["split"]["0.5"] == pytest.approx((f_half + 2) / 3)
    res3 = evaluate(truth, [split, perfect], uir_metrics="precision,recall,f1", engine=eng)
    assert res3.uir["f_alpha"] is None and "two metrics" in res3.uir["f_alpha_note"]


def test_f_alpha_sweep_refuses_bad_alphas_with_one_run_as_with_two(eng: object) -> None:
    """With one run the sweep runs in SQL: alphas=[2.0] gave an F_α (no weighted mean of
    P and R), NaN an engine error and [] nothing; with two the sweep refused them. Both
    now refuse them before the work; α in [0, 1] is unchanged (F_α of P = 1, R = 1/2)."""
    truth = {"a": 1, "b": 1}
    split = {"a": 1, "b": 2}
    for alphas in ([2.0], [-0.1], [float("nan")], [], ["a"], 0.5):
        for runs in (1, 2):
            with pytest.raises(InputError, match="alpha"):
                evaluate(truth, [split] * runs, names=["x", "y"][:runs], alphas=alphas,
                         engine=eng)
    res = evaluate(truth, split, alphas=(0, 0.5, 1), engine=eng)
    # per item: precision 1 (each actual cluster is pure), recall 1/2
    assert res.uir["f_alpha"]["run_1"] == pytest.approx({"0": 0.5, "0.5": 2 / 3, "1": 1.0})


def test_a_dict_of_dataframes_is_the_runs_named_by_its_keys(eng: object) -> None:
    """evaluate(truth, {'split': df_a, 'perfect': df_b}) read the dict as one clustering
    {item: cluster} of the items 'split' and 'perfect', refused as sharing no item with
    the truth; it is the runs, named by the keys, as a list with names= gives them."""
    import pandas as pd

    truth = {"a": 1, "b": 1, "c": 2, "d": 2}
    split = {"a": 1, "b": 9, "c": 2, "d": 2}

    def frame(c: dict) -> pd.DataFrame:
        return pd.DataFrame({"item_id": list(c), "cluster_id": list(c.values())})

    got = evaluate(truth, {"split": frame(split), "perfect": frame(truth)}, engine=eng)
    assert [r.name for r in got.runs] == ["split", "perfect"]
    assert got.runs[1].overall["precision"] == got.runs[1].overall["recall"] == 1.0
    # split: a and b lose half their truth cluster ([PW] recall 1/2 each), c, d none
    assert got.runs[0].overall["precision"] == 1.0
    assert got.runs[0].overall["recall"] == pytest.approx(0.75)
    with pytest.raises(InputError, match="keys of a dict of runs"):
        evaluate(truth, {"split": frame(split)}, names=["x"], engine=eng)


def test_run_names_from_tables_and_unsafe_names(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE SCHEMA s1; CREATE SCHEMA s2")
    for table in ("truth", "run_v1", "run_v2", "s1.run", "s2.run"):
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM (VALUES ('a', 'x'), ('b', 'x'))"
                    " AS t(item_id, cluster_id)")
    con.close()
    res = evaluate("main.truth", ["main.run_v1", "run_v2"], db=db, uir_cases=None)
    assert [r.name for r in res.runs] == ["run_v1", "run_v2"]
    res = evaluate("truth", ["s1.run", "s2.run"], db=db, uir_cases=None)
    assert [r.name for r in res.runs] == ["run_1", "run_2"]  # the same table name twice
    assert run_names([EXAMPLES / "base.csv", "dir.v2/exp.parquet", {}], None) == [
        "base", "exp", "run_3"]
    assert run_names(["a.csv", "b.csv"], [None, "new"]) == ["a", "new"]
    for bad in ("../esc", "a/b", "a\\b", "..", ".", "", "tab\there", "nl\n"):
        with pytest.raises(InputError, match="cannot be used"):
            run_names(["x.csv"], [bad])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_evaluation_sql_divides_only_doubles(eng: object, dialect: str) -> None:
    """docs/method.md §11.1: every division has both operands cast to DOUBLE (Snowflake keeps 6
    decimals of an integer or decimal quotient, Spark divides decimals exactly), no LOG
    (log10 on DuckDB), no integer division — in every evaluation step."""
    attrs = {"i1": {"part": "a"}, "i2": {"part": "b"}, "i3": {"part": "b"}}
    inputs = open_inputs(eng, InputSpec(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT, attrs,
                                          slicings=(("part",),), roles=("truth", "actual")))
    p = evaluation_pipeline(inputs, [["part"]])
    p.add("worst", render("evaluate/worst_clusters.sql", relation="truth_clusters",
                          metrics=POINTWISE_METRICS, k=3))
    p.add("worst_themes", render("evaluate/yandex_worst_themes.sql", k=3))
    for name in p.steps:
        tree = sqlglot.parse_one(to_sql(p.query(name), dialect), read=dialect)
        assert not list(tree.find_all(exp.Log)), name
        assert not list(tree.find_all(exp.IntDiv)), name
        for div in tree.find_all(exp.Div):
            for side in (div.this, div.expression):
                node = side.this if isinstance(side, exp.Nullif) else side
                assert isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.DOUBLE, (
                    name, div.sql(dialect))


def test_one_run_fetches_nothing_per_cluster() -> None:
    """Issue 16: nothing proportional to the number of clusters leaves the engine unless
    asked for — with one run the UIR cases (every truth cluster) are counted and swept in
    SQL; with two runs, which UIR compares, they are fetched."""
    from abcde.engines.duckdb import DuckDBEngine
    from abcde.evaluation.run import evaluate

    ex = Path(__file__).resolve().parents[2] / "examples"
    truth, base, exp, weights = (str(ex / f"{n}.csv") for n in ("truth", "base", "exp",
                                                                 "weights"))

    class Counting(DuckDBEngine):
        largest = 0

        def fetch(self, sql: str) -> list[dict[str, object]]:
            rows = super().fetch(sql)
            Counting.largest = max(Counting.largest, len(rows))
            return rows

    with Counting() as engine:
        one = evaluate(truth, base, weights, engine=engine)
        assert one.uir is not None and one.uir["n_cases"] == 181
        assert Counting.largest <= 10  # the top lists
        Counting.largest = 0
        evaluate(truth, [base, exp], weights, engine=engine)
        assert Counting.largest >= 181


def test_out_is_left_as_it_was_when_the_uir_part_is_interrupted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs' files were committed before the comparisons and UIR were computed: with
    many truth clusters that part takes a while, and Ctrl-C (or SIGTERM, exit 143) there
    left --out replaced although the command failed (README: outputs left as they were)."""
    import abcde.evaluation.run as run_module

    truth, out = tmp_path / "truth.csv", tmp_path / "out"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\nd,2\ne,3\n")
    runs = []
    for k, clusters in enumerate(("xyyyz", "xxxxx")):
        runs.append(tmp_path / f"r{k}.csv")
        runs[-1].write_text("item_id,cluster_id\n" + "".join(
            f"{i},{c}\n" for i, c in zip("abcde", clusters, strict=True)))
    evaluate(truth, runs, out=out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "compare_runs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        evaluate(truth, runs, out=out, out_format="csv")
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "r0.csv", "r1.csv", "truth.csv"]


def test_uir_options_as_one_object_or_as_keywords(eng: object) -> None:
    """`uir=UirOptions(...)` and today's keywords (uir_cases, uir_metrics, alphas,
    uir_rel_tol) set the same options, checked once, each refusal naming its option."""
    from abcde.evaluation.run import UirOptions

    truth = {"a": 1, "b": 1, "c": 2, "d": 2}
    split = {"a": 1, "b": 9, "c": 2, "d": 2}
    options = UirOptions(metrics="accuracy,f1", alphas=(0, 1), rel_tol=0.0)
    by_object = evaluate(truth, [split, truth], names=["s", "t"], uir=options, engine=eng)
    by_keywords = evaluate(truth, [split, truth], names=["s", "t"], engine=eng,
                           uir_metrics=["accuracy", "f1"], alphas=[0, 1], uir_rel_tol=0)
    assert by_object.uir == by_keywords.uir
    assert by_object.uir["f_alpha_metrics"] == ["accuracy", "f1"]
    assert list(by_object.uir["f_alpha"]["t"]) == ["0", "1"]
    assert evaluate(truth, split, uir_cases=None, engine=eng).uir is None
    for keyword, value in (("uir_cases", "slice:"), ("uir_metrics", "jaccard_distance"),
                           ("uir_metrics", ""), ("alphas", []), ("uir_rel_tol", 1.0)):
        with pytest.raises(InputError) as err:
            evaluate(truth, split, engine=eng, **{keyword: value})
        assert err.value.option == keyword
