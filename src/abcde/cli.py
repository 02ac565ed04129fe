"""The `abcde` command line (click). One error handler prints a clean message and
exits non-zero: 2 for bad input, 1 otherwise; never a traceback unless --debug."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import Any

import click

from abcde import __version__
from abcde.errors import AbcdeError
from abcde.report import impact_text, to_json


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = click.get_current_context().find_root().params.get("debug", False)
        try:
            return fn(*args, **kwargs)
        except AbcdeError as err:
            if debug:
                raise
            click.echo(f"error: {err}", err=True)
            sys.exit(err.exit_code)
        except (KeyboardInterrupt, click.exceptions.Exit, click.ClickException):
            raise
        except Exception as err:
            if debug:
                raise
            click.echo(f"internal error ({type(err).__name__}): {err}\n"
                       "This is a bug in abcde; rerun with --debug for the traceback.",
                       err=True)
            sys.exit(1)
    return wrapper


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="abcde")
@click.option("--debug", is_flag=True, help="Show tracebacks and log the SQL of each step.")
@click.option("-v", "--verbose", is_flag=True, help="Log each SQL step and its time.")
def main(debug: bool, verbose: bool) -> None:
    """abcde: how two clusterings differ, and whether the new one is better."""
    if verbose or debug:
        logging.basicConfig(level=logging.DEBUG if debug else logging.INFO,
                            format="%(name)s: %(message)s", stream=sys.stderr)


@main.command("impact")
@clustering_inputs
@input_options
@click.option("--attributes", default=None, help="Table of item attributes for slices.")
@click.option("--slice-by", multiple=True, help="Attribute column(s) to slice by: "
              "'a,b' slices by the pair; repeat the option for separate slicings.")
@click.option("--top", type=int, default=10, show_default=True,
              help="How many most affected clusters to list.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for every Base/Exp cluster and slice (files).")
@click.option("--out-format", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="What to print on stdout.")
@click.option("--engine", "engine_name", type=click.Choice(["duckdb", "spark", "postgres"]),
              default="duckdb", show_default=True,
              help="Where the SQL runs: in-process DuckDB, a local Spark session "
                   "(abcde[spark]) or the PostgreSQL server of --dsn (abcde[postgres]).")
@click.option("--dsn", default=None, help="PostgreSQL connection string for --engine "
              "postgres, e.g. postgresql://user@host:5432/db.")
@handle_errors
def impact_cmd(base: str, exp: str, weights: str | None, attributes: str | None,
               slice_by: tuple[str, ...], item_col: str, cluster_col: str, weight_col: str,
               missing_weight: float | None, db: str | None, memory_limit: str | None,
               threads: int | None, top: int, out: str | None, out_format: str,
               fmt: str, engine_name: str = "duckdb", dsn: str | None = None) -> None:
    """Impact metrics: how Exp differs from Base (ABCDE §4), overall, per cluster, per
    slice."""
    from abcde.impact import impact

    if top < 0:
        raise click.BadParameter("must be >= 0", param_hint="--top")
    engine = None
    if engine_name != "duckdb":
        from abcde.engines import connect

        if db or memory_limit or threads:
            raise click.UsageError("--db, --memory-limit and --threads are DuckDB options; "
                                   f"with --engine {engine_name} name tables of its catalog "
                                   "directly")
        if engine_name == "postgres":
            engine = connect("postgres", dsn=dsn)
        elif dsn:
            raise click.UsageError("--dsn is for --engine postgres")
        else:
            engine = connect("spark")
    try:
        result = impact(base, exp, weights, attributes=attributes, slice_by=list(slice_by),
                        item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
                        missing_weight=missing_weight, top=top, out=out,
                        out_format=out_format, db=db, memory_limit=memory_limit,
                        threads=threads, engine=engine)
    finally:
        if engine is not None:
            engine.close()
    doc = result.to_dict()
    click.echo(to_json(doc) if fmt == "json" else impact_text(doc))


if __name__ == "__main__":
    # `python -m abcde.cli`: run the importable module instead of this copy, whose
    # imports below would re-import abcde.cli and meet a half-built command module
    import abcde.__main__  # noqa: F401  (runs the CLI and exits)

# Commands of the other concerns register themselves below, one import each.
from abcde.cli_evaluate import register_evaluate  # noqa: E402, I001
register_evaluate(main)
from abcde.cli_sampling import explore_cmd, sample_items_cmd, sample_pairs_cmd  # noqa: E402, I001
main.add_command(sample_items_cmd)
main.add_command(explore_cmd)
main.add_command(sample_pairs_cmd)

from abcde.cli_sql import register_sql  # noqa: E402, I001
register_sql(main)
from abcde.cli_quality import estimate_cmd  # noqa: E402, I001
main.add_command(estimate_cmd)
from abcde.cli_quality import simulate_cmd  # noqa: E402, I001
main.add_command(simulate_cmd)
