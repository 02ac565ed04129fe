"""`abcde estimate` and `abcde simulate`: quality metrics from judged pairs (ABCDE §5,
App. B; Jaccard decomposition §4.3–8; docs/method.md §8)."""

from __future__ import annotations

import click

from abcde.cli._common import clustering_inputs, handle_errors, input_options
from abcde.text import to_json


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
              help="kirchner: the paper's Case I SE (ABCDE §5.8); pair_clustered adds "
              "the variance of which pairs got a verdict. Identical when every pair is "
              "judged; with unknowns Case I under-covers.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@handle_errors
def estimate_cmd(sample_dir: str, judgements: str | None, truth: str | None, item_col: str,
                 cluster_col: str, confidence: float, se_method: str, fmt: str) -> None:
    """Is the Experiment better? ΔPrecision, Good/Bad rates, distances and indexes with
    standard errors and confidence intervals from a judged pair sample."""
    from abcde.quality.estimate import estimate
    from abcde.quality.wording import render_table

    if (judgements is None) == (truth is None):
        raise click.UsageError("give exactly one of --judgements and --truth")
    if not 0 < confidence < 1:
        raise click.BadParameter("must be in (0, 1)", param_hint="--confidence")
    doc = estimate(sample_dir, judgements=judgements, truth=truth, item_col=item_col,
                   cluster_col=cluster_col, confidence=confidence, se_method=se_method)
    click.echo(to_json(doc) if fmt == "json" else render_table(doc))


@click.command("simulate")
@clustering_inputs
@click.option("--truth", required=True, help="Ground-truth clustering that plays the judge.")
@input_options
@click.option("--population", type=click.Choice(["abcde", "jaccard"]), default="jaccard",
              show_default=True)
@click.option("--budgets", default="100,300,1000,3000", show_default=True,
              help="Comma-separated budgets (unique judgeable pairs).")
@click.option("--replications", type=int, default=20, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--unknown-share", type=float, default=0.0, show_default=True,
              help="Share of pairs the judges are expected to answer 'unknown'.")
@click.option("--strata-allocation", default=None,
              help="Simulate stratified samples: proportional, equal or a fraction.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@handle_errors
def simulate_cmd(base: str, exp: str, truth: str, weights: str | None, item_col: str,
                 cluster_col: str, weight_col: str, missing_weight: float | None,
                 db: str | None, memory_limit: str | None, threads: int | None,
                 population: str, budgets: str, replications: int, seed: int,
                 unknown_share: float, strata_allocation: str | None, fmt: str) -> None:
    """Size the judgement budget: the expected 95% interval half-width of every quality
    metric per budget, from simulated rounds judged by --truth."""
    from abcde.quality.simulation import render_table, simulate

    try:
        sizes = [int(b) for b in budgets.split(",") if b.strip()]
    except ValueError:
        raise click.BadParameter("comma-separated integers", param_hint="--budgets") from None
    if replications < 1:
        raise click.BadParameter("must be >= 1", param_hint="--replications")
    doc = simulate(base, exp, weights, truth=truth, population=population, budgets=sizes,
                   replications=replications, seed=seed, unknown_share=unknown_share,
                   stratify=strata_allocation, item_col=item_col, cluster_col=cluster_col,
                   weight_col=weight_col, missing_weight=missing_weight, db=db,
                   memory_limit=memory_limit, threads=threads)
    click.echo(to_json(doc) if fmt == "json" else render_table(doc))


COMMANDS = (estimate_cmd, simulate_cmd,)
