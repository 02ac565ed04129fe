"""The Yandex cluster_metrics reference against the article and hand derivations.

Article: Yandex, Habr post 500742 (2020), §3–4; docs/method.md §5.2. Every expected
value below is derived by hand, step by step, in exact fractions.
"""

from __future__ import annotations

from fractions import Fraction as Fr
from pathlib import Path

import pytest
from reference_yandex import read_assignment, yandex_metrics

DATA = Path(__file__).parents[1] / "data" / "yandex"


def f1(p: Fr, r: Fr) -> Fr:
    return 2 * p * r / (p + r)


def approx(x: Fr) -> object:
    return pytest.approx(float(x), abs=1e-12)


# ------------------------------------------------------------ article sample


@pytest.mark.parametrize("optimistic", [False, True])
def test_article_sample_files(optimistic: bool) -> None:
    """§4: ECC 0.61250, BCP 0.65125, BCR 0.65250, BCF1 0.65187, basic and optimistic."""
    truth = read_assignment(str(DATA / "sample_markup.csv"))
    actual = read_assignment(str(DATA / "sample_clusters.csv"))
    assert set(truth) == set(actual)  # no unlabelled items: optimistic = basic
    m = yandex_metrics(truth, actual, optimistic=optimistic)
    # What the program prints, to 5 decimals:
    assert f"{m['ecc']:.5f}" == "0.61250"
    assert f"{m['bcp']:.5f}" == "0.65125"
    assert f"{m['bcr']:.5f}" == "0.65250"
    assert f"{m['bcf1']:.5f}" == "0.65187"

    # By hand. Theme 1 = {a,b,c,d,e} (|g| = 5), theme 2 = {f,g,h,i} (|g| = 4);
    # cluster 1 = {a,b,c,d,g} (|c| = 5), cluster 2 = {e,f,h,i} (|c| = 4).
    # Theme 1: cluster 1 common 4 → p = 4/5, r = 4/5; cluster 2 common 1 → p = 1/4, r = 1/5.
    ecc1 = Fr(4, 5) * Fr(4, 5) + Fr(1, 5) * Fr(1, 4) * (1 - Fr(4, 5))  # 16/25 + 1/100 = 65/100
    bcp1 = (4 * Fr(4, 5) + 1 * Fr(1, 4)) / 5  # (16/5 + 1/4)/5 = 69/100
    bcr1 = (4 * Fr(4, 5) + 1 * Fr(1, 5)) / 5  # (16/5 + 1/5)/5 = 68/100
    # Theme 2: cluster 2 common 3 → p = 3/4, r = 3/4; cluster 1 common 1 → p = 1/5, r = 1/4.
    ecc2 = Fr(3, 4) * Fr(3, 4) + Fr(1, 4) * Fr(1, 5) * (1 - Fr(3, 4))  # 9/16 + 1/80 = 23/40
    bcp2 = (3 * Fr(3, 4) + 1 * Fr(1, 5)) / 4  # (9/4 + 1/5)/4 = 49/80
    bcr2 = (3 * Fr(3, 4) + 1 * Fr(1, 4)) / 4  # (9/4 + 1/4)/4 = 5/8
    assert (ecc1, bcp1, bcr1) == (Fr(65, 100), Fr(69, 100), Fr(68, 100))
    assert (ecc2, bcp2, bcr2) == (Fr(23, 40), Fr(49, 80), Fr(5, 8))
    ecc, bcp, bcr = (ecc1 + ecc2) / 2, (bcp1 + bcp2) / 2, (bcr1 + bcr2) / 2
    assert (ecc, bcp, bcr) == (Fr(245, 400), Fr(521, 800), Fr(522, 800))  # .6125 .65125 .6525
    assert m["ecc"] == approx(ecc)
    assert m["bcp"] == approx(bcp)
    assert m["bcr"] == approx(bcr)
    assert m["bcf1"] == approx(f1(bcp, bcr))  # 0.651874…
    t1, t2 = m["themes"]["1"], m["themes"]["2"]
    assert (t1["ecc"], t1["bcp"], t1["bcr"]) == (approx(ecc1), approx(bcp1), approx(bcr1))
    assert (t2["ecc"], t2["bcp"], t2["bcr"]) == (approx(ecc2), approx(bcp2), approx(bcr2))
    assert [x["cluster"] for x in t1["matchings"]] == ["1", "2"]  # common 4 then 1
    assert [x["cluster"] for x in t2["matchings"]] == ["2", "1"]  # common 3 then 1


