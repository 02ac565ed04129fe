"""The metric table's estimators (ABCDE §5.7–5.8; Jaccard decomposition §6–8;
docs/method.md §8.2–8.6).

Independent checks: exact recovery of the brute-force metric values of
``tests/reference.py`` when the "sample" is the whole pair population with draw counts
exactly proportional to the pair weights, SEs by hand, the undefined and exact-zero
cases, and the importance-weighted rates of the jaccard population by hand.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from reference import abcde_pairs, impact_overall, jaccard_pairs, quality_by_group, quality_exact
from scipy.stats import binomtest
from toy_draws import ABCDE_MANIFEST, draw_rows

from abcde.quality.estimate import estimate_from_draws
from abcde.quality.intervals import (
    weighted_mean_se,
)
from abcde.quality.metrics import delta_precision, good_split_distance, metric_keys
from abcde.quality.sample import judged_sample


def test_unknowns_keep_each_class_at_its_sampled_weight() -> None:
    """Self 4 draws (l = +1, ≡), split 4 draws of which one pair (2 draws) unknown.
    The judged split draws weigh 4/2 = 2, so the mean is (4·1 + 2·2·(−1)·1(≡))/8."""
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 4),
        (2, "a", "b", "split", -1.0, 1),
        (2, "b", "a", "split", -1.0, 1),
        (3, "a", "c", "split", -1.0, 2),
    )
    out = estimate_from_draws(draws, {2: "equivalent", 3: "unknown"}, ABCDE_MANIFEST)
    assert out["delta_precision"]["estimate"] == pytest.approx(0.5 * (4 - 4) / 8)
    assert out["sample"]["classes"]["split"]["factor"] == 2.0
    assert out["sample"]["classes"]["self"]["factor"] == 1.0
    assert out["bad_split_rate"]["estimate"] == pytest.approx(0.2)
    assert out["bad_split_rate"]["pairs"] == 1 and out["bad_split_rate"]["draws"] == 2
    assert out["delta_precision"]["pairs"] == 2  # self pair + judged pair 2


BASE = {1: "A", 2: "A", 3: "A", 4: "B", 5: "B", 6: "C", 7: "D", 8: "E", 9: "E"}


EXP = {1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c", 7: "d", 8: "e", 9: "f"}


TRUTH = {1: 0, 2: 0, 3: 0, 4: 0, 5: 1, 6: 2, 7: 3, 8: 4, 9: 5}


WEIGHT = {1: 1.0, 2: 2.0, 3: 3.0, 4: 1.0, 5: 2.0, 6: 1.0, 7: 4.0, 8: 2.0, 9: 5.0}


COLOR = {
    1: "red",
    2: "blue",
    3: "red",
    4: "blue",
    5: "red",
    6: "blue",
    7: "red",
    8: "red",
    9: "blue",
}


def _whole_population(name: str) -> tuple[dict[str, Any], dict[int, str], dict[str, Any]]:
    pairs = (abcde_pairs if name == "abcde" else jaccard_pairs)(BASE, EXP, WEIGHT)
    pairs = {key: v for key, v in pairs.items() if v[1] > 0}
    exact_w = {key: Fraction(v[1]).limit_denominator(10**7) for key, v in pairs.items()}
    scale = math.lcm(*(w.denominator for w in exact_w.values()))
    ids = {frozenset(key): n for n, key in enumerate(sorted(pairs))}
    keys = sorted(pairs)
    draws = {
        "pair_id": [ids[frozenset(k)] for k in keys],
        "item_i": [k[0] for k in keys],
        "item_j": [k[1] for k in keys],
        "pair_class": [pairs[k][0] for k in keys],
        "label": [pairs[k][2] for k in keys],
        "draw_count": [int(exact_w[k] * scale) for k in keys],
        "color": [COLOR[k[0]] for k in keys],
    }
    verdicts = {
        ids[frozenset(k)]: "equivalent" if TRUTH[k[0]] == TRUTH[k[1]] else "not_equivalent"
        for k in keys
    }

    def total(classes: tuple[str, ...]) -> float:
        return math.fsum(v[1] for v in pairs.values() if v[0] in classes)

    slices = [
        {
            "color": c,
            "weight": math.fsum(WEIGHT[i] for i in COLOR if COLOR[i] == c),
            "pairweight": math.fsum(v[1] for k, v in pairs.items() if COLOR[k[0]] == c),
        }
        for c in ("red", "blue")
    ]
    manifest = {
        "population": name,
        "totals": {
            "total": total(("self", "split", "merge", "stable")),
            "split": total(("split",)),
            "merge": total(("merge",)),
            "stable": total(("self", "stable")),
        },
        "metrics": impact_overall(BASE, EXP, WEIGHT),
        "slices": slices,
    }
    return draws, verdicts, manifest


@pytest.mark.parametrize("population", ["abcde", "jaccard"])
def test_exact_recovery_from_the_whole_population(population: str) -> None:
    """Every metric equals its brute-force value (reference.quality_exact, from the
    definitions, not from u/l) when each pair is drawn ∝ its weight exactly."""
    draws, verdicts, manifest = _whole_population(population)
    out = estimate_from_draws(draws, verdicts, manifest)
    exact = quality_exact(BASE, EXP, WEIGHT, TRUTH)
    for key in metric_keys(population):
        assert out[key]["estimate"] == pytest.approx(exact[key], abs=1e-12), key
        assert out[key]["se"] is not None and out[key]["se"] >= 0
    by_color = quality_by_group(BASE, EXP, WEIGHT, TRUTH, COLOR)
    for row in out["slices"]:
        want = by_color[row["slice"]["color"]]
        assert row["delta_precision"]["estimate"] == pytest.approx(
            want["delta_precision"], abs=1e-12
        )
        assert row["contribution"]["estimate"] == pytest.approx(
            want["delta_precision_contribution"], abs=1e-12
        )
    contributions = math.fsum(r["contribution"]["estimate"] for r in out["slices"])
    assert contributions == pytest.approx(exact["delta_precision"], abs=1e-12)


def test_exact_world_has_every_class() -> None:
    draws, _, _ = _whole_population("abcde")
    assert set(draws["pair_class"]) == {"self", "split", "merge", "stable"}


def test_se_scales_with_the_multiplier() -> None:
    """SE(c·X) = c·SE(X) (ABCDE §5.8); the CI is estimate ± 1.959964·SE."""
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 3),
        (2, "a", "b", "merge", 1.0, 2),
        (3, "c", "d", "merge", 1.0, 1),
        (4, "c", "e", "split", -1.0, 2),
    )
    verdicts = {2: "equivalent", 3: "not_equivalent", 4: "equivalent"}
    s = judged_sample(draws, verdicts, "abcde")
    est = delta_precision(s, 0.5)
    mean, se = weighted_mean_se([1, 1, 0, -1], [1, 1, 1, 1], [3, 2, 1, 2])
    assert est.estimate == pytest.approx(0.5 * mean)
    assert est.se == pytest.approx(0.5 * se)
    assert est.ci_high - est.estimate == pytest.approx(1.959963984540054 * est.se)


def test_class_drawn_but_never_judged_is_undefined_not_zero() -> None:
    draws = draw_rows((1, "a", "a", "self", 1.0, 4), (2, "a", "b", "split", -1.0, 3))
    out = estimate_from_draws(draws, {2: "unknown"}, ABCDE_MANIFEST)
    for key in ("delta_precision", "good_split_rate", "bad_split_rate"):
        assert out[key]["estimate"] is None and "none has a verdict" in out[key]["note"]
    assert out["verdict"].startswith("ΔPrecision could not be estimated")
    # merge pairs exist in the population but none was drawn: undefined too
    assert out["good_merge_rate"]["estimate"] is None
    assert "no merge pairs were drawn" in out["good_merge_rate"]["note"]


def test_empty_class_in_the_population_is_exactly_zero() -> None:
    manifest = {
        "population": "abcde",
        "totals": {"total": 0.3, "split": 0.2, "merge": 0.0, "stable": 0.1},
    }
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 4),
        (2, "a", "b", "split", -1.0, 3),
        (3, "b", "c", "split", -1.0, 1),
    )
    out = estimate_from_draws(draws, {2: "equivalent", 3: "not_equivalent"}, manifest)
    assert out["good_merge_rate"]["estimate"] == 0.0 and out["good_merge_rate"]["se"] == 0.0
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.2 / 4)


def test_single_draw_has_no_standard_error() -> None:
    draws = draw_rows((1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 1))
    out = estimate_from_draws(draws, {2: "not_equivalent"}, ABCDE_MANIFEST)
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.2)
    assert (
        out["good_split_rate"]["se"] is None and "fewer than two" in out["good_split_rate"]["note"]
    )


def test_abcde_population_says_what_it_cannot_estimate() -> None:
    draws = draw_rows((1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 2))
    out = estimate_from_draws(draws, {2: "equivalent"}, ABCDE_MANIFEST)
    assert set(out["unavailable"]) == {
        "good_split_distance",
        "bad_split_distance",
        "good_merge_distance",
        "bad_merge_distance",
        "good_distance",
        "bad_distance",
        "affected_good_index",
        "affected_bad_index",
    }
    assert "W_b = W_e" in out["unavailable"]["affected_good_index"]
    # every metric key is present (a stable JSON shape), with estimate None and why
    for key in out["unavailable"]:
        assert out[key]["estimate"] is None and out[key]["ci_low"] is None
        assert out[key]["note"] == f"not available: {out['unavailable'][key]}"
    with pytest.raises(ValueError, match="jaccard population"):
        good_split_distance(judged_sample(draws, {2: "equivalent"}, "abcde"), 0.1)


def test_all_agreeing_verdicts_get_an_interval_of_positive_width() -> None:
    """The audit's zero-width case: every judged split pair 'not equivalent'
    (BadSplitRate 0 ± 0 from 3 pairs). Now [0, Wilson upper limit at n_eff]."""
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 4),
        (2, "a", "b", "split", -1.0, 1),
        (3, "c", "d", "split", -1.0, 1),
        (4, "e", "f", "split", -1.0, 1),
    )
    out = estimate_from_draws(draws, dict.fromkeys((2, 3, 4), "not_equivalent"), ABCDE_MANIFEST)
    bad, good = out["bad_split_rate"], out["good_split_rate"]
    assert bad["estimate"] == 0.0 and bad["se"] == 0.0
    assert bad["interval"] == "wilson" and bad["n_eff"] == pytest.approx(2.0)
    upper = 0.2 * binomtest(0, 2).proportion_ci(method="wilson").high
    assert (bad["ci_low"], bad["ci_high"]) == pytest.approx((0.0, upper))
    assert good["estimate"] == pytest.approx(0.2) and good["ci_high"] == pytest.approx(0.2)
    assert 0 < good["ci_low"] < 0.2


def test_jaccard_rates_are_ratios_that_add_up_to_the_rate() -> None:
    """On the jaccard population GoodSplitRate = SplitRate × Σ f k |l| 1(i≢j) / Σ f k |l|
    (importance weights |l| = u/w, Jaccard §6.1), so Good + Bad = SplitRate exactly."""
    manifest = {
        "population": "jaccard",
        "totals": {"total": 0.6, "split": 0.1, "merge": 0.2, "stable": 0.3},
        "metrics": {"split_rate": 0.15, "merge_rate": 0.25},
    }
    draws = draw_rows(
        (1, "a", "a", "self", 0.0, 2),
        (2, "a", "b", "split", -2.0, 1),
        (3, "c", "d", "split", -1.0, 3),
        (4, "e", "f", "merge", 1.5, 2),
        (5, "g", "h", "merge", 1.0, 1),
    )
    verdicts = {2: "not_equivalent", 3: "equivalent", 4: "equivalent", 5: "not_equivalent"}
    out = estimate_from_draws(draws, verdicts, manifest)
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.15 * 2 / (2 + 3))
    assert out["bad_split_rate"]["estimate"] == pytest.approx(0.15 * 3 / 5)
    assert out["good_merge_rate"]["estimate"] == pytest.approx(0.25 * 3 / 4)
    for cls in ("split", "merge"):
        total = out[f"good_{cls}_rate"]["estimate"] + out[f"bad_{cls}_rate"]["estimate"]
        assert total == pytest.approx(manifest["metrics"][f"{cls}_rate"], abs=1e-15)
    # the manifest must give the rates' multipliers on the jaccard population
    bare = {**manifest, "metrics": {}}
    out = estimate_from_draws(draws, verdicts, bare)
    assert out["good_split_rate"]["estimate"] is None
    assert "split_rate" in out["good_split_rate"]["note"]


def test_se_method_kirchner_differs_only_with_unknowns() -> None:
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 3),
        (2, "a", "b", "split", -1.0, 2),
        (2, "b", "a", "split", -1.0, 2),
        (3, "a", "c", "split", -1.0, 1),
        (4, "c", "d", "split", -1.0, 1),
    )
    judged = {2: "equivalent", 3: "not_equivalent", 4: "equivalent"}
    a = estimate_from_draws(draws, judged, ABCDE_MANIFEST)
    b = estimate_from_draws(draws, judged, ABCDE_MANIFEST, se_method="kirchner")
    assert a["delta_precision"]["se"] == pytest.approx(b["delta_precision"]["se"], rel=1e-12)
    some_unknown = {**judged, 4: "unknown"}
    a = estimate_from_draws(draws, some_unknown, ABCDE_MANIFEST)
    b = estimate_from_draws(draws, some_unknown, ABCDE_MANIFEST, se_method="kirchner")
    assert a["delta_precision"]["estimate"] == b["delta_precision"]["estimate"]
    assert a["delta_precision"]["se"] != pytest.approx(b["delta_precision"]["se"])
