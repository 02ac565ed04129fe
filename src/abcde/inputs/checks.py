"""Input checks, all answered from `cell_rows` (the one aggregation of the one join)
plus one cheap pass over each input; example ids are fetched only for a check that
failed. docs/method.md §1: bad input is refused with a message naming the table, the column and
example ids — never a wrong number.

Most checks cost nothing per row: a NULL cluster id of T is a NULL group key, an item
of T without a weight is a row the weights table did not match (DERIVED). Bad weights
are bounded by a count over each weighted input alone; only when that count is > 0 is
the join searched for the rows that meet an item (GATED).

Repeated ids are found without a GROUP BY over every input: the join repeats an item's
rows once per matching row of the other inputs, so the base rows it sees exceed the
rows of base exactly when exp, weights or attributes repeat an id that base holds
(and likewise for exp); an id of only one clustering repeated there forms groups of
more than one row in all in `cell_rows`. Only then does the slow per-input GROUP BY
run, to name the input and the ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from abcde.engines.base import Engine
from abcde.errors import InputError, Shown
from abcde.inputs.session import Inputs
from abcde.inputs.spec import WEIGHT_RANGE_TEXT, WEIGHT_SCALE_HINT
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render

EXAMPLES = 10
WEIGHT_HINT = "Weights must be finite numbers > 0. " + WEIGHT_SCALE_HINT
# worded by item: the examples that follow are item ids, which read as weights after
# "weight(s) are ... zero" when the ids are numbers ("examples: '0', '10'")
BAD_WEIGHT = ("{n} item(s) have a weight that is NULL, NaN, infinite, zero, negative or "
              "outside " + WEIGHT_RANGE_TEXT)


@dataclass(frozen=True)
class Check:
    """A row-level check of validation/checks.sql and how to word its failure."""

    name: str
    side: str  # the input at fault: base, exp, weights, attributes, base+exp
    column: str
    message: str
    hint: str


def checks(inputs: Inputs) -> list[Check]:
    cols = inputs.columns
    # a truth's item without a cluster is unlabelled: a singleton cluster would label it
    # (and count every run that groups it with others as wrong); its row goes
    unlabelled = ("An item the truth does not label has no row in it: drop the rows "
                  "without a cluster (run items the truth lacks are left out of the "
                  "metrics).")
    out = [Check(f"null_cluster_{side}", side, cols.cluster,
                 "{n} item(s) have a NULL cluster id",
                 unlabelled if getattr(inputs, side).role == "truth" else
                 "Give every item a cluster (a singleton cluster id of its own, if alone).")
           for side in ("base", "exp")]
    if inputs.weights is not None:
        out.append(Check("bad_weight_weights", "weights", cols.weight, BAD_WEIGHT,
                         WEIGHT_HINT))
        if inputs.missing_weight is None:
            out.append(Check("missing_weight", "weights", cols.item,
                             "lacks {n} item(s) present in both clusterings",
                             "Add their weights, or pass --missing-weight 1 to give them "
                             "weight 1."))
    for side, used in (("base", inputs.base_weight), ("exp", inputs.exp_weight)):
        if used:
            out.append(Check(f"bad_weight_{side}", side, cols.weight, BAD_WEIGHT,
                             WEIGHT_HINT))
    if inputs.base_weight and inputs.exp_weight:
        out.append(Check("weight_mismatch", "base+exp", cols.weight,
                         "{n} item(s) have different weights in the two clusterings",
                         "Give one weights table with --weights."))
    return out


def check_names(inputs: Inputs) -> list[str]:
    """Every check of the input (failures and coverage alike)."""
    extra = ["without_attributes"] if inputs.attributes is not None else []
    return [c.name for c in checks(inputs)] + extra


# Checks read off the keys and row counts of `cell_rows` (validation/counts.sql).
DERIVED = ("null_cluster_base", "null_cluster_exp", "missing_weight", "without_attributes")
# Checks of one input's weights: a cheap count over that input alone bounds them
# (validation/input_counts.sql); the join is searched only when the bound is > 0.
GATED = {"bad_weight_base": "base", "bad_weight_exp": "exp", "bad_weight_weights": "weights"}


def derived_checks(inputs: Inputs) -> list[str]:
    return [n for n in check_names(inputs) if n in DERIVED]


def row_checks(inputs: Inputs, *, with_examples: bool) -> list[str]:
    """Checks that `cell_rows` counts row by row: GATED ones too when examples are kept
    (a script cannot take the slow path)."""
    return [n for n in check_names(inputs)
            if n not in DERIVED and (with_examples or n not in GATED)]


def nan_for_missing(inputs: Inputs, *, with_examples: bool = False) -> bool:
    """Whether an item the weights table lacks weighs NaN in `items`: then a cell with
    such an item has a NaN weight sum, and the missing-weight check is read off
    `cell_rows` without counting matched rows one by one (the slow path names them).
    Not in scripts, which count every check row by row."""
    return inputs.weights is not None and inputs.missing_weight is None and not with_examples


def counts_weight_rows(inputs: Inputs, *, with_examples: bool = False) -> bool:
    """Whether `cell_rows` counts the rows the weights table matched (`weight_rows`)."""
    return inputs.weights is not None and not nan_for_missing(inputs,
                                                              with_examples=with_examples)


def weighted_inputs(inputs: Inputs) -> list[str]:
    """Inputs with a weight column, whose weights input_counts.sql bounds."""
    return [side for name, side in GATED.items() if name in check_names(inputs)]


def add_count_steps(pipeline: Pipeline, inputs: Inputs, *, with_examples: bool) -> list[str]:
    """validation_counts over the `cell_rows` of cells.add_item_steps(with_examples),
    and input_counts unless the pipeline has it (abcde.cells.build_cell_rows adds it
    first); with `with_examples` (a script), input_counts also counts the ids repeated
    in each side input, with an example. Returns the names of every input."""
    pipeline.add("validation_counts", render(
        "validation/counts.sql", derived=derived_checks(inputs),
        weights_table=inputs.weights is not None,
        weight_rows=counts_weight_rows(inputs, with_examples=with_examples),
        defaulted=inputs.weights is not None and inputs.missing_weight is not None,
        attributes_table=inputs.attributes is not None,
        row_checks=row_checks(inputs, with_examples=with_examples)))
    return add_input_counts(pipeline, inputs,
                            repeats=side_inputs(inputs) if with_examples else ())


def add_input_counts(pipeline: Pipeline, inputs: Inputs, *, id_sums: bool = False,
                     repeats: Sequence[str] = ()) -> list[str]:
    """The step input_counts (validation/input_counts.sql), unless the pipeline has it;
    with `id_sums`, also the ids and id hash sums of the two clusterings
    (abcde.cells.same_ids); for the inputs in `repeats`, also the ids on more than one
    row and the least of them (`repeated_ids`, `repeated_example`). Returns the names of
    every input."""
    all_inputs = ["base", "exp", *side_inputs(inputs)]
    if "input_counts" not in pipeline.steps:
        pipeline.add("input_counts", render("validation/input_counts.sql", inputs=all_inputs,
                                            weighted=weighted_inputs(inputs), id_sums=id_sums,
                                            repeats=list(repeats),
                                            item_type=inputs.item_type))
    return all_inputs


def side_inputs(inputs: Inputs) -> list[str]:
    return [n for n, s in (("weights", inputs.weights), ("attributes", inputs.attributes))
            if s is not None]


def validate(engine: Engine, pipeline: Pipeline, inputs: Inputs,
             input_rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Refuse bad input. Returns counts for the coverage report: `common` (|T|),
    `without_attributes`, `defaulted_weight` (items of T given --missing-weight) and, per
    side input, `unused_<input>` (rows matching no item). `input_rows`: the rows of
    input_counts when the caller fetched them already (abcde.cells.build_cell_rows)."""
    labels = {"base": inputs.base.label, "exp": inputs.exp.label,
              "base+exp": f"{inputs.base.label} and {inputs.exp.label}"}
    labels.update({n: getattr(inputs, n).label for n in side_inputs(inputs)})
    all_inputs = add_count_steps(pipeline, inputs, with_examples=False)
    counts = {k: int(v or 0) for k, v in pipeline.fetch(engine, "validation_counts")[0].items()}
    if input_rows is None:
        input_rows = pipeline.fetch(engine, "input_counts")
    rows = {r["input"]: r for r in input_rows}

    empty = [InputError("is empty (no rows)", table=labels[name],
                        hint="Check the file or table name.")
             for name in all_inputs if int(rows[name]["input_rows"]) == 0]
    if empty:
        # every other count of an empty input is moot (an empty weights table lacks
        # every item; empty attributes would give every item a NULL slice)
        raise combine(empty)
    errors: list[InputError] = []
    null_ids = {"base": counts["null_item_base"], "exp": counts["null_item_exp"]}
    null_ids.update({n: int(rows[n]["null_ids"]) for n in side_inputs(inputs)})
    for name, n in null_ids.items():
        if n:
            errors.append(InputError(f"{n} row(s) have a NULL item id", table=labels[name],
                                     column=inputs.columns.item,
                                     hint="Every row needs an item id."))
    repeated = (counts["repeated_one_side"] > 0
                or counts["joined_base_rows"] != int(rows["base"]["input_rows"])
                or counts["joined_exp_rows"] != int(rows["exp"]["input_rows"]))
    if repeated:
        # The join multiplies a repeated id's rows, so the other counts would be off:
        # report the repeats alone; the remaining checks run once they are fixed.
        errors += _duplicates(engine, pipeline, inputs, labels, all_inputs)
    else:
        for name, side in GATED.items():
            if name in check_names(inputs):
                bound = int(rows[side]["bad_weights"] or 0)
                counts[name] = _count(engine, pipeline, name) if bound else 0
        if nan_for_missing(inputs) and counts.get("missing_weight"):
            # a bound (cells whose weight sum is not finite): count the items
            counts["missing_weight"] = _count(engine, pipeline, "missing_weight")
        for check in checks(inputs):
            if counts[check.name]:
                errors.append(_failed(engine, pipeline, check, counts[check.name], labels))
    result: dict[str, Any] = {"common": counts["common_rows"],
                              "without_attributes": counts.get("without_attributes", 0),
                              "defaulted_weight": counts.get("defaulted_weight", 0)}
    for name in side_inputs(inputs):
        matched = counts[f"matched_{name[:-1]}_rows"]
        result[f"unused_{name}"] = (int(rows[name]["input_rows"]) - int(rows[name]["null_ids"])
                                    - matched)
    if not errors and counts["common_rows"] == 0:
        errors.append(_nothing_in_common(engine, pipeline, inputs, labels))
    if errors:
        raise combine(errors)
    return result


