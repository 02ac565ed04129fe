"""The files of a pair sample as people and abcde read them: questions.csv is safe to
open in a spreadsheet and still names the sample's items when its verdicts come back;
a judgement file with one mistyped pair id says so; a round directory named `sample`
is estimated from its verdict log."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main
from abcde.quality.estimate import estimate
from abcde.sample_files.layout import neutralised, restore
from abcde.sample_files.verdicts import Event, append_event
from abcde.sampling.pairs import sample_pairs

# what a spreadsheet reads as a formula (OWASP's CSV injection list), and the quote
# abcde puts before them
PREFIXES = ("=", "+", "-", "@", "\t", "\r", "'", "")
IDS = [f"{PREFIXES[i % len(PREFIXES)]}i{i}" for i in range(40)]
BASE = {IDS[i]: i // 4 for i in range(40)}
EXP = {IDS[i]: (i // 8 if i < 20 else i // 4 + 100) for i in range(40)}
NOTES = {item: {"note": ('=HYPERLINK("http://x.example","open")', "+1", "-1", "@SUM(A1)",
                         "'ok", "fine")[k % 6]} for k, item in enumerate(IDS)}


def test_neutralised_values_are_restored_exactly() -> None:
    for text in ("=1+2", "+33", "-7", "@x", "\tx", "\rx", "'x", "''x", "x", ""):
        assert restore(neutralised(text)) == text
        assert not str(neutralised(text)).startswith(("=", "+", "-", "@", "\t", "\r"))
    assert neutralised(-7) == -7 and neutralised(None) is None  # numbers stay numbers


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "round"
    sample_pairs(BASE, EXP, attributes=NOTES, budget=30, seed=2, out=out)
    return out


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_questions_csv_opens_safely_and_its_verdicts_come_back(hostile: Path,
                                                               tmp_path: Path) -> None:
    """No text cell of questions.csv or draws.csv starts as a formula (a number such as
    -1.0 is no formula); the filled questions.csv gives the verdicts to the pairs of the
    original ids: the same estimate as the same verdicts keyed by the ids of
    questions.jsonl."""
    rows = _csv(hostile / "questions.csv")
    for name in ("questions.csv", "draws.csv"):
        cells = [v for r in _csv(hostile / name) for v in r.values() if not _number(v)]
        assert not [v for v in cells if v.startswith(("=", "+", "-", "@", "\t", "\r"))]
    assert {r["item_1"] for r in rows} & {neutralised(i) for i in IDS if i[:1] in "=+-@"}
    original = [json.loads(x) for x in (hostile / "questions.jsonl").open()]
    truth = {item: c // 2 for item, c in BASE.items()}
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        for r, q in zip(rows, original, strict=True):
            same = truth[q["item_1"]] == truth[q["item_2"]]
            writer.writerow({**r, "verdict": "equivalent" if same else "not_equivalent"})
    keyed = [{"item_1": q["item_1"], "item_2": q["item_2"],
              "verdict": "equivalent" if truth[q["item_1"]] == truth[q["item_2"]]
              else "not_equivalent"} for q in original]
    got, want = estimate(hostile, judgements=filled), estimate(hostile, judgements=keyed)
    assert got["judgements"] == want["judgements"]
    assert got["delta_precision"] == want["delta_precision"]


def test_one_mistyped_pair_id_is_told_as_such(hostile: Path, tmp_path: Path) -> None:
    """A judgement file whose rows agree with the sample but one, whose pair_id was
    mistyped, said it "belongs to another sample"."""
    rows = [{**r, "verdict": "unknown"} for r in _csv(hostile / "questions.csv")]
    rows[3]["pair_id"] = rows[4]["pair_id"]
    filled = tmp_path / "typo.csv"
    with filled.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = CliRunner().invoke(main, ["estimate", str(hostile), "--judgements", str(filled)])
    assert result.exit_code == 2, result.output
    assert "mistyped" in result.output and f"pair_id {rows[3]['pair_id']} with" in result.output
    assert "another sample" not in result.output


def test_a_round_directory_named_sample_is_estimated(hostile: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`abcde estimate sample`, as `abcde judge sample` prints it, said "no verdicts for
    sample": the name was taken for a sample in memory."""
    import shutil

    shutil.copytree(hostile, tmp_path / "sample")
    for q in (json.loads(x) for x in (hostile / "questions.jsonl").open()):
        append_event(tmp_path / "sample" / "verdicts.jsonl",
                     Event("ana", str(q["pair_id"]), q["sample_id"], "equivalent", "t"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["estimate", "sample", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["judging"]["judges"] == {"ana": 30}
