"""What every command shares, below the commands: the error handler (a clean message
and exit code, never a traceback unless --debug) and the reusable options. Command
modules import from here; nothing here imports a command."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import click

from abcde.errors import AbcdeError

if TYPE_CHECKING:
    from abcde.engines import Engine


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command: an AbcdeError prints its message and exits with its code (2 for
    bad input); Ctrl-C prints "interrupted" and exits 130 (every output is written
    atomically, abcde.outputs, so nothing half-written remains); a closed stdout
    (`abcde ... | head`) ends quietly with 141, as a process stopped by SIGPIPE; anything
    else is a bug: exit 1. `--debug` shows the traceback instead."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = click.get_current_context().find_root().params.get("debug", False)
        try:
            result = fn(*args, **kwargs)
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return result
        except AbcdeError as err:
            if debug:
                raise
            click.echo(f"error: {err}", err=True)
            sys.exit(err.exit_code)
        except KeyboardInterrupt as err:
            if debug:
                raise
            interrupted(err)
        except (click.exceptions.Exit, click.ClickException):
            raise
        except BrokenPipeError:
            if not stdout_closed():
                if debug:
                    raise
                internal_error(BrokenPipeError("a pipe or socket closed"))
            quiet_closed_stdout()
        except Exception as err:
            if debug:
                raise
            if no_space(err):
                disk_full(err)
            if SIGNALLED or str(err) == "Query interrupted":
                # a signal that landed inside a library comes out as the library's error:
                # DuckDB's "Query interrupted", or one whose text holds our exception's
                # traceback (seen in CI: SIGTERM during a sample, exit 1, "a bug")
                interrupted()
            internal_error(err)
    return wrapper


def no_space(err: BaseException) -> bool:
    """A full disk or an exhausted quota: an OSError from Python, or an engine's error
    whose text carries the system's message (DuckDB's IO Error, PostgreSQL's)."""
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(err)
    return "No space left on device" in text or "Disk quota exceeded" in text


def disk_full(err: BaseException) -> NoReturn:
    """Not a bug and not the input: say which file could not be written and that the
    earlier outputs are as they were (they are replaced only after a complete write,
    abcde.outputs); exit 2. stdout goes to /dev/null so that the interpreter's last
    flush does not fail again (stdout itself may be the full device)."""
    where = getattr(err, "filename", None)
    # the temporary file an output is written to first (abcde.outputs) stands for it
    what = f" writing {re.sub(r'[.]tmp-[0-9a-f]{8}$', '', str(where))}" if where else ""
    # the system's temporary directory (PostgreSQL's inputs are staged there as CSV,
    # DuckDB spills there): say where it is and how to move it
    tmp = tempfile.gettempdir()
    moved = (f" (temporary files go to {tmp}: set TMPDIR to a directory with room)"
             if where and str(where).startswith(tmp + os.sep) else "")
    with contextlib.suppress(Exception):
        click.echo(f"error: no space left on the device{what} ({err}).\nFree some space, or "
                   "send the output (stdout, --out) or the engine's temporary files "
                   f"elsewhere{moved}, then run again; earlier outputs were left as they "
                   "were.", err=True)
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(2)


def internal_error(err: Exception) -> NoReturn:
    click.echo(f"internal error ({type(err).__name__}): {err}\n"
               "This is a bug in abcde; rerun with --debug for the traceback.", err=True)
    sys.exit(1)


SIGNALLED: list[int] = []
"""The signals (SIGINT, SIGTERM, SIGHUP) received by the command (abcde.cli.main), last
one last."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised like Ctrl-C's KeyboardInterrupt (abcde.cli.main)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def interrupted(err: BaseException | None = None) -> NoReturn:
    """Ctrl-C: say so and exit 130 (128 + SIGINT), the shell's convention; SIGTERM or
    SIGHUP (`Terminated`): 128 + its number."""
    # a signal raised inside a DuckDB query comes back as its "Query interrupted"
    signum = err.signum if isinstance(err, Terminated) else (SIGNALLED or [2])[-1]
    with contextlib.suppress(Exception):
        click.echo("interrupted" if signum == 2 else "terminated", err=True)
    sys.exit(128 + signum)


def stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (`abcde ... | head`): a
    BrokenPipeError from anywhere else (a database socket) is not a closed stdout."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return True  # not a real file (a test runner's buffer): the error came from it
    try:
        import select

        poller = select.poll()
        poller.register(fd, 0)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return True


def quiet_closed_stdout() -> NoReturn:
    """End quietly after the reader of stdout went away (the Python documentation's
    recipe for SIGPIPE: point stdout at /dev/null so that the interpreter's last flush
    does not fail again), with status 141 = 128 + SIGPIPE."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(141)


