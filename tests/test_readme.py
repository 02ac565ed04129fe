"""README.md, run as a new user runs it on examples/: the tutorial's command prints the
lines it quotes, its reading quotes those numbers, its Python snippet runs; the
judgement round's three commands (sample-pairs, judge, estimate) print what the README
shows, and its reading quotes the estimates printed. (The quoted output went stale when
the text tables changed their digits.) The docs/ pages are checked by tests/test_docs.py."""

from __future__ import annotations

import csv
import json
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TUTORIAL = README.split("## Tutorial", 1)[1].split("\n## ", 1)[0]
ROUND = README.split("## A judgement round", 1)[1].split("\n## ", 1)[0]


def indented_blocks(text: str) -> list[list[str]]:
    """The indented (4 spaces) code blocks of a Markdown text, each as its lines."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith("    "):
            current.append(line[4:])
        elif line.strip() == "" and current:
            current.append("")
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return [[line for line in b if line] for b in blocks]


def squeezed(line: str) -> str:
    return " ".join(line.split())


def command_of(block: list[str]) -> list[str]:
    """The argv of a README command block (`.venv/bin/abcde …`, lines joined at `\\`)."""
    argv = shlex.split(" ".join(line.rstrip("\\") for line in block))
    assert argv[0] == ".venv/bin/abcde", argv
    return argv[1:]


def missing_lines(quoted: list[str], printed: str) -> list[str]:
    """The quoted lines (but `...`) that the printed text lacks, spaces squeezed."""
    lines = {squeezed(line) for line in printed.splitlines()}
    return [line for line in quoted if line.strip() not in ("", "...")
            and squeezed(line) not in lines]


@pytest.fixture(scope="module")
def tutorial_output() -> str:
    argv = command_of(indented_blocks(TUTORIAL)[0])
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)  # the README's paths are relative to the repository
        result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_tutorial_prints_the_lines_it_quotes(tutorial_output: str) -> None:
    quoted = indented_blocks(TUTORIAL.split("prints (abridged):", 1)[1])[0]
    missing = missing_lines(quoted, tutorial_output)
    assert not missing, f"README's tutorial output is stale: {missing}\n{tutorial_output}"


def test_the_reading_quotes_the_printed_numbers(tutorial_output: str) -> None:
    quoted = re.findall(r"\*\*(SplitRate|MergeRate|JaccardDistance) ([\d.]+%)\*\*", TUTORIAL)
    assert len(quoted) == 3, quoted
    for metric, value in quoted:
        assert re.search(rf"^{metric}\s+{re.escape(value)}$", tutorial_output, re.M), metric


def test_the_python_snippet_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = TUTORIAL.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    scope: dict[str, object] = {}
    exec(compile(snippet, "README.md", "exec"), scope)  # the README's own code
    result = scope["result"]
    assert round(100 * result.overall["jaccard_distance"], 2) == 7.03  # type: ignore[attr-defined]


def _judge_prints(sample: Path) -> str:
    """What `abcde judge SAMPLE --judge ana` prints until it serves, then Ctrl-C."""
    server = subprocess.Popen([sys.executable, "-m", "abcde", "judge", str(sample), "--judge",
                               "ana"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    printed = []
    try:
        assert server.stdout is not None
        for line in server.stdout:
            printed.append(line)
            if line.startswith("Press Ctrl-C"):
                break
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    return "".join(printed)


def _judge_as_the_ideal_clustering(sample: Path) -> None:
    """verdicts.jsonl as judge 'ana' would leave it, answering every question as the
    clustering the examples were made from says (README: "here every pair was judged
    as examples/ideal.csv says"), in the log's documented format (docs/quality.md)."""
    with (ROOT / "examples" / "ideal.csv").open(newline="") as f:
        ideal = {row["item_id"]: row["cluster_id"] for row in csv.DictReader(f)}
    with (sample / "questions.csv").open(newline="") as f:
        questions = list(csv.DictReader(f))
    with (sample / "verdicts.jsonl").open("w") as log:
        for q in questions:
            same = ideal[q["item_1"]] == ideal[q["item_2"]]
            log.write(json.dumps({
                "judge": "ana", "pair_id": q["pair_id"], "sample_id": q["sample_id"],
                "verdict": "equivalent" if same else "not_equivalent",
                "time": "2026-01-01T10:00:00.000+00:00", "item_1": q["item_1"],
                "item_2": q["item_2"], "overlap": 0.0}) + "\n")


def test_the_judgement_round_prints_what_the_readme_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The three commands of the round, each followed by the lines it prints (the judge's
    port and token vary), and the reading's numbers those of the estimate printed."""
    blocks = indented_blocks(ROUND)
    sample_cmd, sample_out, judge_cmd, judge_out, estimate_cmd, estimate_out = blocks[:6]
    sample = tmp_path / "round1"

    def here(argv: list[str]) -> list[str]:
        return [str(sample) if a in ("round1/", "round1") else a for a in argv]

    def as_quoted(printed: str) -> str:
        return printed.replace(str(sample), "round1")

    monkeypatch.chdir(ROOT)
    runner = CliRunner()
    argv = command_of(sample_cmd)
    assert argv[0] == "sample-pairs" and "round1/" in argv
    result = runner.invoke(main, here(argv))
    assert result.exit_code == 0, result.output
    missing = missing_lines(sample_out, as_quoted(result.output))
    assert not missing, f"README's sample-pairs output is stale: {missing}\n{result.output}"

    argv = command_of(judge_cmd)
    assert argv[:2] == ["judge", "round1/"] and "--open" in argv
    printed = as_quoted(_judge_prints(sample))
    for line in judge_out:
        pattern = re.escape(squeezed(line)).replace("PORT", r"\d+").replace("…", r"[\w-]+")
        assert re.search(rf"^{pattern}$", printed, re.M), (line, printed)

    _judge_as_the_ideal_clustering(sample)
    argv = command_of(estimate_cmd)
    assert argv == ["estimate", "round1/"]
    result = runner.invoke(main, here(argv))
    assert result.exit_code == 0, result.output
    missing = missing_lines(estimate_out, result.output)
    assert not missing, f"README's estimate output is stale: {missing}\n{result.output}"

    reading = " ".join(ROUND.split("How to read it:", 1)[1].split("\n\n", 1)[0].split())
    quoted = re.findall(r"\*\*([+-]?[\d.]+%)\*\*", reading)
    rates = dict(re.findall(r"^(\w+Rate)\s+\+([\d.]+%)", result.output, re.M))
    verdict = re.match(r"ΔPrecision ([+-][\d.]+%) ", result.output)
    assert verdict, result.output
    assert quoted == [rates["GoodMergeRate"], rates["BadMergeRate"], rates["GoodSplitRate"],
                      rates["BadSplitRate"], verdict.group(1)], (quoted, rates)
