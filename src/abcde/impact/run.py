"""Impact metrics between a Baseline and an Experiment clustering (ABCDE §4; Jaccard
decomposition §4–5; docs/method.md §3), computed per cell in the engine.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from abcde.cells import (
    IMPACT_METRICS,
    add_cell_steps,
    add_item_steps,
    build_cell_rows,
    run_cell_steps,
)
from abcde.engines import Engine
from abcde.inputs.checks import coverage_report
from abcde.inputs.session import Inputs, Session
from abcde.inputs.spec import check_slice_names
from abcde.outputs import OutputDir, input_files, output_dir, slice_file_stems
from abcde.params import TOP, OneOf, checked
from abcde.results import OUT_FORMATS, plain_row, summary_repr
from abcde.sql.helpers import rank_value
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render


@dataclass
class ImpactResult:
    """What `abcde impact` reports; `to_dict()` is the JSON document, its keys in the
    order of the fields."""

    inputs: dict[str, Any]
    overall: dict[str, Any]
    coverage: dict[str, Any]
    top_base_clusters: list[dict[str, Any]]
    top_exp_clusters: list[dict[str, Any]]
    top_clusters: list[dict[str, Any]]
    slices: list[dict[str, Any]]
    #: side ("base", "exp") → rows size, clusters, items, weight: the cluster sizes
    size_distribution: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    __repr__ = summary_repr


@checked(top=TOP, out_format=OneOf(OUT_FORMATS))
def impact(base: object, exp: object, weights: object | None = None, *, top: int = 10,
           out: str | Path | None = None, out_format: str = "parquet",
           prefix: str = "abcde_impact_", **inputs: Any) -> ImpactResult:
    """How Exp differs from Base: overall, per cluster, per slice (ABCDE §4).

    Parameters
    ----------
    base, exp, weights
        CSV/Parquet paths, tables of `db`, DataFrames or mappings ({item: cluster},
        {item: weight}). Weights come from `weights`, else from a `weight_col` column of
        the clusterings, else are 1.
    top
        How many most affected clusters to list.
    out, out_format
        With `out`, every Base/Exp cluster and slice is written to files there; the
        files of an earlier run there (`earlier_outputs`) are replaced as a whole.
    prefix
        Work tables are named `prefix` + step, in the engine's `work_schema`.
    **inputs
        The inputs and the engine, as `abcde.Comparison` takes them: `attributes`,
        `slice_by` ("a,b" slices by the pair; a list gives one slicing each), `item_col`,
        `cluster_col`, `weight_col`, `missing_weight` (the weight of items the weights
        table lacks; default: refuse), `engine`, `db`, `memory_limit`, `threads`,
        `workspace` (where the cell tables of a round are kept between calls).

    Returns
    -------
    ImpactResult
        Items present in only one clustering are excluded and reported under `coverage`.

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals.
    Google LLC, July 2024, §4. Metric definitions: docs/method.md §3.
    """
    return run_impact(Session.of(base, exp, weights, **inputs), top=top, out=out,
                      out_format=out_format, prefix=prefix)


# the metric columns beside a slicing's columns in a slice table: no slice column may
# be named so (`abcde sql impact` checks the same, abcde.warehouse.scripts)
SLICE_RESERVED = frozenset({"items", "weight", "affected_items", "affected_weight",
                            "contribution", *IMPACT_METRICS})


def run_impact(session: Session, *, top: int = 10, out: str | Path | None = None,
               out_format: str = "parquet", prefix: str = "abcde_impact_") -> ImpactResult:
    """`impact` of a session's inputs (behind `impact` and `Comparison.impact`)."""
    spec = session.spec
    check_slice_names(spec.slicings, SLICE_RESERVED)
    # the output's temporary place is made before the work; replaced only when whole
    with (output_dir(out, replaces=earlier_outputs(out),
                     inputs=input_files(spec.base, spec.exp, spec.weights, spec.attributes))
          if out is not None
          else contextlib.nullcontext()) as od, session.using() as (engine, inputs):
        return _run(engine, inputs, [list(s) for s in spec.slicings], top, od, out_format,
                    prefix=prefix)


