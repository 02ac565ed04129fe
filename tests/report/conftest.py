"""The documents a report is made of, from the example data: the JSON outputs of
`abcde impact`, `abcde estimate` (a sample judged by two judges, for agreement),
`abcde evaluate` and `abcde simulate`, each produced once per test session by the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from abcde.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
INPUTS = [str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"), "--weights",
          str(EXAMPLES / "weights.csv")]


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def cli_json(*args: str) -> dict[str, Any]:
    return json.loads(cli(*args, "--format", "json"))


def ideal() -> dict[str, str]:
    import csv

    with (EXAMPLES / "ideal.csv").open(newline="") as f:
        return {r["item_id"]: r["cluster_id"] for r in csv.DictReader(f)}


@pytest.fixture(scope="session")
def judged_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 120-pair jaccard sample of the examples, sliced by provenance, judged by two
    judges in verdicts.jsonl: `ana` as the ideal clustering says on every pair, `bo` on
    every other pair with every fifth of his verdicts flipped (they then disagree)."""
    from abcde.judge.questions import load_questions
    from abcde.sample_files.verdicts import Event, append_event

    out = tmp_path_factory.mktemp("report") / "sample"
    cli("sample-pairs", *INPUTS, "--attributes", str(EXAMPLES / "attributes.csv"),
        "--population", "jaccard", "--budget", "120", "--seed", "3", "--slice-by",
        "provenance", "--out", str(out))
    sample = load_questions(out)
    truth = ideal()
    for k, (pid, q) in enumerate(sample.questions.items()):
        same = truth[str(q.item_1)] == truth[str(q.item_2)]
        verdict = "equivalent" if same else "not_equivalent"
        append_event(out / "verdicts.jsonl", Event("ana", pid, sample.sample_id, verdict,
                                                   "t", str(q.item_1), str(q.item_2)))
        if k % 2 == 0:
            flipped = "not_equivalent" if (k // 2) % 5 == 0 and same else verdict
            append_event(out / "verdicts.jsonl", Event("bo", pid, sample.sample_id,
                                                       flipped, "t", str(q.item_1),
                                                       str(q.item_2)))
    return out


@pytest.fixture(scope="session")
def docs(judged_sample: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Name → JSON file of each command's output (and `sample`: the judged sample)."""
    folder = tmp_path_factory.mktemp("report_docs")
    outputs = {
        "impact": cli_json("impact", *INPUTS, "--attributes", str(EXAMPLES / "attributes.csv"),
                           "--slice-by", "provenance", "--slice-by", "size_class"),
        "estimate": cli_json("estimate", str(judged_sample)),
        "evaluate": cli_json("evaluate", "--truth", str(EXAMPLES / "truth.csv"),
                             "--actual", f"base={EXAMPLES / 'base.csv'}",
                             "--actual", f"exp={EXAMPLES / 'exp.csv'}",
                             "--weights", str(EXAMPLES / "weights.csv")),
        "simulate": cli_json("simulate", *INPUTS, "--truth", str(EXAMPLES / "ideal.csv"),
                             "--budgets", "40,80", "--replications", "3"),
    }
    paths = {}
    for name, doc in outputs.items():
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    paths["sample"] = judged_sample
    return paths


@pytest.fixture
def sample_copy(judged_sample: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(judged_sample, tmp_path / "sample"))