def _nothing_in_common(engine: Engine, pipeline: Pipeline, inputs: Inputs,
                       labels: dict[str, str]) -> InputError:
    """Two clusterings without a common id, with examples of each one's ids: the
    difference is usually their format (7.0 vs 7, 007 vs 7, 'item_7' vs 7)."""
    pipeline.add("coverage", render("impact/coverage.sql", limit=3))
    shown = {r["side"]: [r[f"example_{k}"] for k in (1, 2, 3) if r[f"example_{k}"] is not None]
             for r in pipeline.fetch(engine, "coverage")}
    ids = "; ".join(f"{labels[side]} has e.g. {', '.join(map(repr, shown.get(side, [])))}"
                    for side in ("base", "exp"))
    hint = ("Both clusterings must cluster the same items (check --item-col and the id "
            "format, e.g. 7 vs 'item_7').")
    # pandas writes an integer column holding a blank as floats: 7 becomes 7.0
    decimal = [labels[side] for side, examples in shown.items()
               if examples and all(re.fullmatch(r"-?\d+\.0+", str(e)) for e in examples)]
    if decimal:
        hint += (f" The ids of {' and '.join(decimal)} are written as decimals (7.0), as "
                 "pandas writes an integer column holding a blank: write them as integers.")
    return InputError(f"{labels['base']} and {labels['exp']} have no item id in common "
                      f"({ids})", column=inputs.columns.item, hint=hint)


