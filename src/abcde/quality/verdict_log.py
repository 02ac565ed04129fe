"""The verdict log ``DIR/verdicts.jsonl`` of a pair sample: what ``abcde judge`` writes
and ``abcde estimate DIR`` reads (docs/method.md §12.2; verdicts as in §8.1).

One JSON object a line, one line an event, append-only::

    {"judge": "ana", "pair_id": "17", "sample_id": "3f2a…", "verdict": "equivalent",
     "time": "2026-11-02T10:31:07.412+00:00", "item_1": "a9", "item_2": "b4",
     "overlap": 0.1}

``verdict`` is ``equivalent``, ``not_equivalent``, ``unknown``, or ``null`` for a
retraction (the judge pressed undo). ``overlap`` is the ``--overlap`` of the server that
wrote the line: the round's overlap is that of the first line holding one, and a server
started with another is refused (:mod:`abcde.judge.session`); logs written before it was
recorded lack it. The latest event of each (judge, pair) wins, so
undo and a changed mind never rewrite a line; the log replayed from the start gives
each judge's current verdicts. ``time`` is the writer's clock (UTC), for people; the
order of events is the order of the lines.

Writing (:func:`append_event`): the file is opened in append mode, locked with an
exclusive ``fcntl.flock``, the line is written with one ``write`` (looping only on a
short write), then flushed with ``os.fsync`` before the lock is released and before the
caller answers the judge — a verdict the page moved on from is on disk. Two servers (two
judges) on one directory never interleave lines. A line torn by a crash (no final
newline) is skipped by readers with a warning, before the next writer's newline closes
it as after: its verdict was never acknowledged.

Reading (:class:`VerdictLog`): complete lines only, under a shared lock, incrementally
(a server re-reads only what other servers appended since). A log that was replaced (an
editor's save), cut shorter or removed since the last read is read again from its start:
the file on disk, not what a reader remembers of it, is the state.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from abcde.errors import InputError, Shown
from abcde.quality.agreement import JUDGE_UNCERTAINTY_NOTE, agreement, by_pair, resolve
from abcde.quality.judgements import (
    VERDICTS,
    JudgementRow,
    SamplePairs,
    id_text,
    match_judgements,
)

LOG_NAME = "verdicts.jsonl"
RECORD_KEYS = ("judge", "pair_id", "sample_id", "verdict", "time")
MAX_JUDGE_NAME = 64


@dataclass(frozen=True)
class Event:
    """One line of the log; ``verdict`` None is a retraction (undo)."""

    judge: str
    pair_id: str
    sample_id: str
    verdict: str | None
    time: str
    item_1: str | None = None
    item_2: str | None = None
    line: int = 0
    overlap: float | None = None  # --overlap of the writing server (None: not recorded)

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"judge": self.judge, "pair_id": self.pair_id,
                               "sample_id": self.sample_id, "verdict": self.verdict,
                               "time": self.time}
        if self.item_1 is not None or self.item_2 is not None:
            out["item_1"], out["item_2"] = self.item_1, self.item_2
        if self.overlap is not None:
            out["overlap"] = self.overlap
        return out


def check_judge_name(name: str) -> str:
    """A judge's name as it goes into the log.

    Parameters
    ----------
    name : str
        The name given (``--judge``).

    Returns
    -------
    str
        The name without surrounding spaces.

    Raises
    ------
    InputError
        When it is empty, longer than 64 characters or holds a control character.

    References
    ----------
    docs/method.md §12.2.
    """
    text = name.strip()
    if not text or len(text) > MAX_JUDGE_NAME or not text.isprintable():
        raise InputError(f"judge name {name!r}: give 1 to {MAX_JUDGE_NAME} printable "
                         "characters (e.g. --judge ana)")
    return text


def utc_now() -> str:
    """The time an event is stamped with: UTC, ISO 8601, milliseconds.

    Parameters
    ----------
    None

    Returns
    -------
    str

    References
    ----------
    docs/method.md §12.2 (``time`` is for people; line order is the order of events).
    """
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _event_line(event: Event) -> bytes:
    return (json.dumps(event.record(), ensure_ascii=False, separators=(", ", ": "))
            + "\n").encode("utf-8")


try:  # POSIX; on Windows (no fcntl) the lines are appended unlocked: one writer at a time
    import fcntl

    LOCK_EX, LOCK_SH = fcntl.LOCK_EX, fcntl.LOCK_SH
except ImportError:  # pragma: no cover - not on the machines the tests run on
    fcntl = None  # type: ignore[assignment]
    LOCK_EX, LOCK_SH = 2, 1


@contextmanager
def _locked(fd: int, kind: int) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    fcntl.flock(fd, kind)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def append_event(path: str | Path, event: Event) -> None:
    """Append one event durably: exclusive lock, one write, fsync (the module docstring).

    Parameters
    ----------
    path : str or Path
        The log file (created when missing; its directory entry is synced then too).
    event : Event
        The event; a retraction has ``verdict`` None.

    Returns
    -------
    None
        The line is on disk when this returns.

    Raises
    ------
    InputError
        When the log is a symbolic link: it is not followed (``O_NOFOLLOW``), nothing
        is written.

    References
    ----------
    docs/method.md §12.2.
    """
    data = _event_line(event)
    created = not os.path.exists(path)
    try:  # a symlink planted while the server runs is not followed (check_writable)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o644)
    except OSError:
        if os.path.islink(path):
            raise _symlink_refused(Path(path)) from None
        raise
    try:
        with _locked(fd, LOCK_EX):
            size = os.fstat(fd).st_size
            if size:
                os.lseek(fd, size - 1, os.SEEK_SET)  # writes still go to the end (O_APPEND)
            if size and os.read(fd, 1) != b"\n":
                data = b"\n" + data  # close a line torn by a crash; readers skip it
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
    finally:
        os.close(fd)
    if created:  # the new directory entry must survive a crash too
        dir_fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


#: Opening the log for appending does not follow a symbolic link where the platform can
#: refuse one (os.O_NOFOLLOW; not on Windows, where check_writable alone refuses it).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _symlink_refused(path: Path, *, reading: bool = False) -> InputError:
    """The refusal of a log that is a symbolic link: appending would write to wherever it
    points (another sample's log, a file of someone else), and reading would take that
    file's verdicts as this sample's record."""
    try:
        target = f" (to {os.readlink(path)})"
    except OSError:  # removed meanwhile
        target = ""
    doing = "read only from" if reading else "appended only to"
    return InputError(f"{path} is a symbolic link{target}; verdicts are {doing} a "
                      "regular file",
                      hint="Replace it with a regular file: remove the link, and copy "
                           "in the log it points to if its verdicts belong to this sample.")


def check_writable(directory: str | Path) -> None:
    """Refuse a directory where the log cannot be appended to, before anyone judges.

    Parameters
    ----------
    directory : str or Path
        The sample directory. The log is opened for appending if it exists; otherwise
        a scratch file is created in the directory and removed.

    Returns
    -------
    None

    Raises
    ------
    InputError
        When that fails, or when the log is a symbolic link (exit 2, naming the file).

    References
    ----------
    docs/method.md §12.2.
    """
    d = Path(directory)
    path = d / LOG_NAME
    if path.is_symlink():  # dangling too: appending would create its target
        raise _symlink_refused(path)
    try:
        if path.exists():
            if not path.is_file():
                raise OSError(f"{path} is not a file")
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND | NOFOLLOW))
        else:
            probe = d / f".{LOG_NAME}.{os.getpid()}.probe"
            with probe.open("wb"):
                pass
            probe.unlink()
    except OSError as err:
        raise InputError(f"cannot write verdicts to {path}: {err}",
                         hint="Judge a sample directory you can write to (copy it, or "
                              "fix its permissions).") from None


def _parse_event(obj: Any, line: int, where: str) -> Event:
    """An event from a decoded JSON line; a record that is not one is an error naming
    the line (a hand-edited log)."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: line {line} is not a JSON object")
    missing = [k for k in RECORD_KEYS if k not in obj]
    if missing:
        raise InputError(f"{where}: line {line} lacks {', '.join(missing)}; a verdict log "
                         f"line has {', '.join(RECORD_KEYS)}")
    judge, verdict = obj["judge"], obj["verdict"]
    if not isinstance(judge, str) or not judge.strip():
        raise InputError(f"{where}: line {line}: judge must be a non-empty string")
    if verdict is not None and verdict not in VERDICTS:
        raise InputError(f"{where}: line {line}: verdict {verdict!r} is not one of "
                         f"{', '.join(VERDICTS)} or null (a retraction)", column="verdict")
    pair_id, sample = id_text(obj["pair_id"]), id_text(obj["sample_id"])
    if pair_id is None or sample is None:
        raise InputError(f"{where}: line {line}: pair_id and sample_id must be given")
    overlap = obj.get("overlap")
    if overlap is not None and (isinstance(overlap, bool) or not isinstance(
            overlap, int | float) or not 0.0 <= overlap <= 1.0):
        raise InputError(f"{where}: line {line}: overlap {overlap!r} is not a number "
                         "between 0 and 1", column="overlap")
    return Event(judge, pair_id, sample, verdict, str(obj["time"]),
                 id_text(obj.get("item_1")), id_text(obj.get("item_2")), line,
                 None if overlap is None else float(overlap))


