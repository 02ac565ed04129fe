"""Impact metrics between a Baseline and an Experiment clustering (ABCDE §4; Jaccard
decomposition §4–5; SPEC §3), computed per cell in the engine.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abcde.cells import IMPACT_METRICS, add_cell_steps, add_item_steps
from abcde.engines import Engine, engine_for
from abcde.errors import InputError
from abcde.inputs.checks import EXAMPLES, examples, side_inputs, unmatched, validate
from abcde.inputs.sources import Columns, Inputs, open_inputs
from abcde.sql.helpers import rank_value
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render

OUT_FORMATS = ("parquet", "csv")


@dataclass
class ImpactResult:
    """What `abcde impact` reports; `to_dict()` is the JSON document."""

    overall: dict[str, Any]
    coverage: dict[str, Any]
    top_base_clusters: list[dict[str, Any]]
    top_exp_clusters: list[dict[str, Any]]
    top_clusters: list[dict[str, Any]]
    slices: list[dict[str, Any]]
    inputs: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs,
            "overall": self.overall,
            "coverage": self.coverage,
            "top_base_clusters": self.top_base_clusters,
            "top_exp_clusters": self.top_exp_clusters,
            "top_clusters": self.top_clusters,
            "slices": self.slices,
            "files": self.files,
        }


def parse_slicings(slice_by: str | Sequence[str] | Sequence[Sequence[str]] | None,
                   ) -> list[list[str]]:
    """'a,b' -> [['a', 'b']] (one slicing by the pair of columns); a list of such
    strings (or of lists) -> one slicing each."""
    if slice_by is None:
        return []
    items = [slice_by] if isinstance(slice_by, str) else list(slice_by)
    out = []
    for item in items:
        cols = [c.strip() for c in item.split(",")] if isinstance(item, str) else list(item)
        cols = [c for c in cols if c]
        if cols:
            out.append(cols)
    return out


def check_slice_names(slicings: Sequence[Sequence[str]], reserved: set[str]) -> None:
    """Slice columns become output columns beside the metrics: no name may clash."""
    clash = sorted({c for s in slicings for c in s} & reserved)
    if clash:
        raise InputError(f"slice columns may not be named {', '.join(clash)} (a metric's "
                         "name)", table="attributes", hint="Rename the column.")


def impact(base: object, exp: object, weights: object | None = None, *,
           attributes: object | None = None,
           slice_by: str | Sequence[str] | Sequence[Sequence[str]] | None = None,
           item_col: str = "item_id", cluster_col: str = "cluster_id",
           weight_col: str = "weight", missing_weight: float | None = None, top: int = 10,
           out: str | Path | None = None, out_format: str = "parquet",
           engine: Engine | None = None, db: str | Path | None = None,
           memory_limit: str | None = None, threads: int | None = None,
           prefix: str = "abcde_impact_") -> ImpactResult:
    """How Exp differs from Base: overall, per cluster, per slice (ABCDE §4).

    `base`, `exp`, `weights`, `attributes`: CSV/Parquet paths, tables of `db`, DataFrames
    or mappings ({item: cluster}, {item: weight}, {item: {column: value}}). Weights come
    from `weights`, else from a `weight_col` column of the clusterings, else are 1.
    Items present in only one clustering are excluded and reported under `coverage`.
    With `out`, every Base/Exp cluster and slice is written to files there.
    Work tables are named `prefix` + step, in the engine's `work_schema` if it has one.
    """
    slicings = parse_slicings(slice_by)
    check_slice_names(slicings, {"items", "weight", "affected_items", "affected_weight",
                                 "contribution", *IMPACT_METRICS})
    if top < 0:
        raise ValueError("top must be >= 0")
    if out_format not in OUT_FORMATS:
        raise ValueError(f"out_format must be one of {OUT_FORMATS}")
    if out is not None:
        prepare_out(Path(out))  # before the work, not after it
    with engine_for(engine, db=db, memory_limit=memory_limit, threads=threads) as eng:
        inputs = open_inputs(eng, base, exp, weights, attributes,
                             columns=Columns(item_col, cluster_col, weight_col),
                             attribute_names=[c for s in slicings for c in s],
                             missing_weight=missing_weight)
        return _run(eng, inputs, slicings, top, Path(out) if out else None, out_format,
                    prefix=prefix)


def _run(engine: Engine, inputs: Inputs, slicings: list[list[str]], top: int,
         out: Path | None, out_format: str, prefix: str = "abcde_impact_") -> ImpactResult:
    pipeline = Pipeline(prefix=prefix, schema=engine.work_schema)
    add_item_steps(pipeline, inputs)
    pipeline.run(engine, "cell_rows")
    checked = validate(engine, pipeline, inputs)
    slice_steps = add_cell_steps(pipeline, inputs, slicings)
    pipeline.run(engine, "cells", "cell_metrics")

    pipeline.add("overall", render("impact/overall.sql", metrics=IMPACT_METRICS))
    overall = pipeline.fetch(engine, "overall")[0]
    coverage = _coverage(engine, pipeline, inputs, overall, checked)

    tops: dict[str, list[dict[str, Any]]] = {}
    for side, name in (("b", "base_clusters"), ("e", "exp_clusters")):
        # stored only to be written out; otherwise the top-K query computes it inline
        pipeline.add(name, render("impact/clusters.sql", side=side, metrics=IMPACT_METRICS,
                                  affected_only=out is None), materialise=out is not None)
        if out is not None:
            pipeline.run(engine, name)
        pipeline.add(f"top_{name}", render("impact/top_clusters.sql", relation=name, k=top))
        tops[name] = pipeline.fetch(engine, f"top_{name}")

    slices = []
    for k, (slicing, step) in enumerate(zip(slicings, slice_steps, strict=True)):
        attrs = [inputs.attribute(c) for c in slicing]
        name = f"slices_{k}"
        pipeline.add(name, render("impact/slices.sql", slice_columns=attrs, slice_cells=step,
                                  metrics=IMPACT_METRICS), materialise=out is not None)
        if out is not None:
            pipeline.run(engine, name)
        rows = [_clean(r, text=slicing) for r in pipeline.fetch(engine, name)]
        rows.sort(key=lambda r: (-rank_value(r["contribution"]), *(str(r[a.name]) for a in attrs)))
        slices.append({"slice_by": slicing, "rows": rows})

    result = ImpactResult(
        overall=_clean(overall), coverage=coverage,
        top_base_clusters=[_clean(r) for r in tops["base_clusters"]],
        top_exp_clusters=[_clean(r) for r in tops["exp_clusters"]],
        top_clusters=interleave(tops["base_clusters"], tops["exp_clusters"], top),
        slices=slices,
        inputs={inputs.base.role: inputs.base.label, inputs.exp.role: inputs.exp.label,
                "weights": inputs.weights_description,
                "attributes": inputs.attributes.label if inputs.attributes else None})
    if out is not None:
        result.files = _write(engine, pipeline, out, out_format, slicings)
        for entry, stem in zip(result.slices, slice_file_stems(slicings), strict=True):
            entry["file"] = result.files[stem]
    return result


def prepare_out(out: Path) -> None:
    """Create the `--out` directory, or refuse it before any work is done."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        parent_is_file = isinstance(err, FileExistsError | NotADirectoryError)
        reason = "it or a parent is a file" if parent_is_file else (err.strerror or str(err))
        raise InputError(f"cannot create the output directory {out}: {reason}",
                         hint="--out names a directory (created if missing).") from err
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(f"cannot write to the output directory {out}: permission denied",
                         hint="Choose another --out directory.")