def test_ecc_order_is_descending_intersection() -> None:
    """§3.2: clusters in non-increasing order of the intersection size.

    (The comment above the article's C++ snippet says "non-decreasing recall";
    ascending order gives theme 1 of the sample (1/5)(1/4) + (4/5)(4/5)(3/4) = 0.53,
    not 0.65, and the overall ECC would not be the printed 0.61250.)
    """
    truth = read_assignment(str(DATA / "sample_markup.csv"))
    actual = read_assignment(str(DATA / "sample_clusters.csv"))
    t1 = yandex_metrics(truth, actual, optimistic=False)["themes"]["1"]
    assert t1["ecc"] == approx(Fr(65, 100))
    ascending = Fr(1, 5) * Fr(1, 4) + Fr(4, 5) * Fr(4, 5) * (1 - Fr(1, 4))
    assert ascending == Fr(53, 100) != Fr(65, 100)


def test_article_section_2_2_precision_recall() -> None:
    """§2.2: one cluster of 25 yellow + 10 violet; 5 yellow and 2 violet outside.

    The article: precision to yellow 25/35, to violet 10/35; recall 25/30 and 10/12.
    The 7 outside points are unclustered truth items.
    """
    truth = {f"y{i}": "yellow" for i in range(30)} | {f"v{i}": "violet" for i in range(12)}
    actual = {f"y{i}": "K" for i in range(25)} | {f"v{i}": "K" for i in range(10)}
    m = yandex_metrics(truth, actual, optimistic=False)
    (yel,) = m["themes"]["yellow"]["matchings"]
    (vio,) = m["themes"]["violet"]["matchings"]
    assert (yel["precision"], yel["recall"]) == (approx(Fr(25, 35)), approx(Fr(25, 30)))
    assert (vio["precision"], vio["recall"]) == (approx(Fr(10, 35)), approx(Fr(10, 12)))
    # one cluster per theme: ECC = recall·precision, BCP = precision,
    # BCR = common·recall/|g| (the 5 yellow points outside count 0)
    assert m["themes"]["yellow"]["ecc"] == approx(Fr(25, 30) * Fr(25, 35))
    assert m["themes"]["yellow"]["bcp"] == approx(Fr(25, 35))
    assert m["themes"]["yellow"]["bcr"] == approx(25 * Fr(25, 30) / 30)
    assert m["themes"]["violet"]["bcr"] == approx(10 * Fr(10, 12) / 12)


def test_perfect_clustering_is_one() -> None:
    truth = {"a": 1, "b": 1, "c": 2, "d": 3, "e": 3}
    actual = {"a": "x", "b": "x", "c": "y", "d": "z", "e": "z"}
    for optimistic in (False, True):
        m = yandex_metrics(truth, actual, optimistic)
        assert (m["ecc"], m["bcp"], m["bcr"], m["bcf1"]) == (1.0, 1.0, 1.0, 1.0)


# ------------------------------------------------------- unlabelled items


def test_unlabelled_items_simple() -> None:
    # truth: g1 = {a, b}, g2 = {c}; actual: c1 = {a, b, x}, c2 = {c, y, z};
    # x, y, z are not in the truth (unlabelled).
    # marked(c1) = 2, |c1| = 3; marked(c2) = 1, |c2| = 3.
    truth = {"a": "g1", "b": "g1", "c": "g2"}
    actual = {"a": "c1", "b": "c1", "x": "c1", "c": "c2", "y": "c2", "z": "c2"}
    basic = yandex_metrics(truth, actual, optimistic=False)
    # basic (r = 0): g1: p = 2/3, r = 1 → ECC 2/3, BCP 2/3, BCR 1
    #                g2: p = 1/3, r = 1 → ECC 1/3, BCP 1/3, BCR 1
    # overall ECC = BCP = 1/2, BCR = 1, BCF1 = 2·(1/2)·1/(3/2) = 2/3
    assert basic["themes"]["g1"]["bcp"] == approx(Fr(2, 3))
    assert basic["themes"]["g2"]["bcp"] == approx(Fr(1, 3))
    assert (basic["ecc"], basic["bcp"], basic["bcr"]) == (approx(Fr(1, 2)), approx(Fr(1, 2)), 1.0)
    assert basic["bcf1"] == approx(Fr(2, 3))
    # optimistic (r = 1): g1: p = (2 + 1·(3 − 2))/3 = 1; g2: p = (1 + 1·(3 − 1))/3 = 1
    opt = yandex_metrics(truth, actual, optimistic=True)
    assert (opt["ecc"], opt["bcp"], opt["bcr"], opt["bcf1"]) == (1.0, 1.0, 1.0, 1.0)


