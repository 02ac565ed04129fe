"""`abcde simulate` / `abcde.quality.simulation.simulate`: budget sizing by simulated rounds."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from abcde.cli import main
from abcde.errors import InputError
from abcde.quality.estimate import estimate
from abcde.quality.metrics import METRIC_KEYS
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
    merge pair 'equivalent': each rate's share is 0 or 1 in every replication, its SE 0.
    The reported (Wilson) intervals are never zero-wide, so the mean half-width is > 0,
    and they hold the exact value in every replication. The spread of the estimates
    across replications is reported next to it: spread_half_width = z·sd."""
    doc = simulate(BASE, EXP, WEIGHT, truth=EXP, population="jaccard", budgets=(40,),
                   replications=4, seed=2)
    for key in ("good_split_rate", "bad_merge_rate", "good_merge_distance"):
        cell = doc["metrics"][key][40]
        assert cell["half_width"] > 0 and cell["coverage"] == 1.0, (key, cell)
    for row in doc["rows"]:
        if row["estimate_sd"] is not None:
            assert row["spread_half_width"] == pytest.approx(1.959964 * row["estimate_sd"])
    good = doc["metrics"]["good_split_rate"][40]
    assert good["estimate_sd"] == pytest.approx(0.0, abs=1e-15)  # always SplitRate(T)
    from abcde.quality.simulation import render_table

    assert "cov 100%" in render_table(doc)


def test_bias_and_coverage_against_the_exact_values() -> None:
    """simulate computes every metric's exact value from the truth (SQL per triple cell)
    and reports mean − exact with its SE, and the share of intervals that hold it."""
    from reference import quality_exact

    doc = simulate(BASE, EXP, WEIGHT, truth=TRUTH, budgets=(60,), replications=8, seed=3)
    exact = quality_exact(BASE, EXP, WEIGHT, TRUTH)
    assert doc["exact"]["available"] and doc["population"] == "mixture"
    for key, per in doc["metrics"].items():
        cell = per[60]
        assert cell["exact"] == pytest.approx(exact[key], rel=1e-12, abs=1e-15), key
        assert cell["bias"] == pytest.approx(cell["mean"] - cell["exact"])
        assert 0 <= cell["coverage"] <= 1 and cell["flagged"] == (cell["coverage"] < 0.9)


def test_a_truth_that_does_not_cover_t_has_no_bias_or_coverage() -> None:
    from abcde.quality.simulation import render_table

    partial = {i: c for i, c in TRUTH.items() if i % 10}
    doc = simulate(BASE, EXP, WEIGHT, truth=partial, budgets=(40,), replications=2, seed=1)
    assert not doc["exact"]["available"]
    assert all(per[40]["coverage"] is None and per[40]["bias"] is None
               for per in doc["metrics"].values())
    assert "exact values unavailable: the truth does not cover T" in render_table(doc)


def test_coverage_below_90_percent_is_flagged() -> None:
    from abcde.quality.exact import ExactQuality
    from abcde.quality.simulation import _summary, render_table

    exact = ExactQuality(True, {k: 0.5 for k in METRIC_KEYS})

    def doc(low: float) -> dict:
        return {k: {"estimate": 0.4, "ci_low": low, "ci_high": 0.45, "not_conclusive": None}
                for k in METRIC_KEYS}

    # 8 of 10 intervals miss 0.5
    results = {100: [doc(0.3)] * 8 + [{k: {**v, "ci_high": 0.6} for k, v in doc(0.3).items()}
                                      for _ in range(2)]}
    out = _summary(results, exact, 10, 1.96)
    cell = out["metrics"]["delta_precision"][100]
    assert cell["coverage"] == pytest.approx(0.2) and cell["flagged"]
    out.update(population="mixture", alpha=0.5, stratify=None)
    assert "! coverage below 90%" in render_table(out)


