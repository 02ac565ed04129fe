"""The judged sample (docs/method.md §8.1, §8.3): the reweighting of unknown verdicts (the
paper's example), the importance weights of the draws (§6.9), verdict and draw inputs in
their accepted forms, and what is refused — samples of an earlier design among them."""

from __future__ import annotations

import numpy as np
import pytest
from toy_draws import GOOD, TOY_MANIFEST, draw_rows

from abcde.errors import InputError
from abcde.quality.estimate import estimate_from_draws
from abcde.quality.sample import judged_sample


def factors(rows: list[tuple], verdicts: dict) -> dict:
    """The reweighting factor per class of ``abcde estimate``'s sample summary."""
    out = estimate_from_draws(draw_rows(*rows), verdicts, TOY_MANIFEST)["sample"]["classes"]
    return {k: c["factor"] for k, c in out.items() if c["sampled_draws"]}


def test_reweighting_paper_example() -> None:
    """1000 split pairs sampled, 800 judged → each judged split draw weighs 1.25."""
    rows = [(k, f"a{k}", f"b{k}", "split", -1.0, 1) for k in range(1, 1001)]
    judged = {k: "equivalent" for k in range(1, 801)}
    assert factors(rows, judged) == {"split": 1.25}


def test_reweighting_counts_draws_per_class() -> None:
    rows = [(1, "a", "b", "split", -1.0, 3), (2, "c", "d", "split", -1.0, 1),
            (3, "e", "f", "merge", 1.0, 2), (4, "g", "h", "stable", 1.0, 2),
            (5, "i", "j", "stable", 1.0, 6)]
    got = factors(rows, {1: "equivalent", 4: "not_equivalent"})
    assert got == {"split": 4 / 3, "merge": None, "stable_plus": 4.0}


def test_importance_weights_follow_the_design() -> None:
    """r_u = L/(αL + (1 − α)κ) ≤ 1/α and r_w = κ/(αL + (1 − α)κ) ≤ 1/(1 − α), with
    α·r_u + (1 − α)·r_w = 1 (docs/method.md §6.9), from the draws' u_over_w = L."""
    draws = draw_rows((1, "a", "b", "split", -1.0, 1, 1.0), (2, "c", "d", "merge", 1.0, 1, 50.0),
                      (3, "e", "f", "stable", 0.0, 1, 0.0), (4, "g", "h", "stable", 1.0, 1, 7.0))
    for alpha in (0.25, 0.5, 0.9):
        s = judged_sample(draws, {}, alpha=alpha, kappa=2.0)
        L = np.array([1.0, 50.0, 0.0, 7.0])
        assert s.importance_u == pytest.approx(L / (alpha * L + (1 - alpha) * 2.0))
        assert alpha * s.importance_u + (1 - alpha) * s.importance_w == pytest.approx(1.0)
        assert s.importance_u.max() <= 1 / alpha and s.importance_w.max() <= 1 / (1 - alpha)
    assert list(s.class_key) == [0, 1, 4, 2]  # split, merge, stable_zero, stable_plus


def test_verdict_formats_and_missing_verdicts() -> None:
    draws = draw_rows(
        (1, "a", "c", "stable", 1.0, 2),
        (2, "a", "b", "split", -1.0, 1),
        (3, "a", "d", "merge", 1.0, 1),
    )
    base = {1: "equivalent"}
    as_dict = estimate_from_draws(
        draws, {**base, 2: "Not equivalent", 3: True, 99: "equivalent"}, TOY_MANIFEST
    )
    as_rows = estimate_from_draws(
        draws,
        [(1, "equivalent"), {"pair_id": 2, "verdict": "not_equivalent"}, (3, "equivalent"),
         (99, "equivalent")],
        TOY_MANIFEST,
    )
    as_columns = estimate_from_draws(
        draws,
        {"pair_id": [1, 2, 3, 99],
         "verdict": ["equivalent", "not_equivalent", "equivalent", "equivalent"]},
        TOY_MANIFEST,
    )
    assert as_dict == as_rows == as_columns
    assert as_dict["sample"]["unused_verdicts"] == 1
    missing = estimate_from_draws(draws, {**base, 2: "not_equivalent"}, TOY_MANIFEST)
    assert missing["sample"]["missing_verdicts"] == 1
    assert missing["good_merge_rate"]["estimate"] is None  # merge pair 3 counts as unknown