def _line_ends_at(f: Any, offset: int) -> bool:
    """Whether the byte before ``offset`` is still the newline a read stopped after (a
    file rewritten in place, not appended to, has other bytes there)."""
    f.seek(offset - 1)
    return bool(f.read(1) == b"\n")


@dataclass
class VerdictLog:
    """A replaying reader of one log file; :meth:`refresh` reads what was appended since
    the last call (complete lines only)."""

    path: Path
    events: list[Event] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # lines that are not JSON (torn)
    _offset: int = 0
    _lines: int = 0
    _identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read so far
    # a last line without its newline: writers hold the lock until the line is whole,
    # so a reader meets one only after a crash (the next writer closes it, then skipped)
    torn_tail: bool = False

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    def _restart(self) -> None:
        self.events, self.skipped = [], []
        self._offset = self._lines = 0
        self._identity = None
        self.torn_tail = False

    def refresh(self, check: Callable[[list[Event]], None] | None = None) -> list[Event]:
        """Read new complete lines; return the new events (every event, when the file
        was replaced, cut shorter or removed since the last call and is read anew).

        All or nothing: when a line is not an event (InputError naming it) or ``check``
        refuses the new events, nothing is taken in, so the next call meets the same
        lines again and fails the same way until the file is fixed.

        A log that is a symbolic link is refused (InputError), as for writing: the
        team's record is the sample's own file, not wherever a link points."""
        if self.path.is_symlink():  # dangling too (where O_NOFOLLOW is missing: Windows)
            raise _symlink_refused(self.path, reading=True)
        try:
            fd = os.open(self.path, os.O_RDONLY | NOFOLLOW)
        except FileNotFoundError:
            self._restart()  # removed: no verdict stands any more
            return []
        except OSError:
            if os.path.islink(self.path):  # made a link since the check above
                raise _symlink_refused(self.path, reading=True) from None
            raise
        f = os.fdopen(fd, "rb")
        with f, _locked(f.fileno(), LOCK_SH):
            st = os.fstat(f.fileno())
            identity = (st.st_dev, st.st_ino)
            same = not self._offset or (identity == self._identity
                                        and st.st_size >= self._offset
                                        and _line_ends_at(f, self._offset))
            offset, lines = (self._offset, self._lines) if same else (0, 0)
            f.seek(offset)
            data = f.read()
        end = data.rfind(b"\n")
        new: list[Event] = []
        skipped: list[int] = []
        for raw in data[:end + 1].split(b"\n")[:-1] if end >= 0 else []:
            lines += 1
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                skipped.append(lines)
                continue
            new.append(_parse_event(obj, lines, str(self.path)))
        if check is not None:
            check(new)
        if not same:
            self._restart()  # not the file read so far: it was read from the start
        self._identity = identity
        if end >= 0:
            self._offset, self._lines = offset + end + 1, lines
        self.skipped += skipped
        self.events += new
        self.torn_tail = len(data) > end + 1
        return new

    def append(self, event: Event) -> None:
        append_event(self.path, event)

    def warnings(self) -> list[str]:
        out = []
        if self.skipped:
            lines = ", ".join(map(str, self.skipped[:10]))
            out.append(f"{self.path}: skipped {len(self.skipped)} line(s) that are not JSON "
                       f"(line {lines}): a write cut short by a crash, never acknowledged "
                       "to the judge")
        if self.torn_tail:
            out.append(f"{self.path}: skipped its last line (line {self._lines + 1}), which "
                       "has no line end: a write cut short by a crash, never acknowledged "
                       "to the judge")
        return out


