"""Agreement between judges and majority resolution (abcde.quality.agreement,
docs/method.md §12.4), against independent computations: scikit-learn's Cohen's kappa,
Fleiss' kappa by its definition as pairwise agreement between raters enumerated pair by
pair, and the published example of Fleiss (1971) as reproduced in the literature
(10 subjects, 14 raters, 5 categories: κ = 0.210)."""

from __future__ import annotations

import itertools
import random

import pytest
from sklearn.metrics import cohen_kappa_score

from abcde.quality.agreement import agreement, cohen_kappa, fleiss_kappa, resolve

VERDICTS = ("equivalent", "not_equivalent", "unknown")


@pytest.mark.parametrize("seed", range(20))
def test_cohen_kappa_matches_scikit_learn(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 60)
    a = [rng.choice(VERDICTS) for _ in range(n)]
    b = [x if rng.random() < 0.7 else rng.choice(VERDICTS) for x in a]
    ours = cohen_kappa(a, b)
    if len(set(a) | set(b)) == 1:
        assert ours is None
        return
    assert ours == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_cohen_kappa_undefined_when_everyone_says_the_same() -> None:
    assert cohen_kappa(["equivalent"] * 5, ["equivalent"] * 5) is None
    assert cohen_kappa([], []) is None


def test_fleiss_kappa_published_example() -> None:
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
             [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
             [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    assert fleiss_kappa(table) == pytest.approx(0.20993, abs=5e-5)


def _fleiss_by_rater_pairs(ratings: list[list[str]], categories: list[str]) -> float:
    """Fleiss' kappa from its meaning: observed agreement = mean over subjects of the
    share of (ordered) rater pairs that agree, enumerated; chance agreement = the
    probability that two ratings drawn from the pooled ratings agree."""
    observed = []
    for raters in ratings:
        pairs = list(itertools.permutations(range(len(raters)), 2))
        observed.append(sum(raters[i] == raters[j] for i, j in pairs) / len(pairs))
    pooled = [r for raters in ratings for r in raters]
    chance = sum((pooled.count(c) / len(pooled)) ** 2 for c in categories)
    p_bar = sum(observed) / len(observed)
    return (p_bar - chance) / (1 - chance)


@pytest.mark.parametrize("seed", range(20))
def test_fleiss_kappa_matches_its_definition_also_with_unequal_raters(seed: int) -> None:
    rng = random.Random(seed)
    ratings = []
    for _ in range(rng.randint(1, 25)):
        truth = rng.choice(VERDICTS)
        k = rng.randint(2, 5) if seed % 2 else 3
        ratings.append([truth if rng.random() < 0.6 else rng.choice(VERDICTS)
                        for _ in range(k)])
    table = [[r.count(c) for c in VERDICTS] for r in ratings]
    pooled = {r for raters in ratings for r in raters}
    if len(pooled) == 1:
        assert fleiss_kappa(table) is None
        return
    assert fleiss_kappa(table) == pytest.approx(
        _fleiss_by_rater_pairs(ratings, list(VERDICTS)), abs=1e-12)


def test_majority_unknowns_abstain_ties_are_unknown_contested_counted() -> None:
    pairs = {
        "1": {"a": "equivalent", "b": "equivalent", "c": "not_equivalent"},
        "2": {"a": "equivalent", "b": "not_equivalent"},
        "3": {"a": "unknown", "b": "not_equivalent"},
        "4": {"a": "unknown"},
        "5": {"a": "equivalent"},
        "6": {"a": "not_equivalent", "b": "not_equivalent", "c": "equivalent",
              "d": "unknown"},
    }
    r = resolve(pairs)
    assert r.verdicts == {"1": "equivalent", "2": "unknown", "3": "not_equivalent",
                          "4": "unknown", "5": "equivalent", "6": "not_equivalent"}
    assert sorted(r.contested) == ["1", "2", "6"]
    assert r.ties == ["2"]


def test_agreement_section_two_and_three_judges() -> None:
    rng = random.Random(7)
    pairs: dict[str, dict[str, str]] = {}
    for k in range(40):
        v = rng.choice(VERDICTS[:2])
        pairs[str(k)] = {"a": v, "b": v if k % 5 else rng.choice(VERDICTS)}
    pairs["solo"] = {"a": "equivalent"}
    two = agreement(pairs)
    common = [p for p in pairs if len(pairs[p]) == 2]
    a = [pairs[p]["a"] for p in common]
    b = [pairs[p]["b"] for p in common]
    assert two["judges"] == 2 and two["pairs"] == 40 and two["kappa_kind"] == "cohen"
    assert two["kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert two["raw_agreement"] == sum(x == y for x, y in zip(a, b, strict=True)) / 40
    for k in range(10):
        pairs[str(k)]["c"] = pairs[str(k)]["a"]
    three = agreement(pairs)
    assert three["judges"] == 3 and three["kappa_kind"] == "fleiss"
    assert len(three["pairwise"]) == 3
    ac = next(p for p in three["pairwise"] if p["judges"] == ["a", "c"])
    assert ac["pairs"] == 10 and ac["raw_agreement"] == 1.0
    assert agreement({"1": {"a": "equivalent"}})["kappa"] is None
