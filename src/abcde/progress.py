"""Progress of long work on the terminal (docs/method.md §13.3): one module-level display,
off until the command line turns it on (`start`, only when stderr is a terminal). While
work runs, a line on stderr, drawn by rich, shows the running step of the SQL pipeline
(`abcde.sql.pipeline.Pipeline` reports each step), the steps done, the elapsed time and a
bar for loops of known length (`track`: simulated rounds). It is drawn only inside a step
or a loop and erased after it, so nothing of it stays when a command prints its result,
and nothing reaches stdout, where results go.
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
_display: _Display | None = None


class _Display:
    """The rich display of one command: a task naming the running step, and the bars."""

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

        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                 BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=Console(file=stream, force_terminal=True),
                                 transient=True, refresh_per_second=8,
                                 redirect_stdout=False, redirect_stderr=False)
        self.done = self.depth = 0
        self.steps = self.progress.add_task("starting", total=None)

    @contextlib.contextmanager
    def shown(self) -> Iterator[None]:
        """Drawn while the outermost block runs (transient: erased after it)."""
        self.depth += 1
        if self.depth == 1:
            self.progress.start()
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                self.progress.stop()


def start(stream: IO[str] | None = None) -> bool:
    """Turn the display on when `stream` (stderr) is a terminal, unless ABCDE_PROGRESS=0
    or TERM=dumb; whether it is on."""
    global _stream
    stream = stream or sys.stderr
    if os.environ.get("ABCDE_PROGRESS", "").strip() in ("0", "false", "no", "off") \
            or os.environ.get("TERM") == "dumb":
        return False
    try:
        if not stream.isatty():
            return False
    except (AttributeError, ValueError):
        return False
    _stream = stream
    return True


def _current() -> _Display | None:
    global _display
    if _stream is None:
        return None
    with _lock:
        if _display is None:
            _display = _Display(_stream)
        return _display


def stop() -> None:
    """Turn the display off (it leaves nothing on the terminal)."""
    global _display, _stream
    with _lock:
        if _display is not None and _display.depth:
            _display.progress.stop()
        _display = _stream = None


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    """Show `name` as the running step while the block runs; count it done after."""
    d = _current()
    if d is None:
        yield
        return
    d.progress.update(d.steps, description=f"step {d.done + 1}: {name}")
    with d.shown():
        yield
    d.done += 1
    d.progress.update(d.steps, completed=d.done)


def track(items: Sequence[T], description: str) -> Iterator[T]:
    """The items of a loop, shown as a bar while the loop runs."""
    d = _current()
    if d is None:
        yield from items
        return
    task: Any = d.progress.add_task(description, total=len(items))
    try:
        with d.shown():
            for item in items:
                yield item
                d.progress.advance(task)
    finally:
        d.progress.remove_task(task)