def read_log(path: str | Path) -> VerdictLog:
    """The whole log, read once.

    Parameters
    ----------
    path : str or Path
        The log file (a missing file reads as empty).

    Returns
    -------
    VerdictLog
        With ``events`` in line order and ``skipped``: lines that are not JSON.

    Raises
    ------
    InputError
        On a JSON line that is not an event (naming the line), or a log that is a
        symbolic link (it is not followed).

    References
    ----------
    docs/method.md §12.2.
    """
    log = VerdictLog(Path(path))
    log.refresh()
    return log


def current_verdicts(events: Sequence[Event]) -> dict[str, dict[str, Event]]:
    """The state the log's events replay to: each judge's current verdicts.

    Parameters
    ----------
    events : sequence of Event
        In line order.

    Returns
    -------
    dict
        judge → pair id → that judge's latest event of the pair, for the pairs whose
        latest event is a verdict (retracted pairs are left out; judges with none too).

    References
    ----------
    docs/method.md §12.2.
    """
    out: dict[str, dict[str, Event]] = {}
    for e in events:
        mine = out.setdefault(e.judge, {})
        if e.verdict is None:
            mine.pop(e.pair_id, None)
        else:
            mine[e.pair_id] = e
    return {j: v for j, v in out.items() if v}


def undo_target(events: Sequence[Event], judge: str) -> str | None:
    """The pair whose verdict the judge's undo retracts.

    Parameters
    ----------
    events : sequence of Event
        The log's events, in line order.
    judge : str
        Whose undo.

    Returns
    -------
    str or None
        The pair of the judge's latest verdict event that is still the last event of its
        pair (a pair already retracted, or judged again later, is not undone twice);
        None when the judge has nothing to undo.

    References
    ----------
    docs/method.md §12.3.
    """
    last: dict[str, Event] = {}
    for e in events:
        if e.judge == judge:
            last[e.pair_id] = e
    for e in reversed(events):
        if e.judge == judge and e.verdict is not None and last[e.pair_id] is e:
            return e.pair_id
    return None


