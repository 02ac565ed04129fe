"""One judge's round on one sample: the verdict log replayed, and the moves a page makes
(docs/method.md §12.2–12.3). The log file is the state: every request first reads what
any server appended since; a lock serialises this server's threads, ``flock`` the
servers. The first line's ``--overlap`` fixes the round's: it decides which pairs every
judge sees."""

from __future__ import annotations

import shlex
import threading
from dataclasses import dataclass
from pathlib import Path

from abcde.errors import InputError
from abcde.judge.assignment import Assignment
from abcde.judge.questions import JudgeSample
from abcde.quality.judgements import id_text
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
    """The directory now holds another sample (``sample-pairs --overwrite``)."""


class OverlapChanged(InputError):
    """The log records another ``--overlap`` than this server's."""


@dataclass(frozen=True)
class Snapshot:
    """The round as one request sees it."""

    mine: dict[str, str]        # pair → this judge's current verdict
    others: frozenset[str]      # pairs another judge has a current verdict on
    answered: dict[str, dict[str, str]]  # judge → pair → verdict (every judge)


class JudgeSession:
    """The state behind one ``abcde judge`` server; ``overlap`` None takes the log's."""

    def __init__(self, sample: JudgeSample, judge: str, overlap: float | None = None
                 ) -> None:
        self.sample = sample
        self.judge = check_judge_name(judge)
        self.log = VerdictLog(Path(sample.directory) / LOG_NAME)
        self._lock = threading.Lock()
        self.overlap = overlap
        try:
            self.refresh()
        except OSError as err:
            raise InputError(f"cannot read {self.log.path}: {err}") from None
        self.assignment = Assignment(sample.sample_id, self.judge, sample.pair_ids,
                                     self.overlap)

    @property
    def log_path(self) -> Path:
        return self.log.path

    def refresh(self) -> None:
        """Read what was appended since; refuse a foreign line, a replaced sample and
        another overlap (409 at run time, exit 2 at start)."""
        s = self.sample
        if s.stamp is not None and stamp(Path(s.directory) / s.manifest_name) != s.stamp:
            d = shlex.quote(str(s.directory))
            raise SampleReplaced(
                f"{s.directory} no longer holds sample {s.sample_id} (its "
                f"{s.manifest_name} was replaced or removed, e.g. by `abcde sample-pairs "
                "--overwrite` or a new export); this server judges the old questions, so "
                "it records nothing more",
                hint=f"Stop this server and start `abcde judge {d}` again to judge the new "
                     "sample.")
        self.log.refresh(check=lambda new: events_for_sample(new, s.sample_id,
                                                             str(self.log.path)))
        first = next((e for e in self.log.events if e.overlap is not None), None)
        if first is None:
            self.overlap = self.overlap or 0.0
        elif self.overlap is None:
            self.overlap = first.overlap
        elif first.overlap != self.overlap:
            d, j = shlex.quote(str(s.directory)), shlex.quote(self.judge)
            raise OverlapChanged(
                f"{self.log.path} records --overlap {first.overlap!r} for this round (line "
                f"{first.line}, judge {first.judge!r}), but this judge was started with "
                f"--overlap {self.overlap!r}: the overlap decides which pairs every judge "
                "sees, so changing it would give pairs judged for one judge to another",
                hint=f"Run `abcde judge {d} --judge {j} --overlap {first.overlap!r}` (or "
                     "leave out --overlap: the recorded value is used). To judge with "
                     "another overlap, start a new round: move verdicts.jsonl away (its "
                     "verdicts are then not part of the estimate).")

    def snapshot(self) -> Snapshot:
        with self._lock:
            self.refresh()
            events = list(self.log.events)
        answered = {j: {p: e.verdict for p, e in v.items() if e.verdict is not None
                        and p in self.sample.questions}
                    for j, v in current_verdicts(events).items()}
        others = frozenset(p for j, v in answered.items() if j != self.judge for p in v)
        return Snapshot(answered.get(self.judge, {}), others, answered)

    def pair(self, pair_id: str | None) -> str | None:
        pid = id_text(pair_id)
        return pid if pid in self.sample.questions else None

    def record(self, pair_id: str, verdict: str | None) -> None:
        """Append this judge's verdict (None retracts); on disk when this returns."""
        with self._lock:
            self._append(pair_id, verdict)

    def undo(self) -> str | None:
        """Retract this judge's latest verdict that still stands; its pair, or None."""
        with self._lock:
            self.refresh()
            target = undo_target(self.log.events, self.judge)
            if target is not None:
                self._append(target, None)
        return target

    def _append(self, pid: str, verdict: str | None) -> None:
        self.refresh()  # a log that cannot be read (edited by hand) takes no new line
        q = self.sample.questions[pid]
        self.log.append(Event(self.judge, pid, self.sample.sample_id, verdict, utc_now(),
                              id_text(q.item_1), id_text(q.item_2), overlap=self.overlap))
        self.refresh()

    def next_pair(self, snap: Snapshot, after: str | None = None) -> str | None:
        return self.assignment.next_needed(set(snap.mine), snap.others, after)

    def progress(self, snap: Snapshot) -> dict[str, int]:
        return self.assignment.progress(snap.mine, snap.others)

