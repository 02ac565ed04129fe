"""Unit tests of the quality estimators (ABCDE §5.7–5.8, App. B; Jaccard §6–8).

Independent checks: Kirchner's formula by hand and against numpy, the paper's
reweighting example, and exact recovery of the brute-force metric values of
``tests/reference.py`` when the "sample" is the whole pair population with
draw counts exactly proportional to the pair weights.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from reference import abcde_pairs, impact_overall, jaccard_pairs, quality_by_group, quality_exact
from scipy.stats import binomtest

from abcde.quality.estimators import (
    Estimate,
    delta_precision,
    design_n_eff,
    estimate,
    good_split_distance,
    judged_sample,
    kish_n_eff,
    metric_keys,
    precision_verdict,
    proportion_estimate,
    reweighted_mean_se,
    reweighting_factors,
    scaled_estimate,
    sum_independent,
    weighted_mean_se,
    wilson_interval,
)

# --------------------------------------------------------------------------- #
# Kirchner Case I (ABCDE §5.8)
# --------------------------------------------------------------------------- #


def test_kirchner_by_hand() -> None:
    """x = (1, 2, 4), w = (1, 2, 1): Σw = 4, x̄ = 9/4, Σwx²/Σw = 25/4,
    Σw² = 6, so SE² = (25/4 − 81/16)·6/(16 − 6) = (19/16)·(3/5) = 57/80."""
    mean, se = weighted_mean_se([1, 2, 4], [1, 2, 1])
    assert mean == pytest.approx(9 / 4, abs=1e-15)
    assert se == pytest.approx(math.sqrt(57 / 80), rel=1e-14)


def test_kirchner_equal_weights_is_sample_sd_over_sqrt_n() -> None:
    x = np.random.default_rng(3).normal(size=37)
    mean, se = weighted_mean_se(x, np.full(x.size, 2.5))
    assert mean == pytest.approx(x.mean(), rel=1e-12)
    assert se == pytest.approx(np.std(x, ddof=1) / math.sqrt(x.size), rel=1e-12)


def test_kirchner_draw_counts_are_repeated_observations() -> None:
    """A row with draw count k is k observations: Σw = Σ k·f, Σw² = Σ k·f²."""
    x, f, k = np.array([0.0, 1.0, 1.0, -1.0]), np.array([1.0, 1.25, 1.25, 2.0]), [3, 1, 2, 4]
    expanded = weighted_mean_se(np.repeat(x, k), np.repeat(f, k))
    assert weighted_mean_se(x, f, k) == pytest.approx(expanded, rel=1e-13)


def test_kirchner_edge_cases() -> None:
    mean, se = weighted_mean_se([0.7], [2.0])
    assert mean == 0.7 and math.isnan(se)
    assert weighted_mean_se([1.0, 1.0, 1.0], [1, 1, 1]) == (1.0, 0.0)
    with pytest.raises(ValueError, match="equal length"):
        weighted_mean_se([1, 2], [1])
    with pytest.raises(ValueError, match="positive weight"):
        weighted_mean_se([], [])
    with pytest.raises(ValueError, match="non-negative"):
        weighted_mean_se([1, 2], [1, -1])
    with pytest.raises(ValueError, match="finite"):
        weighted_mean_se([1, math.nan], [1, 1])


def test_pair_clustered_se_is_kirchner_when_every_pair_is_judged() -> None:
    rng = np.random.default_rng(5)
    x = rng.choice([-1.0, 0.0, 1.0], size=50)
    k = rng.integers(1, 4, size=50)
    keys = np.arange(50) // 2
    strata = rng.integers(0, 4, size=50)
    ones = np.ones(50)
    clustered = reweighted_mean_se(x, ones, k, keys, strata, "pair_clustered")
    assert clustered == pytest.approx(weighted_mean_se(x, ones, k), rel=1e-12)
    assert reweighted_mean_se(x, ones * 1.5, k, keys, strata, "kirchner") == pytest.approx(
        weighted_mean_se(x, ones * 1.5, k), rel=1e-12
    )


# --------------------------------------------------------------------------- #
# Reweighting for unknown verdicts (ABCDE §5.8, Jaccard §8)
# --------------------------------------------------------------------------- #


def test_reweighting_paper_example() -> None:
    """1000 split pairs sampled, 800 judged → each judged split draw weighs 1.25."""
    factors = reweighting_factors(["split"] * 1000, [1] * 1000, [True] * 800 + [False] * 200)
    assert factors == {"split": 1.25}


def test_reweighting_counts_draws_per_class() -> None:
    classes = ["self", "split", "split", "merge", "stable", "stable"]
    factors = reweighting_factors(
        classes, [5, 3, 1, 2, 2, 6], [True, True, False, False, True, False]
    )
    assert factors == {"self": 1.0, "split": 4 / 3, "merge": None, "stable": 4.0}


def _rows(*rows: tuple) -> dict[str, list]:
    names = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count")
    return {n: [r[c] for r in rows] for c, n in enumerate(names)}


ABCDE_MANIFEST = {
    "population": "abcde",
    "totals": {"total": 0.5, "split": 0.2, "merge": 0.1, "stable": 0.2},
    "metrics": {"split_rate": 0.2, "merge_rate": 0.1, "weight": 10.0},
}


def test_unknowns_keep_each_class_at_its_sampled_weight() -> None:
    """Self 4 draws (l = +1, ≡), split 4 draws of which one pair (2 draws) unknown.
    The judged split draws weigh 4/2 = 2, so the mean is (4·1 + 2·2·(−1)·1(≡))/8."""
    draws = _rows(
        (1, "a", "a", "self", 1.0, 4),
        (2, "a", "b", "split", -1.0, 1),
        (2, "b", "a", "split", -1.0, 1),
        (3, "a", "c", "split", -1.0, 2),
    )
    out = estimate(draws, {2: "equivalent", 3: "unknown"}, ABCDE_MANIFEST)
    assert out["delta_precision"]["estimate"] == pytest.approx(0.5 * (4 - 4) / 8)
    assert out["sample"]["classes"]["split"]["factor"] == 2.0
    assert out["sample"]["classes"]["self"]["factor"] == 1.0
    assert out["bad_split_rate"]["estimate"] == pytest.approx(0.2)
    assert out["bad_split_rate"]["pairs"] == 1 and out["bad_split_rate"]["draws"] == 2
    assert out["delta_precision"]["pairs"] == 2  # self pair + judged pair 2


# --------------------------------------------------------------------------- #
# Exact recovery: the whole population with proportional draw counts
# --------------------------------------------------------------------------- #

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
    out = estimate(draws, verdicts, manifest)
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


# --------------------------------------------------------------------------- #
# Scaling, sums, verdict strings
# --------------------------------------------------------------------------- #


def test_se_scales_with_the_multiplier() -> None:
    """SE(c·X) = c·SE(X) (ABCDE §5.8); the CI is estimate ± 1.959964·SE."""
    draws = _rows(
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


def test_sum_of_independent_parts_adds_in_quadrature() -> None:
    a = scaled_estimate(0.5, 0.1, 0.2, pairs=3, draws=5)
    b = scaled_estimate(0.25, 0.2, 0.4, pairs=4, draws=6)
    total = sum_independent([a, b])
    assert total.estimate == pytest.approx(0.2)
    assert total.se == pytest.approx(math.hypot(0.02, 0.08))
    assert (total.pairs, total.draws) == (7, 11)


@pytest.mark.parametrize(
    ("value", "se", "expected"),
    [
        (0.008, 0.0015, "ΔPrecision +0.80% ± 0.29% (95% CI): the Experiment is more precise"),
        (-0.02, 0.005, "ΔPrecision -2.00% ± 0.98% (95% CI): the Experiment is less precise"),
        (0.001, 0.01, "ΔPrecision +0.1% ± 2.0% (95% CI): no significant difference"),
    ],
)
def test_precision_verdict(value: float, se: float, expected: str) -> None:
    assert precision_verdict(scaled_estimate(value, se, 1.0, pairs=9, draws=9)) == expected


def test_precision_verdict_when_undefined() -> None:
    est = Estimate(None, None, None, None, 0, 0, 0.5, note="undefined: no pairs were drawn")
    assert (
        precision_verdict(est)
        == "ΔPrecision could not be estimated: undefined: no pairs were drawn"
    )


# --------------------------------------------------------------------------- #
# Undefined and exact-zero metrics, unavailable keys
# --------------------------------------------------------------------------- #


def test_class_drawn_but_never_judged_is_undefined_not_zero() -> None:
    draws = _rows((1, "a", "a", "self", 1.0, 4), (2, "a", "b", "split", -1.0, 3))
    out = estimate(draws, {2: "unknown"}, ABCDE_MANIFEST)
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
    draws = _rows(
        (1, "a", "a", "self", 1.0, 4),
        (2, "a", "b", "split", -1.0, 3),
        (3, "b", "c", "split", -1.0, 1),
    )
    out = estimate(draws, {2: "equivalent", 3: "not_equivalent"}, manifest)
    assert out["good_merge_rate"]["estimate"] == 0.0 and out["good_merge_rate"]["se"] == 0.0
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.2 / 4)


def test_single_draw_has_no_standard_error() -> None:
    draws = _rows((1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 1))
    out = estimate(draws, {2: "not_equivalent"}, ABCDE_MANIFEST)
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.2)
    assert (
        out["good_split_rate"]["se"] is None and "fewer than two" in out["good_split_rate"]["note"]
    )


def test_abcde_population_says_what_it_cannot_estimate() -> None:
    draws = _rows((1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 2))
    out = estimate(draws, {2: "equivalent"}, ABCDE_MANIFEST)
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


# --------------------------------------------------------------------------- #
# Inputs
# --------------------------------------------------------------------------- #


def test_verdict_formats_and_missing_verdicts() -> None:
    draws = _rows(
        (1, "a", "a", "self", 1.0, 2),
        (2, "a", "b", "split", -1.0, 1),
        (3, "a", "c", "merge", 1.0, 1),
    )
    as_dict = estimate(draws, {2: "Not equivalent", 3: True, 99: "equivalent"}, ABCDE_MANIFEST)
    as_rows = estimate(
        draws,
        [{"pair_id": 2, "verdict": "not_equivalent"}, (3, "equivalent"), (99, "equivalent")],
        ABCDE_MANIFEST,
    )
    as_columns = estimate(
        draws,
        {"pair_id": [2, 3, 99], "verdict": ["not_equivalent", "equivalent", "equivalent"]},
        ABCDE_MANIFEST,
    )
    assert as_dict == as_rows == as_columns
    assert as_dict["sample"]["unused_verdicts"] == 1
    missing = estimate(draws, {2: "not_equivalent"}, ABCDE_MANIFEST)
    assert missing["sample"]["missing_verdicts"] == 1
    assert missing["good_merge_rate"]["estimate"] is None  # merge pair 3 counts as unknown


def test_row_list_input_equals_column_input() -> None:
    draws = _rows((1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 3))
    rows = [dict(zip(draws, values, strict=True)) for values in zip(*draws.values(), strict=True)]
    assert estimate(rows, {2: "equivalent"}, ABCDE_MANIFEST) == estimate(
        draws, {2: "equivalent"}, ABCDE_MANIFEST
    )


GOOD = [(1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 1)]


@pytest.mark.parametrize(
    ("rows", "verdicts", "match"),
    [
        ([(1, "a", "a", "oops", 1.0, 1)], {}, "pair_class must be one of"),
        ([(1, "a", "a", "self", 1.0, 0)], {}, "draw_count must be an integer"),
        ([(1, "a", "a", "self", 1.0, 1.5)], {}, "draw_count must be an integer"),
        ([(1, "a", "b", "self", 1.0, 1)], {1: "equivalent"}, "exactly when item_i = item_j"),
        ([(1, "a", "a", "split", -1.0, 1)], {}, "exactly when item_i = item_j"),
        ([*GOOD, (3, "a", "b", "split", -1.0, 1)], {2: "equivalent"}, "must appear once"),
        ([*GOOD, (2, "a", "c", "split", -1.0, 1)], {2: "equivalent"}, "sharing a pair_id"),
        ([*GOOD, (2, "b", "a", "merge", 1.0, 1)], {2: "equivalent"}, "sharing a pair_id"),
        ([(1, "a", "b", "split", 1.0, 1)], {}, "abcde labels"),
        ([(1, "a", "b", "merge", 2.0, 1)], {}, "abcde labels"),
        (GOOD, {1: "not_equivalent"}, "self pairs are always equivalent"),
        (GOOD, {2: "maybe"}, "verdict must be one of"),
    ],
)
def test_bad_input_is_refused(rows: list[tuple], verdicts: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        estimate(_rows(*rows), verdicts, ABCDE_MANIFEST)


def test_missing_columns_are_named() -> None:
    draws = _rows(*GOOD)
    del draws["label"]
    with pytest.raises(ValueError, match=r"lacks columns \['label'\]"):
        estimate(draws, {}, ABCDE_MANIFEST)


@pytest.mark.parametrize(
    ("manifest", "match"),
    [
        ({**ABCDE_MANIFEST, "population": "other"}, "population must be one of"),
        ({**ABCDE_MANIFEST, "totals": {"total": 1.0, "split": 0.2}}, "lacks"),
        (
            {**ABCDE_MANIFEST, "totals": {"total": 1.0, "split": 0.2, "merge": 0.1, "stable": 0.2}},
            "split \\+ merge \\+ stable",
        ),
        ({**ABCDE_MANIFEST, "metrics": {"split_rate": 0.3}}, "is the population right"),
        (
            {**ABCDE_MANIFEST, "population": "jaccard", "metrics": {"split_distance": 0.15}},
            "is the population right",
        ),
    ],
)
def test_bad_manifest_is_refused(manifest: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        estimate(_rows(*GOOD), {2: "equivalent"}, manifest)


def test_slices_need_their_columns() -> None:
    manifest = {**ABCDE_MANIFEST, "slices": [{"color": "red", "weight": 1.0, "pairweight": 0.1}]}
    with pytest.raises(ValueError, match="no such column"):
        estimate(_rows(*GOOD), {2: "equivalent"}, manifest)


def test_se_method_kirchner_differs_only_with_unknowns() -> None:
    draws = _rows(
        (1, "a", "a", "self", 1.0, 3),
        (2, "a", "b", "split", -1.0, 2),
        (2, "b", "a", "split", -1.0, 2),
        (3, "a", "c", "split", -1.0, 1),
        (4, "c", "d", "split", -1.0, 1),
    )
    judged = {2: "equivalent", 3: "not_equivalent", 4: "equivalent"}
    a = estimate(draws, judged, ABCDE_MANIFEST)
    b = estimate(draws, judged, ABCDE_MANIFEST, se_method="kirchner")
    assert a["delta_precision"]["se"] == pytest.approx(b["delta_precision"]["se"], rel=1e-12)
    some_unknown = {**judged, 4: "unknown"}
    a = estimate(draws, some_unknown, ABCDE_MANIFEST)
    b = estimate(draws, some_unknown, ABCDE_MANIFEST, se_method="kirchner")
    assert a["delta_precision"]["estimate"] == b["delta_precision"]["estimate"]
    assert a["delta_precision"]["se"] != pytest.approx(b["delta_precision"]["se"])


# --------------------------------------------------------------------------- #
# Intervals of proportions: Wilson with an effective sample size
# --------------------------------------------------------------------------- #

Z95 = 1.959963984540054


@pytest.mark.parametrize(("k", "n"), [(81, 263), (0, 10), (10, 10), (1, 3), (37, 40)])
def test_wilson_interval_matches_scipy_and_newcombe(k: int, n: int) -> None:
    """Against scipy's independent implementation; 81/263 is Newcombe's (1998)
    worked example, Wilson 0.2553–0.3662."""
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(k / n, n, Z95) == pytest.approx((ci.low, ci.high), abs=1e-12)
    if (k, n) == (81, 263):
        assert wilson_interval(k / n, n, Z95) == pytest.approx((0.2553, 0.3662), abs=5e-5)
    assert wilson_interval(0.3, 0, Z95) == (0.0, 1.0)


def test_effective_sample_sizes() -> None:
    """Kish (Σw)²/Σw² by hand; with every pair judged the design's n_eff is Kish's
    (N − 1)/N; unknowns (factors > 1) on repeated pairs make it smaller."""
    assert kish_n_eff(np.array([1.0, 2.0, 1.0]), np.array([1, 1, 2])) == pytest.approx(
        25 / 7
    )
    k = np.array([1, 3, 1, 2])
    keys = np.array([0, 1, 2, 3])
    assert design_n_eff(np.ones(4), k, keys) == pytest.approx(6.0)  # N − 1, N = 7 draws
    m = np.array([1.0, 2.0, 1.0, 4.0])
    kish = kish_n_eff(m, k)
    assert design_n_eff(np.ones(4), k, keys, importance=m) == pytest.approx(kish * 6 / 7)
    assert design_n_eff(np.ones(4), k, keys, "kirchner") == pytest.approx(6.0)
    # half the pairs unknown (f = 2): a pair drawn 3 times is kept or lost as a whole
    f = np.full(4, 2.0)
    got = design_n_eff(f, k, keys)
    total = 14.0  # Σ f k
    by_hand = 1 / (total / (total - 1) * 14 / 14**2 + 2 * (1 + 9 + 1 + 4) / 14**2)
    assert got == pytest.approx(by_hand) and got < 6.0


def test_all_agreeing_verdicts_get_an_interval_of_positive_width() -> None:
    """The audit's zero-width case: every judged split pair 'not equivalent'
    (BadSplitRate 0 ± 0 from 3 pairs). Now [0, Wilson upper limit at n_eff]."""
    draws = _rows(
        (1, "a", "a", "self", 1.0, 4),
        (2, "a", "b", "split", -1.0, 1),
        (3, "c", "d", "split", -1.0, 1),
        (4, "e", "f", "split", -1.0, 1),
    )
    out = estimate(draws, dict.fromkeys((2, 3, 4), "not_equivalent"), ABCDE_MANIFEST)
    bad, good = out["bad_split_rate"], out["good_split_rate"]
    assert bad["estimate"] == 0.0 and bad["se"] == 0.0
    assert bad["interval"] == "wilson" and bad["n_eff"] == pytest.approx(2.0)
    upper = 0.2 * binomtest(0, 2).proportion_ci(method="wilson").high
    assert (bad["ci_low"], bad["ci_high"]) == pytest.approx((0.0, upper))
    assert good["estimate"] == pytest.approx(0.2) and good["ci_high"] == pytest.approx(0.2)
    assert 0 < good["ci_low"] < 0.2


def test_wilson_interval_of_a_scaled_proportion_stays_in_range() -> None:
    """estimate = c·p̂; the limits are c × Wilson(p̂, n*) with n* = p̂(1−p̂)/SE²
    (Korn & Graubard) capped by the design's n_eff, so within [0, c]."""
    est = proportion_estimate(0.1, 0.05, 100.0, 0.3, pairs=40, draws=50)
    n_star = 0.1 * 0.9 / 0.05**2  # 36 < 100
    lo, hi = wilson_interval(0.1, n_star, Z95)
    assert (est.ci_low, est.ci_high) == pytest.approx((0.3 * lo, 0.3 * hi))
    assert est.se == pytest.approx(0.015) and est.n_eff == pytest.approx(36.0)
    assert proportion_estimate(0.1, 0.001, 100.0, 1.0, pairs=9, draws=9).n_eff == 100.0


