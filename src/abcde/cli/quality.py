"""`abcde estimate` and `abcde simulate`: quality metrics from judged pairs (ABCDE §5,
App. B; Jaccard decomposition §4.3–8; docs/method.md §8)."""

from __future__ import annotations

import click

from abcde.cli._common import ExistingPath, clustering_inputs, handle_errors, input_options
from abcde.sampling import MAX_SEED
from abcde.text import to_json


@click.command("estimate")
@click.argument("sample_dir", required=False, type=ExistingPath(file_okay=False))
@click.option("--db", default=None, type=ExistingPath(dir_okay=False),
              help="Read the sample from tables of this DuckDB database (a warehouse "
              "script's <prefix>pair_* tables) instead of SAMPLE_DIR.")
@click.option("--sample-prefix", default=None, help="With --db or --engine: the --prefix "
              "the sample-pairs script was written with (e.g. abcde_).")
@click.option("--sample-schema", default=None, help="With --db or --engine: the schema of "
              "its tables.")
@click.option("--engine", "engine_name", type=click.Choice(["postgres", "spark"]),
              default=None, help="Read the sample's tables (--sample-prefix) from the "
              "PostgreSQL server of --dsn (abcde[postgres]) or the catalog of a local Spark "
              "session (abcde[spark]).")
@click.option("--dsn", default=None, help="PostgreSQL connection string for --engine "
              "postgres, e.g. postgresql://user@host:5432/db.")
@click.option("--judgements", type=ExistingPath(dir_okay=False), multiple=True,
              help="CSV/JSONL of verdicts keyed by pair_id or item_1,item_2 (the "
              "questions file with its verdict column filled), or a verdict log of `abcde "
              "judge`. Repeat for several files; the questions of an earlier sample of the "
              "same stream (same inputs, seed, population, another --budget) carry their "
              "verdicts over. Default: SAMPLE_DIR/verdicts.jsonl, the log of `abcde judge`.")
@click.option("--truth", type=ExistingPath(dir_okay=False), default=None,
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
@click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]),
              default="table", show_default=True, help="What to print on stdout (html: the "
              "page of `abcde report`; needs abcde[report]).")
@handle_errors
def estimate_cmd(sample_dir: str | None, db: str | None, sample_prefix: str | None,
                 sample_schema: str | None, engine_name: str | None, dsn: str | None,
                 judgements: tuple[str, ...], truth: str | None, item_col: str,
                 cluster_col: str, confidence: float, se_method: str, fmt: str) -> None:
    """Is the Experiment better? ΔPrecision, Good/Bad rates, distances and indexes with
    standard errors and confidence intervals from a judged pair sample. SAMPLE_DIR: the
    directory of `abcde sample-pairs --out`, or of a warehouse sample's exported tables
    (pair_manifest, pair_sample, ... as .parquet/.csv); or the tables themselves: --db
    (DuckDB) or --engine (PostgreSQL, Spark) with --sample-prefix. Without --judgements
    or --truth, the verdicts of `abcde judge` (SAMPLE_DIR/verdicts.jsonl)."""
    from abcde.quality.estimate import estimate, load_tables
    from abcde.quality.wording import render_table

    given = [w for w, v in (("SAMPLE_DIR", sample_dir), ("--db", db),
                            ("--engine", engine_name)) if v is not None]
    if len(given) != 1:
        raise click.UsageError("give one of SAMPLE_DIR, --db or --engine (with "
                               "--sample-prefix)" + (f"; got {' and '.join(given)}"
                                                     if given else ""))
    if sample_dir is None and sample_prefix is None:
        raise click.UsageError(f"{given[0]} needs --sample-prefix, the --prefix of the script")
    if sample_dir is not None and (sample_prefix is not None or sample_schema is not None):
        raise click.UsageError("--sample-prefix and --sample-schema go with --db or --engine")
    if dsn is not None and engine_name != "postgres":
        raise click.UsageError("--dsn is for --engine postgres")
    if judgements and truth is not None:
        raise click.UsageError("give one of --judgements and --truth, not both")
    if sample_dir is None and not judgements and truth is None:
        raise click.UsageError(f"with {given[0]} give --judgements or --truth (the verdicts "
                               "of `abcde judge` are read from SAMPLE_DIR)")
    sample: object = sample_dir
    if db is not None:
        sample = load_tables(sample_prefix, sample_schema, db=db)  # type: ignore[arg-type]
    elif engine_name is not None:
        from abcde.engines import connect

        engine = connect(engine_name, **({"dsn": dsn} if engine_name == "postgres" else {}))
        try:
            sample = load_tables(sample_prefix, sample_schema,  # type: ignore[arg-type]
                                 engine=engine)
        finally:
            engine.close()
    if not 0 < confidence < 1:
        raise click.BadParameter("must be in (0, 1)", param_hint="--confidence")
    files = judgements[0] if len(judgements) == 1 else list(judgements) or None
    doc = estimate(sample, judgements=files, truth=truth,
                   item_col=item_col,
                   cluster_col=cluster_col, confidence=confidence, se_method=se_method)
    if fmt == "html":
        from abcde.report.build import report_html

        click.echo(report_html(estimate=doc))
        return
    click.echo(to_json(doc) if fmt == "json" else render_table(doc))


