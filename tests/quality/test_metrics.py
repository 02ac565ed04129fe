"""The metric table's estimators (ABCDE §5.7–5.8; Jaccard decomposition §6–8;
docs/method.md §8.2–8.8).

Independent checks: exact recovery of the brute-force metric values of
``tests/reference.py`` when the "sample" is the whole pair population with draw counts
proportional to the design's q_ij (``reference.mixture_pairs``), at α = 0.5, 1 and 0;
ratios, SEs and intervals by hand; the undefined, bounded and exact cases.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from reference import impact_overall, mixture_pairs, quality_by_group, quality_exact, self_pair_sums
from scipy.stats import binomtest
from toy_draws import TOY_MANIFEST, draw_rows, manifest

from abcde.quality.estimate import estimate_from_draws
from abcde.quality.intervals import interval, poisson_lower, weighted_mean_se
from abcde.quality.metrics import METRIC_KEYS
from abcde.sampling.pairs import CLASS_KEYS

# 12, 13 are affected but weight(Base) = weight(Exp) = 6: their stable pairs have u = 0
BASE = {1: "A", 2: "A", 3: "A", 4: "B", 5: "B", 6: "C", 7: "D", 8: "E", 9: "E", 10: "F",
        11: "F", 12: "G", 13: "G", 14: "G", 15: "H", 16: "J", 17: "J", 18: "K"}
EXP = {1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c", 7: "d", 8: "e", 9: "f", 10: "g",
       11: "g", 12: "h", 13: "h", 15: "h", 14: "i", 16: "j", 17: "j", 18: "j"}
TRUTH = {1: 0, 2: 0, 3: 0, 4: 0, 5: 1, 6: 2, 7: 3, 8: 4, 9: 5, 10: 6, 11: 7, 12: 8, 13: 8,
         14: 9, 15: 8, 16: 10, 17: 10, 18: 11}
WEIGHT = {1: 1.0, 2: 2.0, 3: 3.0, 4: 1.0, 5: 2.0, 6: 1.0, 7: 4.0, 8: 2.0, 9: 5.0, 10: 1.0,
          11: 1.0, 12: 1.0, 13: 2.0, 14: 3.0, 15: 3.0, 16: 1.0, 17: 2.0, 18: 1.0}
COLOR = {1: "red", 2: "blue", 3: "red", 4: "blue", 5: "red", 6: "blue", 7: "red", 8: "red",
         9: "blue", 10: "red", 11: "blue", 12: "red", 13: "blue", 14: "red", 15: "blue",
         16: "red", 17: "blue", 18: "red"}
SCALE = 10**9


def class_key(v: dict[str, Any]) -> str:
    if v["class"] != "stable":
        return str(v["class"])
    return {1.0: "stable_plus", -1.0: "stable_minus", 0.0: "stable_zero"}[v["label"]]


def whole_population(alpha: float) -> tuple[dict[str, Any], dict[int, str], dict[str, Any]]:
    """Every pair i ≠ j the design draws, with draw counts round(q_ij·10⁹), its verdict
    from TRUTH, and a manifest computed by brute force."""
    every = mixture_pairs(BASE, EXP, WEIGHT, 0.5)  # every pair i ≠ j
    pairs = mixture_pairs(BASE, EXP, WEIGHT, alpha)
    keys = sorted(pairs)
    ids = {frozenset(k): n for n, k in enumerate(sorted({frozenset(k) for k in keys},
                                                        key=sorted))}
    draws = {
        "pair_id": [ids[frozenset(k)] for k in keys],
        "item_i": [k[0] for k in keys],
        "item_j": [k[1] for k in keys],
        "pair_class": [pairs[k]["class"] for k in keys],
        "label": [pairs[k]["label"] for k in keys],
        "draw_count": [round(pairs[k]["q"] * SCALE) for k in keys],
        "u_over_w": [pairs[k]["u"] / pairs[k]["w"] for k in keys],
        "color": [COLOR[k[0]] for k in keys],
    }
    verdicts = {ids[frozenset(k)]: "equivalent" if TRUTH[k[0]] == TRUTH[k[1]]
                else "not_equivalent" for k in keys}
    u = {k: math.fsum(v["u"] for v in every.values() if class_key(v) == k) for k in CLASS_KEYS}
    w = {k: math.fsum(v["w"] for v in every.values() if class_key(v) == k) for k in CLASS_KEYS}
    selves = self_pair_sums(BASE, EXP, WEIGHT)
    total = math.fsum(WEIGHT.values())
    slices = []
    for c in ("red", "blue"):
        row: dict[str, Any] = {"color": c,
                               "weight": math.fsum(WEIGHT[i] for i in COLOR if COLOR[i] == c)}
        for key in ("split", "merge", "stable_plus", "stable_minus"):
            row[key] = math.fsum(v["u"] for p, v in every.items()
                                 if COLOR[p[0]] == c and class_key(v) == key)
        per_item = {i: WEIGHT[i] ** 2 / total for i in COLOR if COLOR[i] == c}
        row["self_delta_precision"] = _self_dp(per_item)
        row["pairweight"] = sum(row[k] for k in ("split", "merge", "stable_plus",
                                                 "stable_minus")) + _self_abs(per_item)
        slices.append(row)
    m = manifest(u, w, alpha=alpha, exact={k: selves[k] for k in ("delta_precision",
                                                                  "affected_good_index")},
                 metrics={**impact_overall(BASE, EXP, WEIGHT),
                          "weight": math.fsum(WEIGHT.values())},
                 slices=slices)
    m["weight"] = total
    return draws, verdicts, m


def _cluster_weights(i: int) -> tuple[float, float]:
    items = list(BASE)
    w_b = math.fsum(WEIGHT[j] for j in items if BASE[j] == BASE[i])
    w_e = math.fsum(WEIGHT[j] for j in items if EXP[j] == EXP[i])
    return w_b, w_e


def _self_dp(per_item: dict[int, float]) -> float:
    """Σ_{i∈I} u_ii·l_ii = Σ w_i²/W·(1/W_e − 1/W_b) (ABCDE eq. 58 at j = i)."""
    out = 0.0
    for i, x in per_item.items():
        w_b, w_e = _cluster_weights(i)
        out += x * (1 / w_e - 1 / w_b)
    return out


def _self_abs(per_item: dict[int, float]) -> float:
    out = 0.0
    for i, x in per_item.items():
        w_b, w_e = _cluster_weights(i)
        out += x * abs(1 / w_e - 1 / w_b)
    return out


@pytest.mark.parametrize("alpha", [0.5, 1.0, 0.0])
def test_exact_recovery_from_the_whole_population(alpha: float) -> None:
    """Every metric equals its brute-force value (reference.quality_exact, from the
    definitions) when each pair is drawn ∝ q_ij: the importance weights undo the design
    exactly, whatever α (at α = 1 the affected indexes are not available: the design
    never draws the stable pairs with W_b = W_e). Slices too (App. B)."""
    draws, verdicts, m = whole_population(alpha)
    out = estimate_from_draws(draws, verdicts, m)
    exact = quality_exact(BASE, EXP, WEIGHT, TRUTH)
    for key in METRIC_KEYS:
        if alpha == 1 and key.startswith("affected"):
            assert out[key]["estimate"] is None and key in out["unavailable"]
            assert "never draws" in out["unavailable"][key]
            continue
        assert out[key]["estimate"] == pytest.approx(exact[key], rel=1e-7, abs=1e-9), key
        assert out[key]["se"] is not None and out[key]["se"] >= 0
    by_color = quality_by_group(BASE, EXP, WEIGHT, TRUTH, COLOR)
    for row in out["slices"]:
        want = by_color[row["slice"]["color"]]
        assert row["delta_precision"]["estimate"] == pytest.approx(
            want["delta_precision"], rel=1e-7, abs=1e-9)
        assert row["contribution"]["estimate"] == pytest.approx(
            want["delta_precision_contribution"], rel=1e-7, abs=1e-9)
    contributions = math.fsum(r["contribution"]["estimate"] for r in out["slices"])
    assert contributions == pytest.approx(exact["delta_precision"], rel=1e-7, abs=1e-9)


def test_exact_world_has_every_class() -> None:
    draws, _, m = whole_population(0.5)
    assert set(draws["pair_class"]) == {"split", "merge", "stable"}
    assert {k for k in CLASS_KEYS if m["classes"][k]["w"] > 0} == set(CLASS_KEYS)


def test_a_part_is_its_total_times_a_weighted_share_with_a_wilson_interval() -> None:
    """BadSplitRate = SplitRate × Σ k r v / Σ k r with r = L/(α L + (1 − α) κ) (docs/method.md
    §6.9, §8.2), its SE the linearised ratio's (Kirchner Case I when all are judged) and
    its interval the modified Wilson interval at the effective sample size."""
    m = manifest({"split": 0.3, "merge": 0.1}, {"split": 0.2, "merge": 0.3}, alpha=0.5)
    kappa = 0.4 / 0.5
    rows = [(1, "a", "b", "split", -1.0, 2, 1.5), (2, "c", "d", "split", -1.0, 1, 3.0),
            (3, "e", "f", "split", -1.0, 3, 1.0), (4, "g", "h", "merge", 1.0, 1, 2.0)]
    verdicts = {1: "equivalent", 2: "not_equivalent", 3: "equivalent", 4: "equivalent"}
    out = estimate_from_draws(draw_rows(*rows), verdicts, m)
    r = [L / (0.5 * L + 0.5 * kappa) for L in (1.5, 3.0, 1.0)]
    mean, _ = weighted_mean_se([1, 0, 1], r, [2, 1, 3])
    # the ratio's linearised SE: N/(N − 1) · Σ k r² (x − p̂)² / (Σ k r)²
    k, x = [2, 1, 3], [1, 0, 1]
    se = math.sqrt(6 / 5 * sum(kk * rr * rr * (xx - mean) ** 2 for kk, rr, xx in zip(
        k, r, x, strict=True)) / sum(kk * rr for kk, rr in zip(k, r, strict=True)) ** 2)
    bad = out["bad_split_rate"]
    assert bad["estimate"] == pytest.approx(0.3 * mean)
    assert bad["se"] == pytest.approx(0.3 * se)
    n_eff = bad["n_eff"]
    low, high = interval(mean, n_eff)
    assert (bad["ci_low"], bad["ci_high"]) == pytest.approx((0.3 * low, 0.3 * high))
    assert bad["interval"] == "wilson" and bad["exact"] == 0.0
    good = out["good_split_rate"]
    assert good["estimate"] + bad["estimate"] == pytest.approx(0.3, abs=1e-15)
    # the distances weight the same draws toward w: r_w = κ/(α L + (1 − α) κ)
    rw = [kappa / (0.5 * L + 0.5 * kappa) for L in (1.5, 3.0, 1.0)]
    mean_w, _ = weighted_mean_se([1, 0, 1], rw, [2, 1, 3])
    assert out["bad_split_distance"]["estimate"] == pytest.approx(0.2 * mean_w)


def test_delta_precision_adds_the_exact_self_part_and_signed_parts() -> None:
    """ΔPrecision = exact + Σ sign·T·p̂ (ABCDE eq. 39 by class), interval by MOVER with the
    split part flipped; every importance weight 1 here (u = w per class, L = 1)."""
    rows = [(1, "a", "b", "split", -1.0, 2), (2, "c", "d", "split", -1.0, 1),
            (3, "e", "f", "merge", 1.0, 1), (4, "g", "h", "stable", 1.0, 3),
            (5, "i", "k", "stable", 1.0, 1)]
    verdicts = {1: "equivalent", 2: "not_equivalent", 3: "not_equivalent", 4: "equivalent",
                5: "not_equivalent"}
    out = estimate_from_draws(draw_rows(*rows), verdicts, TOY_MANIFEST)
    dp = out["delta_precision"]
    p_split, p_merge, p_plus = 2 / 3, 0.0, 3 / 4
    assert dp["estimate"] == pytest.approx(0.05 - 0.2 * p_split + 0.1 * p_merge + 0.2 * p_plus)
    assert dp["interval"] == "mover" and dp["exact"] == 0.05
    assert dp["ci_low"] < dp["estimate"] < dp["ci_high"]
    # the split part counts negatively: its upper limit lowers ΔPrecision's lower limit
    _, hi_s = interval(p_split, out["bad_split_rate"]["n_eff"])
    lo_m, _ = interval(p_merge, out["good_merge_rate"]["n_eff"])
    # 4 draws of weight 1: p̂(1 − p̂)/SE² = N − 1 = 3 effective draws (docs/method.md §8.8)
    lo_p, _ = interval(p_plus, 3.0)
    below = math.sqrt((0.2 * (hi_s - p_split)) ** 2 + (0.1 * (p_merge - lo_m)) ** 2
                      + (0.2 * (p_plus - lo_p)) ** 2)
    assert dp["ci_low"] == pytest.approx(dp["estimate"] - below)


def test_class_drawn_but_never_judged_is_undefined_not_zero() -> None:
    """A rate of a class drawn but never judged is undefined (ABCDE §5.8: its share cannot
    be reweighted); in ΔPrecision that class's part is bounded by [0, T], never 0."""
    draws = draw_rows((1, "a", "c", "stable", 1.0, 4), (2, "a", "b", "split", -1.0, 3))
    out = estimate_from_draws(draws, {1: "equivalent", 2: "unknown"}, TOY_MANIFEST)
    for key in ("good_split_rate", "bad_split_rate"):
        assert out[key]["estimate"] is None and "none has a verdict" in out[key]["note"]
    dp = out["delta_precision"]
    assert "split pairs were drawn but none has a verdict: its part is bounded by [0, 0.2]" \
        in dp["note"]
    assert dp["ci_high"] - dp["ci_low"] >= 0.2 and "not conclusive" in out["verdict"]
    # merge pairs exist in the population but none was drawn: a rate is undefined ...
    assert out["good_merge_rate"]["estimate"] is None
    assert "no merge pairs were drawn" in out["good_merge_rate"]["note"]


