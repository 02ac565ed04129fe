"""Exploring the impact from an importance-weighted sample of affected items
(ABCDE §4.1.1; SPEC §7).

`sample_items` draws affected items with replacement with probability
q(i) ∝ weight(i)·JaccardDistance(i) (eq. 10) by exponential clocks (App. A, steps 1–3)
and gives each unique sampled item its importance weight
w(i) = dc(i)/Σdc · JD(T)/JD(i) (eq. 25), so that Σ_{i ∈ slice} w(i)·m(i) estimates the
slice's contribution weight(slice)·m(slice)/weight(T) to m(T) for every impact metric m,
and Σ_{i ∈ slice} w(i) its share weight(slice ∩ affected)/weight(T).

`explore` groups such a sample by attribute values (optionally filtered) and ranks the
groups by estimated contribution, with example items (the interactive slicing of
§4.1.1). Its standard errors treat the Σdc draws as independent draws from q, each
contributing x = JD(T)·m(i)/JD(i)·1(i ∈ group): SE = sd(x)/√Σdc.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

from abcde import __version__
from abcde.cells import IMPACT_METRICS, add_cell_steps, add_item_steps, items_query
from abcde.engines import Engine, engine_for
from abcde.errors import InputError
from abcde.impact.run import _clean
from abcde.inputs.checks import validate
from abcde.inputs.sources import Columns, Inputs, open_inputs
from abcde.sampling.clocks import (
    add_clock_step,
    check_count,
    check_seed,
    claim_file,
    draw_counts,
    fingerprint,
)
from abcde.sampling.pairs import attribute_names
from abcde.sql.helpers import rank_value
from abcde.sql.pipeline import Pipeline
from abcde.sql.quoting import ident, literal
from abcde.sql.templates import render

ITEM_COLUMNS = ("item_id", "base_cluster", "exp_cluster", "weight", "draw_count",
                "first_draw", "importance_weight", *IMPACT_METRICS)


@dataclass
class ItemSample:
    """What `sample_items` returns: the sampled rows (unless `out` was given and
    `fetch=False`), the manifest and the files written."""

    rows: list[dict[str, Any]]
    manifest: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)


def _sample_digest(engine: Engine, pipeline: Pipeline) -> dict[str, dict[str, int]]:
    """The sampled item ids and draw counts, hashed in the engine (sampling/sample_digest.sql):
    the fingerprint's part that sees item ids."""
    pipeline.add("item_sample_digest", render("sampling/sample_digest.sql",
                                              relation="item_sample"))
    row = pipeline.fetch(engine, "item_sample_digest")[0]
    return {"sample": {k: int(v or 0) for k, v in row.items()}}


def sample_items(base: object, exp_: object, weights: object | None = None, *,
                 attributes: object | None = None, size: int = 1_000_000, seed: int = 0,
                 item_col: str = "item_id", cluster_col: str = "cluster_id",
                 weight_col: str = "weight", missing_weight: float | None = None,
                 out: str | Path | None = None, overwrite: bool = False,
                 fetch: bool | None = None, engine: Engine | None = None,
                 db: str | Path | None = None, memory_limit: str | None = None,
                 threads: int | None = None) -> ItemSample:
    """`size` unique affected items drawn with replacement ∝ weight·JaccardDistance
    (ABCDE §4.1.1, eq. 10, 25; App. A). With `out` (.parquet or .csv) the sample is
    written there, rows in order of first draw, and its manifest next to it
    (`<out>.manifest.json`); existing files are refused unless `overwrite`. Rows are
    returned unless `fetch=False` (default: only when there is no `out`). When Base and
    Exp agree on every item there is nothing to sample: the sample is empty (as
    `sample_pairs` then gives an empty pair sample)."""
    size = check_count("size", size)
    seed = check_seed(seed)
    out_path = Path(out) if out else None
    if out_path is not None:
        if out_path.suffix.lower() not in (".parquet", ".csv"):
            raise InputError(f"{out_path}: name the sample file .parquet or .csv")
        claim_file([out_path, manifest_path(out_path)], overwrite)
    with engine_for(engine, db=db, memory_limit=memory_limit, threads=threads) as eng:
        inputs = open_inputs(eng, base, exp_, weights, attributes,
                             columns=Columns(item_col, cluster_col, weight_col),
                             missing_weight=missing_weight)
        return _sample_items(eng, inputs, size, seed, out_path,
                             out_path is None if fetch is None else fetch)


