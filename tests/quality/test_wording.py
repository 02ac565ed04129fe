"""Warnings and verdict sentences of ``abcde estimate`` (docs/method.md §8.3, §8.11)."""

from __future__ import annotations

import pytest
from toy_draws import TOY_MANIFEST, manifest, many_pairs

from abcde.quality.estimate import estimate_from_draws
from abcde.quality.intervals import z_value
from abcde.quality.result import Estimate
from abcde.quality.wording import precision_verdict, render_table


@pytest.mark.parametrize(
    ("value", "se", "expected"),
    [
        (0.008, 0.0015, "ΔPrecision +0.80% ± 0.29% (95% CI): the Experiment is more precise"),
        (-0.02, 0.005, "ΔPrecision -2.00% ± 0.98% (95% CI): the Experiment is less precise"),
        (0.001, 0.01, "ΔPrecision +0.1% ± 2.0% (95% CI): no significant difference"),
    ],
)
def test_precision_verdict(value: float, se: float, expected: str) -> None:
    assert precision_verdict(wald(value, se)) == expected


def wald(value: float, se: float) -> Estimate:
    """An estimate with the interval value ± z·SE."""
    half = z_value(0.95) * se
    return Estimate(value, se, value - half, value + half, 9, 9, 1.0)


def test_precision_verdict_when_undefined() -> None:
    est = Estimate(None, None, None, None, 0, 0, 0.5, note="undefined: no pairs were drawn")
    assert (
        precision_verdict(est)
        == "ΔPrecision could not be estimated: undefined: no pairs were drawn"
    )


def test_only_an_exact_estimate_is_called_exact() -> None:
    """"no sampling error; exact" only for an estimate of kind exact; a zero-width
    interval from draws cannot occur, and a narrow one is never called exact."""
    exact = Estimate(0.857, 0.0, 0.857, 0.857, 0, 0, 0.0, note="exact: self pairs only",
                     interval="exact", exact=0.857)
    assert "exact" in precision_verdict(exact)
    narrow = wald(0.21, 1e-9)
    assert "exact" not in precision_verdict(narrow)


def test_not_conclusive_says_why() -> None:
    est = Estimate(0.2, 0.01, 0.18, 0.22, 9, 9, 0.5, interval="wilson", n_eff=3.0,
                   not_conclusive="n_eff 3.0 < 10: too few effective draws")
    assert precision_verdict(est).endswith("not conclusive — n_eff 3.0 < 10: too few "
                                           "effective draws")


def test_warnings_when_most_verdicts_are_unknown_or_a_metric_is_thin() -> None:
    """The audit's case: 914/1000 pairs unknown and yet "the Experiment is more
    precise". Now a warning (JSON `warnings`), and the verdict concludes nothing."""
    draws = many_pairs(40, 40, 40)
    merges = set(range(41, 81))
    sure = {p: ("equivalent" if p in merges else "not_equivalent") for p in draws["pair_id"]}
    ok = estimate_from_draws(draws, sure, TOY_MANIFEST)
    assert ok["warnings"] == []
    half = {p: (v if p % 2 else "unknown") for p, v in sure.items()}  # 50% unknown
    out = estimate_from_draws(draws, half, TOY_MANIFEST)
    assert len(out["warnings"]) == 1 and "missing at random" in out["warnings"][0]
    assert "60 of 120 pairs (50%)" in out["warnings"][0]
    assert "not conclusive" in out["verdict"] and "more precise" not in out["verdict"]
    # 20 of the 40 merge pairs unknown: 17% of the sample (no sample-wide warning) but
    # half of a class that carries the merge metrics, and its own sentence says so
    skipped = {p: (v if p not in merges or p % 2 else "unknown") for p, v in sure.items()}
    one_class = estimate_from_draws(draws, skipped, TOY_MANIFEST)
    assert len(one_class["warnings"]) == 1, one_class["warnings"]
    assert "without a verdict" in one_class["warnings"][0]
    assert "GoodMergeRate" in one_class["warnings"][0]
    assert one_class["good_merge_rate"]["not_conclusive"].startswith(
        "unknown verdicts: 50% of the draws of its merge pairs")
    assert one_class["good_split_rate"]["not_conclusive"] is None
    thin = estimate_from_draws(many_pairs(40, 5, 40), {p: "equivalent" for p in range(1, 86)},
                               TOY_MANIFEST)
    assert len(thin["warnings"]) == 1 and "GoodMergeRate" in thin["warnings"][0]
    assert thin["good_merge_rate"]["not_conclusive"].startswith("n_eff 4.0 < 10")
    # a class with no pair in the population is no reason to warn
    no_merge = manifest({"split": 0.2, "stable_plus": 0.2}, {"split": 0.2, "stable_plus": 0.2})
    assert estimate_from_draws(many_pairs(40, 0, 40), {p: "equivalent" for p in range(1, 81)},
                               no_merge)["warnings"] == []