def test_an_undrawn_part_of_a_sum_is_bounded_by_its_total() -> None:
    """... while ΔPrecision keeps the undrawn merge part within [0, MergeRate] (Wilson at
    n = 0), says so, and is not conclusive when that part matters."""
    draws = draw_rows((1, "a", "c", "stable", 1.0, 4), (2, "a", "b", "split", -1.0, 3))
    out = estimate_from_draws(draws, {1: "equivalent", 2: "equivalent"}, TOY_MANIFEST)
    dp = out["delta_precision"]
    assert "no merge pair drawn: its part is bounded by [0, 0.1]" in dp["note"]
    assert dp["estimate"] == pytest.approx(0.05 - 0.2 + 0.1 * 0.5 + 0.2)
    assert dp["ci_high"] - dp["ci_low"] > 0.1
    # the judged parts' limits bracket their sum: the unknown part's ±0.05 is added whole
    assert dp["ci_low"] <= dp["estimate"] - 0.05 and dp["ci_high"] >= dp["estimate"] + 0.05
    assert dp["not_conclusive"] and "not conclusive" in out["verdict"]


def test_empty_class_in_the_population_is_exactly_zero() -> None:
    m = manifest({"split": 0.2, "stable_plus": 0.1}, {"split": 0.2, "stable_plus": 0.1})
    draws = draw_rows((1, "a", "b", "split", -1.0, 3), (2, "b", "c", "split", -1.0, 1))
    out = estimate_from_draws(draws, {1: "equivalent", 2: "not_equivalent"}, m)
    gm = out["good_merge_rate"]
    assert (gm["estimate"], gm["se"], gm["interval"]) == (0.0, 0.0, "exact")
    assert gm["note"].startswith("exactly 0")
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.2 / 4)