def slice_file_stems(slicings: Sequence[Sequence[str]]) -> list[str]:
    """One file name (without suffix) per slicing: slices_<columns>, with characters a
    file name cannot hold replaced by _, and _2, _3, ... after a name already taken (also
    by case: file systems that ignore case would merge them)."""
    taken = {"base_clusters", "exp_clusters"}
    stems = []
    for slicing in slicings:
        stem = re.sub(r"[^\w.-]+", "_", "slices_" + "_".join(slicing))[:120]
        unique, k = stem, 1
        while unique.lower() in taken:
            k += 1
            unique = f"{stem}_{k}"
        taken.add(unique.lower())
        stems.append(unique)
    return stems


def interleave(base_rows: list[dict[str, Any]], exp_rows: list[dict[str, Any]],
               k: int) -> list[dict[str, Any]]:
    """The K most affected clusters of Base and Exp in one ranking by contribution
    (ABCDE §4.1, footnote 2). The top K of the union lies in the union of the top Ks."""
    rows = ([{"side": "base", **_clean(r)} for r in base_rows]
            + [{"side": "exp", **_clean(r)} for r in exp_rows])
    # ids compare within a side only, where they share one type: SQL's order
    rows.sort(key=lambda r: (-rank_value(r["contribution"]), r["side"], r["cluster_id"]))
    return rows[:k]


