"""One judge's round on one sample: the verdict log replayed, and the moves a page
makes — record a verdict, undo, find the next pair (docs/method.md §12.2–12.3).

The log file is the state: every request first reads what any server appended since
(other judges, or this judge in another terminal), so a restart, a second tab and a
second judge all see the same verdicts. A lock serialises this server's own threads;
``fcntl.flock`` inside :func:`abcde.sample_files.verdicts.append_event` serialises the
servers.

The ``--overlap`` of a round is part of that state: every line records the overlap of
the server that wrote it, and the round's overlap is that of the log's first line
holding one. It decides which pairs go to every judge and which to one, so a server
started with another value (a restart, or a second judge) is refused rather than
silently giving pairs to other judges (:class:`OverlapChanged`); one started without
``--overlap`` takes the recorded value.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from abcde.errors import InputError
from abcde.judge.assignment import Assignment
from abcde.judge.questions import JudgeSample
from abcde.quality.judgements import VERDICTS, id_text
from abcde.sample_files.layout import stamp
from abcde.sample_files.verdicts import (
    LOG_NAME,
    Event,
    VerdictLog,
    check_judge_name,
    current_verdicts,
    events_for_sample,
    undo_target,
    utc_now,
)


class SampleReplaced(InputError):
    """The sample directory now holds another sample (``sample-pairs --overwrite``):
    verdicts on the old questions must not go into the new sample's log."""


class OverlapChanged(InputError):
    """The log records another ``--overlap`` than this server's (module docstring)."""


def recorded_overlap(events: Sequence[Event]) -> Event | None:
    """The event that fixes the round's overlap.

    Parameters
    ----------
    events : sequence of Event
        The log's events, in line order.

    Returns
    -------
    Event or None
        The first event that records an overlap; None when none does yet (or the log
        was written before the overlap was recorded).

    References
    ----------
    docs/method.md §12.3.
    """
    return next((e for e in events if e.overlap is not None), None)


@dataclass(frozen=True)
class Snapshot:
    """The round as one request sees it."""

    mine: dict[str, str]        # pair → this judge's current verdict
    others: frozenset[str]      # pairs another judge has a current verdict on
    answered: dict[str, dict[str, str]]  # judge → pair → verdict (every judge)