def prepare_items(engine: Engine, inputs: Inputs, prefix: str = "abcde_items_") -> Pipeline:
    """Validated cells and the `affected_items` step (not materialised)."""
    pipeline = Pipeline(prefix=prefix, schema=engine.work_schema)
    add_item_steps(pipeline, inputs)
    pipeline.run(engine, "cell_rows")
    validate(engine, pipeline, inputs)
    add_cell_steps(pipeline, inputs)
    pipeline.run(engine, "cells", "cell_metrics")
    pipeline.add("overall", render("impact/overall.sql", metrics=IMPACT_METRICS))
    # the items of affected cells: a second pass over the inputs, each side restricted to
    # those cells' clusters before the join, without the attributes (joined to the sample)
    pipeline.add("affected_cells", exp.select("b", "e").from_("cell_metrics")
                 .where("affected AND jaccard_distance > 0"))
    pipeline.add("affected_item_rows", items_query(inputs, attributes=False,
                                                   cells="affected_cells"))
    pipeline.add("affected_items", render("sampling/affected_items.sql",
                                          items="affected_item_rows", metrics=IMPACT_METRICS))
    return pipeline


def _sample_items(engine: Engine, inputs: Inputs, size: int, seed: int, out: Path | None,
                  fetch: bool) -> ItemSample:
    pipeline = prepare_items(engine, inputs)
    overall = _clean(pipeline.fetch(engine, "overall")[0])
    add_clock_step(pipeline, "item_clock", "affected_items",
                   columns=["item_id", "base_cluster", "exp_cluster", "weight",
                            *IMPACT_METRICS],
                   weight="clock_w", keys=["item_id"], seed=seed, stream="items", n=size)
    pipeline.run(engine, "item_clock")
    pipeline.add("clock_keys", exp.select("clock_rank", "clock_key", "clock_weight")
                 .from_("item_clock").order_by("clock_rank"))
    keys = pipeline.fetch(engine, "clock_keys")
    ranks = np.array([int(r["clock_rank"]) for r in keys], dtype=np.int64)
    dc = draw_counts([float(r["clock_key"]) for r in keys],
                     [float(r["clock_weight"]) for r in keys], seed)
    # exact integers, or floats when the counts outgrow 2^53 (abcde.sampling.clocks.draw_counts)
    total_draws: int | float = int(dc.sum()) if dc.dtype.kind == "i" else math.fsum(dc)
    attrs = attribute_names(inputs, ITEM_COLUMNS)
    rows: list[dict[str, Any]] = []
    files: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="abcde_counts_") as tmp:
        if keys:
            counts_csv = Path(tmp) / "draw_counts.csv"
            np.savetxt(counts_csv, np.column_stack([ranks, dc]), delimiter=",",
                       fmt=["%d", "%d" if dc.dtype.kind == "i" else "%.17g"],
                       header="clock_rank,draw_count", comments="")
            engine.register_file("abcde_item_draw_counts", counts_csv, "csv")
            counts = ident("abcde_item_draw_counts")
        else:  # nothing affected: an empty table of the right types (an empty CSV is text)
            counts = pipeline.add("item_draw_counts", exp.select(
                "clock_rank", "CAST(1 AS BIGINT) AS draw_count").from_("item_clock"))
        if attrs:
            pipeline.add("sample_attributes", render(
                "sampling/attributes.sql", relation=inputs.attributes.relation,
                item_col=inputs.columns.item, item_type=inputs.item_type, columns=attrs))
        # JD(T) is a parallel sum whose last bits vary from run to run; rounded to 12
        # digits (an error ≤ 5e-13, far below the sampling error) the importance weights,
        # and so the sample file, are the same for the same seed
        jd = float(f"{overall['jaccard_distance'] or 0.0:.12g}")
        pipeline.add("item_sample", render(
            "sampling/items_sample.sql", counts=counts,
            jd_total=literal(float(jd)), total_draws=max(total_draws, 1),
            metrics=IMPACT_METRICS, attributes=[o for _, o in attrs]), materialise=True)
        pipeline.run(engine, "item_sample")
    if fetch:
        pipeline.add("item_sample_sorted", exp.select("*").from_("item_sample")
                     .order_by("first_draw"))
        rows = [_clean(r) for r in pipeline.fetch(engine, "item_sample_sorted")]
    manifest = {
        "abcde_version": __version__,
        "kind": "items",
        "seed": seed,
        "size": size,
        "unique_items": len(keys),
        "draws": total_draws,
        "metrics": overall,
        "weight": overall["weight"],
        "inputs": {inputs.base.role: inputs.base.label, inputs.exp.role: inputs.exp.label,
                   "weights": inputs.weights_description,
                   "attributes": inputs.attributes.label if inputs.attributes else None},
        "fingerprint": fingerprint(engine, pipeline, _sample_digest(engine, pipeline)),
    }
    if out is not None:
        engine.write(pipeline.physical_name("item_sample"), out,
                     "csv" if out.suffix.lower() == ".csv" else "parquet",
                     order_by=("first_draw",))
        files = {"sample": str(out), "manifest": str(manifest_path(out))}
        manifest["files"] = files
        manifest_path(out).write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    return ItemSample(rows, manifest, files)