def test_row_list_input_equals_column_input() -> None:
    draws = draw_rows(*GOOD)
    rows = [dict(zip(draws, values, strict=True)) for values in zip(*draws.values(), strict=True)]
    verdicts = {1: "equivalent", 2: "equivalent"}
    assert estimate_from_draws(rows, verdicts, TOY_MANIFEST) == estimate_from_draws(
        draws, verdicts, TOY_MANIFEST
    )


@pytest.mark.parametrize(
    ("rows", "verdicts", "match"),
    [
        ([(1, "a", "b", "oops", 1.0, 1)], {}, "pair_class must be one of"),
        ([(1, "a", "b", "split", -1.0, 0)], {}, "draw_count must be an integer"),
        ([(1, "a", "b", "split", -1.0, 1.5)], {}, "draw_count must be an integer"),
        ([(1, "a", "a", "stable", 1.0, 1)], {}, "self pair .* earlier abcde"),
        ([*GOOD, (3, "a", "b", "split", -1.0, 1)], {2: "equivalent"}, "must appear once"),
        ([*GOOD, (2, "a", "e", "split", -1.0, 1)], {2: "equivalent"}, "sharing a pair_id"),
        ([*GOOD, (2, "b", "a", "merge", 1.0, 1)], {2: "equivalent"}, "sharing a pair_id"),
        ([(1, "a", "b", "split", 1.0, 1)], {}, "ΔPrecision's sign"),
        ([(1, "a", "b", "merge", 2.0, 1)], {}, "ΔPrecision's sign"),
        ([(1, "a", "b", "merge", 1.0, 1, 0.5)], {}, "u_ij/w_ij"),
        ([(1, "a", "b", "stable", 1.0, 1, 0.0)], {}, "u_ij/w_ij"),
        (GOOD, {2: "maybe"}, "verdict must be one of"),
    ],
)
def test_bad_input_is_refused(rows: list[tuple], verdicts: dict, match: str) -> None:
    with pytest.raises(InputError, match=match):
        estimate_from_draws(draw_rows(*rows), verdicts, TOY_MANIFEST)


def test_missing_columns_are_named() -> None:
    draws = draw_rows(*GOOD)
    del draws["u_over_w"]
    with pytest.raises(InputError, match=r"lacks columns \['u_over_w'\]"):
        estimate_from_draws(draws, {}, TOY_MANIFEST)


def test_a_sample_of_an_earlier_design_is_refused() -> None:
    """A manifest without the design version (self pairs sampled, one population) is not
    estimated: its estimates could be confidently wrong (docs/method.md §8.1)."""
    old = {"population": "jaccard", "totals": {"total": 0.5, "split": 0.2, "merge": 0.1,
                                               "stable": 0.2}}
    with pytest.raises(InputError, match="earlier abcde"):
        estimate_from_draws(draw_rows(*GOOD), {2: "equivalent"}, old)


def test_verdict_keys_compare_as_text() -> None:
    """Verdicts keyed "2" (as read from a CSV) for draws whose pair_id is 2 (or 2.0)
    used to count as unknown silently; ids now compare as text."""
    draws = draw_rows(
        (1, "a", "c", "stable", 1.0, 2),
        (2, "a", "b", "split", -1.0, 1),
        (3, "a", "d", "merge", 1.0, 1),
    )
    by_int = estimate_from_draws(draws, {1: "equivalent", 2: "equivalent",
                                         3: "not_equivalent"}, TOY_MANIFEST)
    by_text = estimate_from_draws(
        draws, {"1": "equivalent", "2": "equivalent", " 3": "not_equivalent"}, TOY_MANIFEST
    )
    floats = {**draws, "pair_id": [1.0, 2.0, 3.0]}
    by_float = estimate_from_draws(
        floats, {"1": "equivalent", "2": "equivalent", "3": "not_equivalent"}, TOY_MANIFEST
    )
    assert by_text == by_int == by_float
    assert by_text["sample"]["missing_verdicts"] == 0
    with pytest.raises(InputError, match="compare as text"):
        estimate_from_draws(draws, {2: "equivalent", "2": "not_equivalent"}, TOY_MANIFEST)