def is_verdict_log(path: str | Path) -> bool:
    """Whether a JSONL file is a verdict log, so that ``--judgements DIR/verdicts.jsonl``
    is replayed as a log and not read as a flat judgement file.

    Parameters
    ----------
    path : str or Path
        Any judgement file.

    Returns
    -------
    bool
        True for a ``.jsonl``/``.ndjson`` file whose first record has every key of a
        log line (judge, pair_id, sample_id, verdict, time).

    References
    ----------
    docs/method.md §12.2.
    """
    p = Path(path)
    if p.suffix.lower() not in (".jsonl", ".ndjson") or not p.is_file():
        return False
    with p.open("rb") as f:
        for raw in f:
            if raw.strip():
                try:
                    obj = json.loads(raw)
                except ValueError:
                    return False
                return isinstance(obj, Mapping) and all(k in obj for k in RECORD_KEYS)
    return False


def events_for_sample(events: Sequence[Event], sample_id: str, where: str) -> None:
    """Refuse a log with events of another sample (say, a sample drawn again into the
    directory after judging began).

    Parameters
    ----------
    events : sequence of Event
        The events to check.
    sample_id : str
        This sample's id.
    where : str
        The log's name, for the message.

    Returns
    -------
    None

    Raises
    ------
    InputError
        Naming the other sample ids and the lines.

    References
    ----------
    docs/method.md §12.2; §7.6 (sample ids).
    """
    other = sorted({e.sample_id for e in events if e.sample_id != sample_id})
    if other:
        lines = [Shown(f"line {e.line}") for e in events if e.sample_id != sample_id]
        raise InputError(f"{where} holds verdicts of another sample (sample_id "
                         f"{', '.join(other)}; this sample is {sample_id})",
                         column="sample_id", examples=lines,
                         hint="Move the old verdicts.jsonl away: its pair ids name pairs "
                              "of the sample it was judged for.")


@dataclass(frozen=True)
class LoggedVerdicts:
    """A log resolved for the estimate: one verdict per pair and the ``judging`` section
    of ``abcde estimate`` (judges, agreement, contested pairs)."""

    verdicts: dict[str, str]
    judging: dict[str, Any]


