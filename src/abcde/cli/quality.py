"""`abcde estimate` and `abcde simulate`: quality metrics from judged pairs (ABCDE §5,
App. B; Jaccard decomposition §4.3–8; docs/method.md §8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from abcde.cli._common import (
    Checked,
    ExistingPath,
    IntList,
    comparison_options,
    emit,
    format_option,
)
from abcde.params import COUNT, SEED, SHARE

if TYPE_CHECKING:
    from abcde.comparison import Comparison


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
@click.option("--model-verdicts", "model", type=ExistingPath(dir_okay=False), default=None,
              help="CSV/JSONL of a model judge's verdicts (pair_id, verdict or probability "
              "in [0, 1]) on the sample's pairs: the human verdicts correct them, and the "
              "intervals are prediction-powered (narrower with a good model, valid always).")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--se-method", type=click.Choice(["pair_clustered", "kirchner"]),
              default="pair_clustered", show_default=True,
              help="kirchner: the paper's Case I SE (ABCDE §5.8); pair_clustered adds "
              "the variance of which pairs got a verdict. Identical when every pair is "
              "judged; with unknowns Case I under-covers.")
@click.option("--sequential", is_flag=True, help="Also the confidence sequences (valid "
              "however often you look) at the pairs judged so far in stream order, and the "
              "stop signal of --stop-when.")
@click.option("--stop-when", multiple=True, help="A question "
              "for the stop signal, e.g. 'delta_precision>0', 'bad_merge_rate<0.02', "
              "'halfwidth<=0.01' (ΔPrecision's half-width); repeat for several; implies "
              "--sequential.")
@format_option
def estimate_cmd(sample_dir: str | None, db: str | None, sample_prefix: str | None,
                 sample_schema: str | None, engine_name: str | None, dsn: str | None,
                 judgements: tuple[str, ...], truth: str | None, item_col: str,
                 cluster_col: str, model: str | None, confidence: float, se_method: str,
                 sequential: bool, stop_when: tuple[str, ...], fmt: str) -> None:
    """Is the Experiment better? ΔPrecision, Good/Bad rates, distances and indexes with
    standard errors and confidence intervals from a judged pair sample. SAMPLE_DIR: the
    directory of `abcde sample-pairs --out`, or of a warehouse sample's exported tables
    (pair_manifest, pair_sample, ... as .parquet/.csv); or the tables themselves: --db
    (DuckDB) or --engine (PostgreSQL, Spark) with --sample-prefix. Without --judgements
    or --truth, the verdicts of `abcde judge` (SAMPLE_DIR/verdicts.jsonl)."""
    from abcde.quality.estimate import estimate, load_tables
    from abcde.quality.sequential import render_sequential
    from abcde.quality.wording import render_table

    given = [w for w, v in (("SAMPLE_DIR", sample_dir), ("--db", db),
                            ("--engine", engine_name)) if v is not None]
    source = given[0] if given else "SAMPLE_DIR"
    misuse = next((why for bad, why in (
        (len(given) != 1, "give one of SAMPLE_DIR, --db or --engine (with --sample-prefix)"
         + (f"; got {' and '.join(given)}" if given else "")),
        (sample_dir is None and sample_prefix is None,
         f"{source} needs --sample-prefix, the --prefix of the script"),
        (sample_dir is not None and (sample_prefix, sample_schema) != (None, None),
         "--sample-prefix and --sample-schema go with --db or --engine"),
        (dsn is not None and engine_name != "postgres", "--dsn is for --engine postgres"),
        (sample_dir is None and not judgements and truth is None,
         f"with {source} give --judgements or --truth (the verdicts of `abcde judge` are "
         "read from SAMPLE_DIR)")) if bad), None)
    if misuse:  # the combinations of where the sample is; the library checks the rest
        raise click.UsageError(misuse)
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
    files = judgements[0] if len(judgements) == 1 else list(judgements) or None
    doc = estimate(sample, judgements=files, truth=truth, item_col=item_col,
                   cluster_col=cluster_col, confidence=confidence, se_method=se_method,
                   sequential=sequential, stop_when=stop_when, model=model)
    emit(doc, fmt, lambda d: render_table(d) + (
        render_sequential(d) if "sequential" in d else ""), "estimate")


@click.command("model-judge")
@click.argument("sample_dir", type=ExistingPath(file_okay=False))
@click.option("--command", "command", required=True,
              help="The model judge: reads pairs as JSON lines on stdin ({pair_id, item_1, "
              "item_2}), writes {pair_id, verdict or probability} lines on stdout. Run once "
              "per batch; answers go to SAMPLE_DIR/model_verdicts.jsonl, a rerun resumes.")
@click.option("--batch", type=click.IntRange(1), default=100, show_default=True,
              help="Pairs per run of the command.")
def model_judge_cmd(sample_dir: str, command: str, batch: int) -> None:
    """Judge every pair of a sample by a model (an LLM client, a classifier, a script);
    `abcde estimate` then combines its verdicts with the humans' (prediction-powered)."""
    from abcde.quality.model_judge import run_model_judge

    log = run_model_judge(sample_dir, command, batch=batch, progress=lambda done, total:
                          click.echo(f"{done:,}/{total:,} pairs judged by the model", err=True))
    click.echo(f"model verdicts: {log}")