def test_only_self_pairs_make_an_exact_metric() -> None:
    """A cluster shattered into singletons has no stable pair i ≠ j: AffectedGoodIndex is
    its self pairs' exact part, labelled exact — the only exact estimate there is."""
    m = manifest({"split": 0.8}, {"split": 0.8}, exact={"affected_good_index": 0.2,
                                                        "delta_precision": 0.8})
    draws = draw_rows((1, "a", "b", "split", -1.0, 3))
    out = estimate_from_draws(draws, {1: "not_equivalent"}, m)
    agi = out["affected_good_index"]
    assert (agi["estimate"], agi["ci_low"], agi["ci_high"], agi["interval"]) == (
        0.2, 0.2, 0.2, "exact")
    dp = out["delta_precision"]
    assert dp["interval"] == "wilson" and dp["ci_low"] < dp["ci_high"] == pytest.approx(0.8)


def test_single_draw_has_no_standard_error() -> None:
    draws = draw_rows((1, "a", "b", "split", -1.0, 1), (2, "c", "d", "stable", 1.0, 1))
    out = estimate_from_draws(draws, {1: "not_equivalent", 2: "equivalent"}, TOY_MANIFEST)
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.2)
    assert out["good_split_rate"]["se"] is None
    assert "fewer than two" in out["good_split_rate"]["note"]


