"""Tests of the brute-force reference itself: published numbers and paper identities."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import (
    IMPACT_METRICS,
    abcde_pairs,
    delta_precision_exact,
    fmeasure,
    impact_by_group,
    impact_item_metrics,
    impact_overall,
    inverse_purity,
    jaccard_pairs,
    lift,
    pair_confusion,
    pairwise_f1,
    pairwise_precision,
    pairwise_recall,
    pointwise_by_group,
    pointwise_item_metrics,
    pointwise_overall,
    purity,
    quality_by_group,
    quality_exact,
    quality_item_metrics,
    slice_of,
)
from strategies import ClusteringCase, clusterings, same_partition


def close(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def assert_close(a: float, b: float, tol: float = 1e-9) -> None:
    assert close(a, b, tol), (a, b)


# ---------------------------------------------------------------------------
# Pointwise paper, Figure 2 (docs/method.md §4)
# ---------------------------------------------------------------------------

FIG2_TRUTH = {"i1": "A", "i2": "A", "i3": "B"}
FIG2_ACTUAL = {"i1": "X", "i2": "Y", "i3": "X"}
FIG2_WEIGHT = {"i1": 1.0, "i2": 2.0, "i3": 3.0}


def F(s: str) -> float:
    return float(Fraction(s))


def test_figure2_items():
    per_item = pointwise_item_metrics(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT)
    # Figure 2 (e): TP, FP, FN, TN per item.
    assert [per_item[i][k] for i in ("i1", "i2", "i3") for k in ("tp", "fp", "fn", "tn")] == [
        1, 3, 2, 0,
        2, 0, 1, 3,
        3, 1, 0, 2,
    ]  # fmt: skip
    # Figure 2 (f): precision, recall, Jaccard distance per item.
    expected = {
        "i1": ("1/4", "1/3", "5/6"),
        "i2": ("1", "2/3", "1/3"),
        "i3": ("3/4", "1", "1/4"),
    }
    for i, (p, r, jd) in expected.items():
        assert_close(per_item[i]["precision"], F(p))
        assert_close(per_item[i]["recall"], F(r))
        assert_close(per_item[i]["jaccard_distance"], F(jd))
        assert_close(per_item[i]["jaccard_index"], 1 - F(jd))
    # Accuracy (eq. 13): (TP + TN) / weight(T).
    assert_close(per_item["i1"]["accuracy"], 1 / 6)
    assert_close(per_item["i2"]["accuracy"], 5 / 6)
    assert_close(per_item["i3"]["accuracy"], 5 / 6)


def test_figure2_aggregates():
    overall = pointwise_overall(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT)
    assert_close(overall["precision"], 3 / 4)
    assert_close(overall["recall"], 7 / 9)
    assert_close(overall["jaccard_distance"], 3 / 8)
    assert_close(overall["accuracy"], 13 / 18)
    assert_close(overall["f1_of_overall"], 2 * (3 / 4) * (7 / 9) / (3 / 4 + 7 / 9))
    # lifted item F1: (1·2/7 + 2·4/5 + 3·6/7) / 6
    assert_close(overall["f1"], (2 / 7 + 8 / 5 + 18 / 7) / 6)
    assert overall["items"] == 3 and overall["weight"] == 6

    by_ideal = pointwise_by_group(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT, FIG2_TRUTH)
    assert_close(by_ideal["A"]["precision"], 3 / 4)
    assert_close(by_ideal["A"]["recall"], 5 / 9)
    assert_close(by_ideal["A"]["jaccard_distance"], 1 / 2)
    assert_close(by_ideal["B"]["precision"], 3 / 4)
    assert_close(by_ideal["B"]["recall"], 1)
    assert_close(by_ideal["B"]["jaccard_distance"], 1 / 4)

    by_actual = pointwise_by_group(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT, FIG2_ACTUAL)
    assert_close(by_actual["X"]["precision"], 5 / 8)
    assert_close(by_actual["X"]["recall"], 5 / 6)
    assert_close(by_actual["X"]["jaccard_distance"], 19 / 48)
    assert_close(by_actual["Y"]["precision"], 1)

    sliced = pointwise_by_group(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT, {"i2": "s", "i3": "s"})
    assert_close(sliced["s"]["precision"], 17 / 20)
    assert_close(sliced["s"]["recall"], 13 / 15)
    assert_close(sliced["s"]["jaccard_distance"], 17 / 60)


def test_figure2_as_impact():
    """Truth as Base, actual as Exp: MergeRate = 1 − P, SplitRate = 1 − R ([ABCDE] §4)."""
    overall = impact_overall(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT)
    assert_close(overall["merge_rate"], 1 / 4)
    assert_close(overall["split_rate"], 2 / 9)
    assert_close(overall["jaccard_distance"], 3 / 8)
    assert overall["affected_items"] == 3
    assert_close(overall["unaffected_jaccard_index"], 0)
    assert_close(overall["affected_jaccard_index"], 5 / 8)
    # Exp cluster {i1, i3}: weight 4, JD 19/48 → contribution 4·19/48/6.
    by_exp = impact_by_group(FIG2_TRUTH, FIG2_ACTUAL, FIG2_WEIGHT, FIG2_ACTUAL)
    assert_close(by_exp["X"]["contribution"], 4 * 19 / 48 / 6)


def test_figure3_subdivision():
    """[POINTWISE] Figure 3: subdividing items of a TruePositives set keeps the metrics."""
    truth = {1: "A", 4: "A", 5: "A", 6: "B", 7: "B", 8: "B"}
    actual = {1: "X", 6: "X", 7: "X", 8: "X", 4: "Y", 5: "Y"}
    ones = dict.fromkeys(truth, 1.0)
    overall = pointwise_overall(truth, actual, ones)
    assert_close(overall["precision"], 3 / 4)
    assert_close(overall["recall"], 7 / 9)
    assert_close(overall["jaccard_distance"], 3 / 8)


def test_worked_example_quality():
    """A hand-checked ΔPrecision: Base {a,b},{c}; Exp {a,b,c}; truth {a,b,c} → merge is good."""
    base = {"a": 1, "b": 1, "c": 2}
    exp = {"a": 1, "b": 1, "c": 1}
    truth = {"a": 0, "b": 0, "c": 0}
    w = {"a": 1.0, "b": 1.0, "c": 2.0}
    assert_close(delta_precision_exact(base, exp, w, truth), 0.0)
    q = quality_exact(base, exp, w, truth)
    assert_close(q["bad_merge_rate"], 0.0)
    # MergeRate(a) = MergeRate(b) = 2/4, MergeRate(c) = 2/4 → all merges good.
    assert_close(q["good_merge_rate"], 0.5)
    truth2 = {"a": 0, "b": 0, "c": 1}
    # Precision_Base = 1, Precision_Exp = (1·2/4 + 1·2/4 + 2·2/4)/4 = 1/2.
    assert_close(delta_precision_exact(base, exp, w, truth2), -0.5)
    assert_close(quality_exact(base, exp, w, truth2)["bad_merge_rate"], 0.5)


def test_unaffected_items_are_zero():
    base = {1: "a", 2: "a", 3: "b"}
    w = {1: 1.0, 2: 2.0, 3: 3.0}
    overall = impact_overall(base, dict(base), w)
    for m in ("split_rate", "merge_rate", "jaccard_distance", "split_distance", "merge_distance"):
        assert overall[m] == 0
    assert overall["jaccard_index"] == 1
    assert overall["affected_items"] == 0 and overall["unaffected_jaccard_index"] == 1
    assert jaccard_pairs(base, base, w) == {}
    assert all(u == 0 for _, u, _ in abcde_pairs(base, base, w).values())


def test_only_common_items_count():
    base = {1: "a", 2: "a", 3: "a", 99: "a"}
    exp = {1: "x", 2: "x", 3: "y", 77: "x"}
    w = {1: 1.0, 2: 1.0, 3: 1.0, 99: 1000.0, 77: 1000.0}
    overall = impact_overall(base, exp, w)
    assert overall["items"] == 3 and overall["weight"] == 3
    assert_close(overall["split_rate"], (1 / 3 + 1 / 3 + 2 / 3) / 3)


def test_lift():
    assert lift({1: 0.0, 2: 1.0}, {1: 1.0, 2: 3.0}, [1, 2]) == 0.75
    with pytest.raises(ValueError):
        lift({}, {}, [])


def test_classic_small():
    truth = {1: "a", 2: "a", 3: "b", 4: "b"}
    actual = {1: "x", 2: "x", 3: "x", 4: "y"}
    assert pair_confusion(truth, actual) == {"tp": 1, "fp": 2, "fn": 1, "tn": 2}
    assert_close(pairwise_precision(truth, actual), 1 / 3)
    assert_close(pairwise_recall(truth, actual), 1 / 2)
    assert_close(pairwise_f1(truth, actual), 0.4)
    assert_close(purity(truth, actual), (2 + 1) / 4)
    assert_close(inverse_purity(truth, actual), (2 + 1) / 4)
    # class a: best F with x = 2·1·(2/3)/(5/3) = 4/5; class b: with x: R 1/2, P 1/3 → 2/5,
    # with y: R 1/2, P 1 → 2/3.  F = 1/2·4/5 + 1/2·2/3.
    assert_close(fmeasure(truth, actual), 0.5 * 0.8 + 0.5 * 2 / 3)


# ---------------------------------------------------------------------------
# Identities, property-based
# ---------------------------------------------------------------------------

SETTINGS = settings(max_examples=200, deadline=None)


@SETTINGS
@given(clusterings(extra_items=True))
def test_impact_identities(case: ClusteringCase):
    per_item = impact_item_metrics(case.base, case.exp, case.weight)
    assert set(per_item) == set(case.items)
    for m in per_item.values():
        assert_close(m["jaccard_distance"], m["split_distance"] + m["merge_distance"])
        assert_close(m["jaccard_index"] + m["jaccard_distance"], 1)
        for k in IMPACT_METRICS:
            assert -1e-12 <= m[k] <= 1 + 1e-12
        if not m["affected"]:
            assert m["jaccard_distance"] == 0 and m["jaccard_index"] == 1
        else:
            assert m["jaccard_distance"] > 0
    o = impact_overall(case.base, case.exp, case.weight)
    assert_close(o["jaccard_distance"], o["split_distance"] + o["merge_distance"])
    assert_close(o["jaccard_index"] + o["jaccard_distance"], 1)
    assert_close(o["jaccard_index"], o["affected_jaccard_index"] + o["unaffected_jaccard_index"])
    # Eq. 17: m(T) = m(AffectedItems)·weight(AffectedItems)/weight(T).
    affected = [i for i in case.items if per_item[i]["affected"]]
    if affected:
        for k in ("split_rate", "merge_rate", "jaccard_distance"):
            m_aff = lift({i: per_item[i][k] for i in affected}, case.weight, affected)
            assert_close(o[k], m_aff * o["affected_weight"] / o["weight"])


@SETTINGS
@given(clusterings())
def test_split_merge_symmetry(case: ClusteringCase):
    fwd = impact_overall(case.base, case.exp, case.weight)
    rev = impact_overall(case.exp, case.base, case.weight)
    assert_close(fwd["split_rate"], rev["merge_rate"])
    assert_close(fwd["merge_rate"], rev["split_rate"])
    assert_close(fwd["split_distance"], rev["merge_distance"])
    assert_close(fwd["jaccard_distance"], rev["jaccard_distance"])


@SETTINGS
@given(clusterings(attributes=True))
def test_groups_compose(case: ClusteringCase):
    """Lifted metrics of a partition average back to the overall ([POINTWISE] §3.1, 2)."""
    o = impact_overall(case.base, case.exp, case.weight)
    partitions = [case.base, case.exp, slice_of(case.attributes, ["color", "size"])]
    for group_of in partitions:
        g = impact_by_group(case.base, case.exp, case.weight, group_of)
        assert_close(sum(r["weight"] for r in g.values()), o["weight"])
        assert sum(r["items"] for r in g.values()) == o["items"]
        for k in IMPACT_METRICS:
            assert_close(sum(r["weight"] * r[k] for r in g.values()) / o["weight"], o[k])
        assert_close(sum(r["contribution"] for r in g.values()), o["jaccard_distance"])


@SETTINGS
@given(clusterings(truth=True))
def test_pointwise_identities(case: ClusteringCase):
    """Truth as Base, actual as Exp: P = 1 − MergeRate, R = 1 − SplitRate; P/R symmetry."""
    pw = pointwise_overall(case.truth, case.exp, case.weight)
    imp = impact_overall(case.truth, case.exp, case.weight)
    assert_close(pw["precision"], 1 - imp["merge_rate"])
    assert_close(pw["recall"], 1 - imp["split_rate"])
    assert_close(pw["jaccard_distance"], imp["jaccard_distance"])
    assert_close(pw["jaccard_index"] + pw["jaccard_distance"], 1)
    swapped = pointwise_overall(case.exp, case.truth, case.weight)
    assert_close(pw["precision"], swapped["recall"])
    per_item = pointwise_item_metrics(case.truth, case.exp, case.weight)
    for m in per_item.values():
        assert_close(m["tp"] + m["fp"] + m["fn"] + m["tn"], pw["weight"])
        assert 0 < m["f1"] <= 1 + 1e-12
        assert 0 < m["accuracy"] <= 1 + 1e-12


def _class_sums(pairs: dict) -> dict[str, float]:
    sums: dict[str, list[float]] = {"self": [], "split": [], "merge": [], "stable": []}
    for cls, u, _ in pairs.values():
        sums[cls].append(u)
    return {k: math.fsum(v) for k, v in sums.items()}


@SETTINGS
@given(clusterings(truth=True, extra_items=True))
def test_abcde_pairs(case: ClusteringCase):
    pairs = abcde_pairs(case.base, case.exp, case.weight)
    o = impact_overall(case.base, case.exp, case.weight)
    sums = _class_sums(pairs)
    assert_close(sums["split"], o["split_rate"])
    assert_close(sums["merge"], o["merge_rate"])
    # Every i has its self pair; pairs only run over T.
    assert {i for i, _ in pairs} == set(case.items)
    assert all(pairs[(i, i)][0] == "self" for i in case.items)
    assert all(u >= 0 for _, u, _ in pairs.values())
    # Eq. 39: ΔPrecision(T) = Σ u_ij l_ij 1(i ≡ j).
    dp = math.fsum(
        u * label for (i, j), (_, u, label) in pairs.items() if case.truth[i] == case.truth[j]
    )
    assert_close(dp, delta_precision_exact(case.base, case.exp, case.weight, case.truth))
    # ... and = Precision_Exp − Precision_Base by the pointwise definitions.
    p_exp = pointwise_overall(case.truth, case.exp, case.weight)["precision"]
    p_base = pointwise_overall(case.truth, case.base, case.weight)["precision"]
    assert_close(dp, p_exp - p_base)


@SETTINGS
@given(clusterings(truth=True, identical=False))
def test_jaccard_pairs(case: ClusteringCase):
    pairs = jaccard_pairs(case.base, case.exp, case.weight)
    o = impact_overall(case.base, case.exp, case.weight)
    sums = _class_sums(pairs)
    assert_close(sums["split"], o["split_distance"])
    assert_close(sums["merge"], o["merge_distance"])
    assert_close(sums["self"] + sums["stable"], o["affected_jaccard_index"])
    assert_close(
        math.fsum(sums.values()),
        o["split_distance"] + o["merge_distance"] + o["affected_jaccard_index"],
    )
    # The label times the weight equals the ABCDE u_ij·l_ij ([JACCARD] §6.1).
    abcde = abcde_pairs(case.base, case.exp, case.weight)
    for key, (cls, w, label) in pairs.items():
        assert cls == abcde[key][0]
        assert_close(w * label, abcde[key][1] * abcde[key][2])
    # [JACCARD] §7: ΔPrecision(T) = Σ w_ij l_ij 1(i ≡ j) over affected pairs.
    dp = math.fsum(
        w * label for (i, j), (_, w, label) in pairs.items() if case.truth[i] == case.truth[j]
    )
    assert_close(dp, delta_precision_exact(case.base, case.exp, case.weight, case.truth))


@SETTINGS
@given(clusterings(truth=True, attributes=True, identical=False))
def test_quality_identities(case: ClusteringCase):
    q = quality_exact(case.base, case.exp, case.weight, case.truth)
    o = impact_overall(case.base, case.exp, case.weight)
    assert_close(q["good_split_rate"] + q["bad_split_rate"], o["split_rate"])
    assert_close(q["good_merge_rate"] + q["bad_merge_rate"], o["merge_rate"])
    assert_close(q["good_split_distance"] + q["bad_split_distance"], o["split_distance"])
    assert_close(q["good_merge_distance"] + q["bad_merge_distance"], o["merge_distance"])
    assert_close(q["good_distance"], q["good_split_distance"] + q["good_merge_distance"])
    assert_close(q["bad_distance"], q["bad_split_distance"] + q["bad_merge_distance"])
    assert_close(q["good_distance"] + q["bad_distance"], o["jaccard_distance"])
    assert_close(q["affected_good_index"] + q["affected_bad_index"], o["affected_jaccard_index"])
    assert_close(
        q["delta_precision"],
        delta_precision_exact(case.base, case.exp, case.weight, case.truth),
    )

    # The quality metrics equal the pair-population sums restricted by judgement.
    same = {(i, j): case.truth[i] == case.truth[j] for i in case.items for j in case.items}
    ab = abcde_pairs(case.base, case.exp, case.weight)
    assert_close(
        math.fsum(u for k, (c, u, _) in ab.items() if c == "split" and not same[k]),
        q["good_split_rate"],
    )
    assert_close(
        math.fsum(u for k, (c, u, _) in ab.items() if c == "merge" and same[k]),
        q["good_merge_rate"],
    )
    jp = jaccard_pairs(case.base, case.exp, case.weight)
    assert_close(
        math.fsum(w for k, (c, w, _) in jp.items() if c == "split" and same[k]),
        q["bad_split_distance"],
    )
    assert_close(
        math.fsum(w for k, (c, w, _) in jp.items() if c == "merge" and not same[k]),
        q["bad_merge_distance"],
    )
    assert_close(
        math.fsum(w for k, (c, w, _) in jp.items() if c in ("self", "stable") and same[k]),
        q["affected_good_index"],
    )

    # [JACCARD] eq. 64: ΔPrecision(i) from the decomposition.
    for m in quality_item_metrics(case.base, case.exp, case.weight, case.truth).values():
        ji = m["good_index"] + m["bad_index"]
        md = m["good_merge_distance"] + m["bad_merge_distance"]
        sd = m["good_split_distance"] + m["bad_split_distance"]
        rhs = (m["good_index"] + m["good_merge_distance"]) / (ji + md) - (
            m["good_index"] + m["bad_split_distance"]
        ) / (ji + sd)
        assert_close(m["delta_precision"], rhs)

    # Slice contributions add up to ΔPrecision(T) ([ABCDE] App. B.2).
    by_slice = quality_by_group(
        case.base, case.exp, case.weight, case.truth, slice_of(case.attributes, ["color"])
    )
    assert_close(
        sum(r["delta_precision_contribution"] for r in by_slice.values()), q["delta_precision"]
    )


@SETTINGS
@given(clusterings(weights="int", truth=True))
def test_truth_equal_to_exp_is_perfect(case: ClusteringCase):
    """Exp = truth: no bad merges, no bad splits, and ΔPrecision ≥ 0."""
    truth = dict(case.exp)
    q = quality_exact(case.base, case.exp, case.weight, truth)
    assert_close(q["bad_split_rate"], 0)
    assert_close(q["bad_merge_rate"], 0)
    assert_close(q["affected_bad_index"], 0)
    assert q["delta_precision"] >= -1e-12


@settings(max_examples=200, deadline=None)
@given(clusterings(weights=False, truth=True, string_ids=True))
def test_classic_against_sklearn(case: ClusteringCase):
    sklearn = pytest.importorskip("sklearn.metrics.cluster")
    items = case.items
    truth = [case.truth[i] for i in items]
    actual = [case.exp[i] for i in items]
    c = pair_confusion(case.truth, case.exp)
    n = len(items)
    assert sum(c.values()) == n * (n - 1) // 2
    # sklearn's pair_confusion_matrix counts ordered pairs: C = [[TN, FP], [FN, TP]]·2.
    m = sklearn.pair_confusion_matrix(truth, actual)
    assert (m[1][1], m[0][1], m[1][0], m[0][0]) == (
        2 * c["tp"],
        2 * c["fp"],
        2 * c["fn"],
        2 * c["tn"],
    )
    # Purity = Σ_clusters max_class |∩| / n, from the contingency matrix.
    cont = sklearn.contingency_matrix(truth, actual)
    assert_close(purity(case.truth, case.exp), cont.max(axis=0).sum() / n)
    assert_close(inverse_purity(case.truth, case.exp), cont.max(axis=1).sum() / n)
    f = fmeasure(case.truth, case.exp)
    assert 0 < f <= 1 + 1e-12
    if case.truth == {i: case.exp[i] for i in items} or all(
        (case.truth[i] == case.truth[j]) == (case.exp[i] == case.exp[j])
        for i in items
        for j in items
    ):
        assert_close(f, 1.0)
        assert_close(pairwise_f1(case.truth, case.exp), 1.0)


@given(st.integers(1, 8))
def test_singletons_vs_one_cluster(n: int):
    singles = {i: i for i in range(n)}
    one = dict.fromkeys(range(n), 0)
    w = {i: float(i + 1) for i in range(n)}
    o = impact_overall(singles, one, w)
    assert_close(o["split_rate"], 0)
    total = sum(w.values())
    assert_close(o["merge_rate"], sum(w[i] * (total - w[i]) / total for i in w) / total)
    assert_close(pointwise_overall(one, singles, w)["precision"], 1)


@settings(max_examples=100, deadline=None)
@given(clusterings(min_items=2, identical=False), clusterings(identical=True))
def test_strategy_identical_switch(changed: ClusteringCase, same: ClusteringCase):
    items = changed.items
    assert not same_partition([changed.base[i] for i in items], [changed.exp[i] for i in items])
    assert impact_overall(changed.base, changed.exp, changed.weight)["affected_items"] >= 2
    assert impact_overall(same.base, same.exp, same.weight)["jaccard_distance"] == 0