@click.command("simulate")
@comparison_options(attributes=None)
@click.option("--truth", required=True, help="Ground-truth clustering that plays the judge.")
@click.option("--population", type=click.Choice(["mixture", "abcde", "jaccard"]),
              default="mixture", show_default=True, help="The sampling design, as for "
              "sample-pairs.")
@click.option("--alpha", type=Checked(SHARE, click.FLOAT), default=None,
              help="The mixture's share of the abcde population, in (0, 1) [default: 0.5].")
@click.option("--budgets", type=IntList(), default="100,300,1000,3000", show_default=True,
              help="Comma-separated budgets (unique judgeable pairs).")
@click.option("--replications", type=Checked(COUNT), default=20, show_default=True)
@click.option("--seed", type=Checked(SEED), default=0, show_default=True)
@click.option("--unknown-share", type=float, default=0.0, show_default=True,
              help="Share of pairs the judges are expected to answer 'unknown'.")
@click.option("--strata-allocation", "stratify", default=None,
              help="Simulate stratified samples: proportional, equal or a fraction.")
@click.option("--sequential", is_flag=True, help="Also judge each round's largest budget "
              "in stream order, looking after every verdict: the verdicts until the stop "
              "signal of --stop-when (default 'delta_precision>0') and how often it is wrong.")
@click.option("--stop-when", multiple=True, help="A question, as for `abcde estimate "
              "--stop-when`; repeat for several; implies --sequential.")
@click.option("--model-accuracy", default=None, metavar="ACCURACY",
              help="Also rounds with a model judge right this share of the time on every "
              "pair (e.g. 0.9), or per pair class CLASS=SENSITIVITY[/SPECIFICITY] and a bare "
              "number for the other classes (e.g. 0.9,split=0.6/0.95), judging "
              "--model-budget pairs, the humans a random --budgets of them: bias, coverage "
              "and the human verdicts the model saves.")
@click.option("--model-budget", type=Checked(COUNT), default=None,
              help="With --model-accuracy: the model's pairs [default: 10 × the largest of "
              "--budgets].")
@click.option("--target-half-width", type=float, default=None, help="With --model-accuracy: "
              "the human verdicts ΔPrecision needs for this half-width (e.g. 0.01), alone "
              "and with the model.")
@format_option
def simulate_cmd(comparison: Comparison, truth: str, population: str, alpha: float | None,
                 budgets: tuple[int, ...], replications: int, seed: int,
                 unknown_share: float, stratify: str | None, sequential: bool,
                 stop_when: tuple[str, ...], model_accuracy: str | None,
                 model_budget: int | None, target_half_width: float | None,
                 fmt: str) -> None:
    """Size the judgement budget and check the estimates on your data: per quality metric
    and budget, the 95% interval half-width, the coverage of the exact value and the bias,
    from simulated rounds judged by --truth (whose exact metrics are computed in SQL). A
    run that will take long says how long after its first round."""
    from abcde.quality.simulation import render_table

    doc = comparison.simulate(truth, population=population, alpha=alpha, budgets=budgets,
                              replications=replications, seed=seed,
                              unknown_share=unknown_share, stratify=stratify,
                              stop_when=stop_when or (("delta_precision>0",) if sequential
                                                      else ()),
                              model_accuracy=model_accuracy, model_budget=model_budget,
                              target_half_width=target_half_width)
    emit(doc, fmt, render_table, "simulate")


COMMANDS = (estimate_cmd, model_judge_cmd, simulate_cmd)
