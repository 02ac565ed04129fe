"""The verdict log (abcde.sample_files.verdicts, docs/method.md §12.2): append-only, one
durable line per event, replay = latest event per (judge, pair), undo a retraction,
concurrent writers never interleave, a torn line is skipped and closed."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from abcde.errors import InputError
from abcde.sample_files.verdicts import (
    Event,
    VerdictLog,
    append_event,
    check_judge_name,
    check_writable,
    current_verdicts,
    is_verdict_log,
    read_log,
    undo_target,
)


def ev(judge: str, pair: str, verdict: str | None, sample: str = "s1") -> Event:
    return Event(judge, pair, sample, verdict, "2026-01-01T00:00:00.000+00:00", "a", "b")


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    events = [ev("ana", "1", "equivalent"), ev("bo", "2", "not_equivalent"),
              ev("ana", "1", None), ev("ana", "3", "unknown")]
    for e in events:
        append_event(path, e)
    lines = path.read_text().splitlines()
    assert len(lines) == 4
    assert json.loads(lines[0]) == {"judge": "ana", "pair_id": "1", "sample_id": "s1",
                                    "verdict": "equivalent", "time": events[0].time,
                                    "item_1": "a", "item_2": "b"}
    back = read_log(path).events
    assert [(e.judge, e.pair_id, e.verdict, e.line) for e in back] == \
        [(e.judge, e.pair_id, e.verdict, k) for k, e in enumerate(events, start=1)]
    assert is_verdict_log(path)


def test_latest_event_per_judge_and_pair_wins() -> None:
    events = [ev("ana", "1", "equivalent"), ev("ana", "1", "not_equivalent"),
              ev("bo", "1", "equivalent"), ev("ana", "2", "unknown"), ev("ana", "2", None)]
    current = current_verdicts(events)
    assert {j: {p: e.verdict for p, e in v.items()} for j, v in current.items()} == \
        {"ana": {"1": "not_equivalent"}, "bo": {"1": "equivalent"}}


def test_undo_retracts_the_latest_standing_verdict_only_once() -> None:
    events = [ev("ana", "1", "equivalent"), ev("ana", "2", "equivalent"),
              ev("bo", "9", "equivalent"), ev("ana", "3", "equivalent")]
    assert undo_target(events, "ana") == "3"
    events.append(ev("ana", "3", None))
    assert undo_target(events, "ana") == "2"
    events += [ev("ana", "2", None), ev("ana", "1", "not_equivalent")]  # re-judged 1
    assert undo_target(events, "ana") == "1"
    events.append(ev("ana", "1", None))
    assert undo_target(events, "ana") is None
    assert undo_target(events, "bo") == "9"


def test_incremental_refresh_reads_only_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    log = VerdictLog(path)
    assert log.refresh() == []
    append_event(path, ev("ana", "1", "equivalent"))
    assert [e.pair_id for e in log.refresh()] == ["1"]
    with path.open("ab") as f:  # a writer cut short by a crash: no newline
        f.write(b'{"judge": "ana", "pair_id": "2", "samp')
    assert log.refresh() == []
    append_event(path, ev("ana", "3", "unknown"))  # closes the torn line first
    assert [e.pair_id for e in log.refresh()] == ["3"]
    assert log.skipped == [2]
    assert "skipped 1 line" in log.warnings()[0]
    assert [e.pair_id for e in read_log(path).events] == ["1", "3"]


def test_a_log_replaced_cut_or_removed_is_read_again_from_its_start(tmp_path: Path
                                                                     ) -> None:
    """The reader kept its byte offset into whatever file now has the name: a removed log
    kept its verdicts in memory, and a log written anew (an editor's save, a shorter
    file) was read from the middle of a line or not at all."""
    path = tmp_path / "verdicts.jsonl"
    log = VerdictLog(path)
    for pid in ("1", "2", "3"):
        append_event(path, ev("ana", pid, "equivalent"))
    assert len(log.refresh()) == 3
    path.unlink()
    assert log.refresh() == [] and log.events == []
    append_event(path, ev("ana", "4", "unknown"))
    assert [e.pair_id for e in log.refresh()] == ["4"]
    # an editor saves a new file (another inode) holding a changed line
    edited = tmp_path / "edited.jsonl"
    append_event(edited, ev("ana", "4", "not_equivalent"))
    append_event(edited, ev("ana", "5", "equivalent"))
    edited.replace(path)
    assert [(e.pair_id, e.verdict) for e in log.refresh()] == \
        [("4", "not_equivalent"), ("5", "equivalent")]
    assert [e.pair_id for e in log.events] == ["4", "5"]
    # rewritten in place (same inode), longer than before: the old offset is mid-line
    with path.open("r+b") as f:
        f.truncate(0)
        for pid in ("7", "8", "9"):
            f.write((json.dumps(ev("bo", pid, "unknown").record()) + "\n").encode())
    assert [e.pair_id for e in log.refresh()] == ["7", "8", "9"]
    assert log.skipped == [] and [e.judge for e in log.events] == ["bo"] * 3


def test_a_hand_edited_bad_record_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    append_event(path, ev("ana", "1", "equivalent"))
    with path.open("a") as f:
        f.write(json.dumps({**ev("ana", "2", "equivalent").record(), "verdict": "maybe"})
                + "\n")
    with pytest.raises(InputError, match="line 2 is not a line `abcde judge` writes"):
        read_log(path)
    for bad in ({"judge": "ana", "pair_id": "1"}, [1, 2], {**ev("", "1", None).record()}):
        path.write_text(json.dumps(bad) + "\n")
        with pytest.raises(InputError, match="line 1 is not a line"):
            read_log(path)


def test_judge_names() -> None:
    assert check_judge_name("  Ana María ") == "Ana María"
    for bad in ("", "   ", "a\nb", "x" * 65):
        with pytest.raises(InputError):
            check_judge_name(bad)


def _writer(path: str, judge: str, n: int, pad: int) -> None:
    for k in range(n):
        append_event(path, Event(judge, str(k), "s1", "equivalent", "t" * pad, "x" * pad,
                                 "y"))


def test_concurrent_writers_never_interleave_or_lose_a_line(tmp_path: Path) -> None:
    """Four processes append 150 lines each of ~20 kB (far above the size the kernel
    writes atomically to a pipe; a single write to a file is not promised atomic
    either): every line parses, and each writer's lines are all there, in its order."""
    path = tmp_path / "verdicts.jsonl"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(path), f"judge{w}", 150, 10_000))
             for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    raw = path.read_bytes().split(b"\n")
    assert raw[-1] == b""
    records = [json.loads(line) for line in raw[:-1]]
    assert len(records) == 600
    for w in range(4):
        mine = [int(r["pair_id"]) for r in records if r["judge"] == f"judge{w}"]
        assert mine == list(range(150))