def manifest_path(sample: Path) -> Path:
    return sample.with_name(sample.name + ".manifest.json")


# --------------------------------------------------------------------------- explore


def _where(where: str | None) -> exp.Expression | None:
    """A user's filter: one boolean SQL expression over the sample's columns (DuckDB
    syntax), parsed so that nothing but an expression gets through."""
    if not where:
        return None
    try:
        cond = sqlglot.parse_one(where, read="duckdb", into=exp.Condition)
    except sqlglot.errors.ParseError as err:
        raise InputError(f"--where is not an SQL condition: {err}") from err
    if cond.find(exp.Query, exp.Command, exp.Create, exp.Drop, exp.Insert, exp.Delete):
        raise InputError("--where must be a condition over the sample's columns, not a "
                         "query")
    return cond


def explore(sample: str | Path | Sequence[dict[str, Any]], group_by: str | Sequence[str] = (),
            *, where: str | None = None, metric: str = "jaccard_distance", top: int = 20,
            examples: int = 3) -> dict[str, Any]:
    """Top groups of a `sample_items` sample by estimated contribution to `metric`(T)
    (ABCDE §4.1.1): per group of attribute values, Σ w(i)·m(i) for every impact metric
    (`contribution_<metric>`), the estimated weight share Σ w(i), the estimated metric of
    the group's affected items, the sampled items and draws, an SE of the contribution
    to `metric`, and the `examples` most drawn items. `where` filters first."""
    if metric not in IMPACT_METRICS:
        raise InputError(f"--metric must be one of {', '.join(IMPACT_METRICS)}")
    for name, value, zero in (("--top", top, "all groups"), ("--examples", examples, "none")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{name} must be an integer >= 0 (0: {zero}), got {value!r}")
    groups = [c.strip() for c in group_by.split(",")] if isinstance(group_by, str) \
        else list(group_by)
    groups = [g for g in groups if g]
    empty = {"metric": metric, "group_by": groups, "where": where, "sample_draws": 0,
             "filtered_draws": 0, "groups": []}
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        if isinstance(sample, str | Path):
            path = Path(sample)
            if not path.exists():
                raise InputError(f"sample file {path} does not exist")
            reader = "read_csv" if path.suffix.lower() == ".csv" else "read_parquet"
            relation = f"{reader}({literal(str(path))})"
        else:
            rows = list(sample)
            if not rows:
                return empty
            from abcde.engines.duckdb import DuckDBEngine

            DuckDBEngine(connection=con).register_rows(
                "sample_rows", list(rows[0]), [tuple(r.values()) for r in rows])
            relation = ident("sample_rows")
        columns = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
        for c in [*groups, "importance_weight", "draw_count", *IMPACT_METRICS]:
            if c not in columns:
                raise InputError(f"the sample has no column {c!r}; its columns are "
                                 f"{', '.join(columns)}")
        cond = _where(where)
        if not con.execute(f"SELECT COUNT(*) FROM {relation}").fetchone()[0]:
            return empty  # nothing was affected; an empty CSV's columns would read as text
        base = exp.select("*").from_(exp.maybe_parse(relation, dialect="duckdb"))
        if cond is not None:
            base = base.where(cond)
        filtered = base.sql("duckdb")
        try:  # the one query that first applies the user's condition to every row
            totals = con.execute(f"SELECT SUM(draw_count) FROM ({filtered}) AS s").fetchone()
        except duckdb.Error as err:
            if cond is None:
                raise
            raise InputError(f"--where {where!r} cannot be applied to the sample: "
                             f"{str(err).splitlines()[0]}",
                             hint=f"The sample's columns are {', '.join(columns)}.") from None
        all_draws = con.execute(f"SELECT SUM(draw_count) FROM {relation}").fetchone()[0] or 0
        g = ", ".join(ident(c) for c in groups)
        key = f"{g}, " if groups else ""
        contribs = ", ".join(f"SUM(importance_weight * {m}) AS {ident('contribution_' + m)}"
                             for m in IMPACT_METRICS)
        # x = JD(T)/JD(i)·m(i) per draw = importance_weight·m(i)·Σdc/dc(i)
        x = f"importance_weight * {metric} * {int(all_draws)} / draw_count"
        sql = (f"SELECT {key}COUNT(*) AS items, SUM(draw_count) AS draws, "
               f"SUM(importance_weight) AS weight_share, {contribs}, "
               f"SUM(draw_count * ({x}) * ({x})) AS sum_x2 "
               f"FROM ({filtered}) AS s {'GROUP BY ' + g if groups else ''}")
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        result_rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        out_rows = []
        for r in result_rows:
            est = float(r[f"contribution_{metric}"] or 0.0)
            n = max(int(all_draws), 1)
            mean_x2 = float(r.pop("sum_x2") or 0.0) / n
            var = max(mean_x2 - est * est, 0.0)
            r["se"] = math.sqrt(var / (n - 1)) if n > 1 else None
            share = float(r["weight_share"] or 0.0)
            r[metric] = est / share if share > 0 else None
            r["contribution"] = est
            out_rows.append(_clean(r))
        out_rows.sort(key=lambda r: (-rank_value(abs(r["contribution"])),
                                     *(str(r[c]) for c in groups)))
        out_rows = out_rows[:top] if top else out_rows
        if examples and out_rows:
            for r in out_rows:
                conds = [(f"{ident(c)} IS NULL" if r[c] is None
                          else f"{ident(c)} = {literal(r[c])}") for c in groups]
                sql = (f"SELECT item_id FROM ({filtered}) AS s "
                       f"{'WHERE ' + ' AND '.join(conds) if conds else ''} "
                       f"ORDER BY draw_count DESC, first_draw LIMIT {int(examples)}")
                r["examples"] = [e[0] for e in con.execute(sql).fetchall()]
        return {"metric": metric, "group_by": groups, "where": where,
                "sample_draws": int(all_draws), "filtered_draws": int(totals[0] or 0),
                "groups": out_rows}
    finally:
        con.close()
