"""The `abcde` command line: the group and every module's `COMMANDS`. Exit codes: 0
success, 2 bad input, 130 interrupted, 141 stdout closed, 1 a bug."""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from abcde.cli import evaluate, impact, judge, quality, report, sampling, warehouse
from abcde.cli._common import SIGNALLED, Terminated, handle_errors, interrupted
from abcde.version import __version__


def own_records(record: logging.LogRecord) -> bool:
    """What -v and --debug print: abcde's records, and other libraries' warnings."""
    return record.name.partition(".")[0] == "abcde" or record.levelno >= logging.WARNING


def _terminate_like_ctrl_c(ctx: click.Context) -> None:
    """SIGTERM and SIGHUP end a command as Ctrl-C does, with an exception, so that its
    outputs' temporary files are removed; only where Python's default action stands,
    and given back at the end. Every signal is recorded (SIGNALLED)."""
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
    """The `abcde` group: Ctrl-C while options are parsed exits 130 too, not click's 1."""

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
    """Every command's callback, its options' decorators included, under the handler."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _handled(sub)
    elif command.callback is not None:
        command.callback = handle_errors(command.callback)
    return command


for _module in (impact, evaluate, sampling, quality, judge, report, warehouse):
    for _command in _module.COMMANDS:
        main.add_command(_handled(_command))