def test_unlabelled_items_mixed_clusters() -> None:
    # truth: g1 = {a, b, c} (|g1| = 3), g2 = {d, e} (|g2| = 2)
    # actual: c1 = {a, b, d, x} (|c1| = 4, marked 3), c2 = {c, e, y} (|c2| = 3, marked 2)
    truth = {"a": "g1", "b": "g1", "c": "g1", "d": "g2", "e": "g2"}
    actual = {"a": "c1", "b": "c1", "d": "c1", "x": "c1", "c": "c2", "e": "c2", "y": "c2"}

    # g1: c1 common 2, r = 2/3, p_basic = 2/4, p_opt = (2 + 1)/4 = 3/4
    #     c2 common 1, r = 1/3, p_basic = 1/3, p_opt = (1 + 1)/3 = 2/3
    ecc1_b = Fr(2, 3) * Fr(1, 2) + Fr(1, 3) * Fr(1, 3) * (1 - Fr(1, 2))  # 1/3 + 1/18 = 7/18
    ecc1_o = Fr(2, 3) * Fr(3, 4) + Fr(1, 3) * Fr(2, 3) * (1 - Fr(3, 4))  # 1/2 + 1/18 = 5/9
    bcp1_b = (2 * Fr(1, 2) + 1 * Fr(1, 3)) / 3  # 4/9
    bcp1_o = (2 * Fr(3, 4) + 1 * Fr(2, 3)) / 3  # 13/18
    bcr1 = (2 * Fr(2, 3) + 1 * Fr(1, 3)) / 3  # 5/9, same in both scenarios
    assert (ecc1_b, ecc1_o, bcp1_b, bcp1_o, bcr1) == (
        Fr(7, 18), Fr(5, 9), Fr(4, 9), Fr(13, 18), Fr(5, 9),
    )  # fmt: skip
    # g2: c1 common 1, r = 1/2, p_basic = 1/4, p_opt = 2/4
    #     c2 common 1, r = 1/2, p_basic = 1/3, p_opt = 2/3 (a tie in common:
    #     r·p₁ + r·p₂(1 − p₁) is symmetric, the order does not matter)
    ecc2_b = Fr(1, 2) * Fr(1, 4) + Fr(1, 2) * Fr(1, 3) * (1 - Fr(1, 4))  # 1/8 + 1/8 = 1/4
    ecc2_o = Fr(1, 2) * Fr(1, 2) + Fr(1, 2) * Fr(2, 3) * (1 - Fr(1, 2))  # 1/4 + 1/6 = 5/12
    assert ecc2_b == Fr(1, 2) * Fr(1, 3) + Fr(1, 2) * Fr(1, 4) * (1 - Fr(1, 3))
    bcp2_b = (Fr(1, 4) + Fr(1, 3)) / 2  # 7/24
    bcp2_o = (Fr(1, 2) + Fr(2, 3)) / 2  # 7/12
    bcr2 = (Fr(1, 2) + Fr(1, 2)) / 2  # 1/2

    basic = yandex_metrics(truth, actual, optimistic=False)
    opt = yandex_metrics(truth, actual, optimistic=True)
    assert basic["themes"]["g1"]["ecc"] == approx(ecc1_b)
    assert opt["themes"]["g1"]["ecc"] == approx(ecc1_o)
    assert basic["themes"]["g2"]["bcp"] == approx(bcp2_b)
    assert opt["themes"]["g2"]["bcp"] == approx(bcp2_o)
    # overall basic: ECC (7/18 + 1/4)/2 = 23/72, BCP (4/9 + 7/24)/2 = 53/144, BCR 19/36
    assert (ecc1_b + ecc2_b) / 2 == Fr(23, 72)
    assert (bcp1_b + bcp2_b) / 2 == Fr(53, 144)
    assert (bcr1 + bcr2) / 2 == Fr(19, 36)
    assert basic["ecc"] == approx(Fr(23, 72))
    assert basic["bcp"] == approx(Fr(53, 144))
    assert basic["bcr"] == approx(Fr(19, 36))
    assert basic["bcf1"] == approx(f1(Fr(53, 144), Fr(19, 36)))
    # overall optimistic: ECC (5/9 + 5/12)/2 = 35/72, BCP (13/18 + 7/12)/2 = 47/72, BCR 19/36
    assert (ecc1_o + ecc2_o) / 2 == Fr(35, 72)
    assert (bcp1_o + bcp2_o) / 2 == Fr(47, 72)
    assert opt["ecc"] == approx(Fr(35, 72))
    assert opt["bcp"] == approx(Fr(47, 72))
    assert opt["bcr"] == approx(Fr(19, 36))  # recall ignores unlabelled items
    assert opt["bcf1"] == approx(f1(Fr(47, 72), Fr(19, 36)))


