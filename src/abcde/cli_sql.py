"""`abcde sql impact` and `abcde dbt`: the impact pipeline as standalone SQL for a
warehouse (abcde.scripts, abcde.dbt)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from abcde.cli import handle_errors
from abcde.dialects import DIALECTS
from abcde.impact import parse_slicings
from abcde.inputs import Columns
from abcde.scripts import ID_KINDS, ScriptSpec


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
                     "(e.g. proj.dataset on BigQuery; required there)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def make_spec(dialect: str, base: str, exp: str, weights: str | None,
              missing_weight: float | None, attributes: str | None,
              slice_by: tuple[str, ...], item_col: str, cluster_col: str, weight_col: str,
              item_type: str, cluster_type: str, prefix: str, schema: str | None,
              ) -> ScriptSpec:
    if dialect == "bigquery" and not schema:
        raise click.UsageError("BigQuery tables live in a dataset: give --schema "
                               "PROJECT.DATASET for the tables the SQL creates")
    return ScriptSpec(base, exp, weights, attributes, parse_slicings(list(slice_by)),
                      Columns(item_col, cluster_col, weight_col), item_type, cluster_type,
                      missing_weight, prefix, schema)


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
    from abcde.scripts import impact_script

    spec = make_spec(**options)
    command = "abcde sql impact " + " ".join(shlex.quote(a) for a in sys.argv[3:])
    text = impact_script(spec, options["dialect"], command=command)
    if out is None:
        click.echo(text, nl=False)
        return
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    (path / "impact.sql").write_text(text)
    click.echo(f"wrote {path / 'impact.sql'}")


@click.command("dbt")
@script_options
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Directory of the dbt project.")
@handle_errors
def dbt_cmd(out: str, **options: Any) -> None:
    """The impact metrics as a dbt project: one model per pipeline step, ref() between
    them, source() for the inputs, schema.yml with docs and tests. Add a profile named
    'abcde' (or edit dbt_project.yml), then `dbt build`."""
    from abcde.dbt import dbt_project

    spec = make_spec(**options)
    files = dbt_project(spec, options["dialect"], Path(out))
    click.echo(f"wrote {len(files)} files to {out}")


def register_sql(main: click.Group) -> None:
    main.add_command(sql_group)
    main.add_command(dbt_cmd)