def test_the_flag_and_the_header_follow_the_intervals_level() -> None:
    """80% intervals that hold the exact value in 8 of 10 rounds are what they say: not
    flagged (a fixed 90% flagged every metric of a correct 80% interval), and the header
    says 80%, not 95%; 99% intervals that miss 1 in 10 rounds are flagged (below 98%)."""
    from abcde.quality.exact import ExactQuality
    from abcde.quality.simulation import _summary, render_table

    doc = simulate(BASE, EXP, WEIGHT, truth=TRUTH, budgets=(60,), replications=4, seed=3,
                   confidence=0.8)
    assert "mean 80% CI half-width" in render_table(doc)
    assert all(per[60]["flagged"] == (per[60]["coverage"] < 0.6)
               for per in doc["metrics"].values())
    exact = ExactQuality(True, {k: 0.5 for k in METRIC_KEYS})
    held = {k: {"estimate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "not_conclusive": None}
            for k in METRIC_KEYS}
    missed = {k: {**v, "ci_high": 0.45} for k, v in held.items()}
    for level, covering, flagged in ((0.8, 8, False), (0.99, 9, True)):
        results = {100: [held] * covering + [missed] * (10 - covering)}
        out = _summary(results, exact, 10, 1.96, confidence=level)
        cell = out["metrics"]["delta_precision"][100]
        assert cell["coverage"] == pytest.approx(covering / 10)
        assert cell["flagged"] is flagged, level
        out.update(population="mixture", alpha=0.5, stratify=None)
        text = render_table(out)
        assert f"mean {level:.0%} CI half-width" in text and "95%" not in text
        assert ("! coverage below" in text) is flagged


@pytest.mark.parametrize("extra", [[], ["--strata-allocation", "equal"]])
def test_identical_clusterings_have_no_pair_to_simulate(tmp_path, extra: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Base = Exp: no pair to judge, said as such (exit 2). It said "lower the largest of
    --budgets to at most 0" (budgets are >= 1) and, stratified, that the sample's draws
    had been edited."""
    paths = {}
    for name, data in (("base", BASE), ("truth", TRUTH)):
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text("item_id,cluster_id\n" + "".join(
            f"{k},{v}\n" for k, v in data.items()))
    res = CliRunner().invoke(main, ["simulate", str(paths["base"]), str(paths["base"]),
                                    "--truth", str(paths["truth"]), "--budgets", "10",
                                    "--replications", "2", *extra])
    assert res.exit_code == 2, res.output
    assert "no pair to judge: Base and Exp agree on every item" in res.output, res.output
    assert "at most 0" not in res.output and "edited" not in res.output, res.output


@pytest.mark.parametrize(("value", "tail"), [
    ("10,,20", "got '10,,20', which has an empty entry"),
    ("10,", "got '10,', which has an empty entry"), (",", "got ',', which has an empty entry"),
    ("", "got ''\n")])
def test_budgets_with_an_empty_entry_are_refused(tmp_path, value: str, tail: str) -> None:  # type: ignore[no-untyped-def]
    """An empty entry in --budgets (a typo such as "10,,20") is refused like --budgets "",
    rather than skipped: the run would otherwise size fewer budgets than were asked for."""
    path = tmp_path / "base.csv"
    path.write_text("item_id,cluster_id\n" + "".join(f"{k},{v}\n" for k, v in BASE.items()))
    res = CliRunner().invoke(main, ["simulate", str(path), str(path), "--truth", str(path),
                                    "--budgets", value, "--replications", "1"])
    assert res.exit_code == 2, res.output
    assert "--budgets" in res.output, res.output


def test_budgets_and_replications_are_integers_and_one_budget_may_stand_alone() -> None:
    """simulate(budgets=[2.5]) simulated a budget of 2 (int() truncated it), budgets=50
    raised "'int' object is not iterable" and replications=1.5 ran as if an integer; a
    non-integer is now refused before the work, and one budget is a budget."""
    for kwargs, option in (({"budgets": [2.5]}, "budgets"), ({"budgets": [50, True]}, "budgets"),
                           ({"budgets": []}, "budgets"), ({"replications": 1.5}, "replications"),
                           ({"replications": 0}, "replications")):
        with pytest.raises(InputError) as err:
            simulate(BASE, EXP, WEIGHT, truth=TRUTH, **{"budgets": [50], "replications": 1,
                                                         **kwargs})
        assert err.value.option == option
    alone = simulate(BASE, EXP, WEIGHT, truth=TRUTH, budgets=20, replications=1)
    assert alone["budgets"] == [20] and {r["budget"] for r in alone["rows"]} == {20}


def test_a_long_run_says_how_long_after_its_first_round(monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """`simulate --replications 1000000000` ran for hours without a word: after its first
    round a run that will take long says how long, and how many rounds fit the time it
    considers long (issue 32). A short run says nothing."""
    import itertools

    ticks = itertools.count(0.0, 1000.0)  # every look at the clock: 1000 s later
    monkeypatch.setattr("abcde.quality.simulation.monotonic", lambda: next(ticks))
    with caplog.at_level("WARNING", logger="abcde"):
        simulate(BASE, EXP, WEIGHT, truth=TRUTH, budgets=(20,), replications=3, seed=1)
    (record,) = [r for r in caplog.records if "simulate:" in r.getMessage()]
    text = record.getMessage()
    assert "the first of 3 rounds took 1000.0 s" in text and "about 50 minutes" in text, text
    assert "--replications" in text and "Ctrl-C" in text, text
    caplog.clear()
    monkeypatch.setattr("abcde.quality.simulation.monotonic", itertools.count(0.0, 1.0).__next__)
    with caplog.at_level("WARNING", logger="abcde"):
        simulate(BASE, EXP, WEIGHT, truth=TRUTH, budgets=(20,), replications=3, seed=1)
    assert not [r for r in caplog.records if "simulate:" in r.getMessage()]


def test_a_bias_below_the_exact_values_rounding_is_no_bias() -> None:
    """Estimates that differ from the exact value by a rounding error (a few units of the
    last place: the exact value is a sum in SQL, the estimate another) were reported as
    "bias -0.000% (-4.2 SE)": below the exact value's precision the bias is 0 and no SE
    ratio is shown; a real bias, however small in percent, keeps its sign and its SEs."""
    from abcde.quality.exact import ExactQuality
    from abcde.quality.simulation import _summary, render_table

    exact, ulp = 0.1, math.ulp(0.1)

    def rounds(*estimates: float) -> dict[int, list[dict]]:
        return {100: [{k: {"estimate": e, "ci_low": e - 0.01, "ci_high": e + 0.01,
                           "not_conclusive": None} for k in METRIC_KEYS} for e in estimates]}

    truth = ExactQuality(True, {k: exact for k in METRIC_KEYS})
    out = _summary(rounds(*[exact - ulp, exact - 2 * ulp] * 5), truth, 10, 1.96)
    out.update(population="mixture", alpha=0.5, stratify=None)
    cell = out["metrics"]["delta_precision"][100]
    assert cell["bias"] == 0.0 and cell["coverage"] == 1.0
    assert "SE)" not in render_table(out) and "-0.000%" not in render_table(out)
    real = _summary(rounds(*[exact - 1e-7, exact - 2e-7] * 5), truth, 10, 1.96)
    real.update(population="mixture", alpha=0.5, stratify=None)
    assert real["metrics"]["delta_precision"][100]["bias"] == pytest.approx(-1.5e-7)
    assert "bias -0.000015% (-9.0 SE)" in render_table(real)
    # a real bias whose estimates differ only in their last bits has no SE to count in
    steady = _summary(rounds(*[exact + 1e-3, exact + 1e-3 + ulp] * 5), truth, 10, 1.96)
    steady.update(population="mixture", alpha=0.5, stratify=None)
    cell = steady["metrics"]["delta_precision"][100]
    assert cell["bias"] == pytest.approx(1e-3) and cell["bias_se"] == 0.0
    assert "bias +0.100%" in render_table(steady) and "SE)" not in render_table(steady)


def test_an_exact_rate_has_no_bias_in_a_real_round() -> None:
    """With the Experiment as the truth GoodSplitRate is SplitRate(T) in every round; its
    estimate and the SQL's exact value differ in the last bits only, which is no bias."""
    doc = simulate(BASE, EXP, WEIGHT, truth=EXP, population="jaccard", budgets=(40,),
                   replications=4, seed=2)
    for key in ("good_split_rate", "good_split_distance", "good_merge_distance"):
        assert doc["metrics"][key][40]["bias"] == 0.0, key


def test_a_model_judge_saves_human_verdicts_and_keeps_coverage() -> None:
    """Rounds with a 95% accurate model on 240 pairs: the humans' ΔPrecision half-width
    shrinks (the verdicts are worth more than their number), the combined estimates'
    coverage is reported beside today's, and the target's human budgets follow the
    half-widths as 1/√b; a coin-flip model (accuracy 0.5) saves nothing to speak of."""
    docs = {a: simulate(BASE, EXP, WEIGHT, truth=TRUTH, budgets=(60,), replications=6, seed=3,
                        model_accuracy=a, model_budget=240, target_half_width=0.05)
            for a in (0.95, 0.5)}
    good, coin = (docs[a]["model"]["delta_precision"][0] for a in (0.95, 0.5))
    assert good["combined_half_width"] < good["human_half_width"] and good["worth"] > 90
    assert coin["worth"] < 75
    assert good["humans_with_model"] < good["humans_alone"] == math.ceil(
        60 * (good["human_half_width"] / 0.05) ** 2)
    cell = docs[0.95]["model"]["metrics"]["delta_precision"][60]
    assert cell["coverage"] is not None and cell["exact"] == docs[0.95]["metrics"][
        "delta_precision"][60]["exact"]
    res = CliRunner().invoke(main, ["simulate", "--help"])
    assert "--model-accuracy" in res.output


def test_a_model_judge_given_per_class_by_sensitivity_and_specificity(tmp_path) -> None:
    """`--model-accuracy 0.9,split=0.6/0.95,merge=1/0`: per class the simulated model is
    right on equivalent pairs with the sensitivity, on the others with the specificity —
    checked against the binomial rates on 24,000 pairs (within 4 SE); one accuracy is the
    same model as every class at that accuracy (the same draws: the numbers of the plain
    option do not change); the command names the option it refuses."""
    import random

    from abcde.quality.simulation import MODEL_ACCURACY, simulated_model

    classes = ("split", "merge", "stable_plus", "stable_minus")
    truth = {f"p{k}": "equivalent" if k % 3 else "not_equivalent" for k in range(24_000)}
    truth["unknown one"] = "unknown"
    of = {p: classes[k % 4] for k, p in enumerate(truth)}
    given = MODEL_ACCURACY.check("model_accuracy", "0.9,split=0.6/0.95,merge=1/0")
    model = simulated_model(truth, of, given, random.Random(7))
    assert "unknown one" not in model
    want = {"split": (0.6, 0.95), "merge": (1.0, 0.0), "stable_plus": (0.9, 0.9),
            "stable_minus": (0.9, 0.9)}
    for c, (sens, spec) in want.items():
        for v, rate in (("equivalent", sens), ("not_equivalent", spec)):
            right = [model[p] == (v == "equivalent") for p in model
                     if of[p] == c and truth[p] == v]
            se = math.sqrt(rate * (1 - rate) / len(right))
            assert abs(sum(right) / len(right) - rate) <= 4 * se + 1e-12, (c, v)
    same = MODEL_ACCURACY.check("model_accuracy", {"": 0.8})
    assert simulated_model(truth, of, 0.8, random.Random(1)) == simulated_model(
        truth, of, same, random.Random(1))
    args = ["simulate", "--base", str(_csv(tmp_path / "b.csv", BASE)), "--exp",
            str(_csv(tmp_path / "e.csv", EXP)), "--truth", str(_csv(tmp_path / "t.csv", TRUTH)),
            "--budgets", "30", "--replications", "2", "--model-budget", "90"]
    res = CliRunner().invoke(main, [*args, "--model-accuracy", "0.95,split=0/1"])
    assert res.exit_code == 0, res.output
    assert "right (sensitivity/specificity) split 0%/100%, merge 95%/95%" in res.output
    for bad in ("0.9,splits=0.5", "split=0.5", "1.5", "0.9,split=0.5/0.4/0.3"):
        res = CliRunner().invoke(main, [*args, "--model-accuracy", bad])
        assert res.exit_code == 2 and "--model-accuracy" in res.output, bad


def _csv(path, clusters):
    path.write_text("item_id,cluster_id\n" + "".join(f"{i},{c}\n" for i, c in clusters.items()))
    return path
