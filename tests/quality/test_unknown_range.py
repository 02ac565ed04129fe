"""The sensitivity range of unknown verdicts (docs/method.md §8.11): each metric's estimate
if every unknown verdict were "equivalent" and if every one were "not equivalent".

Checked against independent computations: hand-derived numbers on toy draws; the
estimate of a judgements file with the unknowns replaced by hand (a separate run of
`abcde estimate`); and, as a hypothesis property, the estimates of arbitrary fillings of
the unknowns, each computed by the estimator from filled-in verdicts.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toy_draws import TOY_MANIFEST, draw_rows, judged_draws

from abcde.cli import main
from abcde.quality.estimate import estimate, estimate_from_draws
from abcde.quality.metrics import METRIC_KEYS
from abcde.quality.result import Estimate
from abcde.quality.wording import precision_verdict
from abcde.sampling.pairs import sample_pairs

BASE = {i: i // 4 for i in range(40)}  # clusters of 4
EXP = {i: (i // 8 if i < 20 else i // 4 + 100) for i in range(40)}  # merges in the first half
EXP.update({38: 500, 39: 501})  # and two splits
TRUTH = {i: i // 8 for i in range(40)}
WEIGHT = {i: 1.0 + (i % 5) for i in range(40)}

# metrics whose parts all move one way when an unknown verdict turns equivalent: their
# two ends bound every filling of the unknowns (ΔPrecision and Good/BadDistance mix parts
# that move opposite ways)
ONE_WAY = tuple(k for k in METRIC_KEYS
                if k not in ("delta_precision", "good_distance", "bad_distance"))


# --------------------------------------------------------------------------- #
# Hand-derived numbers
# --------------------------------------------------------------------------- #


def test_the_ends_of_a_toy_sample_by_hand() -> None:
    """TOY_MANIFEST: split, merge and stable_plus totals 0.2, 0.1, 0.2 (u = w), every
    importance weight 1. Split draws: pair 1 equivalent ×1, pair 2 not ×2, pair 3 unknown
    ×1; merge: pair 4 equivalent ×1, pair 5 unknown ×3; stable_plus: pair 6 equivalent.

    BadSplitRate = 0.2 · (equivalent split draws / split draws):
      missing at random 0.2·1/3, all equivalent 0.2·2/4 = 0.1, all not 0.2·1/4 = 0.05.
    GoodMergeRate = 0.1 · (equivalent merge draws / merge draws):
      at random 0.1·1/1, all equivalent 0.1·4/4 = 0.1, all not 0.1·1/4 = 0.025.
    ΔPrecision = 0.05 − BadSplitRate + GoodMergeRate + 0.2·1 (stable_plus):
      all equivalent 0.05 − 0.1 + 0.1 + 0.2 = 0.25, all not 0.05 − 0.05 + 0.025 + 0.2
      = 0.225; at random 0.05 − 0.0667 + 0.1 + 0.2 = 0.2833, above both: the ends of a
      metric with parts of opposite signs need not surround its estimate.
    AffectedGoodIndex has no unknown pair: no range."""
    draws = draw_rows((1, "a", "b", "split", -1.0, 1), (2, "c", "d", "split", -1.0, 2),
                      (3, "e", "f", "split", -1.0, 1), (4, "g", "h", "merge", 1.0, 1),
                      (5, "i", "j", "merge", 1.0, 3), (6, "k", "l", "stable", 1.0, 1))
    verdicts = {1: "equivalent", 2: "not_equivalent", 3: "unknown", 4: "equivalent",
                5: "unknown", 6: "equivalent"}
    doc = estimate_from_draws(draws, verdicts, TOY_MANIFEST)

    def ends(key: str) -> tuple[float, float]:
        r = doc[key]["unknown_range"]
        return r["all_equivalent"], r["all_not_equivalent"]

    assert doc["bad_split_rate"]["estimate"] == pytest.approx(0.2 / 3)
    assert ends("bad_split_rate") == pytest.approx((0.1, 0.05))
    assert ends("good_split_rate") == pytest.approx((0.1, 0.15))
    assert ends("good_merge_rate") == pytest.approx((0.1, 0.025))
    assert ends("delta_precision") == pytest.approx((0.25, 0.225))
    assert doc["delta_precision"]["estimate"] == pytest.approx(0.05 - 0.2 / 3 + 0.1 + 0.2)
    r = doc["delta_precision"]["unknown_range"]
    assert (r["low"], r["high"], r["unknown_pairs"]) == (pytest.approx(0.225),
                                                         pytest.approx(0.25), 2)
    assert doc["bad_split_rate"]["unknown_range"]["unknown_pairs"] == 1
    assert doc["affected_good_index"]["unknown_range"] is None


def test_a_class_without_any_verdict_gets_its_whole_range() -> None:
    """Every merge draw unknown: GoodMergeRate is undefined (ABCDE §5.8 has nothing to
    reweight), and its range is the merge total 0.1 × (all equivalent 1, all not 0); the
    text table gives the range without marking it beyond an interval it does not have."""
    from abcde.quality.wording import render_table

    draws = draw_rows((1, "a", "b", "split", -1.0, 1), (2, "c", "d", "merge", 1.0, 2),
                      (3, "e", "f", "merge", 1.0, 1))
    doc = estimate_from_draws(draws, {1: "equivalent", 2: "unknown"}, TOY_MANIFEST)
    r = doc["good_merge_rate"]["unknown_range"]
    assert doc["good_merge_rate"]["estimate"] is None
    assert (r["all_equivalent"], r["all_not_equivalent"], r["unknown_pairs"]) == (
        pytest.approx(0.1), pytest.approx(0.0), 2)
    doc.update(sample_id="s", judgements={"equivalent": 1, "not_equivalent": 0, "unknown": 2})
    line = next(x for x in render_table(doc).splitlines() if x.startswith("GoodMergeRate "))
    assert "+10.000% / 0.000%" in line and "*" not in line


def test_no_unknown_verdict_no_range() -> None:
    draws = draw_rows((1, "a", "b", "split", -1.0, 1), (2, "c", "d", "merge", 1.0, 2))
    doc = estimate_from_draws(draws, {1: "equivalent", 2: "not_equivalent"}, TOY_MANIFEST)
    assert all(doc[k]["unknown_range"] is None for k in METRIC_KEYS)


# --------------------------------------------------------------------------- #
# A real sample: the ends are the estimates of judgement files filled in by hand
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module", params=["mixture", "jaccard"])
def sample_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp(request.param)
    sample_pairs(BASE, EXP, WEIGHT, population=request.param, budget=60, seed=5, out=out)
    return out


def _judgements(sample_dir: Path, path: Path, unknown_as: str | None) -> Path:
    """The questions file judged by TRUTH, every third pair "unknown" (or ``unknown_as``)."""
    with (sample_dir / "questions.csv").open() as f:
        rows = list(csv.DictReader(f))
    for n, q in enumerate(rows):
        a, b = int(q["item_1"]), int(q["item_2"])
        q["verdict"] = ((unknown_as or "unknown") if n % 3 == 0 else
                        "equivalent" if TRUTH[a] == TRUTH[b] else "not_equivalent")
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def test_the_ends_are_the_estimates_of_the_filled_in_judgements(sample_dir: Path,
                                                               tmp_path: Path) -> None:
    doc = estimate(str(sample_dir), judgements=str(_judgements(sample_dir, tmp_path / "j.csv",
                                                               None)))
    filled = {v: estimate(str(sample_dir), judgements=str(
        _judgements(sample_dir, tmp_path / f"{v}.csv", v)))
        for v in ("equivalent", "not_equivalent")}
    assert doc["sample"]["unknown_pairs"] > 0
    ranged = 0
    for key in METRIC_KEYS:
        r = doc[key]["unknown_range"]
        eq, ne = (filled[v][key]["estimate"] for v in ("equivalent", "not_equivalent"))
        assert filled["equivalent"][key]["unknown_range"] is None
        if r is None:  # none of its draws is unknown: the fillings change nothing
            assert eq == ne == pytest.approx(doc[key]["estimate"]), key
            continue
        ranged += 1
        assert r["all_equivalent"] == pytest.approx(eq, rel=1e-12, abs=1e-15), key
        assert r["all_not_equivalent"] == pytest.approx(ne, rel=1e-12, abs=1e-15), key
        assert (r["low"], r["high"]) == (min(r["all_equivalent"], r["all_not_equivalent"]),
                                         max(r["all_equivalent"], r["all_not_equivalent"]))
    assert ranged >= 5


def test_the_cli_shows_the_range_in_the_table_and_the_json(sample_dir: Path,
                                                          tmp_path: Path) -> None:
    path = _judgements(sample_dir, tmp_path / "j.csv", None)
    runner = CliRunner()
    res = runner.invoke(main, ["estimate", str(sample_dir), "--judgements", str(path)])
    assert res.exit_code == 0, res.output
    doc = json.loads(runner.invoke(main, ["estimate", str(sample_dir), "--judgements",
                                          str(path), "--format", "json"]).output)
    unknown = doc["sample"]["unknown_pairs"]
    assert "if unknowns all equiv / not" in res.output
    assert f"if the sample's {unknown:,} unknown pairs were all equivalent" in res.output
    r = doc["bad_split_rate"]["unknown_range"]
    line = next(x for x in res.output.splitlines() if x.startswith("BadSplitRate "))
    assert f"{100 * r['all_equivalent']:+.3f}% / {100 * r['all_not_equivalent']:+.3f}%" in line
    # with every pair judged there is no range and no column
    res = runner.invoke(main, ["estimate", str(sample_dir), "--judgements", str(
        _judgements(sample_dir, tmp_path / "all.csv", "equivalent"))])
    assert res.exit_code == 0 and "if unknowns all" not in res.output


def test_the_verdict_names_the_ends_only_when_the_interval_misses_one() -> None:
    from abcde.quality.result import UnknownRange

    inside = Estimate(0.01, 0.002, 0.005, 0.015, 90, 90, 1.0,
                      unknown_range=UnknownRange(0.006, 0.014, 3))
    outside = Estimate(0.01, 0.002, 0.005, 0.015, 90, 90, 1.0,
                       unknown_range=UnknownRange(0.006, 0.02, 3))
    assert "unknown" not in precision_verdict(inside)
    text = precision_verdict(outside)
    # the conclusion is unchanged; the ends follow it
    assert text.startswith("ΔPrecision +1.00% ± 0.50% (95% CI): the Experiment is more precise;")
    assert "if its 3 unknown pairs were all equivalent it would be +0.60%, all not " \
           "equivalent +2.00%: beyond its interval" in text


# --------------------------------------------------------------------------- #
# Any filling of the unknowns
# --------------------------------------------------------------------------- #


def _filled(draws: dict[str, list], verdicts: dict[int, str],
            choice: dict[int, bool]) -> dict[int, str]:
    """Every pair's verdict, the unknown ones (and those without a row) from ``choice``."""
    out = {}
    for pid in set(draws["pair_id"]):
        v = verdicts.get(pid, "unknown")
        out[pid] = v if v != "unknown" else ("equivalent" if choice[pid] else
                                              "not_equivalent")
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), alpha=st.sampled_from([0.0, 0.5, 1.0]))
def test_the_ends_bound_every_filling_of_one_way_metrics(data: Any, alpha: float) -> None:
    """For a rate, a split/merge distance or an index, whose parts all rise (or all fall)
    when an unknown verdict turns equivalent, the estimate of any filling of the unknowns,
    and the missing-at-random estimate, lie between the two ends; for every metric the
    ends are the estimates of the two uniform fillings (computed here from filled-in
    verdicts: no reweighting, a separate run of the estimator)."""
    draws, verdicts, manifest = data.draw(judged_draws(alpha))
    ids = sorted(set(draws["pair_id"]))
    choice = {pid: data.draw(st.booleans()) for pid in ids}
    doc = estimate_from_draws(draws, verdicts, manifest)
    some = estimate_from_draws(draws, _filled(draws, verdicts, choice), manifest)
    uniform = {v: estimate_from_draws(draws, _filled(draws, verdicts, dict.fromkeys(ids, v)),
                                      manifest) for v in (True, False)}
    for key in METRIC_KEYS:
        r = doc[key]["unknown_range"]
        if r is None:
            assert some[key]["estimate"] == uniform[True][key]["estimate"] \
                or math.isclose(some[key]["estimate"], uniform[True][key]["estimate"],
                                rel_tol=1e-9, abs_tol=1e-12), key
            continue
        assert r["all_equivalent"] == pytest.approx(uniform[True][key]["estimate"], rel=1e-9,
                                                    abs=1e-12)
        assert r["all_not_equivalent"] == pytest.approx(uniform[False][key]["estimate"],
                                                        rel=1e-9, abs=1e-12)
        if key not in ONE_WAY:
            continue
        tol = 1e-9 * max(1.0, abs(r["low"]), abs(r["high"]))
        assert r["low"] - tol <= some[key]["estimate"] <= r["high"] + tol, key
        if doc[key]["estimate"] is not None:
            assert r["low"] - tol <= doc[key]["estimate"] <= r["high"] + tol, key
