"""`abcde model-judge` (a command judging by JSON lines, batched, resumable) and `abcde
estimate` reading its model_verdicts.jsonl: equal to the library call with the same
verdicts; a failing command is an InputError naming --command, exit code 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from abcde.cli import main
from abcde.quality.estimate import estimate
from abcde.sample_files.manifest import sample_id
from abcde.sampling.pairs import sample_pairs

BASE = {i: i // 4 for i in range(60)}
EXP = {i: (i // 8 if i < 30 else i // 4 + 100) for i in range(60)}
TRUTH = {i: i // 8 for i in range(60)}

JUDGE = """import json, sys
truth = {i: i // 8 for i in range(60)}
for line in sys.stdin:
    row = json.loads(line)
    same = truth[int(row["item_1"])] == truth[int(row["item_2"])]
    print(json.dumps({"pair_id": row["pair_id"], "probability": 0.9 if same else 0.1}))
"""


def test_model_judge_then_estimate(tmp_path: Path) -> None:
    out = tmp_path / "s"
    sample_pairs(BASE, EXP, {i: 1.0 for i in range(60)}, budget=80, seed=3, out=out)
    script = tmp_path / "judge.py"
    script.write_text(JUDGE)
    runner = CliRunner()
    command = f"{sys.executable} {script}"
    res = runner.invoke(main, ["model-judge", str(out), "--command", command, "--batch", "7"])
    assert res.exit_code == 0, res.output
    log = out / "model_verdicts.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert len({r["pair_id"] for r in rows}) == len(rows) > 7
    again = runner.invoke(main, ["model-judge", str(out), "--command", "false"])
    assert again.exit_code == 0 and log.read_text().count("\n") == len(rows)  # resumed: none left
    humans = {r["pair_id"]: "equivalent" for r in rows[::3]}
    truth_of = {r["pair_id"]: r for r in rows}
    questions = tmp_path / "humans.csv"
    sid = sample_id(json.loads((out / "manifest.json").read_text()))
    questions.write_text("sample_id,pair_id,verdict\n" + "".join(
        f"{sid},{p},{'equivalent' if truth_of[p]['probability'] > 0.5 else 'not_equivalent'}\n"
        for p in humans))
    res = runner.invoke(main, ["estimate", str(out), "--judgements", str(questions),
                               "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    library = estimate(out, judgements=str(questions), model=str(log))
    assert doc["delta_precision"] == library["delta_precision"]
    assert doc["model"] == library["model"] and doc["model"]


def test_a_failing_model_command_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "s"
    sample_pairs(BASE, EXP, {i: 1.0 for i in range(60)}, budget=20, seed=3, out=out)
    res = CliRunner().invoke(main, ["model-judge", str(out), "--command", "false"])
    assert res.exit_code == 2 and "--command" in res.output
    assert not (out / "model_verdicts.jsonl").exists()


def test_model_verdicts_of_another_sample_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "s"
    sample_pairs(BASE, EXP, {i: 1.0 for i in range(60)}, budget=20, seed=3, out=out)
    stray = tmp_path / "model.csv"
    stray.write_text("pair_id,probability\nnot-a-pair,0.9\n")
    res = CliRunner().invoke(main, ["estimate", str(out), "--truth", _truth(tmp_path),
                                    "--model-verdicts", str(stray)])
    assert res.exit_code == 2 and "--model-verdicts" in res.output
    assert "not-a-pair" in res.output


def test_sequential_with_model_verdicts(tmp_path: Path) -> None:
    """Given explicitly, refused (exit 2); found beside the sample, left out with a
    warning, so that the sequences are the humans' (equal to a sample without it)."""
    out = tmp_path / "s"
    sample_pairs(BASE, EXP, {i: 1.0 for i in range(60)}, budget=20, seed=3, out=out)
    truth = _truth(tmp_path)
    plain = estimate(out, truth=truth, sequential=True)
    model = out / "model_verdicts.jsonl"
    model.write_text("".join(json.dumps({"pair_id": p, "probability": 0.5}) + "\n"
                             for p in {r["pair_id"] for r in _draws(out)}))
    res = CliRunner().invoke(main, ["estimate", str(out), "--truth", truth, "--sequential",
                                    "--model-verdicts", str(model)])
    assert res.exit_code == 2 and "--model-verdicts" in res.output
    found = estimate(out, truth=truth, sequential=True)
    assert found["sequential"] == plain["sequential"] and "model" not in found
    assert any("model judge" in w for w in found["warnings"])


def _truth(tmp_path: Path) -> str:
    path = tmp_path / "truth.csv"
    path.write_text("item_id,cluster_id\n" + "".join(f"{i},{c}\n" for i, c in TRUTH.items()))
    return str(path)


def _draws(out: Path) -> list[dict]:
    from abcde.sample_files.pairs import read_draws, read_pair_manifest

    return read_draws(out, read_pair_manifest(out))