class ExistingPath(click.Path):
    """click.Path(exists=True) that says when the path is a symbolic link to a missing
    target: click calls it a file that "does not exist", while `ls` shows it there."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(exists=True, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str | os.PathLike) and os.path.islink(value) \
                and not os.path.exists(value):
            self.fail(f"{os.fspath(value)!r} is a symbolic link to a missing target "
                      f"({os.readlink(value)!r}): link it to the file, or give the file "
                      "itself.", param, ctx)
        return super().convert(value, param, ctx)


def input_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by every command that reads clusterings."""
    options = [
        click.option("--item-col", default="item_id", show_default=True,
                     help="Item id column of every input."),
        click.option("--cluster-col", default="cluster_id", show_default=True,
                     help="Cluster id column of the clusterings."),
        click.option("--weight-col", default="weight", show_default=True,
                     help="Weight column (of --weights, else of the clusterings)."),
        click.option("--weights", "weights", default=None,
                     help="Table of item weights (file or --db table). Default: the "
                          "clusterings' weight column if any, else 1."),
        click.option("--missing-weight", type=float, default=None,
                     help="Weight of items the weights table lacks (default: refuse)."),
        click.option("--db", default=None, help="DuckDB database file holding the input "
                     "tables (opened read-only)."),
        click.option("--memory-limit", default=None, help="DuckDB memory limit, e.g. 4GB."),
        click.option("--threads", type=int, default=None, help="DuckDB threads."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def clustering_inputs(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The two clusterings, given either as positional BASE EXP (`abcde impact base.csv
    exp.csv`) or as --base/--exp; the command receives `base` and `exp`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, clusterings: tuple[str, ...] = (), base: str | None = None,
                exp: str | None = None, **kwargs: Any) -> Any:
        if clusterings and (base is not None or exp is not None):
            raise click.UsageError("give the clusterings either as BASE EXP or as "
                                   "--base/--exp, not both")
        if clusterings:
            if len(clusterings) != 2:
                raise click.UsageError(f"expected two clusterings, BASE EXP; got "
                                       f"{len(clusterings)}: {' '.join(clusterings)}")
            base, exp = clusterings
        missing = [o for o, v in (("--base", base), ("--exp", exp)) if v is None]
        if missing:
            raise click.UsageError(f"missing {' and '.join(missing)}: give the Baseline "
                                   "and Experiment clusterings as BASE EXP or as "
                                   "--base B --exp E")
        return fn(*args, base=base, exp=exp, **kwargs)

    wrapper = click.option("--exp", default=None, help="Experiment clustering, same "
                           "shape (or the second positional argument).")(wrapper)
    wrapper = click.option("--base", default=None, help="Baseline clustering: CSV/Parquet "
                           "file or --db table with item and cluster ids (or the first "
                           "positional argument).")(wrapper)
    return click.argument("clusterings", nargs=-1, metavar="[BASE EXP]")(wrapper)


def engine_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Where the SQL runs, and where a round's cells are kept: options shared by every
    command that reads clusterings (the command receives engine_name, dsn, spark_remote,
    spark_master, spark_conf and workspace; `command_engine` opens the engine)."""
    options = [
        click.option("--engine", "engine_name", type=click.Choice(ENGINE_NAMES),
                     default=None, help="Where the SQL runs: in-process DuckDB (default), "
                     "Spark (abcde[spark]: a local session, --spark-master or "
                     "--spark-remote) or the PostgreSQL server of --dsn (abcde[postgres])."),
        click.option("--dsn", default=None, help="PostgreSQL connection string for --engine "
                     "postgres, e.g. postgresql://user@host:5432/db."),
        click.option("--spark-remote", default=None, metavar="sc://HOST:PORT",
                     help="A Spark Connect server to run on (implies --engine spark)."),
        click.option("--spark-master", default=None, metavar="URL",
                     help="The cluster manager of a classic Spark session, e.g. "
                     "spark://HOST:7077, yarn, local[4] (default local[2]; implies "
                     "--engine spark)."),
        click.option("--spark-conf", multiple=True, metavar="KEY=VALUE",
                     help="A Spark setting of the session abcde starts, e.g. "
                     "spark.driver.memory=4g (repeatable)."),
        click.option("--workspace", default=None, help="Keep the cell tables of a round "
                     "here and reuse them while the inputs are unchanged: a DuckDB file, a "
                     "PostgreSQL schema or a Spark database."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


ENGINE_NAMES = ("duckdb", "spark", "postgres")


@contextmanager
def command_engine(engine_name: str | None, dsn: str | None, spark_remote: str | None,
                   spark_master: str | None, spark_conf: tuple[str, ...], db: str | None,
                   memory_limit: str | None, threads: int | None) -> Iterator[Engine | None]:
    """The engine a command's options name, open for the block: None for DuckDB (the
    library opens it with --db, --memory-limit and --threads), else the Spark or
    PostgreSQL engine, closed after the block. Options of another engine, or
    contradicting ones, exit 2 naming them."""
    from abcde.inputs.session import EngineOptions, parse_conf

    engine_name = engine_name or ("spark" if spark_remote or spark_master or spark_conf
                                  else "postgres" if dsn else "duckdb")
    options = EngineOptions(db=db, memory_limit=memory_limit, threads=threads,
                            engine_name=engine_name,
                            dsn=dsn, spark_master=spark_master, spark_remote=spark_remote,
                            spark_conf=parse_conf(spark_conf))
    options.check()
    if engine_name == "duckdb":
        yield None
        return
    engine = options.connect()
    try:
        yield engine
    finally:
        engine.close()
