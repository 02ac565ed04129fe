"""`abcde report`: one offline HTML file of plots (docs/method.md §13)."""

from __future__ import annotations

from pathlib import Path

import click

from abcde.cli._common import ExistingPath

_FILE = click.Path(dir_okay=False)
#: A document option takes a directory too, so that abcde's own message (read_doc) says
#: which file to give instead of click's bare "is a directory".
_DOC = click.Path()


@click.command("report")
@click.option("--impact", "impact", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde impact --format json`.")
@click.option("--sample", "sample", type=ExistingPath(file_okay=False),
              default=None, metavar="DIR", help="A judged pair sample (its verdicts.jsonl, "
              "or --judgements / --truth), estimated as `abcde estimate DIR` does.")
@click.option("--judgements", type=ExistingPath(dir_okay=False), default=None,
              help="Verdicts for --sample (as `abcde estimate --judgements`).")
@click.option("--truth", type=ExistingPath(dir_okay=False), default=None,
              help="Judge --sample by a ground-truth clustering (as `abcde estimate "
              "--truth`).")
@click.option("--estimate", "estimate", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde estimate --format json` (instead of --sample).")
@click.option("--evaluate", "evaluate", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde evaluate --format json`.")
@click.option("--simulate", "simulate", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde simulate --format json`.")
@click.option("--title", default="abcde report", show_default=True)
@click.option("--out", required=True, type=_FILE, help="The HTML file to write (replaced "
              "whole: written beside it, then renamed); '-' prints the page on stdout.")
def report_cmd(impact: str | None, sample: str | None, judgements: str | None,
               truth: str | None, estimate: str | None, evaluate: str | None,
               simulate: str | None, title: str, out: str) -> None:
    """One self-contained HTML file of plots from any of an impact run, a judged sample,
    an evaluation and a simulation; it loads nothing from the network."""
    from abcde.outputs import input_files, output_files
    from abcde.report.build import report_html

    if out == "-":  # the shell's name for stdout, not a file named "-"
        click.echo(report_html(impact=impact, sample=sample, judgements=judgements,
                               truth=truth, estimate=estimate, evaluate=evaluate,
                               simulate=simulate, title=title), nl=False)
        return
    # The target is checked before the work; the page is renamed over it only when whole.
    from abcde.sample_files.layout import SAMPLE_FILES

    # the files it reads, and those of the sample directory (its draws, manifest, log)
    kept = [Path(sample) / name for name in SAMPLE_FILES] if sample is not None else []
    read = input_files(impact, judgements, truth, estimate, evaluate, simulate, *kept)
    with output_files(out, what="the HTML report", inputs=read) as (tmp,):
        html = report_html(impact=impact, sample=sample, judgements=judgements,
                           truth=truth, estimate=estimate, evaluate=evaluate,
                           simulate=simulate, title=title)
        tmp.write_text(html, encoding="utf-8")
    click.echo(f"report -> {out} ({len(html.encode()) / 1e6:.1f} MB)")


COMMANDS = (report_cmd,)
