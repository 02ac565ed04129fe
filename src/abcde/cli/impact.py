"""`abcde impact`: how Exp differs from Base (ABCDE §4)."""

from __future__ import annotations

import click

from abcde.cli._common import (
    clustering_inputs,
    command_engine,
    engine_options,
    handle_errors,
    input_options,
)
from abcde.text import to_json


@click.command("impact")
@clustering_inputs
@input_options
@click.option("--attributes", default=None, help="Table of item attributes for slices.")
@click.option("--slice-by", multiple=True, help="Attribute column(s) to slice by: "
              "'a,b' slices by the pair; repeat the option for separate slicings.")
@click.option("--top", type=click.IntRange(0, 10**9), default=10, show_default=True,
              help="How many most affected clusters to list.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for every Base/Exp cluster and slice (files).")
@click.option("--out-format", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]),
              default="table", show_default=True, help="What to print on stdout (html: "
              "the page of `abcde report`; needs abcde[report]).")
@engine_options
@handle_errors
def impact_cmd(base: str, exp: str, weights: str | None, attributes: str | None,
               slice_by: tuple[str, ...], item_col: str, cluster_col: str, weight_col: str,
               missing_weight: float | None, db: str | None, memory_limit: str | None,
               threads: int | None, top: int, out: str | None, out_format: str,
               fmt: str, engine_name: str | None = None, dsn: str | None = None,
               spark_remote: str | None = None, spark_master: str | None = None,
               spark_conf: tuple[str, ...] = (), workspace: str | None = None) -> None:
    """Impact metrics: how Exp differs from Base (ABCDE §4), overall, per cluster, per
    slice."""
    from abcde.errors import InputError
    from abcde.impact.run import impact

    if out == "-":  # stdout elsewhere in abcde (report --out -); a directory here
        raise InputError("--out - would make a directory named '-': impact --out names a "
                         "directory for the clusters and slices as tables",
                         hint="To print the JSON document on stdout, use --format json "
                              "(and no --out); for a directory named '-', --out ./-.")
    if fmt == "html":  # before any work: --out is never written by a run that fails
        from abcde.report.figures import require_plotly

        require_plotly()
    with command_engine(engine_name, dsn, spark_remote, spark_master, spark_conf, db,
                        memory_limit, threads) as engine:
        result = impact(base, exp, weights, attributes=attributes, slice_by=list(slice_by),
                        item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
                        missing_weight=missing_weight, top=top, out=out,
                        out_format=out_format, db=db, memory_limit=memory_limit,
                        threads=threads, engine=engine, workspace=workspace)
    doc = result.to_dict()
    from abcde.impact.text import impact_text

    if fmt == "html":
        from abcde.report.build import report_html

        click.echo(report_html(impact=doc))
        return
    click.echo(to_json(doc) if fmt == "json" else impact_text(doc))


COMMANDS = (impact_cmd,)
