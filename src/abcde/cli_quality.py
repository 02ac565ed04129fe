"""`abcde estimate` and `abcde simulate`: quality metrics from judged pairs (ABCDE §5,
App. B; Jaccard decomposition §4.3–8; SPEC §8)."""

from __future__ import annotations

import click

from abcde.cli import handle_errors
from abcde.report import to_json


@click.command("estimate")
@click.argument("sample_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--judgements", type=click.Path(exists=True, dir_okay=False), default=None,
              help="CSV/JSONL of verdicts keyed by pair_id or item_1,item_2 (the "
              "questions file with its verdict column filled).")
@click.option("--truth", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Judge by a ground-truth clustering (CSV/Parquet): same cluster ⇒ "
              "equivalent, an item missing from it ⇒ unknown.")
@click.option("--item-col", default="item_id", show_default=True,
              help="Item id column of --truth.")
@click.option("--cluster-col", default="cluster_id", show_default=True,
              help="Cluster id column of --truth.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--se-method", type=click.Choice(["pair_clustered", "kirchner"]),
              default="pair_clustered", show_default=True,
              help="kirchner: the paper's Case I SE (under-covers with unknowns).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@handle_errors
def estimate_cmd(sample_dir: str, judgements: str | None, truth: str | None, item_col: str,
                 cluster_col: str, confidence: float, se_method: str, fmt: str) -> None:
    """Is the Experiment better? ΔPrecision, Good/Bad rates, distances and indexes with
    standard errors and confidence intervals from a judged pair sample."""
    from abcde.quality import estimate, render_table

    if (judgements is None) == (truth is None):
        raise click.UsageError("give exactly one of --judgements and --truth")
    if not 0 < confidence < 1:
        raise click.BadParameter("must be in (0, 1)", param_hint="--confidence")
    doc = estimate(sample_dir, judgements=judgements, truth=truth, item_col=item_col,
                   cluster_col=cluster_col, confidence=confidence, se_method=se_method)
    click.echo(to_json(doc) if fmt == "json" else render_table(doc))