def _run(engine: Engine, inputs: Inputs, slicings: list[list[str]], top: int,
         out: OutputDir | None, out_format: str, prefix: str = "abcde_impact_",
         ) -> ImpactResult:
    pipeline = Pipeline(prefix=prefix, schema=engine.work_schema)
    add_item_steps(pipeline, inputs)
    checked = build_cell_rows(engine, pipeline, inputs)
    slice_steps = add_cell_steps(pipeline, inputs, slicings)
    run_cell_steps(engine, pipeline, inputs, "cells", "cell_metrics")

    pipeline.add("overall", render("impact/overall.sql", metrics=IMPACT_METRICS))
    overall = pipeline.fetch(engine, "overall")[0]
    coverage = coverage_report(engine, pipeline, inputs, overall, checked)

    tops: dict[str, list[dict[str, Any]]] = {}
    for side, name in (("b", "base_clusters"), ("e", "exp_clusters")):
        # stored only to be written out; otherwise the top-K query computes it inline
        pipeline.add(name, render("impact/clusters.sql", side=side, metrics=IMPACT_METRICS,
                                  affected_only=out is None), materialise=out is not None)
        if out is not None:
            pipeline.run(engine, name)
        pipeline.add(f"top_{name}", render("impact/top_clusters.sql", relation=name, k=top))
        tops[name] = pipeline.fetch(engine, f"top_{name}")

    sizes = {}
    for side, name in (("b", "base"), ("e", "exp")):
        pipeline.add(f"{name}_sizes", render("impact/size_distribution.sql", side=side))
        sizes[name] = pipeline.fetch(engine, f"{name}_sizes")

    slices = []
    for k, (slicing, step) in enumerate(zip(slicings, slice_steps, strict=True)):
        attrs = [inputs.attribute(c) for c in slicing]
        name = f"slices_{k}"
        pipeline.add(name, render("impact/slices.sql", slice_columns=attrs, slice_cells=step,
                                  metrics=IMPACT_METRICS), materialise=out is not None)
        if out is not None:
            pipeline.run(engine, name)
        rows = [plain_row(r, text=slicing) for r in pipeline.fetch(engine, name)]
        rows.sort(key=lambda r: (-rank_value(r["contribution"]), *(str(r[a.name]) for a in attrs)))
        slices.append({"slice_by": slicing, "rows": rows})

    result = ImpactResult(
        overall=overall, coverage=coverage,
        top_base_clusters=tops["base_clusters"],
        top_exp_clusters=tops["exp_clusters"],
        top_clusters=interleave(tops["base_clusters"], tops["exp_clusters"], top),
        slices=slices,
        inputs=inputs.description(),
        size_distribution=sizes)
    if out is not None:
        result.files = _write(engine, pipeline, out, out_format, slicings)
        for entry, stem in zip(result.slices, slice_file_stems(slicings), strict=True):
            entry["file"] = result.files[stem]
    return result


#: The names of the files `impact --out` writes.
OUT_FILE = re.compile(r"(base_clusters|exp_clusters|slices_[\w.-]+)\.(parquet|csv)")
#: The list of the files a run wrote, kept beside them: the next run replaces those.
OUT_INDEX = ".abcde-impact-files"


def earlier_outputs(out: str | Path) -> list[str]:
    """The files of an earlier `impact --out` in `out`, replaced whole by the new run:
    those its `OUT_INDEX` lists (without one, every name abcde writes) that are names
    abcde writes. Other files are the user's and stay."""
    try:
        entries = {e.name: e for e in os.scandir(out)}
    except OSError:  # missing (created by the run), or not a directory (refused there)
        return []
    try:
        with open(os.path.join(out, OUT_INDEX), encoding="utf-8") as f:
            listed = {line.strip() for line in f}
        names = [OUT_INDEX, *listed]
    except (OSError, UnicodeDecodeError):
        names = list(entries)
    return sorted(n for n in names if n in entries
                  and (n == OUT_INDEX or OUT_FILE.fullmatch(n))
                  and not entries[n].is_dir(follow_symlinks=False))


def interleave(base_rows: list[dict[str, Any]], exp_rows: list[dict[str, Any]],
               k: int) -> list[dict[str, Any]]:
    """The K most affected clusters of Base and Exp in one ranking by contribution
    (ABCDE §4.1, footnote 2). The top K of the union lies in the union of the top Ks."""
    rows = ([{"side": "base", **r} for r in base_rows]
            + [{"side": "exp", **r} for r in exp_rows])
    # ids compare within a side only, where they share one type: SQL's order
    rows.sort(key=lambda r: (-rank_value(r["contribution"]), r["side"], r["cluster_id"]))
    return rows[:k]


def _write(engine: Engine, pipeline: Pipeline, out: OutputDir, fmt: str,
           slicings: list[list[str]]) -> dict[str, str]:
    """Every Base/Exp cluster and slice as files, each in the order of its key."""
    suffix = "parquet" if fmt == "parquet" else "csv"
    files = {}
    steps = [("base_clusters", "base_clusters", ["cluster_id"]),
             ("exp_clusters", "exp_clusters", ["cluster_id"])]
    steps += [(stem, f"slices_{k}", slicing) for k, (stem, slicing)
              in enumerate(zip(slice_file_stems(slicings), slicings, strict=True))]
    for name, step, key in steps:
        path = out.path / f"{name}.{suffix}"
        engine.write(pipeline.physical_name(step), path, fmt, order_by=key)
        files[name] = str(out.final(path))
    (out.path / OUT_INDEX).write_text("".join(f"{Path(f).name}\n" for f in files.values()),
                                      encoding="utf-8")
    return files
