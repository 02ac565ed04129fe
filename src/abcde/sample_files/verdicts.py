"""The verdict log ``DIR/verdicts.jsonl`` of a pair sample: what ``abcde judge``
appends and ``abcde estimate DIR`` replays (docs/method.md §12.2: the format, the
latest event of each (judge, pair) wins, one locked and fsynced ``write`` per line, torn
lines skipped with a warning, a log replaced or cut shorter read again, a symbolic link
refused).
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
from abcde.inputs.records import load_json
from abcde.sample_files.layout import LOG_NAME

VERDICTS = ("equivalent", "not_equivalent", "unknown")
RECORD_KEYS = ("judge", "pair_id", "sample_id", "verdict", "time")
MAX_JUDGE_NAME = 64
# where the platform can refuse to follow a symbolic link (not on Windows, where
# check_writable alone refuses one)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

try:  # POSIX; on Windows (no fcntl) lines are appended unlocked: one writer at a time
    import fcntl
except ImportError:  # pragma: no cover - not on the machines the tests run on
    fcntl = None  # type: ignore[assignment]


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
        out: dict[str, Any] = {k: getattr(self, k) for k in RECORD_KEYS}
        if self.item_1 is not None or self.item_2 is not None:
            out["item_1"], out["item_2"] = self.item_1, self.item_2
        if self.overlap is not None:
            out["overlap"] = self.overlap
        return out


def check_judge_name(name: str) -> str:
    """A judge's name as it goes into the log: 1 to 64 printable characters."""
    text = name.strip()
    if not text or len(text) > MAX_JUDGE_NAME or not text.isprintable():
        raise InputError(f"judge name {name!r}: give 1 to {MAX_JUDGE_NAME} printable "
                         "characters (e.g. --judge ana)")
    return text


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@contextmanager
def _locked(fd: int, kind: str) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    fcntl.flock(fd, getattr(fcntl, kind))
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _symlink(path: Path, doing: str) -> InputError:
    try:
        target = f" (to {os.readlink(path)})"
    except OSError:  # removed meanwhile
        target = ""
    return InputError(f"{path} is a symbolic link{target}; verdicts are {doing} a "
                      "regular file",
                      hint="Replace it with a regular file: remove the link, and copy "
                           "in the log it points to if its verdicts belong to this sample.")


def _open(path: Path, flags: int, doing: str) -> int:
    """An fd of the log that is no symbolic link (a link planted meanwhile is refused)."""
    if path.is_symlink():  # dangling too (where O_NOFOLLOW is missing: Windows)
        raise _symlink(path, doing)
    try:
        return os.open(path, flags | NOFOLLOW, 0o644)
    except OSError:
        if path.is_symlink():
            raise _symlink(path, doing) from None
        raise


