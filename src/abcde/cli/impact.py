"""`abcde impact`: how Exp differs from Base (ABCDE §4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from abcde.cli._common import Checked, comparison_options, emit, format_option
from abcde.params import TOP

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
@format_option
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
    doc = comparison.impact(top=top, out=out, out_format=out_format).to_dict()
    emit(doc, fmt, impact_text, "impact")


COMMANDS = (impact_cmd,)
