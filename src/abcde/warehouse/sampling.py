"""The samplers as standalone SQL (`abcde sql sample-items`; ABCDE §4.1.1, App. A): the
same pipeline of steps the engines run (`abcde.sampling.items.add_item_sample_steps`),
over named tables, with the validation row and `input_valid` on every output. The
sample of a script equals `abcde sample-items` on the same inputs and seed: the same
items, draw counts and order (docs/method.md §7.2: the counts are drawn in SQL)."""

from __future__ import annotations

from abcde.inputs.session import Inputs
from abcde.sampling.clocks import check_count, check_seed
from abcde.sampling.items import (
    ITEM_COLUMNS,
    ITEM_MANIFEST_COLUMNS,
    add_affected_items,
    add_item_sample_steps,
)
from abcde.sampling.pairs import attribute_names
from abcde.sql.pipeline import Pipeline
from abcde.warehouse.scripts import (
    Output,
    ScriptSpec,
    _check_unshadowed,
    build_cells,
    flag_in_place,
)

ITEM_SAMPLE_DOC = ("The item sample (ABCDE §4.1.1): affected items drawn with replacement "
                   "∝ weight·JaccardDistance, one row per unique item in order of first "
                   "draw, with its draw count, importance weight dc/Σdc·JD(T)/JD(i), impact "
                   "metrics and attributes. `abcde explore` reads it exported as a file.")
ITEM_MANIFEST_DOC = ("The sample's manifest (one row): seed, size, unique items, draws, the "
                     "exact impact metrics over T, the fingerprint of the cells (fp_*) and "
                     "of the sample (digests), and its sample_id.")


def sample_items_pipeline(spec: ScriptSpec, size: int, seed: int,
                          relations: dict[str, str] | None = None,
                          ) -> tuple[Pipeline, Inputs, list[Output]]:
    """The item sample over named tables: the cells (or the round's, `reuse_cells`), the
    affected items (a second pass over the inputs restricted to affected cells), the
    clock, the draw counts, the sample and its one-row manifest (App. A;
    docs/method.md §7.1–7.3)."""
    size = check_count("size", size)
    seed = check_seed(seed)
    cells = build_cells(spec, relations, "item")
    pipeline, inputs = cells.pipeline, cells.inputs
    add_affected_items(pipeline, inputs)
    attrs = attribute_names(inputs, ITEM_COLUMNS)
    add_item_sample_steps(pipeline, inputs, size, seed, attrs)
    flag_in_place(cells, "item_sample", (*ITEM_COLUMNS, *(o for _, o in attrs)),
                  ITEM_SAMPLE_DOC)
    flag_in_place(cells, "item_manifest", ITEM_MANIFEST_COLUMNS, ITEM_MANIFEST_DOC)
    if relations is None:
        _check_unshadowed(spec, pipeline)
    return pipeline, inputs, cells.outputs