def append_event(path: str | Path, event: Event) -> None:
    """Append one event durably (module docstring); created with its directory entry
    synced when missing."""
    path = Path(path)
    data = (json.dumps(event.record(), ensure_ascii=False, separators=(", ", ": "))
            + "\n").encode("utf-8")
    created = not path.exists()
    fd = _open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, "appended only to")
    try:
        with _locked(fd, "LOCK_EX"):
            size = os.fstat(fd).st_size
            if size:
                os.lseek(fd, size - 1, os.SEEK_SET)  # writes still go to the end
                if os.read(fd, 1) != b"\n":
                    data = b"\n" + data  # close a line torn by a crash; readers skip it
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        dir_fd = os.open(path.absolute().parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def check_writable(directory: str | Path) -> None:
    """Refuse, before anyone judges, a sample directory whose log cannot be appended to
    (or is a symbolic link)."""
    path = Path(directory) / LOG_NAME
    try:
        if path.exists() or path.is_symlink():
            os.close(_open(path, os.O_WRONLY | os.O_APPEND, "appended only to"))
        else:
            probe = path.with_name(f".{LOG_NAME}.{os.getpid()}.probe")
            probe.touch()
            probe.unlink()
    except OSError as err:
        raise InputError(f"cannot write verdicts to {path}: {err}",
                         hint="Judge a sample directory you can write to (copy it, or "
                              "fix its permissions).") from None


def _text(value: Any) -> str | None:
    return None if value is None else str(value).strip() or None


def _event(raw: bytes, line: int, where: Path) -> Event | None:
    """The event of a line; None for a line that is not JSON (torn by a crash)."""
    try:
        obj = load_json(raw)
    except ValueError:
        return None
    try:
        overlap = obj.get("overlap")
        good = (isinstance(obj["judge"], str) and obj["judge"].strip()
                and _text(obj["pair_id"]) and _text(obj["sample_id"]) and "time" in obj
                and obj["verdict"] in (*VERDICTS, None)
                and (overlap is None or (type(overlap) in (int, float) and 0 <= overlap <= 1)))
    except (AttributeError, KeyError, TypeError):
        good = False
    if not good:
        raise InputError(f"{where}: line {line} is not a line `abcde judge` writes (it "
                         "was edited)", hint="Put back the line as it was, or remove it: "
                         "each line holds " + ", ".join(RECORD_KEYS) + " (a verdict of "
                         f"{', '.join(VERDICTS)}, or null for an undo).")
    return Event(obj["judge"], _text(obj["pair_id"]), _text(obj["sample_id"]),  # type: ignore[arg-type]
                 obj["verdict"], str(obj["time"]), _text(obj.get("item_1")),
                 _text(obj.get("item_2")), line, None if overlap is None else float(overlap))


@dataclass
class VerdictLog:
    """A replaying reader of one log file; :meth:`refresh` reads what was appended since
    the last call (complete lines only)."""

    path: Path
    events: list[Event] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # lines that are not JSON (torn)
    torn_tail: bool = False  # a last line without its newline (a crash)
    _offset: int = 0
    _lines: int = 0
    _identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read so far

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    def refresh(self, check: Callable[[list[Event]], None] | None = None) -> list[Event]:
        """The events appended since the last call (every event when the file was
        replaced, cut shorter or removed since). All or nothing: when a line is not an
        event or `check` refuses the new events, nothing is taken in."""
        try:
            fd = _open(self.path, os.O_RDONLY, "read only from")
        except FileNotFoundError:  # removed: no verdict stands any more
            self.events, self.skipped, self._offset, self._lines = [], [], 0, 0
            self._identity, self.torn_tail = None, False
            return []
        with os.fdopen(fd, "rb") as f, _locked(f.fileno(), "LOCK_SH"):
            st = os.fstat(f.fileno())
            identity = (st.st_dev, st.st_ino)
            same = identity == self._identity and st.st_size >= self._offset > 0
            if same:  # appended to, not rewritten in place: the byte before is a newline
                f.seek(self._offset - 1)
                same = f.read(1) == b"\n"
            offset, lines = (self._offset, self._lines) if same else (0, 0)
            f.seek(offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        new, skipped = [], []
        for raw in data[:end].split(b"\n")[:-1]:
            lines += 1
            if raw.strip():
                event = _event(raw, lines, self.path)
                if event is None:
                    skipped.append(lines)
                else:
                    new.append(event)
        if check is not None:
            check(new)
        if not same:
            self.events, self.skipped = [], []
        self._identity, self._offset, self._lines = identity, offset + end, lines
        self.skipped += skipped
        self.events += new
        self.torn_tail = len(data) > end
        return new

    def append(self, event: Event) -> None:
        append_event(self.path, event)

    def warnings(self) -> list[str]:
        crash = "a write cut short by a crash, never acknowledged to the judge"
        out = []
        if self.skipped:
            out.append(f"{self.path}: skipped {len(self.skipped)} line(s) that are not JSON "
                       f"(line {', '.join(map(str, self.skipped[:10]))}): {crash}")
        if self.torn_tail:
            out.append(f"{self.path}: skipped its last line (line {self._lines + 1}), which "
                       f"has no line end: {crash}")
        return out


def read_log(path: str | Path) -> VerdictLog:
    """The whole log, read once (a missing file reads as empty)."""
    log = VerdictLog(Path(path))
    log.refresh()
    return log


def current_verdicts(events: Sequence[Event]) -> dict[str, dict[str, Event]]:
    """judge → pair id → that judge's latest event of the pair, for the pairs whose
    latest event is a verdict (the log replayed)."""
    out: dict[str, dict[str, Event]] = {}
    for e in events:
        mine = out.setdefault(e.judge, {})
        if e.verdict is None:
            mine.pop(e.pair_id, None)
        else:
            mine[e.pair_id] = e
    return {j: v for j, v in out.items() if v}


def undo_target(events: Sequence[Event], judge: str) -> str | None:
    """The pair whose verdict the judge's undo retracts: that of the judge's latest
    verdict event still the last event of its pair (docs/method.md §12.3)."""
    last = {e.pair_id: e for e in events if e.judge == judge}
    return next((e.pair_id for e in reversed(events) if e.judge == judge
                 and e.verdict is not None and last[e.pair_id] is e), None)


def is_verdict_log(path: str | Path) -> bool:
    """Whether a .jsonl file is a verdict log (its first record has every key of a log
    line), to be replayed rather than read as a judgement file."""
    p = Path(path)
    if p.suffix.lower() not in (".jsonl", ".ndjson") or not p.is_file():
        return False
    with p.open("rb") as f:
        first = next((raw for raw in f if raw.strip()), b"")
    try:
        obj = load_json(first)
    except ValueError:
        return False
    return isinstance(obj, Mapping) and all(k in obj for k in RECORD_KEYS)


def events_for_sample(events: Sequence[Event], sample_id: str, where: str) -> None:
    """Refuse events of another sample (a sample drawn again into the directory after
    judging began)."""
    other = [e for e in events if e.sample_id != sample_id]
    if other:
        raise InputError(f"{where} holds verdicts of another sample (sample_id "
                         f"{', '.join(sorted({e.sample_id for e in other}))}; this sample "
                         f"is {sample_id})", column="sample_id",
                         examples=[Shown(f"line {e.line}") for e in other],
                         hint="Move the old verdicts.jsonl away: its pair ids name pairs "
                              "of the sample it was judged for.")
