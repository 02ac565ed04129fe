"""The judged sample (docs/method.md §8.1, §8.3): the reweighting of unknown verdicts (the
paper's example), verdict and draw inputs in their accepted forms, and what is refused."""

from __future__ import annotations

import pytest
from toy_draws import ABCDE_MANIFEST, GOOD, draw_rows

from abcde.quality.estimate import estimate_from_draws
from abcde.quality.sample import reweighting_factors


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


def test_verdict_formats_and_missing_verdicts() -> None:
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 2),
        (2, "a", "b", "split", -1.0, 1),
        (3, "a", "c", "merge", 1.0, 1),
    )
    as_dict = estimate_from_draws(
        draws, {2: "Not equivalent", 3: True, 99: "equivalent"}, ABCDE_MANIFEST
    )
    as_rows = estimate_from_draws(
        draws,
        [{"pair_id": 2, "verdict": "not_equivalent"}, (3, "equivalent"), (99, "equivalent")],
        ABCDE_MANIFEST,
    )
    as_columns = estimate_from_draws(
        draws,
        {"pair_id": [2, 3, 99], "verdict": ["not_equivalent", "equivalent", "equivalent"]},
        ABCDE_MANIFEST,
    )
    assert as_dict == as_rows == as_columns
    assert as_dict["sample"]["unused_verdicts"] == 1
    missing = estimate_from_draws(draws, {2: "not_equivalent"}, ABCDE_MANIFEST)
    assert missing["sample"]["missing_verdicts"] == 1
    assert missing["good_merge_rate"]["estimate"] is None  # merge pair 3 counts as unknown


def test_row_list_input_equals_column_input() -> None:
    draws = draw_rows((1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 3))
    rows = [dict(zip(draws, values, strict=True)) for values in zip(*draws.values(), strict=True)]
    assert estimate_from_draws(rows, {2: "equivalent"}, ABCDE_MANIFEST) == estimate_from_draws(
        draws, {2: "equivalent"}, ABCDE_MANIFEST
    )


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
        estimate_from_draws(draw_rows(*rows), verdicts, ABCDE_MANIFEST)


def test_missing_columns_are_named() -> None:
    draws = draw_rows(*GOOD)
    del draws["label"]
    with pytest.raises(ValueError, match=r"lacks columns \['label'\]"):
        estimate_from_draws(draws, {}, ABCDE_MANIFEST)


def test_verdict_keys_compare_as_text() -> None:
    """Verdicts keyed "2" (as read from a CSV) for draws whose pair_id is 2 (or 2.0)
    used to count as unknown silently; ids now compare as text."""
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 2),
        (2, "a", "b", "split", -1.0, 1),
        (3, "a", "c", "merge", 1.0, 1),
    )
    by_int = estimate_from_draws(draws, {2: "equivalent", 3: "not_equivalent"}, ABCDE_MANIFEST)
    by_text = estimate_from_draws(
        draws, {"2": "equivalent", " 3": "not_equivalent"}, ABCDE_MANIFEST
    )
    floats = {**draws, "pair_id": [1.0, 2.0, 3.0]}
    by_float = estimate_from_draws(
        floats, {"2": "equivalent", "3": "not_equivalent"}, ABCDE_MANIFEST
    )
    assert by_text == by_int == by_float
    assert by_text["sample"]["missing_verdicts"] == 0
    with pytest.raises(ValueError, match="compare as text"):
        estimate_from_draws(draws, {2: "equivalent", "2": "not_equivalent"}, ABCDE_MANIFEST)


def test_verdict_counts_per_class() -> None:
    """sample.classes counts each judged pair once by its verdict (several draws of one
    pair, unknowns and self pairs included), as counted here by hand."""
    draws = draw_rows(
        (1, "a", "a", "self", 1.0, 2),
        (2, "a", "b", "split", -1.0, 3),
        (3, "a", "c", "split", -1.0, 1),
        (4, "b", "c", "split", -1.0, 1),
        (5, "a", "d", "merge", 1.0, 1),
    )
    out = estimate_from_draws(draws, {2: "not_equivalent", 3: "equivalent", 4: "unknown",
                                      5: "equivalent"}, ABCDE_MANIFEST)
    got = {c: (t["equivalent_pairs"], t["not_equivalent_pairs"],
               t["unknown_pairs"])
           for c, t in out["sample"]["classes"].items()}
    assert got == {"self": (1, 0, 0), "split": (1, 1, 1), "merge": (1, 0, 0),
                   "stable": (0, 0, 0)}
