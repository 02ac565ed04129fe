"""`abcde simulate` / `abcde.quality.simulation.simulate`: budget sizing by simulated rounds."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from abcde.cli import main
from abcde.quality.estimate import estimate
from abcde.quality.simulation import cut_stream, simulate
from abcde.sampling.pairs import sample_pairs

BASE = {i: i // 6 for i in range(120)}
EXP = {i: (i // 12 if i < 60 else i // 3 + 100) for i in range(120)}
TRUTH = {i: i // 4 if i % 5 else i // 10 + 200 for i in range(120)}
WEIGHT = {i: 1.0 + (i % 7) / 3 for i in range(120)}


def test_prefix_of_the_stream_is_the_budget_sample() -> None:
    """cut_stream(stream, b) equals sample_pairs(budget=b) with the same seed (the
    stream is indexed by draw number, so a budget's sample is a prefix)."""
    long = sample_pairs(BASE, EXP, WEIGHT, population="jaccard", draws=2000, seed=3,
                        return_stream=True)
    for b in (20, 80):
        direct = sample_pairs(BASE, EXP, WEIGHT, population="jaccard", budget=b, seed=3)
        cut = cut_stream(long.stream, b)
        got = sorted((r["item_i"], r["item_j"], r["draw_count"]) for r in cut)
        want = sorted((r["item_i"], r["item_j"], r["draw_count"]) for r in direct.draws)
        assert got == want
        same = estimate(direct, truth=TRUTH)
        assert same["delta_precision"]["estimate"] is not None


def test_half_widths_shrink_like_one_over_root_budget() -> None:
    doc = simulate(BASE, EXP, WEIGHT, truth=TRUTH, population="jaccard", budgets=(50, 200),
                   replications=6, seed=1)
    assert doc["budgets"] == [50, 200]
    for key in ("delta_precision", "good_distance", "affected_good_index"):
        small, large = doc["metrics"][key][50], doc["metrics"][key][200]
        assert small["half_width"] > large["half_width"] > 0
        ratio = small["half_width"] / large["half_width"]
        assert 1.3 < ratio < 3.5, (key, ratio)  # ~2 = √(200/50), loosely
    assert {r["metric"] for r in doc["rows"]} >= {"good_split_distance", "bad_distance"}
    assert all(math.isfinite(r["half_width"]) for r in doc["rows"] if r["half_width"])


def test_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    paths = {}
    for name, data in (("base", BASE), ("exp", EXP), ("truth", TRUTH)):
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text("item_id,cluster_id\n" + "".join(
            f"{k},{v}\n" for k, v in data.items()))
    args = ["simulate", "--base", str(paths["base"]), "--exp", str(paths["exp"]), "--truth",
            str(paths["truth"]), "--budgets", "30,60", "--replications", "2"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert "GoodDistance" in res.output and "60" in res.output
    res = CliRunner().invoke(main, [*args, "--strata-allocation", "0.7", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["stratify"] == "0.7"


def test_half_widths_are_the_reported_intervals_next_to_the_spread() -> None:
    """With the Experiment as the truth every split pair is 'not equivalent' and every
    merge pair 'equivalent': each rate's SE is 0 in every replication. The old report
    (z × mean SE) showed a half-width of 0 there; the reported (Wilson) intervals are
    never zero-wide, so the mean half-width is > 0. The spread of the estimates across
    replications is reported next to it: spread_half_width = z·sd."""
    doc = simulate(BASE, EXP, WEIGHT, truth=EXP, population="jaccard", budgets=(40,),
                   replications=4, seed=2)
    for key in ("good_split_rate", "bad_merge_rate", "good_merge_distance"):
        cell = doc["metrics"][key][40]
        assert cell["se"] == 0.0 and cell["half_width"] > 0, (key, cell)
    for row in doc["rows"]:
        if row["estimate_sd"] is not None:
            assert row["spread_half_width"] == pytest.approx(1.959964 * row["estimate_sd"])
    good = doc["metrics"]["good_split_rate"][40]
    assert good["estimate_sd"] == pytest.approx(0.0, abs=1e-15)  # always SplitRate(T)
    from abcde.quality.simulation import render_table

    assert "z·sd" in render_table(doc)