def test_sums_of_wilson_parts_use_mover() -> None:
    """GoodDistance = GoodSplit + GoodMerge distance: limits by MOVER (Newcombe 1998;
    Zou & Donner 2008), by hand; never below 0."""
    a = proportion_estimate(0.0, 0.0, 5.0, 0.02, pairs=5, draws=5)
    b = proportion_estimate(0.5, 0.1, 30.0, 0.04, pairs=30, draws=30)
    total = sum_independent([a, b])
    assert total.interval == "mover"
    assert total.ci_low == pytest.approx(
        0.02 - math.hypot(0.0 - a.ci_low, 0.02 - b.ci_low)
    )
    assert total.ci_high == pytest.approx(
        0.02 + math.hypot(a.ci_high - 0.0, b.ci_high - 0.02)
    )
    assert total.ci_low >= 0 and total.se == pytest.approx(math.hypot(0.0, 0.004))


def test_jaccard_rates_are_ratios_that_add_up_to_the_rate() -> None:
    """On the jaccard population GoodSplitRate = SplitRate × Σ f k |l| 1(i≢j) / Σ f k |l|
    (importance weights |l| = u/w, Jaccard §6.1), so Good + Bad = SplitRate exactly."""
    manifest = {
        "population": "jaccard",
        "totals": {"total": 0.6, "split": 0.1, "merge": 0.2, "stable": 0.3},
        "metrics": {"split_rate": 0.15, "merge_rate": 0.25},
    }
    draws = _rows(
        (1, "a", "a", "self", 0.0, 2),
        (2, "a", "b", "split", -2.0, 1),
        (3, "c", "d", "split", -1.0, 3),
        (4, "e", "f", "merge", 1.5, 2),
        (5, "g", "h", "merge", 1.0, 1),
    )
    verdicts = {2: "not_equivalent", 3: "equivalent", 4: "equivalent", 5: "not_equivalent"}
    out = estimate(draws, verdicts, manifest)
    assert out["good_split_rate"]["estimate"] == pytest.approx(0.15 * 2 / (2 + 3))
    assert out["bad_split_rate"]["estimate"] == pytest.approx(0.15 * 3 / 5)
    assert out["good_merge_rate"]["estimate"] == pytest.approx(0.25 * 3 / 4)
    for cls in ("split", "merge"):
        total = out[f"good_{cls}_rate"]["estimate"] + out[f"bad_{cls}_rate"]["estimate"]
        assert total == pytest.approx(manifest["metrics"][f"{cls}_rate"], abs=1e-15)
    # the manifest must give the rates' multipliers on the jaccard population
    bare = {**manifest, "metrics": {}}
    out = estimate(draws, verdicts, bare)
    assert out["good_split_rate"]["estimate"] is None
    assert "split_rate" in out["good_split_rate"]["note"]


