"""`abcde sample-items`, `abcde explore`, `abcde sample-pairs` (ABCDE §4.1.1, §5.7–5.8,
App. A; Jaccard decomposition §7)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from abcde.cells import IMPACT_METRICS
from abcde.cli._common import Checked, ExistingPath, comparison_options
from abcde.params import COUNT, SEED, SHARE
from abcde.text import table, to_json

if TYPE_CHECKING:
    from abcde.comparison import Comparison


@click.command("sample-items")
@comparison_options()
@click.option("--size", type=Checked(COUNT), default=1_000_000, show_default=True,
              help="Unique affected items to sample (all of them if there are fewer; "
              "sample-items then says so).")
@click.option("--seed", type=Checked(SEED), default=0, show_default=True)
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="Sample file (.parquet or .csv); its manifest goes next to it.")
@click.option("--overwrite", is_flag=True, help="Replace an existing sample file and its "
              "manifest (refused otherwise).")
def sample_items_cmd(comparison: Comparison, size: int, seed: int, out: str,
                     overwrite: bool = False) -> None:
    """Affected items drawn ∝ weight·JaccardDistance with replacement, each with its
    importance weight, impact metrics and attributes (ABCDE §4.1.1)."""
    s = comparison.sample_items(size, seed=seed, out=out, overwrite=overwrite)
    m = s.manifest
    if not m["unique_items"]:
        click.echo("no affected items (Base and Exp agree on every item): the sample is "
                   "empty")
    click.echo(f"sampled {m['unique_items']:,} unique affected items ({m['draws']:,} draws) "
               f"-> {out}\nmanifest -> {s.files['manifest']}")
    if 0 < m["unique_items"] < size:
        click.echo(f"all {m['unique_items']:,} affected items were drawn; --size {size} "
                   "asks for more")
    if s.renamed:
        # else `explore --group-by weight` silently groups by the item's weight
        click.echo("attribute column(s) named like a column of the sample are renamed in "
                   "it: " + ", ".join(f"{a} -> {o}" for a, o in s.renamed.items())
                   + " (group and filter by the new names)")


@click.command("explore")
@click.argument("sample")
@click.option("--db", default=None, type=ExistingPath(dir_okay=False),
              help="DuckDB database holding the sample as table SAMPLE (e.g. the "
              "<prefix>item_sample of `abcde sql sample-items`), opened read-only.")
@click.option("--group-by", default="", help="Attribute column(s), comma-separated.")
@click.option("--where", default=None, help="SQL condition over the sample's columns.")
@click.option("--metric", type=click.Choice(IMPACT_METRICS), default="jaccard_distance",
              show_default=True)
@click.option("--top", type=click.IntRange(0, 10**9), default=20, show_default=True,
              help="Groups to show (0: all).")
@click.option("--examples", type=click.IntRange(min=0), default=3, show_default=True,
              help="Example items per group.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--serve", is_flag=True, help="Explore in the browser instead: a local page "
              "(like `abcde judge`: a secret token, loopback) to filter, group and rank; "
              "it opens on --group-by, --metric, --top and --examples (filters are given "
              "on the page, not with --where).")
@click.option("--port", type=int, default=0, show_default="a free port",
              help="With --serve: the port.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="With --serve: the address to listen on.")
@click.option("--open", "open_browser", is_flag=True,
              help="With --serve: open the page in your default browser.")
def explore_cmd(sample: str, db: str | None, group_by: str, where: str | None, metric: str,
                top: int, examples: int, fmt: str, serve: bool = False, port: int = 0,
                host: str = "127.0.0.1", open_browser: bool = False) -> None:
    """Top groups of an item sample by estimated contribution to METRIC(T)
    (ABCDE §4.1.1); with --serve, the same in the browser. SAMPLE: the sample file
    (.parquet/.csv, also a warehouse table exported), or with --db a table of that
    database."""
    from abcde.explorer.groups import explore, thin_note

    given = [name for name, value, default in (("--port", port, 0), ("--host", host, "127.0.0.1"),
                                               ("--open", open_browser, False))
             if value != default]
    misuse = [f"{', '.join(given)} only with --serve (the page in the browser)"] \
        if given and not serve else []
    if serve:  # the page opens on the options' query: what it cannot take is refused
        from abcde.explorer.app import MAX_EXAMPLES, MAX_TOP

        misuse += [why for bad, why in (
            (db is not None, "--serve reads a sample file: export the table (COPY ... TO "
             "'sample.parquet') and give its path, without --db"),
            (where is not None, "--where is SQL, which the page does not take: give the "
             "filters on the page (column, operator, value)"),
            (fmt != "table", "--format is for the printed groups; with --serve the page "
             "shows them (its /api/groups answers JSON)"),
            (not 1 <= top <= MAX_TOP, f"with --serve, --top is a number from 1 to {MAX_TOP} "
             "(the page shows at most that many groups; --format json --top 0 prints all)"),
            (examples > MAX_EXAMPLES, f"with --serve, --examples is a number from 0 to "
             f"{MAX_EXAMPLES} (the page shows at most that many per group; --format json "
             "prints more)")) if bad]
    if misuse:
        raise click.UsageError(misuse[0])
    if serve:
        # a mistake in the page's first query is refused here, worded for the options
        explore(sample, group_by, metric=metric, top=top, examples=examples)
        query = {"group_by": [g.strip() for g in group_by.split(",")] if group_by else [],
                 **{name: value for name, value, default in (
                     ("metric", metric, "jaccard_distance"), ("top", top, 20),
                     ("examples", examples, 3)) if value != default}}
        _serve_explore(sample, port, host, open_browser, query)
        return
    doc = explore(sample, group_by, where=where, metric=metric, top=top, examples=examples,
                  db=db)
    if fmt == "json":
        click.echo(to_json(doc))
        return
    thin = [r for r in doc["groups"] if not r["conclusive"]]
    # the note column only when a group needs it: most tables have none
    cols = [*doc["group_by"], "items", "draws", "weight_share", "contribution", "se", metric,
            *(["note"] if thin else []), "examples"]
    rows = [{**r, "examples": ", ".join(str(e) for e in r.get("examples", [])),
             "note": "" if r["conclusive"] else "not conclusive*"}
            for r in doc["groups"]]
    click.echo(f"estimated contribution to {metric}(T) by "
               f"{', '.join(doc['group_by']) or 'nothing (all)'}"
               f"{' where ' + where if where else ''} "
               f"({doc['filtered_draws']:,} of {doc['sample_draws']:,} draws)")
    click.echo(table(rows, cols, keys=doc["group_by"]))
    if thin:
        click.echo("* " + thin_note(len(thin), metric))
    if len(doc["groups"]) < doc["total_groups"]:
        click.echo(f"top {len(doc['groups']):,} of {doc['total_groups']:,} groups "
                   "(--top 0 shows all)")


def _serve_explore(sample: str, port: int, host: str, open_browser: bool,
                   query: dict[str, Any] | None = None) -> None:
    import sys
    from urllib.parse import urlencode

    from abcde.explorer.app import explore_app
    from abcde.server.app import allowed_hosts
    from abcde.server.run import bind, is_loopback, new_token, serve, url_of

    token = new_token()
    sock = bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    try:
        app = explore_app(sample, token, allowed_hosts(bound_host, bound_port))
    except BaseException:
        sock.close()
        raise
    url = url_of(sock, "/", token)
    opening = urlencode(query or {}, doseq=True)
    if opening:
        url += "&" + opening
    if not is_loopback(bound_host):
        click.echo(f"warning: listening on {bound_host}, reachable from other machines",
                   err=True)
    click.echo(f"abcde explore: {sample}\nOpen {url}\nPress Ctrl-C to stop.")
    sys.stdout.flush()
    serve(app, sock, open_url=url if open_browser else None)


@click.command("sample-pairs")
@comparison_options(slices="Attribute column(s) whose weight and pairweight go into the "
                    "manifest (per-slice ΔPrecision).")
@click.option("--population", type=click.Choice(["mixture", "abcde", "jaccard"]),
              default="mixture", show_default=True,
              help="mixture: ∝ α·u_ij/Σu + (1 − α)·w_ij/Σw, every metric's importance "
              "weights bounded (docs/method.md §6.9); abcde: ∝ u_ij (α = 1); jaccard: "
              "∝ w_ij (α = 0).")
@click.option("--alpha", type=Checked(SHARE, click.FLOAT), default=None,
              help="The mixture's share of the abcde population, in (0, 1) [default: 0.5].")
@click.option("--budget", type=Checked(COUNT), required=True,
              help="Unique non-self pairs for the judges (at most the population's).")
@click.option("--model-budget", type=Checked(COUNT), default=None,
              help="A round with a model judge: the stream holds this many pairs, all in "
              "model_questions.jsonl for `abcde model-judge`; --budget of them, a uniform "
              "random subset, are the humans' (questions.csv, `abcde judge`).")
@click.option("--seed", type=Checked(SEED), default=0, show_default=True)
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Directory for questions, draws and manifest.")
@click.option("--strata-allocation", default=None, help="Stratify split+merge vs stable "
              "pairs (abcde.sampling.stratified): proportional, equal or the fraction of the "
              "budget for split+merge, e.g. 0.8.")
@click.option("--max-stream-draws", type=Checked(COUNT), default=None,
              help="Cost ceiling: the longest stream of draws the budget fill may draw "
              "(time and memory grow with it) [default: the larger of 10 per budget pair "
              "and 1,000,000]. A budget near the population's pairs needs ever more draws "
              "per new pair; one the ceiling does not reach is refused with the largest "
              "budget it does.")
@click.option("--overwrite", is_flag=True, help="Replace a sample already in --out (its "
              "questions, draws and manifest; refused otherwise).")
def sample_pairs_cmd(comparison: Comparison, population: str, alpha: float | None,
                     budget: int, seed: int, out: str, strata_allocation: str | None = None,
                     max_stream_draws: int | None = None, overwrite: bool = False,
                     model_budget: int | None = None) -> None:
    """Pairs of items for human judgement (ABCDE §5.7–5.8, App. A; Jaccard §7)."""
    s = comparison.sample_pairs(budget, seed=seed, population=population, alpha=alpha,
                                strata_allocation=strata_allocation,
                                max_stream_draws=max_stream_draws, out=out,
                                overwrite=overwrite, model_budget=model_budget)
    m = s.manifest
    classes = ", ".join(f"{c} {v['pairs']:,}" for c, v in m["pairs"]["by_class"].items())
    humans = f" ({m['humans']['pairs']:,} for humans)" if m.get("humans") else ""
    click.echo(f"{m['pairs']['judgeable']:,} pairs to judge{humans}, {m['draws']:,} draws "
               f"(unique pairs by class: {classes}) -> {Path(out)}{os.sep}")
    for name in ("questions_csv", "questions_jsonl", "model_questions_jsonl", "draws_parquet",
                 "manifest"):
        if name in s.files:
            click.echo(f"  {name}: {s.files[name]}")
    from abcde.quality.estimate import undrawn_warnings

    for warning in undrawn_warnings(s.draws, m):  # the estimate would say it, too late
        click.echo(f"warning: {warning}", err=True)


COMMANDS = (sample_items_cmd, explore_cmd, sample_pairs_cmd,)
