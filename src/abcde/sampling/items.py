"""Exploring the impact from an importance-weighted sample of affected items
(ABCDE §4.1.1; docs/method.md §7).

`sample_items` draws affected items with replacement with probability
q(i) ∝ weight(i)·JaccardDistance(i) (eq. 10) by exponential clocks (App. A, steps 1–3)
and gives each unique sampled item its importance weight
w(i) = dc(i)/Σdc · JD(T)/JD(i) (eq. 25), so that Σ_{i ∈ slice} w(i)·m(i) estimates the
slice's contribution weight(slice)·m(slice)/weight(T) to m(T) for every impact metric m,
and Σ_{i ∈ slice} w(i) its share weight(slice ∩ affected)/weight(T).

`abcde.explorer.groups` slices such a sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlglot import exp as sqlexp

from abcde.cells import (
    IMPACT_METRICS,
    add_affected_item_rows,
    add_cell_steps,
    add_item_steps,
    build_cell_rows,
    run_cell_steps,
)
from abcde.engines import Engine
from abcde.errors import InputError
from abcde.inputs.session import Inputs, Session
from abcde.outputs import input_files
from abcde.params import COUNT, SEED, checked
from abcde.results import summary_repr
from abcde.sample_files.items import manifest_path, write_item_manifest
from abcde.sample_files.layout import file_output, neutralised_query
from abcde.sample_files.manifest import fingerprint
from abcde.sampling.clocks import (
    add_clock_step,
    add_draw_count_steps,
    count_value,
)
from abcde.sampling.pairs import attribute_names
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render
from abcde.version import __version__

ITEM_COLUMNS = ("item_id", "base_cluster", "exp_cluster", "weight", "draw_count",
                "first_draw", "importance_weight", *IMPACT_METRICS)
# the overall impact metrics, as item_manifest carries them (impact/overall.sql)
OVERALL_KEYS = ("items", "weight", "affected_items", "affected_weight", *IMPACT_METRICS,
                "affected_jaccard_index", "unaffected_jaccard_index")
# the columns of the one-row manifest (sampling/items_manifest.sql)
ITEM_MANIFEST_COLUMNS = ("abcde_version", "kind", "seed", "size", "unique_items", "draws",
                         *OVERALL_KEYS, "fp_cells", "fp_items", "fp_weight", "fp_cell_hash",
                         "fp_item_hash", "fp_weight_hash", "item_digest", "draw_digest",
                         "sample_id")


@dataclass
class ItemSample:
    """What `sample_items` returns: the sampled rows (unless `out` was given and
    `fetch=False`), the manifest and the files written."""

    rows: list[dict[str, Any]]
    manifest: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    #: attribute columns named like a column of the sample → their name in it (attr_…)
    renamed: dict[str, str] = field(default_factory=dict)

    __repr__ = summary_repr


@checked(size=COUNT, seed=SEED)
def sample_items(base: object, exp: object, weights: object | None = None, *,
                 size: int = 1_000_000, seed: int = 0, out: str | Path | None = None,
                 overwrite: bool = False, fetch: bool | None = None,
                 **inputs: Any) -> ItemSample:
    """`size` unique affected items drawn with replacement ∝ weight·JaccardDistance,
    each with its importance weight (ABCDE §4.1.1, eq. 10, 25; App. A).

    Parameters
    ----------
    base, exp, weights
        As for `abcde.impact`; every attribute column rides along into the sample files.
    size, seed
        Unique affected items to draw; the seed of the md5 uniforms (docs/method.md §7).
    out, overwrite
        With `out` (.parquet or .csv) the sample is written there, rows in order of
        first draw, and its manifest next to it (`<out>.manifest.json`, with the file's
        rows and sha256), both atomically (`abcde.outputs.output_files`); existing files
        are refused unless `overwrite`, which replaces them once the new ones are
        complete.
    fetch
        Return the rows (default: only when there is no `out`).
    **inputs
        The inputs and the engine, as `abcde.impact` takes them.

    Returns
    -------
    ItemSample
        Rows, manifest and files. When Base and Exp agree on every item there is nothing
        to sample: the sample is empty (as `sample_pairs` then gives an empty pair
        sample).

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals.
    Google LLC, §4.1.1 and App. A. Sampling scheme: docs/method.md §7.1–7.3.
    """
    return run_sample_items(Session.of(base, exp, weights, **inputs), size, seed=seed,
                            out=out, overwrite=overwrite, fetch=fetch)


def run_sample_items(session: Session, size: int = 1_000_000, *, seed: int = 0,
                     out: str | Path | None = None, overwrite: bool = False,
                     fetch: bool | None = None) -> ItemSample:
    """`sample_items` of a session's inputs (and `abcde.Comparison.sample_items`)."""
    out_path = Path(out) if out else None
    if out_path is not None and out_path.suffix.lower() not in (".parquet", ".csv"):
        raise InputError(f"--out {out_path}: name the sample file .parquet or .csv",
                         option="out")
    spec = session.spec
    targets = [out_path, manifest_path(out_path)] if out_path is not None else None
    with file_output(targets, overwrite, input_files(spec.base, spec.exp, spec.weights,
                                                     spec.attributes)) as temps, \
            session.using() as (eng, inputs):
        return _sample_items(eng, inputs, size, seed, out_path,
                             out_path is None if fetch is None else fetch, temps)