def test_ratio_se_is_the_linearised_variance() -> None:
    """Ratio R = Σ k m x / Σ k m with every pair judged: SE² = N/(N−1)·Σ k e²/V²,
    e = m(x − R) (the delta method), and Kirchner with weights m gives its Case I."""
    x = np.array([1.0, 0.0, 1.0, 0.0])
    m = np.array([2.0, 1.0, 3.0, 1.0])
    k = np.array([1, 2, 1, 1])
    ones = np.ones(4)
    mean, se = reweighted_mean_se(x, ones, k, np.arange(4), np.zeros(4), importance=m)
    v = float((k * m).sum())
    r = float((k * m * x).sum()) / v
    e = m * (x - r)
    n = k.sum()
    assert mean == pytest.approx(r)
    assert se == pytest.approx(math.sqrt(n / (n - 1) * float((k * e**2).sum()) / v**2))
    kirch = reweighted_mean_se(x, ones, k, np.arange(4), np.zeros(4), "kirchner", m)
    assert kirch == pytest.approx(weighted_mean_se(x, m, k))


# --------------------------------------------------------------------------- #
# Verdict keys, warnings
# --------------------------------------------------------------------------- #


def test_verdict_keys_compare_as_text() -> None:
    """Verdicts keyed "2" (as read from a CSV) for draws whose pair_id is 2 (or 2.0)
    used to count as unknown silently; ids now compare as text."""
    draws = _rows(
        (1, "a", "a", "self", 1.0, 2),
        (2, "a", "b", "split", -1.0, 1),
        (3, "a", "c", "merge", 1.0, 1),
    )
    by_int = estimate(draws, {2: "equivalent", 3: "not_equivalent"}, ABCDE_MANIFEST)
    by_text = estimate(draws, {"2": "equivalent", " 3": "not_equivalent"}, ABCDE_MANIFEST)
    floats = {**draws, "pair_id": [1.0, 2.0, 3.0]}
    by_float = estimate(floats, {"2": "equivalent", "3": "not_equivalent"}, ABCDE_MANIFEST)
    assert by_text == by_int == by_float
    assert by_text["sample"]["missing_verdicts"] == 0
    with pytest.raises(ValueError, match="compare as text"):
        estimate(draws, {2: "equivalent", "2": "not_equivalent"}, ABCDE_MANIFEST)


