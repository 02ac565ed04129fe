"""`sample-pairs --budget B --model-budget M`: one stream of M pairs for a model judge,
the humans' B a uniform random subset with the recorded π = B/M (docs/method.md §8.15):
its files, what the humans and the model see, and the estimate's ξ/π."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main
from abcde.errors import InputError
from abcde.judge.estimates import EstimatesPanel, _pct
from abcde.quality.estimate import estimate, estimate_from_draws
from abcde.quality.metrics import METRIC_KEYS
from abcde.quality.wording import UNKNOWN_START
from abcde.report.build import report_html
from abcde.sample_files.pairs import read_draws, read_pair_manifest
from abcde.sampling.pairs import sample_pairs

BASE = {i: i // 4 for i in range(60)}
EXP = {i: (i // 8 if i < 30 else i // 4 + 100) for i in range(60)}
TRUTH = {i: i // 8 for i in range(60)}
WEIGHTS = {i: 1.0 + i % 3 for i in range(60)}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_model_round_writes_the_humans_subset_and_every_pair_for_the_model(
        tmp_path: Path) -> None:
    out = tmp_path / "s"
    s = sample_pairs(BASE, EXP, WEIGHTS, budget=12, model_budget=48, seed=3, out=out)
    manifest = read_pair_manifest(out)  # sealed, with every file's digest
    assert "model_questions.jsonl" in manifest["digests"]
    assert manifest["humans"] == {"budget": 12, "pairs": 12, "selection": "uniform",
                                  "probability": 0.25}
    model = _jsonl(out / "model_questions.jsonl")
    humans = _jsonl(out / "questions.jsonl")
    assert len({q["pair_id"] for q in model}) == len(model) == 48
    assert len(humans) == 12 and {q["pair_id"] for q in humans} <= {q["pair_id"] for q in model}
    assert (out / "questions.csv").read_text().count("\n") == 13
    draws = read_draws(out, manifest)
    chosen = {r["pair_id"] for r in draws if r["human_probability"] is not None}
    assert chosen == {q["pair_id"] for q in humans}
    assert {r["human_probability"] for r in draws} == {None, 0.25}
    plain = sample_pairs(BASE, EXP, WEIGHTS, budget=48, seed=3, out=tmp_path / "p")
    assert "human_probability" not in plain.draws[0] and "humans" not in plain.manifest
    assert not (tmp_path / "p" / "model_questions.jsonl").exists()
    assert [r["pair_id"] for r in plain.draws] == [r["pair_id"] for r in draws]
    assert plain.manifest["sample_id"] != s.manifest["sample_id"]  # other questions


def test_the_estimate_uses_only_the_humans_subset_with_its_probability(tmp_path: Path) -> None:
    """The truth judges every pair, but only the humans' count, each by 1/π: with π
    uniform this is the reweighting of unjudged pairs within their class (§8.3),
    computed here by estimate_from_draws on the same draws without the column."""
    out = tmp_path / "s"
    sample_pairs(BASE, EXP, WEIGHTS, budget=15, model_budget=48, seed=5, out=out)
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\n" + "".join(f"{i},{c}\n" for i, c in TRUTH.items()))
    doc = estimate(out, truth=str(truth))
    manifest = read_pair_manifest(out)
    draws = read_draws(out, manifest)
    verdicts = {r["pair_id"]: "equivalent" if TRUTH[r["item_i"]] == TRUTH[r["item_j"]]
                else "not_equivalent" for r in draws if r["human_probability"] is not None}
    plain = [{k: v for k, v in r.items() if k != "human_probability"} for r in draws]
    reference = estimate_from_draws(plain, verdicts, {k: v for k, v in manifest.items()
                                                      if k != "humans"})
    for key in METRIC_KEYS:
        assert doc[key]["estimate"] == pytest.approx(reference[key]["estimate"], rel=1e-12)
        assert doc[key]["se"] == pytest.approx(reference[key]["se"], rel=1e-12)
    assert not any(w.startswith(UNKNOWN_START) for w in doc["warnings"])


def test_model_round_end_to_end_through_the_cli(tmp_path: Path) -> None:
    """sample-pairs --model-budget → model-judge (fed model_questions.jsonl) → estimate,
    equal to the library call; a model budget below the humans' is refused."""
    runner = CliRunner()
    base, exp, weights = tmp_path / "b.csv", tmp_path / "e.csv", tmp_path / "w.csv"
    base.write_text("item_id,cluster_id\n" + "".join(f"{i},{c}\n" for i, c in BASE.items()))
    exp.write_text("item_id,cluster_id\n" + "".join(f"{i},{c}\n" for i, c in EXP.items()))
    weights.write_text("item_id,weight\n" + "".join(f"{i},{w}\n" for i, w in WEIGHTS.items()))
    out = tmp_path / "s"
    args = ["sample-pairs", "--base", str(base), "--exp", str(exp), "--weights", str(weights),
            "--budget", "20", "--out", str(out)]
    bad = runner.invoke(main, [*args, "--model-budget", "10"])
    assert bad.exit_code == 2 and "--model-budget" in bad.output
    res = runner.invoke(main, [*args, "--model-budget", "60"])
    assert res.exit_code == 0, res.output
    assert "model_questions_jsonl" in res.output
    script = tmp_path / "judge.py"
    script.write_text("import json, sys\nfor line in sys.stdin:\n    row = json.loads(line)\n"
                      "    same = int(row['item_1']) // 8 == int(row['item_2']) // 8\n"
                      "    print(json.dumps({'pair_id': row['pair_id'], "
                      "'probability': 0.9 if same else 0.1}))\n")
    res = runner.invoke(main, ["model-judge", str(out), "--command",
                               f"{sys.executable} {script}"])
    assert res.exit_code == 0, res.output
    assert len(_jsonl(out / "model_verdicts.jsonl")) == 60
    humans = tmp_path / "humans.csv"
    rows = _jsonl(out / "questions.jsonl")
    humans.write_text("sample_id,pair_id,verdict\n" + "".join(
        f"{q['sample_id']},{q['pair_id']},"
        f"{'equivalent' if int(q['item_1']) // 8 == int(q['item_2']) // 8 else 'not_equivalent'}\n"
        for q in rows))
    res = runner.invoke(main, ["estimate", str(out), "--judgements", str(humans),
                               "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc == estimate(out, judgements=str(humans)) and doc["model"]
    # beside it, the humans alone: the estimate of the same round without the model's file
    alone = tmp_path / "alone"
    shutil.copytree(out, alone)
    (alone / "model_verdicts.jsonl").unlink()
    humans_only = estimate(alone, judgements=str(humans))
    assert "humans_alone" not in humans_only
    for key in ("estimate", "ci_low", "ci_high", "se"):
        assert doc["humans_alone"]["delta_precision"][key] == pytest.approx(
            humans_only["delta_precision"][key], rel=1e-12)
    assert 'id="estimate-model"' in report_html(estimate=doc)
    # the judge's live panel on the same round: the model's verdicts used, no sequences
    panel = EstimatesPanel(out).compute({"ann": {q["pair_id"]: v for q, v in zip(
        rows, [r.split(",")[2] for r in humans.read_text().splitlines()[1:]], strict=True)}})
    assert panel["error"] is None, panel["error"]
    first = panel["rows"][0]
    assert first["estimate"] == _pct(doc["delta_precision"]["estimate"], True)
    assert first["sequence"] == "–" and panel["signals"] == []
    with pytest.raises(InputError) as err:
        EstimatesPanel(out, stop_when=("delta_precision>0",))
    assert err.value.option == "stop_when"
    seq = runner.invoke(main, ["estimate", str(out), "--judgements", str(humans),
                               "--sequential"])
    assert seq.exit_code == 2 and "--sequential" in seq.output


def test_model_budget_is_refused_with_strata(tmp_path: Path) -> None:
    import abcde

    with pytest.raises(InputError) as err:
        abcde.Comparison(BASE, EXP, WEIGHTS).sample_pairs(
            10, model_budget=40, strata_allocation="proportional")
    assert err.value.option == "model_budget"


def test_the_verdict_counts_keep_the_models_pairs_apart(tmp_path: Path) -> None:
    """`estimate --truth` on a model round without model verdicts: the truth judges every
    pair, but only the humans' subset counts as verdicts; the other pairs are counted
    "for the model", not as human verdicts (nor as unknown ones)."""
    out = tmp_path / "s"
    sample_pairs(BASE, EXP, WEIGHTS, budget=12, model_budget=48, seed=3, out=out)
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\n" + "".join(f"{i},{c}\n" for i, c in TRUTH.items()))
    same = [TRUTH[int(q["item_1"])] == TRUTH[int(q["item_2"])]
            for q in _jsonl(out / "questions.jsonl")]
    want = {"equivalent": sum(same), "not_equivalent": len(same) - sum(same), "unknown": 0,
            "for_model": 36}
    runner = CliRunner()
    res = runner.invoke(main, ["estimate", str(out), "--truth", str(truth), "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["judgements"] == want
    text = runner.invoke(main, ["estimate", str(out), "--truth", str(truth)]).output
    assert (f"verdicts: {want['equivalent']} equivalent, {want['not_equivalent']} "
            "not_equivalent, 0 unknown, 36 for the model;") in text
    # a file with the verdicts of 5 of the humans' pairs: 7 unknown, still 36 for the model
    asked = _jsonl(out / "questions.jsonl")[:5]
    part = tmp_path / "part.csv"
    part.write_text("sample_id,pair_id,verdict\n" + "".join(
        f"{q['sample_id']},{q['pair_id']},equivalent\n" for q in asked))
    doc = estimate(out, judgements=str(part))
    assert doc["judgements"] == {"equivalent": 5, "not_equivalent": 0, "unknown": 7,
                                 "for_model": 36}
