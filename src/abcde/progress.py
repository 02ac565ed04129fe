"""Progress of long work on the terminal: which step runs and how far it is
(docs/method.md §13.3).

The library reports to one module-level reporter that does nothing until the command line
turns it on (:func:`start`, only when stderr is a terminal): then, while work runs, a
line on stderr shows the running step of the SQL pipeline
(:class:`abcde.sql.pipeline.Pipeline` reports every step it runs), how many steps are
done, the elapsed time, and a bar for loops of known length (:func:`task`: simulated
rounds). The line is drawn only inside a step or a task and erased when it ends, so
nothing of it stays on the terminal when a command prints its result, and nothing ever
reaches stdout, where results (``--format json``) go. rich draws it, imported on the
first step shown.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import IO, Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_stream: IO[str] | None = None  # set by start(): where to draw
_reporter: _Reporter | None = None


class _Reporter:
    """The rich display of one command."""

    def __init__(self, stream: IO[str]) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.console = Console(file=stream, force_terminal=True)
        # stdout is never redirected: results go there untouched
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                 BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=self.console, transient=True,
                                 refresh_per_second=8, redirect_stdout=False,
                                 redirect_stderr=False)
        self.steps_done = 0
        self.steps = self.progress.add_task("starting", total=None)
        self.depth = 0

    def enter(self) -> None:
        self.depth += 1
        if self.depth == 1:
            self.progress.start()

    def leave(self) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.progress.stop()  # transient: the line is erased

    def step(self, name: str) -> None:
        self.progress.update(self.steps,
                             description=f"step {self.steps_done + 1}: {name}")

    def step_done(self) -> None:
        self.steps_done += 1
        self.progress.update(self.steps, completed=self.steps_done)

    def stop(self) -> None:
        if self.depth:
            self.progress.stop()
        self.depth = 0


def wanted(stream: IO[str] | None = None) -> bool:
    """Show `name` as the running step while the block runs; count it done after."""
    stream = stream or sys.stderr
    if os.environ.get("ABCDE_PROGRESS", "").strip() in ("0", "false", "no", "off"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def start(stream: IO[str] | None = None) -> bool:
    """Turn the display on for this process, when :func:`wanted`; whether it is on."""
    global _stream
    stream = stream or sys.stderr
    if not wanted(stream):
        return False
    _stream = stream
    return True


def _current() -> _Reporter | None:
    """The reporter, made on the first step once :func:`start` turned progress on."""
    global _reporter
    if _stream is None:
        return None
    with _lock:
        if _reporter is None:
            _reporter = _Reporter(_stream)
        return _reporter


def stop() -> None:
    """Turn the display off (it leaves nothing on the terminal).

    Returns
    -------
    None

    References
    ----------
    docs/method.md §13.3.
    """
    global _reporter, _stream
    with _lock:
        if _reporter is not None:
            _reporter.stop()
        _reporter = _stream = None


def active() -> bool:
    """Whether progress is on (drawn while steps run)."""
    return _stream is not None


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    """Show `name` as the running step while the block runs; count it done after.

    Parameters
    ----------
    name : str
        The step, e.g. a pipeline step's name.

    Returns
    -------
    context manager

    References
    ----------
    docs/method.md §13.3.
    """
    r = _current()
    if r is None:
        yield
        return
    r.step(name)
    r.enter()
    try:
        yield
    finally:
        r.leave()
    r.step_done()


class _Task:
    def __init__(self, reporter: _Reporter | None, task_id: Any) -> None:
        self.reporter, self.task_id = reporter, task_id

    def advance(self, n: int = 1) -> None:
        if self.reporter is not None:
            self.reporter.progress.advance(self.task_id, n)


@contextlib.contextmanager
def task(description: str, total: int) -> Iterator[_Task]:
    """A loop of `total` rounds, shown as a bar while it runs: call ``advance()`` after
    each."""
    r = _current()
    if r is None:
        yield _Task(None, None)
        return
    task_id = r.progress.add_task(description, total=total)
    r.enter()
    try:
        yield _Task(r, task_id)
    finally:
        r.progress.remove_task(task_id)
        r.leave()


def track(items: Sequence[T], description: str) -> Iterator[T]:
    """The items of a loop, shown as a bar (:func:`task`) while the loop runs."""
    with task(description, len(items)) as bar:
        for item in items:
            yield item
            bar.advance()
