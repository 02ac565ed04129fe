"""Where cells are built: inputs -> `items` (the one join) -> `cell_rows` (the one
aggregation, with the input checks) -> cells -> cell metrics.

A cell c = (b, e) holds the items in Base cluster b and Exp cluster e (docs/method.md §2). All
items of a cell share their pointwise metrics (pointwise paper §3.1, property 3), so
every metric is computed once per cell and weighted by the cell's weight. Ground-truth
evaluation uses the same steps with truth as Base and actual as Exp.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from abcde.engines.base import Engine
from abcde.inputs.checks import (
    add_input_counts,
    check_names,
    counts_weight_rows,
    nan_for_missing,
    row_checks,
    validate,
)
from abcde.inputs.session import Inputs
from abcde.inputs.workspace import run_stored
from abcde.sql.dialects import to_sql
from abcde.sql.pipeline import Pipeline
from abcde.sql.quoting import CANONICAL_DIALECT, literal
from abcde.sql.templates import render

IMPACT_METRICS = ("split_rate", "merge_rate", "jaccard_distance", "split_distance",
                  "merge_distance", "jaccard_index")


def default_weight_sql(inputs: Inputs, *, nan: bool = False) -> str:
    """The weight of an item no input gives one: --missing-weight, 1 without weights,
    else unknown (NULL, or NaN with `nan`)."""
    if inputs.missing_weight is not None:
        return literal(float(inputs.missing_weight))
    if not inputs.weight_sources:
        return literal(1.0)
    return "CAST('NaN' AS DOUBLE)" if nan else "CAST(NULL AS DOUBLE)"


def add_input_steps(pipeline: Pipeline, inputs: Inputs) -> None:
    """The inputs with standard column names and normalised id types."""
    cols = inputs.columns
    for step, source, weight, ctype in (
            ("base_in", inputs.base, inputs.base_weight, inputs.base_cluster_type),
            ("exp_in", inputs.exp, inputs.exp_weight, inputs.exp_cluster_type)):
        pipeline.add(step, render(
            "inputs/clustering.sql", relation=source.relation, item_col=cols.item,
            cluster_col=cols.cluster, weight_col=cols.weight if weight else None,
            item_type=inputs.item_type, cluster_type=ctype))
    if inputs.weights:
        pipeline.add("weights_in", render(
            "inputs/weights.sql", relation=inputs.weights.relation, item_col=cols.item,
            weight_col=cols.weight, item_type=inputs.item_type))
    if inputs.attributes:
        pipeline.add("attributes_in", render(
            "inputs/attributes.sql", relation=inputs.attributes.relation, item_col=cols.item,
            item_type=inputs.item_type, columns=inputs.attribute_columns))


def items_query(inputs: Inputs, *, with_examples: bool = False, attributes: bool = True,
                cells: str | None = None, common_only: bool = False) -> Any:
    """The join of all inputs (cells/items.sql); with `cells` (a relation of (b, e)) only
    the items of T in those cells; `common_only`: an inner join (`same_ids`)."""
    nan = nan_for_missing(inputs, with_examples=with_examples)
    with_attributes = attributes and inputs.attributes is not None
    return render(
        "cells/items.sql", base_weight=inputs.base_weight, exp_weight=inputs.exp_weight,
        weights_table=inputs.weights is not None, attributes_table=with_attributes,
        weight_sources=inputs.weight_sources,
        default_weight=default_weight_sql(inputs, nan=nan),
        attributes=inputs.attribute_columns if with_attributes else [], cells=cells,
        common_only=common_only)


def add_item_steps(pipeline: Pipeline, inputs: Inputs, *, with_examples: bool = False,
                   squares: bool = False) -> None:
    """`items` (the join, not stored) and `cell_rows` (its aggregation, materialised).
    `with_examples` keeps an example id per check (scripts); `squares` adds Σ w² per
    group (docs/method.md §6.8), always with a workspace, so a round shares its cells."""
    squares = squares or inputs.workspace is not None
    add_input_steps(pipeline, inputs)
    pipeline.add("items", items_query(inputs, with_examples=with_examples))
    pipeline.add("cell_rows", cell_rows_query(inputs, with_examples=with_examples,
                                              squares=squares), materialise=True)


def cell_rows_query(inputs: Inputs, *, with_examples: bool = False, squares: bool = False,
                    common_only: bool = False) -> Any:
    """The aggregation of `items` by cell; `common_only`: of `common_items` (`same_ids`)."""
    return render(
        "cells/cell_rows.sql", attributes=inputs.attribute_columns,
        weight_rows=counts_weight_rows(inputs, with_examples=with_examples),
        attributes_table=inputs.attributes is not None,
        row_checks=row_checks(inputs, with_examples=with_examples),
        checks=check_names(inputs), with_examples=with_examples, squares=squares,
        common_only=common_only, item_type=inputs.item_type)


def same_ids(input_rows: Sequence[dict[str, Any]]) -> bool:
    """Whether Base and Exp hold the same ids as many times each, none NULL (equal row
    counts and exact sums of a 64-bit id hash): then the FULL JOIN is an inner join
    (docs/method.md §2.5). Different ids pass with a chance of about 2^-64."""
    by_input = {r["input"]: r for r in input_rows}
    base, exp_ = by_input["base"], by_input["exp"]
    rows = {int(base["input_rows"]), int(exp_["input_rows"]), int(base["ids"]),
            int(exp_["ids"])}
    return (len(rows) == 1 and rows != {0} and base["id_hash"] is not None
            and base["id_hash"] == exp_["id_hash"])


def _run_cell_rows(engine: Engine, pipeline: Pipeline, inputs: Inputs) -> list[dict[str, Any]]:
    """Materialise `cell_rows`, by the inner join where `same_ids` allows; the rows of
    `input_counts`."""
    id_sums = engine.dialect.id_hash is not None
    add_input_counts(pipeline, inputs, id_sums=id_sums)
    input_rows = pipeline.fetch(engine, "input_counts")
    step = pipeline.steps["cell_rows"].query
    fast = (cell_rows_query(inputs, squares="w2" in step.named_selects, common_only=True)
            if id_sums and same_ids(input_rows) else None)
    # the same columns or none (a step built otherwise, e.g. with examples): FULL JOIN
    if fast is None or fast.named_selects != step.named_selects:
        pipeline.run(engine, "cell_rows")
        return input_rows
    if "common_items" not in pipeline.steps:
        pipeline.add("common_items", items_query(inputs, common_only=True))
    pipeline.run_as(engine, "cell_rows", fast, "the same ids in both clusterings: inner join")
    return input_rows


def add_cell_steps(pipeline: Pipeline, inputs: Inputs,
                   slicings: Sequence[Sequence[str]] = (), *, squares: bool = False) -> list[str]:
    """Cells of T, the per-cell metrics and (b, e, slice) cells per slicing (`squares`:
    with w2 = Σ w², docs/method.md §6.8); the names of the slice-cell steps."""
    squares = squares or inputs.workspace is not None  # as in add_item_steps
    pipeline.add("cells", render("cells/cells.sql", group_columns=[],
                                 regroup=bool(inputs.attribute_columns), squares=squares),
                 materialise=True)
    pipeline.add("cell_metrics", render("cells/cell_metrics.sql", squares=squares),
                 materialise=True)
    names = []
    for k, slicing in enumerate(slicings):
        aliases = [inputs.attribute(c).alias for c in slicing]
        names.append(pipeline.add(f"slice_cells_{k}", render(
            "cells/cells.sql", group_columns=aliases, regroup=True, squares=squares)))
    return names


def build_cell_rows(engine: Engine, pipeline: Pipeline, inputs: Inputs) -> dict[str, Any]:
    """`cell_rows` materialised and the inputs checked (the counts of `validate`); with a
    workspace both are read from it, else stored there, marked once the checks passed."""
    ws = inputs.workspace
    if ws is None:
        input_rows = _run_cell_rows(engine, pipeline, inputs)
        return validate(engine, pipeline, inputs, input_rows)
    key = ws.key(inputs.sources, pipeline, "cell_rows")
    found = ws.find(key, "cell_rows")
    if found is not None and "checked" in found[1]:
        pipeline.provide("cell_rows", found[0])
        return dict(found[1]["checked"])
    target = ws.target(key, "cell_rows")
    pipeline.place("cell_rows", target)
    try:
        input_rows = _run_cell_rows(engine, pipeline, inputs)
        checked = validate(engine, pipeline, inputs, input_rows)
    except BaseException:
        engine.execute(to_sql(exp.Drop(tables=[exp.to_table(target, dialect=CANONICAL_DIALECT)],
                                       kind="TABLE", exists=True), engine.dialect))
        raise
    ws.mark(key, "cell_rows", {"checked": checked})
    return checked


def run_cell_steps(engine: Engine, pipeline: Pipeline, inputs: Inputs, *steps: str) -> None:
    """Materialise cell steps, from the workspace when it holds them."""
    run_stored(engine, pipeline, inputs, *steps)


def add_affected_item_rows(pipeline: Pipeline, inputs: Inputs, *,
                           materialise: bool = False) -> str:
    """`affected_item_rows`: the items of T in affected cells, which the samplers draw
    from (ABCDE §4.1.1, §5.7); stored in a workspace, so a round joins them once."""
    pipeline.add("affected_cells", exp.select("b", "e").from_("cell_metrics").where("affected"))
    joined = items_query(inputs, attributes=False, cells="affected_cells").subquery("i")
    return pipeline.add("affected_item_rows", exp.select(
        "item_id", "base_cluster", "exp_cluster", "w", "common").from_(joined),
        materialise=materialise or inputs.workspace is not None)
