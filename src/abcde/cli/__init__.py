"""The `abcde` command line (click): the group, and every command registered the same
way — each command module lists its commands in `COMMANDS`. Command modules import the
error handler and shared options from `abcde.cli._common`; nothing imports back.

Exit codes: 0 success, 2 bad input, 130 interrupted (Ctrl-C), 141 stdout closed (`| head`),
1 anything else (abcde.cli._common.handle_errors).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from abcde.cli import evaluate, impact, judge, quality, report, sampling, warehouse
from abcde.cli._common import SIGNALLED, Terminated, handle_errors, interrupted
from abcde.version import __version__


def own_records(record: logging.LogRecord) -> bool:
    """What -v and --debug print: abcde's own records, and other libraries' warnings and
    errors — not their chatter (py4j's "Closing down clientserver connection" when a
    Spark session ends, for one)."""
    return record.name.partition(".")[0] == "abcde" or record.levelno >= logging.WARNING


def _terminate_like_ctrl_c(ctx: click.Context) -> None:
    """SIGTERM and SIGHUP (`timeout`, a scheduler, a closed terminal) end a command as
    Ctrl-C does — an exception, so that the temporary files of its outputs are removed
    (abcde.outputs) — where they would end the process at once and leave them; exit
    128 + the signal. Only where Python's default action stands (not under a host that
    set its own), and given back when the command ends. Every signal is recorded
    (SIGNALLED, Ctrl-C's too): one that lands inside a library may come out as that
    library's own error, wrapping ours (abcde.cli._common.handle_errors)."""
    import signal
    import threading

    SIGNALLED.clear()
    if threading.current_thread() is not threading.main_thread():
        return
    for name, default in (("SIGTERM", signal.SIG_DFL), ("SIGHUP", signal.SIG_DFL),
                          ("SIGINT", signal.default_int_handler)):
        sig = getattr(signal, name, None)
        if sig is None or signal.getsignal(sig) is not default:
            continue
        signal.signal(sig, _raise_terminated)
        ctx.call_on_close(lambda sig=sig, default=default: signal.signal(sig, default))


def _raise_terminated(signum: int, frame: object) -> None:
    SIGNALLED.append(signum)
    if signum == 2:  # Ctrl-C: what Python's own handler raises
        raise KeyboardInterrupt
    raise Terminated(signum)


class Group(click.Group):
    """The `abcde` group: Ctrl-C outside a command's own handler (while options are
    parsed) is "interrupted", exit 130, as inside (abcde.cli._common.handle_errors) —
    not click's "Aborted!", exit 1."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as err:
            interrupted(err)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as err:
            interrupted(err)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="abcde")
@click.option("--debug", is_flag=True, help="Show tracebacks and log the SQL of each step.")
@click.option("-v", "--verbose", is_flag=True, help="Log each SQL step and its time.")
@click.option("--progress/--no-progress", "show_progress", default=True,
              help="Show the running step and how far it is on stderr when it is a "
              "terminal (never on stdout; off with -v or ABCDE_PROGRESS=0).")
def main(debug: bool, verbose: bool, show_progress: bool = True) -> None:
    """abcde: how two clusterings differ, and whether the new one is better."""
    _terminate_like_ctrl_c(click.get_current_context())
    if verbose or debug:
        before = set(logging.getLogger().handlers)
        logging.basicConfig(level=logging.DEBUG if debug else logging.INFO,
                            format="%(name)s: %(message)s", stream=sys.stderr)
        for handler in set(logging.getLogger().handlers) - before:
            handler.addFilter(own_records)
    elif show_progress:
        from abcde import progress

        if progress.start():
            click.get_current_context().call_on_close(progress.stop)


def _handled(command: click.Command) -> click.Command:
    """Every command's whole callback, its options' decorators included, under the one
    error handler (a group's commands too)."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _handled(sub)
    elif command.callback is not None:
        command.callback = handle_errors(command.callback)
    return command


for _module in (impact, evaluate, sampling, quality, judge, report, warehouse):
    for _command in _module.COMMANDS:
        main.add_command(_handled(_command))
