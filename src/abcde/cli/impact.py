"""`abcde impact`: how Exp differs from Base (ABCDE §4)."""

from __future__ import annotations

import click

from abcde.cli._common import clustering_inputs, handle_errors, input_options
from abcde.text import to_json


@click.command("impact")
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
@click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]),
              default="table", show_default=True, help="What to print on stdout (html: "
              "the page of `abcde report`; needs abcde[report]).")
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
    from abcde.impact.run import impact

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
    from abcde.impact.text import impact_text

    if fmt == "html":
        from abcde.report.build import report_html

        click.echo(report_html(impact=doc))
        return
    click.echo(to_json(doc) if fmt == "json" else impact_text(doc))


COMMANDS = (impact_cmd,)