def test_a_writer_waits_for_the_exclusive_lock(tmp_path: Path) -> None:
    """The lock is really taken: while another process holds flock(LOCK_EX) on the log,
    an append waits, and goes through once the lock is released."""
    import fcntl
    import time

    path = tmp_path / "verdicts.jsonl"
    append_event(path, ev("ana", "1", "equivalent"))
    ctx = multiprocessing.get_context("fork")
    with path.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        proc = ctx.Process(target=_writer, args=(str(path), "bo", 1, 1))
        proc.start()
        time.sleep(0.8)
        assert proc.is_alive() and len(path.read_text().splitlines()) == 1
        fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    proc.join(30)
    assert proc.exitcode == 0
    assert [e.judge for e in read_log(path).events] == ["ana", "bo"]


@pytest.mark.parametrize("dangling", [False, True])
def test_a_symlinked_log_is_refused_and_its_target_untouched(tmp_path: Path,
                                                              dangling: bool) -> None:
    """verdicts.jsonl as a link is refused at start, and an append does not follow one
    planted later: nothing is written where it points (another file, or a new one)."""
    sample, elsewhere = tmp_path / "round", tmp_path / "elsewhere.jsonl"
    sample.mkdir()
    if not dangling:
        elsewhere.write_bytes(b"keep\n")
    log = sample / "verdicts.jsonl"
    log.symlink_to(elsewhere)
    with pytest.raises(InputError) as err:
        check_writable(sample)
    assert str(err.value) == (f"{log} is a symbolic link (to {elsewhere}); verdicts are "
                              "appended only to a regular file\n  Replace it with a "
                              "regular file: remove the link, and copy in the log it "
                              "points to if its verdicts belong to this sample.")
    with pytest.raises(InputError, match="is a symbolic link"):
        append_event(log, ev("ana", "1", "equivalent"))
    with pytest.raises(InputError, match="is a symbolic link"):
        VerdictLog(log).append(ev("ana", "1", "equivalent"))
    assert elsewhere.exists() != dangling
    if not dangling:
        assert elsewhere.read_bytes() == b"keep\n"
    with pytest.raises(InputError) as err:  # nor read: it would be another file's record
        read_log(log)
    assert str(err.value) == (f"{log} is a symbolic link (to {elsewhere}); verdicts are "
                              "read only from a regular file\n  Replace it with a "
                              "regular file: remove the link, and copy in the log it "
                              "points to if its verdicts belong to this sample.")
    log.unlink()
    check_writable(sample)  # a regular file (or none) is fine
    append_event(log, ev("ana", "1", "equivalent"))
    assert [e.verdict for e in read_log(log).events] == ["equivalent"]


def test_the_overlap_of_a_line_is_kept_and_a_bad_one_names_its_line(tmp_path: Path
                                                                      ) -> None:
    """Each line records its server's --overlap (docs/method.md §12.3): read back as
    written, absent on lines of older logs, and a value that is no share in [0, 1] is
    refused naming the line."""
    path = tmp_path / "verdicts.jsonl"
    append_event(path, ev("ana", "1", "equivalent"))  # an older line: no overlap
    append_event(path, Event("ana", "2", "s1", None, "t", "a", "b", overlap=0.3))
    assert "overlap" not in json.loads(path.read_text().splitlines()[0])
    assert json.loads(path.read_text().splitlines()[1])["overlap"] == 0.3
    assert [e.overlap for e in read_log(path).events] == [None, 0.3]
    for bad in ("0.3", 1.5, True, float("nan")):
        path.write_text(json.dumps({**ev("ana", "1", "unknown").record(), "overlap": bad})
                        + "\n")
        with pytest.raises(InputError, match="line 1 is not a line"):
            read_log(path)