@click.command("simulate")
@clustering_inputs
@click.option("--truth", required=True, help="Ground-truth clustering that plays the judge.")
@input_options
@click.option("--population", type=click.Choice(["mixture", "abcde", "jaccard"]),
              default="mixture", show_default=True, help="The sampling design, as for "
              "sample-pairs.")
@click.option("--alpha", type=float, default=None,
              help="The mixture's share of the abcde population, in (0, 1) [default: 0.5].")
@click.option("--budgets", default="100,300,1000,3000", show_default=True,
              help="Comma-separated budgets (unique judgeable pairs).")
@click.option("--replications", type=int, default=20, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--unknown-share", type=float, default=0.0, show_default=True,
              help="Share of pairs the judges are expected to answer 'unknown'.")
@click.option("--strata-allocation", default=None,
              help="Simulate stratified samples: proportional, equal or a fraction.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]),
              default="table", show_default=True, help="What to print on stdout (html: the "
              "page of `abcde report`; needs abcde[report]).")
@handle_errors
def simulate_cmd(base: str, exp: str, truth: str, weights: str | None, item_col: str,
                 cluster_col: str, weight_col: str, missing_weight: float | None,
                 db: str | None, memory_limit: str | None, threads: int | None,
                 population: str, alpha: float | None, budgets: str, replications: int,
                 seed: int,
                 unknown_share: float, strata_allocation: str | None, fmt: str) -> None:
    """Size the judgement budget and check the estimates on your data: per quality metric
    and budget, the 95% interval half-width, the coverage of the exact value and the bias,
    from simulated rounds judged by --truth (whose exact metrics are computed in SQL)."""
    from abcde.quality.simulation import render_table, simulate

    entries = [b.strip() for b in budgets.split(",")]
    if "" in entries:  # "10,,20" is a typo as much as "" is: refuse it rather than skip it
        raise click.BadParameter(f"comma-separated integers >= 1 (unique judgeable pairs), "
                                 f"got {budgets!r}"
                                 + (", which has an empty entry" if budgets.strip() else ""),
                                 param_hint="--budgets")
    try:
        sizes = [int(b) for b in entries]
    except ValueError:
        raise click.BadParameter("comma-separated integers", param_hint="--budgets") from None
    if min(sizes) < 1:
        raise click.BadParameter(f"comma-separated integers >= 1 (unique judgeable pairs), "
                                 f"got {budgets!r}", param_hint="--budgets")
    if replications < 1:
        raise click.BadParameter("must be >= 1", param_hint="--replications")
    if not 0 <= seed <= MAX_SEED - (replications - 1):  # replication r draws with seed + r
        raise click.BadParameter(f"must be between 0 and {MAX_SEED - (replications - 1)} "
                                 "(2^62 - 1, the largest seed, less the replications "
                                 "after the first)", param_hint="--seed")
    if not 0 <= unknown_share < 1:  # (False for NaN too)
        raise click.BadParameter(f"must be in [0, 1): the share of pairs judged 'unknown' "
                                 f"(1 would leave nothing to estimate from), got "
                                 f"{unknown_share}", param_hint="--unknown-share")
    if strata_allocation is not None:
        from abcde.sampling.stratified import parse_allocation

        try:
            parse_allocation(strata_allocation)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--strata-allocation") from None
    if alpha is not None and (population != "mixture" or not 0 < alpha < 1):
        raise click.BadParameter("a number in (0, 1), with --population mixture",
                                 param_hint="--alpha")
    doc = simulate(base, exp, weights, truth=truth, population=population, alpha=alpha,
                   budgets=sizes,
                   replications=replications, seed=seed, unknown_share=unknown_share,
                   stratify=strata_allocation, item_col=item_col, cluster_col=cluster_col,
                   weight_col=weight_col, missing_weight=missing_weight, db=db,
                   memory_limit=memory_limit, threads=threads)
    if fmt == "html":
        from abcde.report.build import report_html

        click.echo(report_html(simulate=doc))
        return
    click.echo(to_json(doc) if fmt == "json" else render_table(doc))


COMMANDS = (estimate_cmd, simulate_cmd,)
