"""`abcde report`: one offline HTML file of plots (docs/method.md §13)."""

from __future__ import annotations

from pathlib import Path

import click

from abcde.cli._common import ExistingPath

#: a document option takes a directory too, so that abcde's message (read_doc) says
#: which file to give instead of click's bare "is a directory"
_DOC = click.Path()


@click.command("report")
@click.option("--impact", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde impact --format json`.")
@click.option("--sample", type=ExistingPath(file_okay=False), default=None, metavar="DIR",
              help="A judged pair sample (its verdicts.jsonl, or --judgements / --truth), "
              "estimated as `abcde estimate DIR` does.")
@click.option("--judgements", type=ExistingPath(dir_okay=False), default=None,
              help="Verdicts for --sample (as `abcde estimate --judgements`).")
@click.option("--truth", type=ExistingPath(dir_okay=False), default=None,
              help="Judge --sample by a ground-truth clustering (as `abcde estimate "
              "--truth`).")
@click.option("--estimate", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde estimate --format json` (instead of --sample).")
@click.option("--evaluate", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde evaluate --format json`.")
@click.option("--simulate", type=_DOC, default=None, metavar="FILE",
              help="JSON of `abcde simulate --format json`.")
@click.option("--title", default="abcde report", show_default=True)
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The HTML file "
              "to write (replaced whole: written beside it, then renamed); '-' prints the "
              "page on stdout.")
def report_cmd(out: str, **given: str | None) -> None:
    """One self-contained HTML file of plots from any of an impact run, a judged sample,
    an evaluation and a simulation; it loads nothing from the network."""
    from abcde.outputs import input_files, output_files
    from abcde.report.build import report_html
    from abcde.sample_files.layout import SAMPLE_FILES

    if out == "-":  # the shell's name for stdout, not a file named "-"
        click.echo(report_html(**given), nl=False)  # type: ignore[arg-type]
        return
    # the target is checked before the work, and the page renamed over it only when
    # whole; it must not be one of the files read (a sample's draws, manifest, log)
    sample = given["sample"]
    kept = [Path(sample) / name for name in SAMPLE_FILES] if sample is not None else []
    read = input_files(*(v for k, v in given.items() if k not in ("sample", "title")), *kept)
    with output_files(out, what="the HTML report", inputs=read) as (tmp,):
        html = report_html(**given)  # type: ignore[arg-type]
        tmp.write_text(html, encoding="utf-8")
    click.echo(f"report -> {out} ({len(html.encode()) / 1e6:.1f} MB)")


COMMANDS = (report_cmd,)