def prepare_items(engine: Engine, inputs: Inputs, prefix: str = "abcde_items_") -> Pipeline:
    """Validated cells and the `affected_items` step (not materialised)."""
    pipeline = Pipeline(prefix=prefix, schema=engine.work_schema)
    add_item_steps(pipeline, inputs)
    build_cell_rows(engine, pipeline, inputs)
    add_cell_steps(pipeline, inputs)
    run_cell_steps(engine, pipeline, inputs, "cells", "cell_metrics")
    # a table, not a subquery of the clock: at 100M items under --memory-limit 4GB the
    # clock over the join ran out of memory, the join alone does not
    add_affected_items(pipeline, inputs, materialise=True)
    if inputs.workspace is not None:
        # the inputs' fingerprint (a pass over the cells) is kept with the cells
        pipeline.add("fingerprint", render("sampling/fingerprint.sql"), materialise=True)
        run_cell_steps(engine, pipeline, inputs, "affected_item_rows", "fingerprint")
    else:
        pipeline.run(engine, "affected_item_rows")
    return pipeline


def add_affected_items(pipeline: Pipeline, inputs: Inputs, *,
                       materialise: bool = False) -> None:
    """`overall` and `affected_items` (the items of the cells with jaccard_distance > 0,
    the only ones with a positive clock weight) over the cell steps, from
    `abcde.cells.add_affected_item_rows`: the same items for the engines and the scripts."""
    pipeline.add("overall", render("impact/overall.sql", metrics=IMPACT_METRICS))
    add_affected_item_rows(pipeline, inputs, materialise=materialise)
    pipeline.add("affected_items", render("sampling/affected_items.sql",
                                          items="affected_item_rows", metrics=IMPACT_METRICS))


def add_item_sample_steps(pipeline: Pipeline, inputs: Inputs, size: int, seed: int,
                          attrs: list[tuple[str, str]]) -> list[str]:
    """The item sample over `add_affected_items`' steps, all in SQL (engines and `abcde sql
    sample-items` alike): `item_clock` (App. A step 1), `item_draws` (steps 2–3), the
    sampled items' `sample_attributes`, `item_sample` and the one-row `item_manifest`.
    Returns the materialised steps in order."""
    add_clock_step(pipeline, "item_clock", "affected_items",
                   columns=["item_id", "base_cluster", "exp_cluster", "weight",
                            *IMPACT_METRICS],
                   weight="clock_w", keys=["item_id"], seed=seed, stream="items", n=size)
    add_draw_count_steps(pipeline, "item_draws", "item_clock", id_col="item_id", seed=seed)
    if attrs:
        pipeline.add("sample_attributes", render(
            "sampling/attributes.sql", relation=inputs.attributes.relation,
            item_col=inputs.columns.item, item_type=inputs.item_type, columns=attrs,
            items="item_clock"), materialise=True)
    pipeline.add("item_sample", render(
        "sampling/items_sample.sql", metrics=IMPACT_METRICS,
        attributes=[o for _, o in attrs]), materialise=True)
    pipeline.add("item_sample_digest", render("sampling/sample_digest.sql",
                                              relation="item_sample"))
    if "fingerprint" not in pipeline.steps:
        pipeline.add("fingerprint", render("sampling/fingerprint.sql"))
    pipeline.add("item_manifest", render("sampling/items_manifest.sql", version=__version__,
                                         seed=seed, size=size), materialise=True)
    return ["item_clock", "item_draws", *(["sample_attributes"] if attrs else []),
            "item_sample", "item_manifest"]


def _sample_items(engine: Engine, inputs: Inputs, size: int, seed: int, out: Path | None,
                  fetch: bool, temps: list[Path] | None = None) -> ItemSample:
    pipeline = prepare_items(engine, inputs)
    attrs = attribute_names(inputs, ITEM_COLUMNS)
    pipeline.run(engine, *add_item_sample_steps(pipeline, inputs, size, seed, attrs))
    row = engine.fetch(engine.select_sql(pipeline.physical_name("item_manifest")))[0]
    overall = {k: row[k] for k in OVERALL_KEYS}
    rows: list[dict[str, Any]] = []
    files: dict[str, str] = {}
    if fetch:
        pipeline.add("item_sample_sorted", sqlexp.select("*").from_("item_sample")
                     .order_by("first_draw"))
        rows = [{**r, "draw_count": count_value(r["draw_count"])}
                for r in pipeline.fetch(engine, "item_sample_sorted")]
    drawn = {"sample": {k: int(row[k] or 0) for k in ("unique_items", "item_digest",
                                                       "draw_digest")}}
    manifest = {
        "abcde_version": __version__,
        "kind": "items",
        "seed": seed,
        "size": size,
        "unique_items": int(row["unique_items"]),
        "draws": count_value(row["draws"]),
        "metrics": overall,
        "weight": overall["weight"],
        "inputs": inputs.description(),
        "fingerprint": fingerprint(engine, pipeline, drawn),
        "sample_id": row["sample_id"],
    }
    if out is not None:
        # into the temporary files of `file_output`, renamed over `out` and its manifest
        # (last) once both are complete
        sample_tmp, manifest_tmp = temps or (out, manifest_path(out))
        written = "item_sample"
        if out.suffix.lower() == ".csv":  # for spreadsheets: no text read as a formula
            columns = engine.columns(pipeline.physical_name(written))
            written = pipeline.add("item_sample_csv", neutralised_query(written, columns),
                                   materialise=True)
            pipeline.run(engine, written)
            manifest["neutralised"] = True  # explore restores the text (layout.restore)
        engine.write(pipeline.physical_name(written), sample_tmp,
                     "csv" if written != "item_sample" else "parquet", order_by=("first_draw",))
        files = write_item_manifest(out, [sample_tmp, manifest_tmp], manifest,
                                    int(row["unique_items"]))
    return ItemSample(rows, manifest, files, {a: o for a, o in attrs if a != o})