def _many(n_split: int, n_merge: int, n_stable: int) -> dict[str, list]:
    rows, pid = [(0, "s", "s", "self", 1.0, 3)], 1
    for cls, n, label in (("split", n_split, -1.0), ("merge", n_merge, 1.0),
                          ("stable", n_stable, 1.0)):
        for _ in range(n):
            rows.append((pid, f"i{pid}", f"j{pid}", cls, label, 1))
            pid += 1
    return _rows(*rows)


def test_warnings_when_most_verdicts_are_unknown_or_a_class_is_thin() -> None:
    """The audit's case: 914/1000 pairs unknown and yet "the Experiment is more
    precise". Now a warning (JSON `warnings`), and the verdict concludes nothing."""
    draws = _many(40, 40, 40)
    ids = [p for p, c in zip(draws["pair_id"], draws["pair_class"], strict=True)
           if c != "self"]
    merges = set(range(41, 81))
    sure = {p: ("equivalent" if p in merges else "not_equivalent") for p in ids}
    ok = estimate(draws, sure, ABCDE_MANIFEST)
    assert ok["warnings"] == []
    assert ok["verdict"].endswith("the Experiment is more precise")
    half = {p: (v if p % 2 else "unknown") for p, v in sure.items()}  # 50% unknown
    out = estimate(draws, half, ABCDE_MANIFEST)
    assert len(out["warnings"]) == 1 and "missing at random" in out["warnings"][0]
    assert "60 of 120 judgeable pairs (50%)" in out["warnings"][0]
    assert "not conclusive" in out["verdict"] and "more precise" not in out["verdict"]
    thin = estimate(_many(40, 5, 40), {p: "equivalent" for p in range(1, 86)},
                    ABCDE_MANIFEST)
    assert len(thin["warnings"]) == 1 and "merge 5" in thin["warnings"][0]
    assert "not conclusive" in thin["verdict"]
    # a class with no pair in the population is no reason to warn
    no_merge = {**ABCDE_MANIFEST, "totals": {"total": 0.4, "split": 0.2, "merge": 0.0,
                                             "stable": 0.2}, "metrics": {}}
    assert estimate(_many(40, 0, 40), {p: "equivalent" for p in range(1, 81)},
                    no_merge)["warnings"] == []
