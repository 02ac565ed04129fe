"""`abcde sql impact` and `abcde dbt`: the impact pipeline as standalone SQL for a
warehouse (abcde.warehouse.scripts, abcde.warehouse.dbt)."""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from abcde.cli._common import Checked
from abcde.errors import InputError
from abcde.inputs.spec import Columns, parse_slicings
from abcde.outputs import output_files
from abcde.params import COUNT, SEED
from abcde.sql.dialects import DIALECTS, get_dialect
from abcde.warehouse.scripts import ID_KINDS, ScriptSpec, refuse

DIALECT = click.option("--dialect", type=click.Choice(DIALECTS), required=True,
                       help="SQL dialect of the warehouse.")


def table_options(fn: Callable[..., Any], clusterings: Sequence[Any] = (),
                  dialect: Any = DIALECT) -> Callable[..., Any]:
    """The dialect, weights, attributes, column names, id types and output names of a
    standalone script; `clusterings`: the options naming the clusterings, after the
    dialect."""
    options = [
        dialect,
        *clusterings,
        click.option("--weights", default=None, help="Item weights table (default: every "
                     "item weighs 1)."),
        click.option("--missing-weight", type=float, default=None,
                     help="Weight of items the weights table lacks (default: flagged as "
                          "invalid input)."),
        click.option("--attributes", default=None, help="Item attributes table, for slices."),
        click.option("--slice-by", multiple=True, help="Attribute column(s) to slice by: "
                     "'a,b' slices by the pair; repeat for separate slicings."),
        click.option("--item-col", default="item_id", show_default=True),
        click.option("--cluster-col", default="cluster_id", show_default=True),
        click.option("--weight-col", default="weight", show_default=True),
        click.option("--item-type", type=click.Choice(ID_KINDS), default="string",
                     show_default=True, help="Type the item ids are compared as (ids are "
                     "CAST to it in every input)."),
        click.option("--cluster-type", type=click.Choice(ID_KINDS), default="string",
                     show_default=True, help="Type the cluster ids are read as."),
        click.option("--prefix", default="abcde_", show_default=True,
                     help="Prefix of every table the SQL creates."),
        click.option("--schema", default=None, help="Schema/dataset of the created tables "
                     "(e.g. proj.dataset on BigQuery; required there). Not for dbt, which "
                     "takes it from the profile."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def script_options(fn: Callable[..., Any], dialect: Any = DIALECT) -> Callable[..., Any]:
    """The two clusterings and `table_options`."""
    return table_options(fn, [
        click.option("--base", required=True, help="Baseline clustering table, e.g. "
                     "proj.ds.base (item and cluster ids)."),
        click.option("--exp", required=True, help="Experiment clustering table.")], dialect)


DBT_DIALECTS = click.option(
    "--dialect", "dialect", type=click.Choice(DIALECTS), multiple=True,
    help="Adapter(s) the package is written for; repeat (default: all five). Where the "
         "SQL differs, a macro dispatched on the adapter holds each version.")


def reuse_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--reuse-cells", is_flag=True,
        help="Read the cell tables an earlier script of the round made under the same "
             "--prefix/--schema (with the same inputs and options) instead of joining the "
             "inputs again; its validation row refuses cells of other inputs. The tables "
             "(<prefix>cell_rows, validation, cells, cell_metrics, cells_key) must exist: "
             "run `abcde sql impact` with the same --prefix/--schema and input options "
             "first, else the script stops at its first statement, naming the tables "
             "missing (on Spark: the warehouse's error that <prefix>cells_key does not "
             "exist).")(fn)


def make_spec(dialect: str, base: str, exp: str, slice_by: tuple[str, ...], item_col: str,
              cluster_col: str, weight_col: str, for_dbt: bool = False,
              roles: tuple[str, str] = ("base", "exp"), **options: Any) -> ScriptSpec:
    """The ScriptSpec of the table options; a table named like a file here is refused."""
    if get_dialect(dialect).tables_need_schema and not options["schema"] and not for_dbt:
        raise click.UsageError(f"{get_dialect(dialect).title} tables live in a dataset: give "
                               "--schema PROJECT.DATASET for the tables the SQL creates")
    refuse_files([(f"--{roles[0]}", base), (f"--{roles[1]}", exp),
                  ("--weights", options["weights"]), ("--attributes", options["attributes"])])
    return ScriptSpec(base=base, exp=exp, slicings=tuple(map(tuple, parse_slicings(slice_by))),
                      columns=Columns(item_col, cluster_col, weight_col), roles=roles,
                      **options)


def refuse_files(names: Sequence[tuple[str, str | None]]) -> None:
    """A table name that is a file here (`--base base.csv`) is refused: the SQL would read
    the table `csv` of the schema `base`, which a file user never means."""
    refuse((f"{option} {name} is a file, but the SQL reads tables of the warehouse (this "
            f"would be the table {name!r})", "Load the file into a table and give the "
            "table's name, or run abcde on the files themselves (abcde impact, sample-items, "
            "sample-pairs, evaluate: DuckDB reads CSV and Parquet).")
           for option, name in names if name and Path(name).is_file())


def parse_runs(actual: Sequence[str]) -> list[tuple[str | None, str]]:
    """--actual NAME=TABLE or TABLE -> (name or None, table)."""
    runs = [(None, a) if "=" not in a else tuple(a.split("=", 1)) for a in actual]
    refuse((f"--actual {a!r} names no table", "Give TABLE or NAME=TABLE, e.g. --actual "
            "run_a=proj.ds.run_a.") for a, (_, table) in zip(actual, runs, strict=True)
           if not table.strip())
    return runs  # type: ignore[return-value]


def command_line() -> str:
    """The command being run, as typed options (from click's parse, not sys.argv: options
    of the group, such as -v, are not the command's)."""
    ctx = click.get_current_context()
    words = ["abcde", *ctx.command_path.split()[1:]]
    for param in ctx.command.params:
        if ctx.get_parameter_source(param.name) is not click.core.ParameterSource.COMMANDLINE:  # type: ignore[arg-type]
            continue
        value = ctx.params[param.name]  # type: ignore[index]
        if getattr(param, "is_flag", False):  # a flag is its name alone
            words += [param.opts[0]] if value else []
            continue
        for v in (value if isinstance(value, tuple) else (value,)):
            words += [param.opts[0], str(v)]
    return " ".join(shlex.quote(w) for w in words)


@click.group("sql")
def sql_group() -> None:
    """Standalone SQL scripts for a warehouse (BigQuery, Snowflake, Spark, PostgreSQL,
    DuckDB) that compute what abcde computes, inside it."""


def _emit(text: str, out: str | None, name: str, overwrite: bool = False) -> None:
    """Print the script, or write it to OUT/NAME atomically; an existing OUT/NAME (perhaps
    edited, or another round's) is replaced only with --overwrite."""
    if out is None:
        click.echo(text, nl=False)
        return
    path = Path(out) / name
    if path.is_file() and not overwrite:
        raise InputError(f"{path} already exists", hint="Choose another --out, or pass "
                         "--overwrite to replace it once the new script is complete.")
    with output_files(path, what=f"the directory of {name}") as (tmp,):
        tmp.write_text(text)
    click.echo(f"wrote {path}")


def out_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--out, and --overwrite to replace a script already there (`_emit`)."""
    fn = click.option("--overwrite", is_flag=True,
                      help="Replace the script if --out already holds it (refused "
                           "otherwise).")(fn)
    return click.option("--out", type=click.Path(file_okay=False), default=None,
                        help="Directory for the script (default: print it).")(fn)


@sql_group.command("impact")
@script_options
@reuse_option
@out_option
def sql_impact(out: str | None, overwrite: bool, **options: Any) -> None:
    """The impact metrics (ABCDE §4) as one SQL script, runnable as is."""
    from abcde.warehouse.scripts import impact_pipeline, script_text

    spec = make_spec(**options)
    pipeline, _, outputs = impact_pipeline(spec)
    _emit(script_text(spec, [(pipeline, outputs)], options["dialect"], command_line()), out,
          "impact.sql", overwrite)


@sql_group.command("sample-items")
@script_options
@reuse_option
@click.option("--size", type=Checked(COUNT), default=1_000_000, show_default=True,
              help="Unique affected items to sample.")
@click.option("--seed", type=Checked(SEED), default=0, show_default=True)
@out_option
def sql_sample_items(out: str | None, overwrite: bool, size: int, seed: int,
                     **options: Any) -> None:
    """The item sample of `abcde sample-items` (ABCDE §4.1.1, App. A) as one SQL script:
    the same items, draw counts and order for the same inputs and seed. Attribute
    columns: those of --slice-by."""
    from abcde.warehouse.sampling import sample_items_pipeline
    from abcde.warehouse.scripts import script_text

    spec = make_spec(**options)
    pipeline, _, outputs = sample_items_pipeline(spec, size, seed)
    _emit(script_text(spec, [(pipeline, outputs)], options["dialect"], command_line(),
                      "sample-items"), out, "sample_items.sql", overwrite)


@sql_group.command("sample-pairs")
@script_options
@reuse_option
@click.option("--population", type=click.Choice(["mixture", "abcde", "jaccard"]),
              default="mixture", show_default=True,
              help="The sampling design, as for `abcde sample-pairs`: the mixture of the "
              "abcde (u_ij) and jaccard (w_ij) pair populations, or one of them.")
@click.option("--alpha", type=float, default=None,
              help="The mixture's share of the abcde population, in (0, 1) [default: 0.5].")
@click.option("--budget", type=Checked(COUNT), required=True,
              help="Unique non-self pairs for the judges.")
@click.option("--seed", type=Checked(SEED), default=0, show_default=True)
@click.option("--stream-draws", type=Checked(COUNT), default=None,
              help="Draws of the materialised stream [default: 10·budget]; the manifest's "
              "budget_filled says whether it held the budget — if not, run again with more "
              "(the same seed extends the same sample).")
@click.option("--strata-allocation", default=None, help="Stratify split+merge vs stable "
              "pairs, as `abcde sample-pairs`: proportional, equal, or the fraction of the "
              "budget for split+merge, e.g. 0.8 (each stratum its own stream and check row).")
@out_option
def sql_sample_pairs(out: str | None, overwrite: bool, population: str,
                     alpha: float | None, budget: int, seed: int,
                     stream_draws: int | None, strata_allocation: str | None,
                     **options: Any) -> None:
    """The pair sample of `abcde sample-pairs` (ABCDE §5.7–5.8, App. A) as one SQL script:
    for the same inputs and seed the same pairs, draw counts and order. Tables: the
    sample, the questions, the one-row manifest (budget_filled), the per-slice totals of
    --slice-by, and the validation row. `abcde estimate` reads them exported or in place."""
    from abcde.warehouse.sampling import sample_pairs_pipeline
    from abcde.warehouse.scripts import script_text

    spec = make_spec(**options)
    pipeline, _, outputs = sample_pairs_pipeline(spec, population, budget, seed, alpha=alpha,
                                                 stream_draws=stream_draws,
                                                 strata_allocation=strata_allocation)
    _emit(script_text(spec, [(pipeline, outputs)], options["dialect"], command_line(),
                      "sample-pairs"), out, "sample_pairs.sql", overwrite)


def _evaluate_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    return table_options(fn, [
        click.option("--truth", required=True, help="Ground-truth clustering table."),
        click.option("--actual", "actual", multiple=True, required=True,
                     help="Actual clustering table, or NAME=TABLE; repeat for several runs. "
                     "Its tables are named <prefix><NAME>_<step> (NAME: the table's own "
                     "name by default).")])


@sql_group.command("evaluate")
@_evaluate_options
@out_option
def sql_evaluate(out: str | None, overwrite: bool, truth: str, actual: tuple[str, ...],
                 **options: Any) -> None:
    """The evaluation of `abcde evaluate` — pointwise, classic and Yandex metrics of each
    actual run against the truth (docs/method.md §4–5) — as one SQL script."""
    from abcde.warehouse.evaluation import evaluate_pipelines
    from abcde.warehouse.scripts import script_text

    runs = parse_runs(actual)
    refuse_files([("--actual", t) for _, t in runs])
    spec = make_spec(base=truth, exp=runs[0][1], **options, roles=("truth", "actual"))
    parts = evaluate_pipelines(spec, runs)
    text = script_text(spec, [(p, o) for _, p, o in parts], options["dialect"],
                       command_line(), "evaluate",
                       [(n, t) for (n, _, _), (_, t) in zip(parts, runs, strict=True)])
    _emit(text, out, "evaluate.sql", overwrite)


@click.command("dbt")
@functools.partial(script_options, dialect=DBT_DIALECTS)
@click.option("--size", type=Checked(COUNT), default=1_000_000, show_default=True,
              help="Default of var abcde_size: unique affected items of the item sample.")
@click.option("--seed", type=Checked(SEED), default=0, show_default=True,
              help="Default of var abcde_seed.")
@click.option("--population", type=click.Choice(["mixture", "abcde", "jaccard"]),
              default="mixture", show_default=True, help="Design of the pair sample models.")
@click.option("--alpha", type=float, default=None,
              help="The mixture's share of the abcde population, in (0, 1) [default: 0.5].")
@click.option("--budget", type=Checked(COUNT), default=1000, show_default=True,
              help="Unique judgeable pairs of the pair sample models.")
@click.option("--pair-seed", type=Checked(SEED), default=0,
              show_default=True, help="Default of var abcde_pair_seed.")
@click.option("--stream-draws", type=Checked(COUNT), default=None,
              help="Draws of the pair models' stream [default: 10·budget].")
@click.option("--truth", default=None, help="Ground-truth clustering table: adds the "
              "evaluation models of each --actual run.")
@click.option("--actual", multiple=True, help="Actual clustering table, or NAME=TABLE; "
              "repeat for several runs (with --truth).")
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Directory of the dbt package. A package abcde wrote there before is "
                   "replaced whole (its files are listed in .abcde-dbt.json); other files "
                   "are kept.")
@click.option("--overwrite", is_flag=True, help="Write into an existing directory abcde did "
              "not write (its dbt_project.yml, models/, macros/ and integration_tests/ are "
              "replaced; an integration_tests/profiles.yml is kept).")
def dbt_cmd(out: str, size: int, seed: int, population: str, alpha: float | None,
            budget: int, pair_seed: int, stream_draws: int | None, truth: str | None,
            actual: tuple[str, ...], dialect: tuple[str, ...], overwrite: bool = False,
            **options: Any) -> None:
    """Every pipeline as a dbt package `abcde`: impact, the item sample, the pair sample
    and (with --truth) the evaluation, one model per step, ref() between them, source()
    for the inputs, schema.yml with docs and tests; the SQL in macros dispatched on the
    adapter; input tables, seeds and size as vars. Beside it, integration_tests/ installs
    the package (`local: ../`) with an example profiles.yml. Models are built where the profile says
    (its database and schema), as dbt does."""
    from abcde.warehouse.dbt import DbtRound, dbt_project

    if options["schema"]:
        raise click.UsageError("dbt builds models in the schema of your profile "
                               "(target.schema): drop --schema, and set the schema in "
                               "profiles.yml, or +schema in dbt_project.yml")
    dialects = list(dialect) or list(DIALECTS)
    spec = make_spec(dialect=dialects[0], **options, for_dbt=True)
    runs = tuple(parse_runs(actual))
    refuse_files([("--truth", truth), *(("--actual", t) for _, t in runs)])
    files = dbt_project(spec, dialects, Path(out),
                        DbtRound(size=size, seed=seed, truth=truth, actual=runs,
                                 population=population, alpha=alpha, budget=budget,
                                 pair_seed=pair_seed, stream_draws=stream_draws),
                        overwrite=overwrite)
    click.echo(f"wrote {len(files)} files to {out}")


COMMANDS = (sql_group, dbt_cmd)