def test_all_agreeing_verdicts_get_an_interval_of_positive_width() -> None:
    """The audit's zero-width case: every judged split pair 'not equivalent'
    (BadSplitRate 0 ± 0 from 3 pairs), and the issue's false "exact": now [0, Wilson upper
    limit at n_eff], and ΔPrecision is not labelled exact."""
    rows = [(k, f"a{k}", f"b{k}", "split", -1.0, 1) for k in (1, 2, 3)]
    rows.append((4, "c", "d", "stable", 1.0, 2))
    out = estimate_from_draws(draw_rows(*rows), {1: "not_equivalent", 2: "not_equivalent",
                                                 3: "not_equivalent", 4: "equivalent"},
                              TOY_MANIFEST)
    bad, good = out["bad_split_rate"], out["good_split_rate"]
    assert bad["estimate"] == 0.0 and bad["se"] == 0.0
    assert bad["interval"] == "wilson" and bad["n_eff"] == pytest.approx(2.0)
    # Wilson's upper limit, raised to 1 − λ_2/n because n − x = 2 ≤ 3 (Brown, Cai &
    # DasGupta 2001 §4.1.1, symmetric at the upper end)
    wilson = binomtest(0, 2).proportion_ci(method="wilson").high
    upper = 0.2 * max(wilson, 1 - poisson_lower(2.0) / 2)
    assert (bad["ci_low"], bad["ci_high"]) == pytest.approx((0.0, upper))
    assert good["estimate"] == pytest.approx(0.2) and good["ci_high"] == pytest.approx(0.2)
    assert 0 < good["ci_low"] < 0.2
    assert out["delta_precision"]["interval"] == "mover"
    assert "exact" not in out["verdict"]