def logged_verdicts(path: str | Path, pairs: SamplePairs, sample_id: str) -> LoggedVerdicts:
    """The verdicts of a log for the estimate, and what the estimate reports of them.

    Parameters
    ----------
    path : str or Path
        The log.
    pairs : SamplePairs
        The sample's pairs: every judge's current verdicts are checked against them
        (pair ids, item ids, sample id) as a judgement file is.
    sample_id : str
        The sample's id.

    Returns
    -------
    LoggedVerdicts
        ``verdicts``: pair id → verdict, every judge's current verdicts resolved by
        majority; ``judging``: ``source``, ``events``, ``retractions``, ``judges``
        (verdicts per judge), ``pairs``, ``agreement``
        (:func:`abcde.quality.agreement.agreement`), ``contested_pairs``, ``ties``,
        ``contested`` (up to 20 pair ids), ``resolution``, ``note`` (ABCDE §5.8) and
        ``warnings`` (skipped lines).

    Raises
    ------
    InputError
        For an empty log, a line of another sample, or a verdict on a pair the sample
        does not hold.

    References
    ----------
    docs/method.md §12.2, §12.4; §8.1 (checks of a judgement file).
    """
    where = str(path)
    log = read_log(path)
    if not log.events:
        raise InputError(f"{where} holds no verdicts yet",
                         hint="Judge some pairs with `abcde judge DIR` first.")
    events_for_sample(log.events, sample_id, where)
    current = current_verdicts(log.events)
    per_judge = {}
    for judge, events in sorted(current.items()):
        rows = [JudgementRow(e.line, e.pair_id, e.item_1, e.item_2, e.verdict or "unknown",
                             e.sample_id) for e in events.values()]
        per_judge[judge] = match_judgements(rows, pairs, expected_sample_id=sample_id,
                                            where=f"{where} (judge {judge})")
    pairs_judged = by_pair(per_judge)
    resolution = resolve(pairs_judged)
    judging = {
        "source": where,
        "events": len(log.events),
        "retractions": sum(e.verdict is None for e in log.events),
        "judges": {j: len(v) for j, v in per_judge.items()},
        "pairs": len(pairs_judged),
        "agreement": agreement(pairs_judged),
        "contested_pairs": len(resolution.contested),
        "ties": len(resolution.ties),
        "contested": sorted(resolution.contested, key=_pair_order)[:20],
        "resolution": "majority of the known verdicts; unknowns abstain; a tie is unknown",
        "note": JUDGE_UNCERTAINTY_NOTE,
        "warnings": log.warnings(),
    }
    return LoggedVerdicts(resolution.verdicts, judging)


def _pair_order(pair_id: str) -> tuple[int, int | str]:
    return (0, int(pair_id)) if pair_id.isdigit() else (1, pair_id)


def judging_lines(judging: Mapping[str, Any]) -> list[str]:
    """The ``judging`` section as ``abcde estimate`` prints it.

    Parameters
    ----------
    judging : mapping
        The ``judging`` of :func:`logged_verdicts`.

    Returns
    -------
    list of str
        Where the verdicts came from, agreement and contested pairs, and — beside the
        numbers — that the intervals do not include the judges' uncertainty.

    References
    ----------
    docs/method.md §12.4; [ABCDE] §5.8.
    """
    judges = judging["judges"]
    names = ", ".join(f"{j} {n:,}" for j, n in judges.items())
    lines = [f"verdicts from {judging['source']}: {len(judges)} judge"
             f"{'s' if len(judges) != 1 else ''} ({names}), {judging['pairs']:,} pairs "
             f"judged; {judging['events']:,} events, {judging['retractions']:,} undone"]
    a = judging["agreement"]
    if a["pairs"]:
        kind = {"cohen": "Cohen's", "fleiss": "Fleiss'"}.get(a["kappa_kind"] or "", "")
        kappa = "undefined (every verdict the same)" if a["kappa"] is None \
            else f"{a['kappa']:.3f}"
        raw = "-" if a["raw_agreement"] is None else f"{100 * a['raw_agreement']:.1f}%"
        lines.append(f"agreement on {a['pairs']:,} pairs with two or more judges: raw "
                     f"{raw}, {kind} kappa {kappa}")
        for pw in a["pairwise"] if a["kappa_kind"] == "fleiss" else []:
            k = "-" if pw["cohen_kappa"] is None else f"{pw['cohen_kappa']:.3f}"
            lines.append(f"  {pw['judges'][0]} vs {pw['judges'][1]}: {pw['pairs']:,} pairs, "
                         f"raw {100 * pw['raw_agreement']:.1f}%, Cohen's kappa {k}")
    if judging["contested_pairs"] or len(judges) > 1:
        lines.append(f"{judging['contested_pairs']:,} contested pairs resolved by majority "
                     f"({judging['ties']:,} ties made unknown)")
    lines.append(f"note: {judging['note']}")
    lines += [f"WARNING: {w}" for w in judging.get("warnings") or []]
    return lines
