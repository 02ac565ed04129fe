"""`abcde impact`: how Exp differs from Base (ABCDE §4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from abcde.cli._common import Checked, comparison_options
from abcde.params import TOP
from abcde.text import to_json

if TYPE_CHECKING:
    from abcde.comparison import Comparison


@click.command("impact")
@comparison_options(attributes="Table of item attributes for slices.",
                    slices="Attribute column(s) to slice by: 'a,b' slices by the pair; "
                    "repeat the option for separate slicings.")
@click.option("--top", type=Checked(TOP), default=10, show_default=True,
              help="How many most affected clusters to list.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for every Base/Exp cluster and slice (files).")
@click.option("--out-format", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]),
              default="table", show_default=True, help="What to print on stdout (html: "
              "the page of `abcde report`; needs abcde[report]).")
def impact_cmd(comparison: Comparison, top: int, out: str | None, out_format: str,
               fmt: str) -> None:
    """Impact metrics: how Exp differs from Base (ABCDE §4), overall, per cluster, per
    slice."""
    from abcde.errors import InputError
    from abcde.impact.text import impact_text

    if out == "-":  # stdout elsewhere in abcde (report --out -); a directory here
        raise InputError("--out - would make a directory named '-': impact --out names a "
                         "directory for the clusters and slices as tables", option="out",
                         hint="To print the JSON document on stdout, use --format json "
                              "(and no --out); for a directory named '-', --out ./-.")
    if fmt == "html":  # before any work: --out is never written by a run that fails
        from abcde.report.figures import require_plotly

        require_plotly()
    doc = comparison.impact(top=top, out=out, out_format=out_format).to_dict()
    if fmt == "html":
        from abcde.report.build import report_html

        click.echo(report_html(impact=doc))
        return
    click.echo(to_json(doc) if fmt == "json" else impact_text(doc))


COMMANDS = (impact_cmd,)