def test_rare_events_get_the_poisson_lower_limit() -> None:
    """One 'bad' draw among 150: Wilson's lower limit 0.177/n would miss a p = 0.1/n; the
    modified interval (Brown, Cai & DasGupta 2001 §4.1.1) lowers it to λ_1/n."""
    low, _ = interval(1 / 150, 150)
    assert low == pytest.approx(poisson_lower(1.0) / 150)
    assert interval(1 / 150, 150, method="wilson")[0] > 0.17 / 150


def test_abcde_design_says_what_it_cannot_estimate() -> None:
    """At α = 1 the stable pairs with W_b = W_e are never drawn (q = 0): the affected
    indexes are not available, everything else is (docs/method.md §8.6)."""
    m = manifest({"split": 0.2, "stable_plus": 0.1}, {"split": 0.2, "stable_plus": 0.1,
                                                      "stable_zero": 0.05}, alpha=1.0)
    draws = draw_rows((1, "a", "b", "split", -1.0, 2), (2, "c", "d", "stable", 1.0, 1))
    out = estimate_from_draws(draws, {1: "equivalent", 2: "equivalent"}, m)
    assert set(out["unavailable"]) == {"affected_good_index", "affected_bad_index"}
    assert "u_ij = 0" in out["unavailable"]["affected_good_index"]
    for key in out["unavailable"]:
        assert out[key]["estimate"] is None and out[key]["ci_low"] is None
    assert out["good_split_distance"]["estimate"] is not None


