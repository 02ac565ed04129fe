"""`abcde evaluate` (actual runs against a ground truth) and `abcde uir` (UIR of systems
scored per test case): options, the library call, printing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from abcde.cli._common import Checked, column_options, emit, engine_options, format_option
from abcde.evaluation import DEFAULT_REL_TOL, REL_TOL, TOL
from abcde.params import TOP
from abcde.text import to_json

if TYPE_CHECKING:
    from abcde.engines.config import EngineConfig
    from abcde.inputs.spec import Columns


def _split_actual(spec: str) -> tuple[str | None, str]:
    """'name=path' -> (name, path) unless the whole string is an existing path."""
    if "=" in spec and not Path(spec).exists():
        name, path = spec.split("=", 1)
        if name.strip() and path.strip():
            return name.strip(), path.strip()
    return None, spec


@click.command("evaluate")
@click.option("--truth", required=True, help="Ground truth clustering (CSV/Parquet file or "
              "--db table with item and cluster ids), usually small.")
@click.option("--actual", "actual", required=True, multiple=True,
              help="An actual clustering to evaluate; repeat for several runs. "
                   "NAME=PATH names the run (default: the file name).")
@click.option("--truth-sample", default=None, metavar="size|uniform|COLUMN",
              help="The truth is a sample of complete true clusters of the runs' "
                   "population, drawn with probability proportional to size, uniformly, "
                   "or with the inclusion probabilities in COLUMN of the truth: estimate "
                   "the population's pointwise metrics with 95% intervals. Default: the "
                   "truth labels a closed set, metrics on the items both hold.")
@column_options
@click.option("--attributes", default=None, help="Table of item attributes for slices.")
@click.option("--slice-by", multiple=True, help="Attribute column(s) to slice by: "
              "'a,b' slices by the pair; repeat the option for separate slicings.")
@click.option("--uir-cases", default="truth_cluster", show_default=True,
              help="UIR test cases: truth_cluster, slice:<column> or none.")
@click.option("--uir-metrics", default="precision,recall", show_default=True,
              help="Per-case metrics UIR combines (comma-separated): precision, recall, "
                   "f1, f1_of_overall, accuracy, jaccard_index.")
@click.option("--uir-rel-tol", type=Checked(REL_TOL, click.FLOAT), default=DEFAULT_REL_TOL,
              show_default=True, help="Per-case scores equal to this relative precision "
              "tie in UIR (absorbs float noise of summed scores; 0 compares exactly).")
@click.option("--top", type=Checked(TOP), default=10, show_default=True,
              help="How many worst truth/actual clusters and Yandex themes to list, and "
                   "slice rows to print.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for every cluster, slice and Yandex theme of each run.")
@click.option("--out-format", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True)
@format_option
@click.option("--workspace", default=None, help="Keep the cell tables of each run here and "
              "reuse them while the inputs are unchanged: a DuckDB file, a PostgreSQL "
              "schema or a Spark database.")
@engine_options
def evaluate_cmd(truth: str, actual: tuple[str, ...], truth_sample: str | None,
                 weights: str | None,
                 attributes: str | None, slice_by: tuple[str, ...], uir_cases: str,
                 uir_metrics: str, uir_rel_tol: float, columns: Columns,
                 missing_weight: float | None, top: int, out: str | None, out_format: str,
                 fmt: str, engine: EngineConfig, workspace: str | None = None) -> None:
    """Evaluate actual clusterings against a ground truth (pointwise metrics, classic
    metrics, Yandex ECC/BCubed) and compare the runs (deltas, UIR)."""
    from abcde.evaluation.run import UirOptions, evaluate
    from abcde.evaluation.text import evaluate_text

    pairs = [_split_actual(a) for a in actual]
    result = evaluate(truth, [p for _, p in pairs], weights, names=[n for n, _ in pairs],
                      uir=UirOptions(uir_cases, uir_metrics, rel_tol=uir_rel_tol),
                      truth_sample=truth_sample, top=top,
                      out=out, out_format=out_format, attributes=attributes,
                      slice_by=list(slice_by), item_col=columns.item,
                      cluster_col=columns.cluster, weight_col=columns.weight,
                      missing_weight=missing_weight, engine=engine, workspace=workspace)
    doc = result.to_dict()
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    emit(doc, fmt, lambda d: evaluate_text(d, top), "evaluate")


@click.command("uir")
@click.argument("scores", type=click.Path(dir_okay=False))
@click.option("--metrics", default="precision,recall", show_default=True,
              help="Metrics combined (comma-separated); every system needs each of them "
                   "on every case. Higher must be better. Rows of other metrics are "
                   "ignored. With two metrics, F_alpha is swept over them (alpha weighs "
                   "precision, or else the first one).")
@click.option("--rel-tol", type=Checked(REL_TOL, click.FLOAT), default=DEFAULT_REL_TOL,
              show_default=True, help="Scores equal to this relative precision count as "
              "tied (absorbs float noise in computed scores; 0 compares exactly).")
@click.option("--tol", type=Checked(TOL, click.FLOAT), default=0.0, show_default=True,
              help="Scores within this absolute difference also count as tied.")
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
def uir_cmd(scores: str, metrics: str, rel_tol: float, tol: float, fmt_: str) -> None:
    """Unanimous Improvement Ratio between systems scored per test case (Amigó et al.
    2011). SCORES: CSV or JSONL in long format with columns system, case, metric, value."""
    from abcde.evaluation.compare import uir_report
    from abcde.evaluation.text import uir_text

    doc = uir_report(scores, [m.strip() for m in metrics.split(",") if m.strip()], tol,
                     rel_tol=rel_tol)
    click.echo(to_json(doc) if fmt_ == "json" else uir_text(doc))


COMMANDS = (evaluate_cmd, uir_cmd,)
