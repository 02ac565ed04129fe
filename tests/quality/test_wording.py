"""Warnings and verdict sentences of ``abcde estimate`` (docs/method.md §8.3, §8.11)."""

from __future__ import annotations

import pytest
from toy_draws import TOY_MANIFEST, manifest, many_pairs

from abcde.quality.estimate import estimate_from_draws
from abcde.quality.result import Estimate, exact_value, scaled_estimate
from abcde.quality.wording import precision_verdict


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


def test_only_an_exact_estimate_is_called_exact() -> None:
    """"no sampling error; exact" only for an estimate of kind exact; a zero-width
    interval from draws cannot occur, and a narrow one is never called exact."""
    assert "exact" in precision_verdict(exact_value(0.857, note="exact: self pairs only"))
    narrow = scaled_estimate(0.21, 1e-9, 1.0, pairs=9, draws=9)
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