def test_se_method_kirchner_differs_only_with_unknowns() -> None:
    draws = draw_rows(
        (2, "a", "b", "split", -1.0, 2),
        (2, "b", "a", "split", -1.0, 2),
        (3, "a", "c", "split", -1.0, 1),
        (4, "c", "d", "split", -1.0, 1),
        (5, "e", "f", "stable", 1.0, 2),
    )
    judged = {2: "equivalent", 3: "not_equivalent", 4: "equivalent", 5: "equivalent"}
    a = estimate_from_draws(draws, judged, TOY_MANIFEST)
    b = estimate_from_draws(draws, judged, TOY_MANIFEST, se_method="kirchner")
    assert a["bad_split_rate"]["se"] == pytest.approx(b["bad_split_rate"]["se"], rel=1e-12)
    some_unknown = {**judged, 4: "unknown"}
    a = estimate_from_draws(draws, some_unknown, TOY_MANIFEST)
    b = estimate_from_draws(draws, some_unknown, TOY_MANIFEST, se_method="kirchner")
    assert a["bad_split_rate"]["estimate"] == b["bad_split_rate"]["estimate"]
    assert a["bad_split_rate"]["se"] != pytest.approx(b["bad_split_rate"]["se"])


def test_heavy_tailed_weights_are_not_conclusive_even_when_the_sample_looks_tame() -> None:
    """A design whose expected effective sample size for a part is tiny (kish 0.001 per
    draw: α = 0 toward u with |l| up to 500) flags the metric, names the design's weights,
    and widens the interval to that size — although the draws' own weights are equal."""
    m = manifest({"split": 0.3, "stable_plus": 0.4}, {"split": 0.3, "stable_plus": 0.4},
                 alpha=0.5, kish=0.001)
    rows = [(k, f"a{k}", f"b{k}", "stable", 1.0, 1) for k in range(1, 200)]
    rows += [(k, f"a{k}", f"b{k}", "split", -1.0, 1) for k in range(200, 400)]
    verdicts = {k: "equivalent" for k in range(1, 400)}
    out = estimate_from_draws(draw_rows(*rows), verdicts, m)
    dp = out["delta_precision"]
    assert dp["n_eff"] < 10 and "heavy-tailed" in dp["not_conclusive"]
    assert "not conclusive" in out["verdict"]
    assert any("not conclusive" in w for w in out["warnings"])


def test_a_tiny_sample_of_evenly_weighted_pairs_is_too_small_not_heavy_tailed() -> None:
    """Five draws of evenly weighted pairs (kish 1 per draw of a class: the design's
    weights are constant) have n_design < 10 under any design: the reason names the few
    draws, not the design's weights, which are not to blame (it said 'heavy-tailed for the
    merge pairs' on the example data's mixture sample of one pair, whose merge pairs'
    weights are even to 0.3%); with kish 0.001 it names the weights."""
    rows = [(k, f"a{k}", f"b{k}", "merge", 1.0, 1) for k in range(1, 5)]
    rows.append((5, "a5", "b5", "split", -1.0, 1))
    verdicts = {1: "equivalent", 2: "not_equivalent", 3: "equivalent", 4: "not_equivalent",
                5: "equivalent"}
    for kish, blamed in ((1.0, False), (0.001, True)):
        m = manifest({"split": 0.3, "merge": 0.4}, {"split": 0.3, "merge": 0.4}, kish=kish)
        out = estimate_from_draws(draw_rows(*rows), verdicts, m)
        for key in ("good_merge_rate", "delta_precision", "bad_split_rate"):
            why = out[key]["not_conclusive"]
            assert why and ("heavy-tailed" in why) is blamed, (kish, key, why)
            if not blamed:
                assert "too few effective draws" in why and "judged draw" in why, why
