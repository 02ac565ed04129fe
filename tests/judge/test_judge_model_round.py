"""A round with a model judge end to end (docs/method.md §8.15): `abcde sample-pairs
--model-budget` → `abcde model-judge --command` (a small script as the model) → the
humans' verdicts given in Chromium through `abcde judge --show-estimates` → `abcde
estimate DIR` equal to the library's `abcde.estimate(DIR)`; the panel shows the combined
estimate beside the humans' alone and says it uses the model's verdicts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

import abcde
from abcde.judge.estimates import _pct

from .judge_support import EXAMPLES, Server, run_cli, start_server
from .test_judge_browser import console_errors, judge_by_truth, log, screenshot

# the model: right on the pairs whose id is not a multiple of 10 (by the ideal clustering)
MODEL = """import csv, json, sys
with open(sys.argv[1], newline="") as f:
    ideal = {r["item_id"]: r["cluster_id"] for r in csv.DictReader(f)}
for line in sys.stdin:
    q = json.loads(line)
    same = (ideal[q["item_1"]] == ideal[q["item_2"]]) != (int(q["pair_id"]) % 10 == 0)
    print(json.dumps({"pair_id": q["pair_id"], "probability": 0.9 if same else 0.1}))
"""


def test_model_judge_humans_in_chromium_then_estimate(
        tmp_path: Path, servers: list[Server], browser_factory: Any) -> None:
    out = tmp_path / "round"
    ran = run_cli("sample-pairs", "--base", str(EXAMPLES / "base.csv"),
                  "--exp", str(EXAMPLES / "exp.csv"), "--weights", str(EXAMPLES / "weights.csv"),
                  "--budget", "12", "--model-budget", "200", "--seed", "4", "--out", str(out))
    assert ran.returncode == 0, ran.stderr
    script = tmp_path / "model.py"
    script.write_text(MODEL)
    ran = run_cli("model-judge", str(out), "--command",
                  f"{sys.executable} {script} {EXAMPLES / 'ideal.csv'}", "--batch", "80")
    assert ran.returncode == 0, ran.stderr
    assert (out / "model_verdicts.jsonl").read_text().count("\n") == 200
    assert not (out / "verdicts.jsonl").exists()  # never mixed with the humans'

    server = start_server(out, "--judge", "ana", "--show-estimates")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    given = judge_by_truth(d, out, 20)
    assert len(given) == 12 and len(log(out)) == 12  # the humans see their subset only
    d.get(server.url)  # the done page, with the panel
    cli = json.loads(run_cli("estimate", str(out), "--format", "json").stdout)
    library = json.loads(json.dumps(abcde.estimate(out)))
    assert cli == library and cli["model"] and cli["humans_alone"]

    panel = d.find_element(By.ID, "estimates")
    assert "With the model judge's verdicts (model_verdicts.jsonl)" in panel.text
    head = [th.text for th in panel.find_elements(By.CSS_SELECTOR, "thead th")]
    assert head[:4] == ["metric", "estimate", "95% CI", "humans alone"]
    assert "sequence" not in head  # the confidence sequences take humans only
    cells = [td.text for td in panel.find_elements(By.CSS_SELECTOR, "tbody tr")[0]
             .find_elements(By.TAG_NAME, "td")]
    dp, alone = cli["delta_precision"], cli["humans_alone"]["delta_precision"]
    assert cells[:3] == [
        _pct(dp["estimate"], True), f"[{_pct(dp['ci_low'], True)}, {_pct(dp['ci_high'], True)}]"
        + (" not conclusive" if dp["not_conclusive"] else ""),
        f"[{_pct(alone['ci_low'], True)}, {_pct(alone['ci_high'], True)}]"]
    classes = [li.text for li in panel.find_elements(By.CSS_SELECTOR, "ul.model li")]
    assert len(classes) == len(cli["model"]) and all("human verdict" in c for c in classes)
    screenshot(d, "judge-model-estimates.png")
    assert console_errors(d) == []


def test_the_panel_reads_the_model_verdicts_when_they_change(tmp_path: Path) -> None:
    """The judge server may start before `abcde model-judge` ends: the panel finds the
    sample's model_verdicts.jsonl where `abcde estimate` does, and reads it again when it
    changes, so that it always equals the estimate of that moment."""
    from abcde.judge.estimates import EstimatesPanel
    from abcde.sampling.pairs import sample_pairs

    out = tmp_path / "s"
    truth = {i: i // 8 for i in range(60)}
    sample_pairs({i: i // 4 for i in range(60)},
                 {i: i // 8 if i < 30 else i // 4 + 100 for i in range(60)},
                 {i: 1.0 + i % 3 for i in range(60)}, budget=20, model_budget=60, seed=3,
                 out=out)
    asked = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    humans = {q["pair_id"]: "equivalent" if truth[int(q["item_1"])] == truth[int(q["item_2"])]
              else "not_equivalent" for q in asked}
    judged = tmp_path / "humans.csv"
    judged.write_text("sample_id,pair_id,verdict\n" + "".join(
        f"{asked[0]['sample_id']},{p},{v}\n" for p, v in humans.items()))
    panel = EstimatesPanel(out)  # before the model judge has written anything

    def shown(right: float) -> tuple[dict[str, Any], dict[str, Any]]:
        if right:  # the model judge, right with probability `right` on every pair
            (out / "model_verdicts.jsonl").write_text("".join(json.dumps({
                "pair_id": q["pair_id"], "probability": right if truth[int(q["item_1"])]
                == truth[int(q["item_2"])] else 1 - right}) + "\n" for q in [
                    json.loads(line) for line in
                    (out / "model_questions.jsonl").read_text().splitlines()]))
        doc = abcde.estimate(out, judgements=str(judged))
        got = panel.compute({"ann": humans})
        assert got["error"] is None, got["error"]
        assert got["rows"][0]["estimate"] == _pct(doc["delta_precision"]["estimate"], True)
        return got, doc

    got, doc = shown(0)
    assert got["model"] is None and "model" not in doc
    got, doc = shown(0.9)
    assert got["model"]["file"] == "model_verdicts.jsonl" and doc["model"]
    assert got["rows"][0]["humans_alone"] == "[{}, {}]".format(*(_pct(
        doc["humans_alone"]["delta_precision"][k], True) for k in ("ci_low", "ci_high")))
    was = got["rows"][0]["interval"]
    got, doc = shown(0.6)  # rewritten by a worse model: read again
    assert doc["model"] and got["rows"][0]["interval"] != was