def coverage_report(engine: Engine, pipeline: Pipeline, inputs: Inputs, overall: dict[str, Any],
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
        # `weight` is a total, like every other coverage entry's; the per-item value
        # (the option) is `missing_weight`
        n = int(checked["defaulted_weight"])
        report["given_missing_weight"] = {"items": n,
                                          "weight": n * float(inputs.missing_weight),
                                          "missing_weight": float(inputs.missing_weight)}
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


def _count(engine: Engine, pipeline: Pipeline, check: str) -> int:
    """Rows of the join failing `check` (the slow path)."""
    step = f"count_{check}"
    pipeline.add(step, render("validation/check_count.sql", check=check))
    return int(pipeline.fetch(engine, step)[0]["n"] or 0)


def examples(engine: Engine, pipeline: Pipeline, check: str) -> list[Any]:
    """Up to EXAMPLES example ids of a check, looked up in the join (failure path)."""
    step = f"examples_{check}"
    if step not in pipeline.steps:
        pipeline.add(step, render("validation/examples.sql", check=check, limit=EXAMPLES))
    return [r["item_id"] for r in pipeline.fetch(engine, step)]


def unmatched(engine: Engine, pipeline: Pipeline, name: str) -> list[Any]:
    """Up to EXAMPLES ids of side input `name` that are in neither clustering."""
    step = f"unmatched_{name}"
    pipeline.add(step, render("validation/unmatched.sql", input=name, limit=EXAMPLES))
    return [r["item_id"] for r in pipeline.fetch(engine, step)]


def _failed(engine: Engine, pipeline: Pipeline, check: Check, n: int,
            labels: dict[str, str]) -> InputError:
    return InputError(check.message.format(n=n), table=labels[check.side],
                      column=check.column, examples=examples(engine, pipeline, check.name),
                      hint=check.hint)


def _duplicates(engine: Engine, pipeline: Pipeline, inputs: Inputs,
                labels: dict[str, str], names: list[str]) -> list[InputError]:
    """Name the inputs that repeat an id, with example ids (the slow path)."""
    what = {"base": "a clustering puts each item in exactly one cluster",
            "exp": "a clustering puts each item in exactly one cluster",
            "weights": "one weight per item", "attributes": "one row per item"}
    errors = []
    for name in names:
        step = f"duplicates_{name}"
        clustering = name in ("base", "exp")
        pipeline.add(step, render("validation/duplicates.sql", input=name, limit=EXAMPLES,
                                  clusters=clustering))
        rows = pipeline.fetch(engine, step)
        if rows:
            # rows of one item in different clusters are no mere duplicates: which one?
            split = [r for r in rows if clustering and int(r["clusters"]) > 1]
            hint = "Remove the duplicate rows."
            if split:
                hint = ("Remove the duplicate rows; an item on rows of different clusters "
                        "must be put in one of them.")
            errors.append(InputError(
                f"{rows[0]['repeated_ids']} item id(s) appear on more than one row; "
                f"{what[name]}", table=labels[name],
                column=inputs.columns.item,
                examples=[Shown(f"{r['item_id']!r} ({r['item_rows']} rows)"
                                + (f" in {r['clusters']} clusters" if r in split else ""))
                          for r in rows],
                hint=hint))
    return errors


def combine(errors: list[InputError]) -> InputError:
    """One error listing every problem found, so a user fixes them in one round."""
    if len(errors) == 1:
        return errors[0]
    message = f"{len(errors)} problems with the input:\n- " + "\n- ".join(
        str(e).replace("\n", "\n  ") for e in errors)
    return InputError(message)
