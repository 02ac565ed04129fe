"""`abcde sql impact` and `abcde dbt`: the impact pipeline as standalone SQL for a
warehouse (abcde.warehouse.scripts, abcde.warehouse.dbt)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from abcde.cli._common import handle_errors
from abcde.errors import InputError
from abcde.inputs.spec import Columns, parse_slicings
from abcde.outputs import output_files
from abcde.sql.dialects import DIALECTS, get_dialect
from abcde.warehouse.scripts import ID_KINDS, ScriptSpec


def script_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Tables, column names, id types and output names of a standalone script."""
    options = [
        click.option("--dialect", type=click.Choice(DIALECTS), required=True,
                     help="SQL dialect of the warehouse."),
        click.option("--base", required=True, help="Baseline clustering table, e.g. "
                     "proj.ds.base (item and cluster ids)."),
        click.option("--exp", required=True, help="Experiment clustering table."),
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


def make_spec(dialect: str, base: str, exp: str, weights: str | None,
              missing_weight: float | None, attributes: str | None,
              slice_by: tuple[str, ...], item_col: str, cluster_col: str, weight_col: str,
              item_type: str, cluster_type: str, prefix: str, schema: str | None,
              ) -> ScriptSpec:
    return ScriptSpec(base=base, exp=exp, weights=weights, attributes=attributes,
                      slicings=tuple(tuple(s) for s in parse_slicings(list(slice_by))),
                      columns=Columns(item_col, cluster_col, weight_col),
                      missing_weight=missing_weight, item_type=item_type,
                      cluster_type=cluster_type, prefix=prefix, schema=schema)


def command_line() -> str:
    """The command being run, as typed options (from click's parse, not sys.argv: options
    of the group, such as -v, are not the command's)."""
    ctx = click.get_current_context()
    words = ["abcde", *ctx.command_path.split()[1:]]
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name)  # type: ignore[arg-type]
        if source is not click.core.ParameterSource.COMMANDLINE:
            continue
        value = ctx.params[param.name]  # type: ignore[index]
        for v in (value if isinstance(value, tuple) else (value,)):
            words += [param.opts[0], str(v)]
    return " ".join(shlex.quote(w) for w in words)


@click.group("sql")
def sql_group() -> None:
    """Standalone SQL scripts for a warehouse (BigQuery, Snowflake, Spark, PostgreSQL,
    DuckDB) that compute what abcde computes, inside it."""


@sql_group.command("impact")
@script_options
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for impact.sql (default: print the script).")
@handle_errors
def sql_impact(out: str | None, **options: Any) -> None:
    """The impact metrics (ABCDE §4) as one SQL script, runnable as is."""
    from abcde.warehouse.scripts import impact_script

    target = get_dialect(options["dialect"])
    if target.tables_need_schema and not options["schema"]:
        raise click.UsageError(f"{target.title} tables live in a dataset: give --schema "
                               "PROJECT.DATASET for the tables the SQL creates")
    spec = make_spec(**options)
    if out is None:
        click.echo(impact_script(spec, options["dialect"], command=command_line()), nl=False)
        return
    path = Path(out) / "impact.sql"
    if Path(out).exists() and not Path(out).is_dir():
        raise InputError(f"--out {out} exists and is not a directory",
                         hint="--out names the directory of impact.sql (created if missing).")
    # the temporary file is made first (an unwritable --out is refused before the work);
    # impact.sql is replaced only by a complete script
    with output_files(path, what="the directory of impact.sql") as (tmp,):
        tmp.write_text(impact_script(spec, options["dialect"], command=command_line()))
    click.echo(f"wrote {path}")


@click.command("dbt")
@script_options
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Directory of the dbt project. A project abcde wrote there before is "
                   "replaced whole (its files are listed in .abcde-dbt.json); other files "
                   "are kept.")
@click.option("--overwrite", is_flag=True, help="Write into an existing directory abcde did "
              "not write (its dbt_project.yml, models/ and macros/ are replaced).")
@handle_errors
def dbt_cmd(out: str, overwrite: bool = False, **options: Any) -> None:
    """The impact metrics as a dbt project: one model per pipeline step, ref() between
    them, source() for the inputs, schema.yml with docs and tests. Add a profile named
    'abcde' (or edit dbt_project.yml), then `dbt build`. The models are built where the
    profile says (its database and schema), as dbt does."""
    from abcde.warehouse.dbt import dbt_project

    if options["schema"]:
        raise click.UsageError("dbt builds models in the schema of your profile "
                               "(target.schema): drop --schema, and set the schema in "
                               "profiles.yml, or +schema in dbt_project.yml")
    spec = make_spec(**options)
    files = dbt_project(spec, options["dialect"], Path(out), overwrite=overwrite)
    click.echo(f"wrote {len(files)} files to {out}")


COMMANDS = (sql_group, dbt_cmd)
