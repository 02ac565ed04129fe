"""`abcde estimate DIR` from `abcde judge`'s verdict log (docs/method.md §12.2, §12.4):
the log is used when no other source is given (or when --judgements names it), equals
the estimate from the same final verdicts written as a plain judgement file, reports the
judges, their agreement (checked against scikit-learn) and the contested pairs, says
that the intervals exclude the judges' uncertainty, and refuses what it must."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score

from abcde.judge.questions import load_questions
from abcde.sample_files.verdicts import Event, append_event

from .judge_support import Ran, run_cli, truth_verdict

OTHER = {"equivalent": "not_equivalent", "not_equivalent": "equivalent"}


def run_estimate(sample_dir: Path, *args: str) -> Ran:
    return run_cli("estimate", str(sample_dir), *args)


def estimate_json(sample_dir: Path, *args: str) -> dict[str, Any]:
    run = run_estimate(sample_dir, "--format", "json", *args)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def write_log(sample_dir: Path, judges: dict[str, dict[str, str | None]]) -> None:
    """Append verdicts judge by judge, pair by pair (None: a retraction)."""
    sample = load_questions(sample_dir)
    for judge, verdicts in judges.items():
        for pid, verdict in verdicts.items():
            q = sample.questions[pid]
            append_event(sample_dir / "verdicts.jsonl",
                         Event(judge, pid, sample.sample_id, verdict, "t", str(q.item_1),
                               str(q.item_2)))


def write_file(sample_dir: Path, path: Path, verdicts: dict[str, str]) -> Path:
    sid = load_questions(sample_dir).sample_id
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["pair_id", "sample_id", "verdict"])
        w.writerows([p, sid, v] for p, v in verdicts.items())
    return path


def truth(sample_dir: Path) -> dict[str, str]:
    sample = load_questions(sample_dir)
    return {p: truth_verdict(q.item_1, q.item_2) for p, q in sample.questions.items()}


def test_one_judge_log_equals_the_file_and_undo_and_changes_count_last(
        sample_dir: Path, tmp_path: Path) -> None:
    t = truth(sample_dir)
    pairs = list(t)
    write_log(sample_dir, {"ana": {p: "unknown" for p in pairs[:5]}})
    write_log(sample_dir, {"ana": dict(t)})           # changed her mind on the first 5
    write_log(sample_dir, {"ana": {pairs[7]: None}})  # undid one
    final = {p: v for p, v in t.items() if p != pairs[7]}
    from_log = estimate_json(sample_dir)
    judging = from_log.pop("judging")
    from_file = estimate_json(sample_dir, "--judgements",
                              str(write_file(sample_dir, tmp_path / "f.csv", final)))
    # the file's missing row is named (a log's unjudged pairs are its progress)
    assert from_file.pop("notes") == [f"1 of the sample's {len(pairs)} pairs have no row in "
                                      f"{tmp_path / 'f.csv'} and count as unknown (pair ids "
                                      f"{pairs[7]})"]
    assert from_log == from_file
    assert judging["judges"] == {"ana": len(pairs) - 1}
    assert judging["events"] == len(pairs) + 6 and judging["retractions"] == 1
    assert judging["agreement"]["pairs"] == 0 and judging["contested_pairs"] == 0
    # --judgements naming the log reads it as a log, not as a flat file
    again = estimate_json(sample_dir, "--judgements", str(sample_dir / "verdicts.jsonl"))
    assert again["judging"]["source"] == str(sample_dir / "verdicts.jsonl")
    again.pop("judging")
    assert again == from_log
    text = run_estimate(sample_dir).stdout
    assert f"verdicts from {sample_dir / 'verdicts.jsonl'}: 1 judge (ana {len(pairs) - 1})" \
        in text
    assert "not the judges' uncertainty (ABCDE §5.8)" in text


def test_three_judges_agreement_majority_and_contested(sample_dir: Path,
                                                       tmp_path: Path) -> None:
    t = truth(sample_dir)
    pairs = list(t)
    shared = pairs[:12]
    ana = dict(t)
    bo = {p: (OTHER[t[p]] if k % 4 == 0 else t[p]) for k, p in enumerate(shared)}
    cy = {p: ("unknown" if k % 5 == 0 else t[p]) for k, p in enumerate(shared)}
    write_log(sample_dir, {"ana": ana, "bo": bo, "cy": cy})
    doc = estimate_json(sample_dir)
    judging = doc.pop("judging")
    assert judging["judges"] == {"ana": len(pairs), "bo": 12, "cy": 12}
    a = judging["agreement"]
    assert a["judges"] == 3 and a["pairs"] == 12 and a["kappa_kind"] == "fleiss"
    ab = next(x for x in a["pairwise"] if x["judges"] == ["ana", "bo"])
    assert ab["cohen_kappa"] == pytest.approx(
        cohen_kappa_score([ana[p] for p in shared], [bo[p] for p in shared]), abs=1e-12)
    # majority: ana and cy agree except where cy abstains; then ana vs bo may tie
    resolved = {}
    contested = ties = 0
    for p in pairs:
        votes = [v[p] for v in (ana, bo, cy) if p in v]
        eq, ne = votes.count("equivalent"), votes.count("not_equivalent")
        contested += bool(eq and ne)
        ties += bool(eq and eq == ne)
        resolved[p] = "equivalent" if eq > ne else "not_equivalent" if ne > eq else "unknown"
    assert judging["contested_pairs"] == contested == 3
    assert judging["ties"] == ties == 1  # pair 0: bo flipped, cy unknown
    assert doc == estimate_json(sample_dir, "--judgements",
                                str(write_file(sample_dir, tmp_path / "m.csv", resolved)))
    text = run_estimate(sample_dir).stdout
    assert "agreement on 12 pairs with two or more judges" in text
    assert "Fleiss' kappa" in text and "ana vs bo" in text
    assert "3 contested pairs resolved by majority (1 ties made unknown)" in text


def test_python_api_reads_the_log(sample_dir: Path) -> None:
    import abcde

    write_log(sample_dir, {"ana": truth(sample_dir)})
    doc = abcde.estimate(str(sample_dir))
    assert doc["judging"]["judges"] == {"ana": 40}
    assert doc["judgements"]["unknown"] == 0


def test_without_log_or_source_the_error_says_what_to_do(sample_dir: Path) -> None:
    run = run_estimate(sample_dir)
    assert run.returncode == 2
    assert "verdicts.jsonl does not exist" in run.stderr and "abcde judge" in run.stderr
    (sample_dir / "verdicts.jsonl").write_text("")
    run = run_estimate(sample_dir)
    assert run.returncode == 2 and "holds no verdicts yet" in run.stderr


def test_log_lines_that_do_not_match_the_sample_are_refused(sample_dir: Path) -> None:
    sample = load_questions(sample_dir)
    pid, q = next(iter(sample.questions.items()))
    path = sample_dir / "verdicts.jsonl"
    bad_items = {"judge": "ana", "pair_id": pid, "sample_id": sample.sample_id,
                 "verdict": "equivalent", "time": "t", "item_1": "nope", "item_2": "x"}
    path.write_text(json.dumps(bad_items) + "\n")
    run = run_estimate(sample_dir)
    assert run.returncode == 2 and "match this sample" in run.stderr, run.stderr
    unknown_pair = {**bad_items, "pair_id": "99999", "item_1": None, "item_2": None}
    path.write_text(json.dumps(unknown_pair) + "\n")
    run = run_estimate(sample_dir)
    assert run.returncode == 2 and "not in the sample" in run.stderr, run.stderr
    other = {**bad_items, "sample_id": "elsewhere", "item_1": str(q.item_1),
             "item_2": str(q.item_2)}
    path.write_text(json.dumps(other) + "\n")
    run = run_estimate(sample_dir)
    assert run.returncode == 2 and "verdicts of another sample" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_torn_last_line_is_skipped_with_a_warning(sample_dir: Path) -> None:
    write_log(sample_dir, {"ana": truth(sample_dir)})
    with (sample_dir / "verdicts.jsonl").open("a") as f:
        f.write('{"judge": "ana", "pair_id": "1", "sam')
    doc = estimate_json(sample_dir)
    # not yet a complete line: not read, but said (it was skipped without a word; under
    # the writers' lock a reader meets a line without its end only after a crash)
    assert doc["judging"]["warnings"] == [
        f"{sample_dir / 'verdicts.jsonl'}: skipped its last line (line 41), which has no "
        "line end: a write cut short by a crash, never acknowledged to the judge"]
    write_log(sample_dir, {"bo": {"1": "unknown"}})  # the next writer closes it
    doc = estimate_json(sample_dir)
    assert "skipped 1 line(s) that are not JSON (line 41)" in doc["judging"]["warnings"][0]
    assert len(doc["judging"]["warnings"]) == 1
    assert doc["judging"]["judges"] == {"ana": 40, "bo": 1}


def test_sampling_again_into_a_judged_directory_is_refused(sample_dir: Path) -> None:
    """A new sample beside an old verdicts.jsonl would take the old pairs' verdicts: the
    directory is refused unless --overwrite, which removes the log too — once the new
    sample is complete (abcde.outputs: a failed run keeps it)."""
    from abcde.errors import InputError
    from abcde.sample_files.layout import sample_output

    for name in ("questions.csv", "questions.jsonl", "draws.parquet", "draws.csv",
                 "manifest.json"):
        (sample_dir / name).unlink()
    log_path = sample_dir / "verdicts.jsonl"
    log_path.write_text("{}\n")
    with pytest.raises(InputError, match=r"already holds a sample \(verdicts.jsonl\)"), \
            sample_output(sample_dir, overwrite=False):
        pass
    with pytest.raises(RuntimeError), sample_output(sample_dir, overwrite=True) as od:
        (od.path / "manifest.json").write_text("{}")
        raise RuntimeError("the new sample failed")
    assert log_path.read_text() == "{}\n"
    with sample_output(sample_dir, overwrite=True) as od:
        (od.path / "manifest.json").write_text("{}")
    assert not log_path.exists()


@pytest.mark.parametrize("dangling", [False, True])
def test_a_symlinked_log_is_not_read(sample_dir: Path, tmp_path: Path,
                                     dangling: bool) -> None:
    """DIR/verdicts.jsonl as a link (to a log of this very sample, or to nothing) is
    refused as `abcde judge` refuses it at start: the team's record is the sample's own
    file, and a link can point anywhere. Exit 2, the link and what to do named; also
    when --judgements names it."""
    write_log(sample_dir, {"ana": dict(list(truth(sample_dir).items())[:20])})
    log, elsewhere = sample_dir / "verdicts.jsonl", tmp_path / "elsewhere.jsonl"
    if dangling:
        log.unlink()
    else:
        log.rename(elsewhere)
    log.symlink_to(elsewhere)
    for args in ((), ("--judgements", str(log))):
        run = run_estimate(sample_dir, *args)
        assert run.returncode == 2, (args, run.stderr)
        assert (f"{log} is a symbolic link (to {elsewhere}); verdicts are read only from "
                "a regular file") in run.stderr, (args, run.stderr)
        assert "Replace it with a regular file" in run.stderr and "Traceback" not in run.stderr
        if dangling:
            break  # a dangling --judgements file is no log: it does not exist
    log.unlink()
    if not dangling:
        elsewhere.rename(log)
        assert run_estimate(sample_dir).returncode == 0