# -------------------------------------------------- unclustered truth items


def test_unclustered_truth_items_count_zero_in_bcr() -> None:
    # truth: g1 = {a, b, c, d}, g2 = {e, f}, g3 = {h}
    # actual: c1 = {a, b}, c2 = {c, e}; d, f, h are in no actual cluster.
    truth = {"a": "g1", "b": "g1", "c": "g1", "d": "g1", "e": "g2", "f": "g2", "h": "g3"}
    actual = {"a": "c1", "b": "c1", "c": "c2", "e": "c2"}
    # g1 (|g| = 4): c1 common 2 → p = 2/2 = 1, r = 2/4; c2 common 1 → p = 1/2, r = 1/4
    #   ECC = (1/2)·1 + (1/4)·(1/2)·(1 − 1) = 1/2
    #   BCP = (2·1 + 1·1/2)/3 = 5/6        (mean over the 3 clustered items a, b, c)
    #   BCR = (2·1/2 + 1·1/4 + 0)/4 = 5/16 (d counts with recall 0)
    # g2 (|g| = 2): c2 common 1 → p = 1/2, r = 1/2
    #   ECC = 1/4, BCP = 1/2, BCR = (1/2 + 0)/2 = 1/4 (f counts 0)
    # g3 (|g| = 1): nothing clustered → ECC = 0, BCR = 0, BCP undefined
    # overall: ECC = (1/2 + 1/4 + 0)/3 = 1/4; BCR = (5/16 + 1/4 + 0)/3 = 3/16;
    #   BCP over themes with BCR > 0 only: (5/6 + 1/2)/2 = 2/3 (g3 excluded; with it
    #   as 0 it would be 4/9); BCF1 = 2·(2/3)(3/16)/(2/3 + 3/16) = 12/41
    for optimistic in (False, True):  # no unlabelled items: both scenarios agree
        m = yandex_metrics(truth, actual, optimistic)
        g1, g2, g3 = (m["themes"][g] for g in ("g1", "g2", "g3"))
        assert (g1["ecc"], g1["bcp"], g1["bcr"]) == (
            approx(Fr(1, 2)), approx(Fr(5, 6)), approx(Fr(5, 16)),
        )  # fmt: skip
        assert (g2["ecc"], g2["bcp"], g2["bcr"]) == (
            approx(Fr(1, 4)), approx(Fr(1, 2)), approx(Fr(1, 4)),
        )  # fmt: skip
        assert (g3["ecc"], g3["bcp"], g3["bcr"], g3["bcf1"]) == (0.0, None, 0.0, 0.0)
        assert m["ecc"] == approx(Fr(1, 4))
        assert m["bcr"] == approx(Fr(3, 16))
        assert m["bcp"] == approx(Fr(2, 3))
        assert m["bcf1"] == approx(Fr(12, 41))
        assert f1(Fr(2, 3), Fr(3, 16)) == Fr(12, 41)
