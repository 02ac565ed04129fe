"""Where cells are built: inputs -> `items` -> T (`common`) -> cells -> cell metrics.

A cell c = (b, e) holds the items in Base cluster b and Exp cluster e (SPEC §2). All
items of a cell share their pointwise metrics (pointwise paper §3.1, property 3), so
every metric is computed once per cell and weighted by the cell's weight. Ground-truth
evaluation uses the same steps with truth as Base and actual as Exp.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from abcde.engines.base import Engine
from abcde.errors import InputError
from abcde.inputs import (
    Columns,
    Source,
    attribute_type,
    check_weight_column,
    cluster_type,
    id_type,
    open_source,
)
from abcde.pipeline import Pipeline
from abcde.templates import literal, render

IMPACT_METRICS = ("split_rate", "merge_rate", "jaccard_distance", "split_distance",
                  "merge_distance", "jaccard_index")


@dataclass(frozen=True)
class Attribute:
    name: str  # the user's column name
    alias: str  # s_0, s_1, ... inside SQL
    type: str


@dataclass
class Inputs:
    """Registered and type-checked inputs of one comparison."""

    base: Source
    exp: Source
    weights: Source | None
    attributes: Source | None
    columns: Columns
    item_type: str
    base_cluster_type: str
    exp_cluster_type: str
    base_weight: bool  # the weight column of base is used
    exp_weight: bool
    missing_weight: float | None
    attribute_columns: list[Attribute] = field(default_factory=list)

    @property
    def weight_sources(self) -> list[str]:
        """`items` columns a weight is taken from, in order of precedence."""
        out = ["table_weight"] if self.weights else []
        out += ["base_weight"] if self.base_weight else []
        out += ["exp_weight"] if self.exp_weight else []
        return out

    @property
    def weights_description(self) -> str:
        if self.weights:
            extra = (f"; {self.missing_weight:g} for items it lacks"
                     if self.missing_weight is not None else "")
            return f"from {self.weights.label}{extra}"
        sides = [s.label for s, used in ((self.base, self.base_weight),
                                         (self.exp, self.exp_weight)) if used]
        if sides:
            return f"column {self.columns.weight!r} of " + " and ".join(sides)
        return "1 for every item (no weights given)"

    def attribute(self, name: str) -> Attribute:
        for a in self.attribute_columns:
            if a.name == name:
                return a
        raise KeyError(name)


def open_inputs(engine: Engine, base: object, exp: object, weights: object | None = None,
                attributes: object | None = None, *, columns: Columns | None = None,
                attribute_names: Sequence[str] = (), missing_weight: float | None = None,
                roles: tuple[str, str] = ("base", "exp")) -> Inputs:
    """Register the inputs and check columns and types (ABCDE §3; SPEC §1)."""
    cols = columns or Columns()
    ids = (cols.item, cols.cluster)
    b = open_source(engine, roles[0], base, string_columns=ids, mapping_columns=ids)
    e = open_source(engine, roles[1], exp, string_columns=ids, mapping_columns=ids)
    w = (open_source(engine, "weights", weights, string_columns=(cols.item,),
                     mapping_columns=(cols.item, cols.weight))
         if weights is not None else None)
    a = (open_source(engine, "attributes", attributes, string_columns=(cols.item,),
                     mapping_columns=(cols.item, "value"))
         if attributes is not None else None)
    for s in (b, e):
        s.require(cols.item, "--item-col", "item ids")
        s.require(cols.cluster, "--cluster-col", "cluster ids")
    if w is not None:
        w.require(cols.item, "--item-col", "item ids")
        w.require(cols.weight, "--weight-col", "weights")
        check_weight_column(w, cols.weight)
    if attribute_names and a is None:
        raise InputError("slices need an attributes table", hint="Add --attributes FILE.")
    if a is not None:
        a.require(cols.item, "--item-col", "item ids")
        for name in attribute_names:
            a.require(name, "--slice-by", "a slice column")
    if missing_weight is not None and not (0 < missing_weight < float("inf")):
        raise InputError(f"--missing-weight must be a positive finite number, not "
                         f"{missing_weight}")
    item_type = id_type([s for s in (b, e, w, a) if s is not None], cols.item)
    base_weight = w is None and b.has(cols.weight)
    exp_weight = w is None and e.has(cols.weight)
    for s, used in ((b, base_weight), (e, exp_weight)):
        if used:
            check_weight_column(s, cols.weight)
    attrs = [Attribute(name, f"s_{k}", attribute_type(a, name))
             for k, name in enumerate(dict.fromkeys(attribute_names))] if a else []
    return Inputs(b, e, w, a, cols, item_type, cluster_type(b, cols.cluster),
                  cluster_type(e, cols.cluster), base_weight, exp_weight, missing_weight,
                  attrs)


def add_item_steps(pipeline: Pipeline, inputs: Inputs) -> None:
    """Standardised inputs and the materialised `items` step (validated next)."""
    cols = inputs.columns
    for step, source, weight in (("base_in", inputs.base, inputs.base_weight),
                                 ("exp_in", inputs.exp, inputs.exp_weight)):
        pipeline.add(step, render(
            "inputs/clustering.sql", relation=source.relation, item_col=cols.item,
            cluster_col=cols.cluster, weight_col=cols.weight if weight else None,
            item_type=inputs.item_type,
            cluster_type=(inputs.base_cluster_type if step == "base_in"
                          else inputs.exp_cluster_type)))
    if inputs.weights:
        pipeline.add("weights_in", render(
            "inputs/weights.sql", relation=inputs.weights.relation, item_col=cols.item,
            weight_col=cols.weight, item_type=inputs.item_type))
    if inputs.attributes:
        pipeline.add("attributes_in", render(
            "inputs/attributes.sql", relation=inputs.attributes.relation, item_col=cols.item,
            item_type=inputs.item_type, columns=inputs.attribute_columns))
    pipeline.add("items", render(
        "cells/items.sql", base_cluster_type=inputs.base_cluster_type,
        exp_cluster_type=inputs.exp_cluster_type, base_weight=inputs.base_weight,
        exp_weight=inputs.exp_weight, weights_table=inputs.weights is not None,
        attributes=inputs.attribute_columns), materialise=True)


def add_cell_steps(pipeline: Pipeline, inputs: Inputs,
                   slicings: Sequence[Sequence[str]] = ()) -> list[str]:
    """T, its cells, the per-cell metrics, and (b, e, slice) cells per slicing.

    Returns the names of the slice-cell steps, one per slicing.
    """
    default = literal(float(inputs.missing_weight if inputs.missing_weight is not None
                            else 1.0))
    pipeline.add("common", render(
        "cells/common.sql", weight_sources=inputs.weight_sources, default_weight=default,
        attributes=inputs.attribute_columns))
    pipeline.add("cells", render("cells/cells.sql", group_columns=[]), materialise=True)
    pipeline.add("cell_metrics", render("cells/cell_metrics.sql"), materialise=True)
    names = []
    for k, slicing in enumerate(slicings):
        aliases = [inputs.attribute(c).alias for c in slicing]
        names.append(pipeline.add(f"slice_cells_{k}", render(
            "cells/cells.sql", group_columns=aliases)))
    return names