def test_a_lopsided_interval_is_given_by_its_ends() -> None:
    """A Wilson/MOVER interval is not symmetric about the estimate: the sentence names
    its ends instead of a "±" that would misplace both (the symmetric case keeps ±)."""
    est = Estimate(-0.01281, 0.01325, -0.03539, 0.01353, 30, 30, 1.0)
    assert precision_verdict(est) == ("ΔPrecision -1.3% (95% CI -3.5% to +1.4%): "
                                      "no significant difference")
    above = Estimate(0.02, 0.004, 0.0125, 0.0301, 30, 30, 1.0)
    assert precision_verdict(above) == ("ΔPrecision +2.00% (95% CI +1.25% to +3.01%): "
                                        "the Experiment is more precise")


def test_a_value_that_rounds_to_zero_has_no_sign() -> None:
    """"ΔPrecision -0.000%" (a tiny negative estimate, or a negative zero) read as a loss:
    a value that rounds to 0 at the digits shown prints as 0, in the verdict and the
    table alike; every other value keeps its sign (issue 32)."""
    from abcde.quality.wording import percent

    assert [percent(v, 3) for v in (-4e-7, -0.0, 0.0, 4e-7, -6e-6, 0.0123)] == [
        "0.000%", "0.000%", "0.000%", "0.000%", "-0.001%", "+1.230%"]
    assert percent(-0.0123, 3, sign=False) == "-1.230%" and percent(None, 3) == "-"
    assert precision_verdict(wald(-3e-9, 0.001)) == (
        "ΔPrecision 0.00% ± 0.20% (95% CI): no significant difference")
    draws = many_pairs(40, 40, 40)
    verdicts = {p: "not_equivalent" for p in draws["pair_id"]}
    table = render_table({**estimate_from_draws(draws, verdicts, TOY_MANIFEST),
                          "sample_id": "s", "judgements": {}})
    assert "-0.000%" not in table and "+0.000%" not in table and " 0.000%" in table


def test_a_class_of_the_population_that_was_not_drawn_is_named_with_its_budget() -> None:
    """A sample without any split pair left the split rates and distances undefined
    without a warning, although its manifest says how often the design draws that class:
    the warning names the class, the metrics it leaves undefined, and the budget at which
    the design expects 10 effective draws of it (n_eff grows with the budget)."""
    draws = many_pairs(0, 40, 40)
    verdicts = {p: "equivalent" for p in draws["pair_id"]}
    doc = estimate_from_draws(draws, verdicts, {**TOY_MANIFEST, "budget": 80})
    (warning,) = [w for w in doc["warnings"] if w.startswith("no split pair was drawn")]
    assert "GoodSplitRate, BadSplitRate, GoodSplitDistance, BadSplitDistance are undefined" \
        in warning, warning
    # the design draws a split pair with q = 0.4 and constant importance weights (kish 1
    # per draw of the class): 80 draws expect 32 effective ones, 25 expect 10
    assert "the design expects 32.0 effective draws of split pairs; a budget of about 25" \
        in warning, warning
    assert doc["good_split_rate"]["estimate"] is None
    assert not any("no merge pair" in w for w in doc["warnings"])