def _coverage(engine: Engine, pipeline: Pipeline, inputs: Inputs, overall: dict[str, Any],
              checked: dict[str, Any]) -> dict[str, Any]:
    """Items outside T, and input rows that match no item: reported, never silently
    dropped (ABCDE §3)."""
    pipeline.add("coverage", render("impact/coverage.sql", limit=EXAMPLES))
    rows = {r["side"]: r for r in pipeline.fetch(engine, "coverage")}
    report: dict[str, Any] = {"items_in_both": int(overall["items"]),
                              "weight_in_both": float(overall["weight"])}
    for side, source in (("base", inputs.base), ("exp", inputs.exp)):
        r = rows.get(side)
        entry: dict[str, Any] = {"items": 0, "weight": 0.0, "examples": []}
        if r is not None:
            entry = {"items": int(r["items"]), "weight": float(r["weight"] or 0.0),
                     "examples": [r[f"example_{k}"] for k in range(1, EXAMPLES + 1)
                                  if r[f"example_{k}"] is not None]}
            if r["items_without_weight"]:
                entry["items_without_weight"] = int(r["items_without_weight"])
        report[f"only_in_{source.role}"] = entry
    if inputs.weights is not None and inputs.missing_weight is not None:
        report["given_missing_weight"] = {"items": int(checked["defaulted_weight"]),
                                          "weight": float(inputs.missing_weight)}
    for name in side_inputs(inputs):
        n = int(checked[f"unused_{name}"])
        # rows, not items: a repeated id among rows matching no item is not detected
        report[f"unused_{name}"] = {"rows": n,
                                    "examples": unmatched(engine, pipeline, name) if n else []}
    if inputs.attributes is not None:
        n = int(checked["without_attributes"])
        report["without_attributes"] = {
            "items": n, "examples": examples(engine, pipeline, "without_attributes") if n else []}
    return report


def _write(engine: Engine, pipeline: Pipeline, out: Path, fmt: str,
           slicings: list[list[str]]) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    suffix = "parquet" if fmt == "parquet" else "csv"
    files = {}
    steps = [("base_clusters", "base_clusters"), ("exp_clusters", "exp_clusters")]
    steps += [(stem, f"slices_{k}") for k, stem in enumerate(slice_file_stems(slicings))]
    for name, step in steps:
        path = out / f"{name}.{suffix}"
        engine.write(pipeline.physical_name(step), path, fmt)
        files[name] = str(path)
    return files


def _clean(row: dict[str, Any], text: Sequence[str] = ()) -> dict[str, Any]:
    """Plain Python numbers (DuckDB sums of integers come back as int128 via int). A
    NaN or infinite value of a `text` column (a slice value: the metrics never are)
    becomes the string 'NaN', 'Infinity' or '-Infinity', which JSON can hold."""
    out = {}
    for k, v in row.items():
        if isinstance(v, float) and k in text and not math.isfinite(v):
            out[k] = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
        elif isinstance(v, bool) or v is None or isinstance(v, str | float):
            out[k] = v
        elif isinstance(v, int):
            out[k] = int(v)
        else:
            try:
                out[k] = float(v)
            except (TypeError, ValueError):
                out[k] = v
    return out