class JudgeSession:
    """The state behind one ``abcde judge`` server (module docstring)."""

    def __init__(self, sample: JudgeSample, judge: str, overlap: float | None = None
                 ) -> None:
        self.sample = sample
        self.judge = check_judge_name(judge)
        self.log = VerdictLog(Path(sample.directory) / LOG_NAME)
        self._lock = threading.Lock()
        self.overlap = 0.0 if overlap is None else overlap
        self.refresh(check_overlap=False)
        first = recorded_overlap(self.log.events)
        if overlap is None and first is not None:  # no --overlap: the round's own
            self.overlap = first.overlap  # type: ignore[assignment]
        self.assignment = Assignment(sample.sample_id, self.judge, sample.pair_ids,
                                     self.overlap)
        self.check_overlap()

    @property
    def log_path(self) -> Path:
        return self.log.path

    def refresh(self, check_overlap: bool = True) -> None:
        """Read what was appended since; a line that is not an event or is of another
        sample is refused (exit 2 at start-up; at run time the request answers 409 with
        the line, nothing of the new lines is taken in and nothing is recorded until the
        log is fixed), and so is a sample replaced since the server started
        (:class:`SampleReplaced`) and a log that records another overlap
        (:class:`OverlapChanged`)."""
        self.check_same_sample()
        self.log.refresh(check=lambda new: events_for_sample(new, self.sample.sample_id,
                                                             str(self.log.path)))
        if check_overlap:
            self.check_overlap()

    def check_overlap(self) -> None:
        """Raise :class:`OverlapChanged` when the log's first recorded overlap is not
        this server's (checked on every read: a second judge may have started the round
        with another value while this server ran)."""
        first = recorded_overlap(self.log.events)
        if first is None or first.overlap == self.overlap:
            return
        d = self.sample.directory
        raise OverlapChanged(
            f"{self.log.path} records --overlap {first.overlap!r} for this round (line "
            f"{first.line}, judge {first.judge!r}), but this judge was started with "
            f"--overlap {self.overlap!r}: the overlap decides which pairs every judge sees "
            "and which one judge answers, so changing it would give pairs judged for one "
            "judge to another",
            hint=f"Run `abcde judge {shlex.quote(str(d))} --judge {shlex.quote(self.judge)} "
                 f"--overlap {first.overlap!r}` "
                 "(or leave out --overlap: the recorded value is used). To judge with "
                 "another overlap, start a new round: move verdicts.jsonl away (its "
                 "verdicts are then not part of the estimate).")

    def check_same_sample(self) -> None:
        """Raise :class:`SampleReplaced` when manifest.json (an exported sample's
        pair_manifest) is no longer the file the questions were loaded with."""
        if self.sample.stamp is None:
            return
        if stamp(Path(self.sample.directory) / self.sample.manifest_name) != self.sample.stamp:
            raise SampleReplaced(
                f"{self.sample.directory} no longer holds sample {self.sample.sample_id} "
                f"(its {self.sample.manifest_name} was replaced or removed, e.g. by "
                "`abcde sample-pairs --overwrite` or a new export); "
                "this server judges the old questions, so it records nothing more",
                hint="Stop this server and start `abcde judge "
                     f"{shlex.quote(str(self.sample.directory))}` again to judge the new "
                     "sample.")

    def snapshot(self) -> Snapshot:
        with self._lock:
            self.refresh()
            events = list(self.log.events)
        current = current_verdicts(events)
        answered = {j: {p: e.verdict for p, e in v.items() if e.verdict is not None
                        and p in self.sample.questions} for j, v in current.items()}
        mine = answered.get(self.judge, {})
        others = frozenset(p for j, v in answered.items() if j != self.judge for p in v)
        return Snapshot(mine, others, answered)

    def check_pair(self, pair_id: str | None) -> str:
        pid = id_text(pair_id)
        if pid is None or pid not in self.sample.questions:
            raise KeyError(pair_id)
        return pid

    def record(self, pair_id: str, verdict: str) -> None:
        """Append this judge's verdict on a pair (on disk when this returns)."""
        pid = self.check_pair(pair_id)
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}")
        self._append(pid, verdict)

    def undo(self) -> str | None:
        """Retract this judge's latest verdict that still stands; its pair (None when
        there is nothing to undo)."""
        with self._lock:
            self.refresh()
            target = undo_target(self.log.events, self.judge)
            if target is not None:
                self._append_locked(target, None)
        return target

    def _append(self, pid: str, verdict: str | None) -> None:
        with self._lock:
            self._append_locked(pid, verdict)

    def _append_locked(self, pid: str, verdict: str | None) -> None:
        self.refresh()  # a log that cannot be read (edited by hand) takes no new line
        q = self.sample.questions[pid]
        self.log.append(Event(self.judge, pid, self.sample.sample_id, verdict, utc_now(),
                              id_text(q.item_1), id_text(q.item_2), overlap=self.overlap))
        self.refresh()

    def next_pair(self, snap: Snapshot, after: str | None = None) -> str | None:
        return self.assignment.next_needed(set(snap.mine), snap.others, after)

    def progress(self, snap: Snapshot) -> dict[str, int]:
        return self.assignment.progress(snap.mine, snap.others)


def start_session(sample: JudgeSample, judge: str, overlap: float | None) -> JudgeSession:
    """A judge's session, with the log's problems as clean errors before the server
    starts.

    Parameters
    ----------
    sample : JudgeSample
        The sample.
    judge : str
        The judge's name.
    overlap : float or None
        ``--overlap``; None takes the value the log records (0 when it records none).

    Returns
    -------
    JudgeSession

    Raises
    ------
    InputError
        For a bad judge name, a log of another sample, a log recording another
        overlap, or an unreadable log.

    References
    ----------
    docs/method.md §12.2, §12.3.
    """
    try:
        return JudgeSession(sample, judge, overlap)
    except InputError:
        raise
    except OSError as err:
        raise InputError(f"cannot read {Path(sample.directory) / LOG_NAME}: {err}") from None

