"""What every command shares: the error handler and the reusable options."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import sys
import tempfile
from collections.abc import Callable
from typing import Any, NoReturn

import click

from abcde.errors import AbcdeError, InputError
from abcde.params import THREADS, Constraint
from abcde.text import to_json


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command: an AbcdeError prints its message and exits with its code (2 for
    bad input); Ctrl-C exits 130; a closed stdout (`| head`) 141, quietly; anything else
    is a bug: exit 1. `--debug` shows the traceback instead."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = click.get_current_context().find_root().params.get("debug", False)
        try:
            result = fn(*args, **kwargs)
            if sys.stdout is not None:  # None: started with stdout closed (>&-)
                sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return result
        except AbcdeError as err:
            if debug:
                raise
            if isinstance(err, InputError):
                err.spell(spelling())
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
                # a signal inside a library comes out as the library's error
                interrupted()
            internal_error(err)
    return wrapper


def no_space(err: BaseException) -> bool:
    """A full disk or quota: an OSError, or an engine's error quoting the system's."""
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(err)
    return "No space left on device" in text or "Disk quota exceeded" in text


def disk_full(err: BaseException) -> NoReturn:
    """Say which file could not be written and that earlier outputs are as they were;
    exit 2 (stdout to /dev/null: it may be the full device)."""
    where = getattr(err, "filename", None)
    what = f" writing {re.sub(r'[.]tmp-[0-9]+-[0-9a-f]{8}$', '', str(where))}" if where else ""
    # PostgreSQL's inputs are staged and DuckDB spills in the temporary directory
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
"""The signals the command received (abcde.cli.main), last one last."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised like Ctrl-C's KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def interrupted(err: BaseException | None = None) -> NoReturn:
    """Say so and exit 128 + the signal's number, the shell's convention."""
    signum = err.signum if isinstance(err, Terminated) else (SIGNALLED or [2])[-1]
    with contextlib.suppress(Exception):
        click.echo("interrupted" if signum == 2 else "terminated", err=True)
    sys.exit(128 + signum)


def stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (not a database's socket)."""
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
    """End quietly with 141 (128 + SIGPIPE), stdout to /dev/null (Python's recipe)."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(141)


class ExistingPath(click.Path):
    """click.Path(exists=True) that names a symbolic link to a missing target."""

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


def spelling(ctx: click.Context | None = None) -> dict[str, str]:
    """Python parameter name -> how the command's user spells it (`seed` -> `--seed`)."""
    ctx = ctx or click.get_current_context(silent=True)
    if ctx is None or ctx.command is None:
        return {}
    return {p.name: (max(p.opts, key=len) if isinstance(p, click.Option)
                     else p.human_readable_name)
            for p in ctx.command.params if p.name}


class Checked(click.ParamType):
    """A click type from a constraint of `abcde.params`."""

    def __init__(self, constraint: Constraint, parse: click.ParamType = click.INT) -> None:
        self.constraint, self.parse = constraint, parse
        self.name = parse.name

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = self.parse.convert(value, param, ctx)
        try:
            return self.constraint.convert(value)
        except (ValueError, TypeError):
            self.fail(f"must be {self.constraint.what}, not {value!r}", param, ctx)


class IntList(click.ParamType):
    """Comma-separated integers ("100,300,1000"), as a tuple."""

    name = "integers"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return tuple(int(v) for v in value.split(","))
        except ValueError:
            self.fail(f"must be comma-separated integers, not {value!r}", param, ctx)


def format_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--format table|json|html; html (plotly) is checked before any work, so that a run
    that cannot print its page never writes --out."""

    @functools.wraps(fn)
    def wrapper(*args: Any, fmt: str, **kwargs: Any) -> Any:
        if fmt == "html":
            from abcde.report.plots import require_plotly

            require_plotly()
        return fn(*args, fmt=fmt, **kwargs)

    return click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]),
                        default="table", show_default=True, help="What to print on stdout "
                        "(html: the page of `abcde report`; needs abcde[report]).")(wrapper)


def emit(doc: Any, fmt: str, table: Callable[[Any], str], section: str) -> None:
    """Print a command's document as --format asks: a table, JSON, or the report page
    of its `section`."""
    if fmt == "html":
        from abcde.report.build import report_html

        click.echo(report_html(**{section: doc}))
    else:
        click.echo(to_json(doc) if fmt == "json" else table(doc))


def engine_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The engine options; the command receives `engine`, an `EngineConfig`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, engine_name: str | None, db: str | None,
                memory_limit: str | None, threads: int | None, dsn: str | None,
                spark_remote: str | None, spark_master: str | None,
                spark_conf: tuple[str, ...], **kwargs: Any) -> Any:
        from abcde.engines.config import EngineConfig, parse_conf

        config = EngineConfig(engine_name, db=db, memory_limit=memory_limit, threads=threads,
                              dsn=dsn, spark_master=spark_master, spark_remote=spark_remote,
                              spark_conf=parse_conf(spark_conf))
        return fn(*args, engine=config, **kwargs)

    options = [
        click.option("--engine", "engine_name", type=click.Choice(ENGINE_NAMES),
                     default=None, help="Where the SQL runs: in-process DuckDB (default), "
                     "Spark (abcde[spark]: a local session, --spark-master or "
                     "--spark-remote) or the PostgreSQL server of --dsn (abcde[postgres])."),
        click.option("--db", default=None, help="DuckDB database file holding the input "
                     "tables (opened read-only)."),
        click.option("--memory-limit", default=None, help="DuckDB memory limit, e.g. 4GB."),
        click.option("--threads", type=Checked(THREADS), default=None,
                     help="DuckDB threads (at most the machine's cores)."),
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
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def column_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The columns and weights; the command receives `columns`, `weights`, `missing_weight`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, item_col: str, cluster_col: str, weight_col: str,
                **kwargs: Any) -> Any:
        from abcde.inputs.spec import Columns

        return fn(*args, columns=Columns(item_col, cluster_col, weight_col), **kwargs)

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
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def comparison_options(*, slices: str | None = None, attributes: str | None = "Table of "
                       "item attributes; every column rides along.") -> Callable[..., Any]:
    """The options of a command on a comparison (`attributes`, `slices`: their help, or
    none); the command receives `comparison`, an unopened `abcde.Comparison`."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, clusterings: tuple[str, ...], base: str | None,
                    exp: str | None, columns: Any, weights: str | None,
                    missing_weight: float | None, engine: Any, workspace: str | None,
                    **kwargs: Any) -> Any:
            from abcde.comparison import Comparison

            base, exp = _clusterings(clusterings, base, exp)
            comparison = Comparison(base, exp, weights, attributes=kwargs.pop("attributes",
                                                                              None),
                                    slice_by=list(kwargs.pop("slice_by", ())) or None,
                                    columns=columns, missing_weight=missing_weight,
                                    engine=engine, workspace=workspace)
            return fn(*args, comparison=comparison, **kwargs)

        wrapper = click.option("--workspace", default=None, help="Keep the cell tables of a "
                               "round here and reuse them while the inputs are unchanged: "
                               "a DuckDB file, a PostgreSQL schema or a Spark "
                               "database.")(wrapper)
        wrapper = engine_options(wrapper)
        if slices is not None:
            wrapper = click.option("--slice-by", multiple=True, help=slices)(wrapper)
        if attributes is not None:
            wrapper = click.option("--attributes", default=None, help=attributes)(wrapper)
        wrapper = column_options(wrapper)
        wrapper = click.option("--exp", default=None, help="Experiment clustering, same "
                               "shape (or the second positional argument).")(wrapper)
        wrapper = click.option("--base", default=None, help="Baseline clustering: "
                               "CSV/Parquet file or --db table with item and cluster ids "
                               "(or the first positional argument).")(wrapper)
        return click.argument("clusterings", nargs=-1, metavar="[BASE EXP]")(wrapper)

    return decorate


def _clusterings(given: tuple[str, ...], base: str | None, exp: str | None) -> tuple[str, str]:
    """BASE EXP as positional arguments or as --base/--exp, not both."""
    if given and (base is not None or exp is not None):
        raise click.UsageError("give the clusterings either as BASE EXP or as --base/--exp, "
                               "not both")
    if given:
        if len(given) != 2:
            raise click.UsageError(f"expected two clusterings, BASE EXP; got {len(given)}: "
                                   f"{' '.join(given)}")
        return given[0], given[1]
    if base is None or exp is None:
        missing = " and ".join(o for o, v in (("--base", base), ("--exp", exp)) if v is None)
        raise click.UsageError(f"missing {missing}: give the Baseline and Experiment "
                               "clusterings as BASE EXP or as --base B --exp E")
    return base, exp


ENGINE_NAMES = ("duckdb", "spark", "postgres")