def test_verdicts_as_pandas_and_a_pair_id_given_twice() -> None:
    """Verdicts as a pandas Series (pair_id -> verdict) or DataFrame (pair_id, verdict)
    raised "too many values to unpack"; they equal the dict. A pair id given twice with
    different verdicts in columns or rows let the last one win silently (only 2 and '2'
    were refused); it is refused, and twice the same verdict is accepted."""
    import pandas as pd

    draws = draw_rows(
        (1, "a", "c", "stable", 1.0, 2),
        (2, "a", "b", "split", -1.0, 1),
        (3, "a", "d", "merge", 1.0, 1),
    )
    verdicts = {1: "equivalent", 2: "not_equivalent", 3: "equivalent"}
    want = estimate_from_draws(draws, verdicts, TOY_MANIFEST)
    series = pd.Series(verdicts)
    frame = pd.DataFrame({"pair_id": list(verdicts), "verdict": list(verdicts.values())})
    for given in (series, frame, frame.to_dict("list"), [*verdicts.items(), (2, "no")]):
        assert estimate_from_draws(draws, given, TOY_MANIFEST) == want
    for given in ({"pair_id": [1, 2, 3, 2], "verdict": [*verdicts.values(), "yes"]},
                  [*verdicts.items(), (2, "equivalent")],
                  pd.concat([series, pd.Series({2: "equivalent"})])):
        with pytest.raises(InputError, match="pair id '2' is given twice with different"):
            estimate_from_draws(draws, given, TOY_MANIFEST)


def test_verdict_counts_per_class() -> None:
    """sample.classes counts each judged pair once by its verdict (several draws of one
    pair and unknowns included), per class of the estimators, as counted here by hand."""
    draws = draw_rows(
        (2, "a", "b", "split", -1.0, 3),
        (3, "a", "c", "split", -1.0, 1),
        (4, "b", "c", "split", -1.0, 1),
        (5, "a", "d", "merge", 1.0, 1),
        (6, "e", "f", "stable", 1.0, 2),
    )
    out = estimate_from_draws(draws, {2: "not_equivalent", 3: "equivalent", 4: "unknown",
                                      5: "equivalent", 6: "equivalent"}, TOY_MANIFEST)
    got = {c: (t["equivalent_pairs"], t["not_equivalent_pairs"], t["unknown_pairs"])
           for c, t in out["sample"]["classes"].items()}
    assert got["split"] == (1, 1, 1)
    assert got["merge"] == (1, 0, 0)
    assert sorted(v for k, v in got.items() if k not in ("split", "merge")) == [
        (0, 0, 0), (0, 0, 0), (1, 0, 0)]


def test_confidence_is_a_plain_number_in_the_document() -> None:
    """confidence=np.float32(0.9) was echoed as a float32 into the 'JSON-ready' document,
    which json.dumps refused, and confidence='0.9' raised a TypeError from a comparison.
    The document holds a float, equal to that of confidence=0.9 given as a Python float;
    a text or a bool is refused."""
    import json

    draws = draw_rows(*GOOD)
    verdicts = {1: "equivalent", 2: "equivalent"}
    want = estimate_from_draws(draws, verdicts, TOY_MANIFEST, confidence=float(np.float32(0.9)))
    got = estimate_from_draws(draws, verdicts, TOY_MANIFEST, confidence=np.float32(0.9))
    assert got == want and type(got["delta_precision"]["confidence"]) is float
    json.dumps(got)
    for bad in ("0.9", True, 1.0, 0):
        with pytest.raises(InputError) as err:
            estimate_from_draws(draws, verdicts, TOY_MANIFEST, confidence=bad)
        assert err.value.option == "confidence"
