"""Standalone SQL for warehouses abcde cannot connect to: the impact pipeline (ABCDE §4;
docs/method.md §2–3) written for one dialect as a script (`abcde sql impact`) or as dbt models
(`abcde dbt`), with the inputs named as tables.

Without an engine the types of the inputs are unknown, so they are declared: item and
cluster ids are `string` (default) or `integer` (`--item-type`, `--cluster-type`); slice
attributes are read as strings. The row-level input checks of `abcde.inputs.checks` become
the `validation` table, and every output table carries its verdict `input_valid`
(a script cannot refuse input the way `abcde impact` does, but it never shows metrics of
invalid input without the flag).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
import shlex
import textwrap
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from sqlglot import exp

from abcde.cells import IMPACT_METRICS, add_cell_steps, add_item_steps
from abcde.errors import InputError
from abcde.inputs.checks import EXAMPLES, add_count_steps, checks, side_inputs
from abcde.inputs.session import Attribute, Inputs
from abcde.inputs.sources import ID_TYPES, Source
from abcde.inputs.spec import WEIGHT_RANGE_TEXT, InputSpec, check_options, check_slice_names
from abcde.sql.dialects import DIALECTS, get_dialect, to_sql
from abcde.sql.pipeline import Pipeline, Step
from abcde.sql.quoting import CANONICAL_DIALECT, table_ref
from abcde.sql.templates import render
from abcde.version import __version__

ID_KINDS = ("string", "integer")
OVERALL_COLUMNS = ("items", "weight", "affected_items", "affected_weight", *IMPACT_METRICS,
                   "affected_jaccard_index", "unaffected_jaccard_index")
GROUP_METRICS = ("items", "weight", "affected_items", "affected_weight", *IMPACT_METRICS,
                 "contribution")
CLUSTER_COLUMNS = ("cluster_id", "items", "weight", "cells", "affected_items",
                   "affected_weight", *IMPACT_METRICS, "contribution")
COVERAGE_COLUMNS = ("side", "items", "weight", "items_without_weight",
                    *(f"example_{k}" for k in range(1, EXAMPLES + 1)))


@dataclass(frozen=True)
class ScriptSpec(InputSpec):
    """What a standalone script reads and writes: the inputs as warehouse table names
    (an `InputSpec` whose sources are names), the types their ids are CAST to (no
    engine looks at the tables), and where the created tables go (`prefix`, `schema`).
    `reuse_cells`: read the cell tables an earlier script of the round made under the
    same prefix and schema instead of joining the inputs again (`build_cells`)."""

    base: str = ""
    exp: str = ""
    weights: str | None = None
    attributes: str | None = None
    item_type: str = "string"
    cluster_type: str = "string"
    prefix: str = "abcde_"
    schema: str | None = None
    reuse_cells: bool = False

    def tables(self) -> dict[str, str]:
        """Input role -> table name, for the inputs given."""
        named = {"base": self.base, "exp": self.exp, "weights": self.weights,
                 "attributes": self.attributes}
        return {k: v for k, v in named.items() if v}

    def option(self, role: str) -> str:
        """The option that names the input `role` (an evaluation's base is --truth, its
        exp --actual: `roles`)."""
        return "--" + {"base": self.roles[0], "exp": self.roles[1]}.get(role, role)

    def names(self) -> dict[str, str]:
        """Every name the SQL will contain, by the option that gave it."""
        out = {self.option(role): name for role, name in self.tables().items()}
        out |= {"--item-col": self.columns.item, "--cluster-col": self.columns.cluster,
                "--prefix": self.prefix}
        if self.weights:
            out["--weight-col"] = self.columns.weight
        if self.schema is not None:
            out["--schema"] = self.schema
        for k, column in enumerate(dict.fromkeys(c for s in self.slicings for c in s)):
            out[f"--slice-by ({k + 1})"] = column
        return out


@dataclass(frozen=True)
class Output:
    """A table the script creates: its step, columns and what it holds."""

    step: str
    columns: tuple[str, ...]
    doc: str


def _check_names(spec: ScriptSpec) -> None:
    """Names reach the SQL quoted, and its header comment as text: a line break there
    would end the comment and run the rest of the name as SQL, so control characters
    (and invisible format characters) are refused in every name."""
    for role, name in (("base", spec.base), ("exp", spec.exp), ("weights", spec.weights),
                       ("attributes", spec.attributes)):
        if name is None or (role in ("weights", "attributes") and name == ""):
            continue
        parts = name.split(".")
        option = spec.option(role)
        if not name.strip() or not all(p.strip() for p in parts):
            raise InputError(f"{option} {name!r} is not a table name (an empty part)",
                             hint="Name the table as table, schema.table or "
                                  "database.schema.table.")
        if len(parts) > 3:
            raise InputError(f"{option} {name!r} has {len(parts)} parts; a table is named "
                             "by at most three (database.schema.table)",
                             hint="A '.' separates the parts: a table whose own name holds "
                                  "one cannot be named here; create a view without it.")
    _refuse_quoted(spec)
    for option, name in spec.names().items():
        bad = [c for c in name if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
        if bad:
            raise InputError(f"{option} {name!r} contains the control character "
                             f"{bad[0]!r}", hint="Names may not hold line breaks or other "
                             "control characters.")
        if option not in ("--prefix", "--schema") and not name:
            raise InputError(f"{option} may not be empty")
    if "." in spec.prefix:
        raise InputError(f"--prefix {spec.prefix!r} may not contain '.'",
                         hint="Give the schema of the created tables with --schema.")
    if spec.schema is not None and not all(p.strip() for p in spec.schema.split(".")):
        raise InputError(f"--schema {spec.schema!r} is not a schema name (an empty part)")
    if spec.schema is not None and spec.schema.count(".") > 1:
        raise InputError(f"--schema {spec.schema!r} has more than two parts "
                         "(database.schema)")


_QUOTES = (('"', '"'), ("`", "`"), ("[", "]"))


def _quoted(text: str) -> bool:
    """Whether `text` is wrapped in one pair of SQL quotes ("x", `x`, [x])."""
    return len(text) >= 2 and any(text[0] == a and text[-1] == b for a, b in _QUOTES)


def _refuse_quoted(spec: ScriptSpec) -> None:
    """Refuse a name given with quotes: "raw"."base", or `proj.ds.base` as the BigQuery
    console shows it. The quotes would be read as part of the names, a table no
    warehouse holds (the script failed only when run). A part wrapped in quotes, or the
    whole name, is refused; a quote inside a part (s."we"ird) is a character of the name,
    which abcde escapes."""
    for option, name in spec.names().items():
        dotted = not option.startswith(("--item-col", "--cluster-col", "--weight-col",
                                        "--slice-by", "--prefix"))
        parts = name.split(".") if dotted else [name]
        if _quoted(name) or any(_quoted(p) for p in parts):
            bare = ".".join(p.strip('"`[]') for p in parts)
            raise InputError(f"{option} {name!r} is written with quotes: abcde quotes every "
                             "name itself, and would read the quotes as part of it",
                             hint=f"Give the name without quotes, e.g. {option} {bare} "
                                  "(docs/warehouse.md, Names).")


def _valid_example(name: str) -> str:
    """A valid name like `name`, for a message: ASCII letters, digits and _ only."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)[:20] or "abcde_"


def check_dialect_names(spec: ScriptSpec, dialect: str) -> None:
    """Names a target cannot hold: the schema and prefix of the tables the script
    creates (`Dialect.name_rule`: Spark's catalog and BigQuery's datasets take letters,
    digits and _ only), and column names with a character the dialect forbids
    (`Dialect.column_name_forbidden`; on BigQuery the SQL would name a field of a
    STRUCT, or not parse)."""
    target = get_dialect(dialect)
    _refuse_quoted(spec)  # before the dialect's rules, which a quote breaks too
    for role, name in spec.tables().items():
        rule = target.input_table_rule(name.split("."))
        if rule:
            raise InputError(f"{spec.option(role)} {name!r}: {rule}",
                             hint=f"Name the table as {target.title} SQL names it.")
    if spec.schema:
        rule = target.name_rule(spec.schema.split(".")[-1], "schema")
        if rule:
            parts = spec.schema.split(".")
            valid = ".".join([*parts[:-1], _valid_example(parts[-1])])
            raise InputError(f"--schema {spec.schema!r}: {rule}",
                             hint=f"Give a schema so named, e.g. --schema {valid}.")
    rule = target.name_rule(spec.prefix, "table") if spec.prefix else None
    if rule:
        raise InputError(f"--prefix {spec.prefix!r}: {rule}",
                         hint=f"Give a prefix so named, e.g. --prefix "
                              f"{_valid_example(spec.prefix)}.")
    if not target.column_name_forbidden:
        return
    for option, name in spec.names().items():
        if not option.startswith(("--item-col", "--cluster-col", "--weight-col",
                                  "--slice-by")):
            continue
        bad = sorted({c for c in name if c in target.column_name_forbidden})
        if bad:
            raise InputError(f"{option} {name!r}: {target.title} column names cannot hold "
                             f"{' '.join(repr(c) for c in bad)}",
                             hint="Rename the column (letters, digits and underscores are "
                                  "always safe) or select it under another name in a view.")


def check_created_names(spec: ScriptSpec, dialect: str, pipeline: Pipeline,
                        names: Sequence[str] | None = None) -> None:
    """Every table the pipeline creates (or `names`: dbt's models), prefix and step,
    must be a name the target can create (`Dialect.name_rule`: e.g. at most 63 bytes on
    PostgreSQL, which would cut a longer one short); the message names --prefix, and
    the run name of an evaluation's pipeline."""
    target = get_dialect(dialect)
    if names is None:
        names = [f"{pipeline.prefix}{n}" for n, st in pipeline.steps.items()
                 if st.materialise and n not in pipeline.provided]
    run = pipeline.prefix[len(spec.prefix):].rstrip("_")
    for name in names:
        rule = target.name_rule(name, "table")
        if rule:
            given = f"--prefix {spec.prefix!r}" + (f" with run name {run!r}" if run else "")
            raise InputError(f"{given} makes the table name {name!r}: {rule}",
                             hint=f"Give a shorter --prefix{' or run name' if run else ''}"
                                  f", e.g. --prefix {_valid_example(spec.prefix)[:8]}.")


def _inputs(spec: ScriptSpec, relations: dict[str, str] | None = None) -> Inputs:
    for kind, value in (("--item-type", spec.item_type), ("--cluster-type", spec.cluster_type)):
        if value not in ID_KINDS:
            raise InputError(f"{kind} must be one of {', '.join(ID_KINDS)}, not {value!r}")
    _check_names(spec)
    # the option checks of `abcde impact` (abcde.inputs.session.open_inputs), same messages
    check_options(spec.columns, spec.weights, spec.missing_weight)
    if spec.slicings and not spec.attributes:
        raise InputError("slices need an attributes table", hint="Add --attributes TABLE.")
    cols = spec.columns
    item_t, cluster_t = ID_TYPES[spec.item_type], ID_TYPES[spec.cluster_type]

    def source(role: str, name: str, columns: dict[str, str]) -> Source:
        relation = relations[role] if relations else table_ref(name)
        return Source(role, f"{role} ({name})", relation, columns)

    base = source("base", spec.base, {cols.item: item_t, cols.cluster: cluster_t})
    exp = source("exp", spec.exp, {cols.item: item_t, cols.cluster: cluster_t})
    weights = (source("weights", spec.weights, {cols.item: item_t, cols.weight: "DOUBLE"})
               if spec.weights else None)
    names = list(dict.fromkeys(c for s in spec.slicings for c in s))
    attributes = (source("attributes", spec.attributes,
                         {cols.item: item_t, **dict.fromkeys(names, "VARCHAR")})
                  if spec.attributes else None)
    # read as text by slice_text (inputs/attributes.sql): the same key on every target
    attrs = [Attribute(n, f"s_{k}", "SLICE_TEXT") for k, n in enumerate(names)]
    return Inputs(base, exp, weights, attributes, cols, item_t, cluster_t, cluster_t,
                  False, False, spec.missing_weight, attrs)


def _failures(inputs: Inputs) -> list[tuple[str, str]]:
    """(column, SQL over `v` = validation_counts and `ic` = input counts) of each check
    that refuses the input in `abcde impact`; > 0 means failed."""
    null_ids = " + ".join(["COALESCE(v.null_item_base, 0)", "COALESCE(v.null_item_exp, 0)",
                           *(f"ic.{n}_null_ids" for n in side_inputs(inputs))])
    out = [("empty_base", "CASE WHEN ic.base_rows = 0 THEN 1 ELSE 0 END"),
           ("empty_exp", "CASE WHEN ic.exp_rows = 0 THEN 1 ELSE 0 END"),
           # `abcde impact` refuses an empty side table too (even with --missing-weight):
           # it would weigh every item --missing-weight, or give every item a NULL slice
           *((f"empty_{n}", f"CASE WHEN ic.{n}_rows = 0 THEN 1 ELSE 0 END")
             for n in side_inputs(inputs)),
           ("null_item_ids", null_ids),
           ("repeated_item_ids",
            "CASE WHEN COALESCE(v.repeated_one_side, 0) > 0"
            " OR COALESCE(v.joined_base_rows, 0) <> ic.base_rows"
            " OR COALESCE(v.joined_exp_rows, 0) <> ic.exp_rows THEN 1 ELSE 0 END")]
    out += [(c.name, f"COALESCE(v.{c.name}, 0)") for c in checks(inputs)]
    out.append(("no_common_items", "CASE WHEN COALESCE(v.common_rows, 0) = 0 THEN 1 ELSE 0 END"))
    return out


CELL_STEPS = ("cell_rows", "validation", "cells", "cell_metrics", "cells_key")
# Columns of a script's tables besides the metrics, which no slice column may be named
# (check_slice_names words its refusal with what each one is): not a metric's name
VERDICT_COLUMN = {"input_valid": "the column of the script's validation verdict, in its "
                                 "validation row and in every output table"}


@dataclass
class Cells:
    """The cell part of a script (`build_cells`): the pipeline, the inputs, the outputs
    so far and the step every output's `input_valid` comes from."""

    pipeline: Pipeline
    inputs: Inputs
    outputs: list[Output]
    validation: str
    slice_steps: list[str]


def _cells_digest(spec: ScriptSpec, relations: dict[str, str] | None) -> str:
    """The SQL digest of the cells (`Pipeline.digest` of cell_metrics) as they are made
    without slices: the slice attributes add columns to cell_rows, not cells, so cells
    made with any --slice-by serve a script that reads no slice (cells_key's
    slice_attributes says which it may read)."""
    inputs = _inputs(replace(spec, slicings=()), relations)
    pipeline = Pipeline(prefix=spec.prefix, schema=spec.schema)
    add_item_steps(pipeline, inputs, with_examples=True, squares=True)
    add_cell_steps(pipeline, inputs, (), squares=True)
    return pipeline.digest("cell_metrics")[:16]


def build_cells(spec: ScriptSpec, relations: dict[str, str] | None = None,
                kind: str = "impact", *, reads_slices: bool = True) -> Cells:
    """The one join of the inputs and its aggregation into cells (docs/method.md §2), with
    the validation row and the round's key `cells_key` (script/cells_key.sql: the SQL
    digest of the cells and a fingerprint of each input), materialised.

    With `spec.reuse_cells` the cell tables are those an earlier script of the round
    made under the same prefix and schema: they are read, not made (one pass over the
    inputs per round — a warehouse bills every scan), and this script's validation row
    `<kind>_validation` adds `cells_match`, whether they were made from these inputs (the
    same digest and fingerprint, computed again by one scan of each input, without the
    join); cells of other inputs set input_valid FALSE. A script that `reads_slices`
    (per-slice tables of its --slice-by) needs cells made with the same slice attributes
    (cell_rows holds them as s_0, s_1, …): its guard stops it otherwise, saying which."""
    inputs = _inputs(spec, relations)
    pipeline = Pipeline(prefix=spec.prefix, schema=spec.schema)
    # Σw² per cell (squares) for the pair sampler's exact self parts: every script of a
    # round makes the same cells, whichever comes first
    add_item_steps(pipeline, inputs, with_examples=True, squares=True)
    all_inputs = add_count_steps(pipeline, inputs, with_examples=True)
    failures = _failures(inputs)
    examples = [c.name for c in checks(inputs)]
    # counts that are no error, as `abcde impact` reports them (abcde.inputs.checks):
    # items of T without attributes, and rows of a side input matching no item of either
    # clustering (its rows less NULL ids less the rows the join matched; no example id:
    # that would take one more join of the side input with both clusterings)
    coverage = [("without_attributes", "COALESCE(v.without_attributes, 0)")
                ] if inputs.attributes is not None else []
    coverage += [(f"unused_{n}", f"ic.{n}_rows - ic.{n}_null_ids"
                                 f" - COALESCE(v.matched_{n[:-1]}_rows, 0)")
                 for n in side_inputs(inputs)]
    # which side input repeats which id (input_counts counts them): repeated_item_ids
    # says only that some input does
    repeats = side_inputs(inputs)
    pipeline.add("validation", render("script/validation.sql", inputs=all_inputs,
                                      failures=failures, examples=examples,
                                      repeats=repeats, coverage=coverage), materialise=True)
    validation_columns = ("items_in_both", *(f"{n}_rows" for n in all_inputs),
                          *(n for n, _ in failures), *(f"{n}_example" for n in examples),
                          *(c for n in repeats
                            for c in (f"repeated_ids_{n}", f"repeated_ids_{n}_example")),
                          *(n for n, _ in coverage), "input_problems", "input_valid")
    slice_steps = add_cell_steps(pipeline, inputs, spec.slicings, squares=True)
    if relations is None:  # an input named like a step would make the digest circular
        _check_unshadowed(spec, pipeline)
    fingerprinted = _fingerprints(inputs, all_inputs)
    digest = _cells_digest(spec, relations)
    # the inputs and checks that fix the columns of cells_key and validation
    shape = "+".join(all_inputs) + "/" + hashlib.md5(
        ",".join(validation_columns).encode()).hexdigest()[:8]
    # the slice attributes of cell_rows, in the order of their columns s_0, s_1, …: as
    # text, made exact by the hash of the list (a name may hold ', ')
    names = [a.name for a in inputs.attribute_columns]
    attributes = (", ".join(names) or "none") + " (" + hashlib.md5(
        json.dumps(names).encode()).hexdigest()[:8] + ")"
    key = render("script/cells_key.sql", inputs=fingerprinted, digest=digest, shape=shape,
                 attributes=attributes)
    pipeline.add("cells_key", key, materialise=True)
    doc = ("Input checks (one row): counts of each problem over the whole input, an example "
           "id per failed row-level check, and input_valid.")
    if not spec.reuse_cells:
        outputs = [Output("validation", validation_columns, doc)]
        return Cells(pipeline, inputs, outputs, "validation", slice_steps)
    pipeline.provided.update(CELL_STEPS)
    _add_cells_exist(spec, pipeline, kind)
    pipeline.add("cells_key_now", key)
    message = ("abcde --reuse-cells: the cell tables under this --prefix/--schema were made "
               "by a script with other inputs or checks (a weights or attributes table, "
               "--missing-weight): run that script again with this one's input options, "
               f"or this one without --reuse-cells (this script: {shape}; the tables: ")
    slices = ("abcde --reuse-cells: the cell tables under this --prefix/--schema hold the "
              "slice attributes of another --slice-by, and this script reads per-slice "
              "cells of its own: give it the --slice-by of the script that made them (or "
              "none), or run it without --reuse-cells (this script: "
              f"{attributes}; the tables: ")
    pipeline.add(f"{kind}_cells_guard", render(
        "script/cells_guard.sql", shape=shape, message=message,
        attributes=attributes if reads_slices and spec.slicings else None,
        slices_message=slices), materialise=True)
    name = f"{kind}_validation"
    pipeline.add(name, render("script/cells_check.sql", inputs=all_inputs,
                              values=reads_slices and bool(spec.slicings),
                              columns=validation_columns[:-2]), materialise=True)
    outputs = [Output(name, (*validation_columns[:-2], "cells_match", "input_problems",
                             "input_valid"),
                      "Input checks (one row), as the earlier script of the round counted "
                      "them, cells_match (1 when the round's cell tables were made from "
                      "these inputs) and input_valid.")]
    return Cells(pipeline, inputs, outputs, name, slice_steps)


def _add_cells_exist(spec: ScriptSpec, pipeline: Pipeline, kind: str) -> None:
    """The first statement of a script that reuses the round's cells: stop with abcde's
    message naming the cell tables missing under this --prefix/--schema and the command
    that makes them (script/cells_exist.sql), not the warehouse's "does not exist". Only
    where the target has an information_schema (`Dialect.table_exists`): not on Spark,
    whose header says what to run first."""
    parts = spec.schema.split(".") if spec.schema else []
    catalog, schema = ["", "", *parts][-2:]
    tables = [(catalog, schema, f"{spec.prefix}{step}",
               ".".join(p for p in (catalog, schema, f"{spec.prefix}{step}") if p))
              for step in CELL_STEPS]
    where = f"--prefix {shlex.quote(spec.prefix)}" + (
        f" --schema {shlex.quote(spec.schema)}" if spec.schema else "")
    message = ("abcde --reuse-cells: the cell tables of the round do not exist under "
               f"{where}; missing: ")
    advice = (f". Make them first: run `abcde sql impact` with {where} and this script's "
              "input options (or the round's first script, without --reuse-cells), or run "
              "this script without --reuse-cells.")
    targets = frozenset(d for d in DIALECTS if get_dialect(d).table_exists(None, "s", "t"))
    pipeline.add(f"{kind}_cells_exist", render("script/cells_exist.sql", tables=tables,
                                               message=message, advice=advice),
                 materialise=True, dialects=targets)


def _fingerprints(inputs: Inputs, names: Sequence[str],
                  ) -> list[tuple[str, list[str], list[str] | None]]:
    """(input, columns, value columns) of each input's fingerprint in cells_key: the columns
    of its `<name>_in` step that make the cells, cast to text (NULL as '~'); for the
    attributes, when cell_rows holds slice attributes, also their values (with the item
    id), which only a script that reads per-slice cells compares."""
    columns = {"base": ["item_id", "cluster_id"], "exp": ["item_id", "cluster_id"],
               "weights": ["item_id", "weight"], "attributes": ["item_id"]}

    def text(cols: Sequence[str]) -> list[str]:
        return [f"COALESCE(CAST({c} AS VARCHAR), '~')" for c in cols]

    values = [a.alias for a in inputs.attribute_columns]
    return [(n, text(columns[n]), text(["item_id", *values])
             if n == "attributes" and values else None) for n in names]


def flag(cells: Cells, name: str, query: exp.Query, columns: Sequence[str], doc: str) -> None:
    """Add output `name`: `query` with the verdict `input_valid` of the script's
    validation row on every row (script/flagged.sql), materialised."""
    pipeline = cells.pipeline
    pipeline.add(f"{name}_unflagged", query)
    pipeline.add(name, render("script/flagged.sql", relation=f"{name}_unflagged",
                              validation=cells.validation), materialise=True)
    cells.outputs.append(Output(name, (*columns, "input_valid"), doc))


def flag_in_place(cells: Cells, name: str, columns: Sequence[str] | None, doc: str) -> None:
    """Make the existing step `name` an output: its query wrapped so that every row also
    carries `input_valid` (the step keeps its name: later steps read it as before).
    `columns`: the step's columns (default: the names its query selects)."""
    step = cells.pipeline.steps[name]
    columns = step.query.named_selects if columns is None else columns
    query = step.query.copy()
    key = "with_" if "with_" in query.args else "with"
    with_ = query.args.get(key)
    query.set(key, None)
    outer = (exp.select("t.*", "v.input_valid").from_(query.subquery("t"))
             .join(exp.to_table(cells.validation).as_("v"), join_type="cross"))
    if with_ is not None:
        outer.set(key, with_)
    cells.pipeline.steps[name] = Step(name, outer, True)
    cells.outputs.append(Output(name, (*columns, "input_valid"), doc))


def impact_pipeline(spec: ScriptSpec, relations: dict[str, str] | None = None,
                    ) -> tuple[Pipeline, Inputs, list[Output]]:
    """The impact pipeline over named tables, with the validation table and flagged
    output tables materialised (ABCDE §4; docs/method.md §1–3). `relations` replaces the quoted
    input table names (role -> SQL relation), e.g. by dbt sources."""
    from abcde.impact.run import SLICE_RESERVED

    # as `abcde impact` (its messages); input_valid is one more column of a script's table
    check_slice_names(spec.slicings, SLICE_RESERVED, VERDICT_COLUMN)
    cells = build_cells(spec, relations, "impact")
    pipeline, inputs = cells.pipeline, cells.inputs
    flagged = functools.partial(flag, cells)
    flagged("overall", render("impact/overall.sql", metrics=IMPACT_METRICS), OVERALL_COLUMNS,
            "Overall impact metrics over T, the items in both clusterings (ABCDE §4).")
    for side, name, who in (("b", "base_clusters", "Base"), ("e", "exp_clusters", "Exp")):
        flagged(name, render("impact/clusters.sql", side=side, metrics=IMPACT_METRICS,
                             affected_only=False), CLUSTER_COLUMNS,
                f"Impact metrics of every {who} cluster and its contribution to the "
                "overall JaccardDistance (ABCDE §4.1).")
    for k, (slicing, step) in enumerate(zip(spec.slicings, cells.slice_steps, strict=True)):
        attrs = [inputs.attribute(c) for c in slicing]
        flagged(f"slices_{k}", render("impact/slices.sql", slice_columns=attrs,
                                      slice_cells=step, metrics=IMPACT_METRICS),
                (*slicing, *GROUP_METRICS),
                f"Impact metrics per value of {', '.join(slicing)} (ABCDE §4).")
    flagged("coverage", render("impact/coverage.sql", limit=EXAMPLES), COVERAGE_COLUMNS,
            "Items in only one clustering, per side: count, weight, example ids.")
    if relations is None:
        _check_unshadowed(spec, pipeline)
    return pipeline, inputs, cells.outputs


def _same_table(a: str, b: str) -> bool:
    """Whether table names `a` and `b` may name one table: equal parts from the right, as
    far as both are qualified (an unqualified name is in the default schema, which the
    script cannot know), case-insensitively."""
    pa, pb = a.lower().split("."), b.lower().split(".")
    return all(x == y for x, y in zip(reversed(pa), reversed(pb), strict=False))


def _check_unshadowed(spec: ScriptSpec, pipeline: Pipeline,
                      others: Sequence[tuple[str, str]] = ()) -> None:
    """An unqualified table name equal to a step or CTE of the script would be read as
    that relation (a CTE shadows a table of its name), and so would an output table
    named like one: both are refused. So is an input that may be one of the tables the
    script creates, which its DROP TABLE would destroy. Engines match
    case-insensitively (DuckDB, Snowflake, Spark), so the comparison is too. `others`:
    further (option, table) inputs of the script (an evaluation's other runs)."""
    made = [".".join(p.name for p in pipeline.table(n).parts)
            for n, st in pipeline.steps.items() if st.materialise and n not in pipeline.provided]
    for role, name in [*((spec.option(r), t) for r, t in spec.tables().items()), *others]:
        hit = next((t for t in made if _same_table(name, t)), None)
        if hit is not None:
            raise InputError(
                f"{role} {name!r} may be the table {hit!r} that the script drops and "
                "creates: running it would destroy the input",
                table=role.removeprefix("--"),
                hint="Give another --prefix or --schema for the script's tables, or "
                     "qualify the input with its own schema.")
    taken = {n.lower() for n in pipeline.relation_names()}
    for role, name in spec.tables().items():
        if "." not in name and name.lower() in taken:
            option = spec.option(role)
            raise InputError(
                f"the {option[2:]} table may not be named {name!r} without its schema: the "
                "script names one of its own relations so, and would read that instead",
                table=option[2:], hint=f"Qualify it, e.g. {option} my_schema.{name}.")
    if spec.schema is None:
        ctes = taken - {n.lower() for n in pipeline.steps}
        for step, s in pipeline.steps.items():
            if s.materialise and f"{spec.prefix}{step}".lower() in ctes:
                raise InputError(f"--prefix {spec.prefix!r} names the table of step {step} "
                                 "like a relation inside the script",
                                 hint="Give another --prefix, or a --schema.")


TITLES = {"impact": "impact metrics (ABCDE §4)",
          "sample-items": "an item sample for exploring the impact (ABCDE §4.1.1, App. A)",
          "sample-pairs": "pairs for judgement (ABCDE §5.7–5.8, App. A; Jaccard "
                          "decomposition §7)",
          "evaluate": "evaluation against a ground truth (pointwise, classic, Yandex)"}


def header(spec: ScriptSpec, parts: Sequence[tuple[Pipeline, list[Output]]], dialect: str,
           command: str | None = None, kind: str = "impact",
           roles: dict[str, str] | None = None,
           more_inputs: Sequence[tuple[str, str]] = ()) -> str:
    """The comment block heading a script: abcde version, inputs, outputs, validation.
    Tables are shown as the script writes them (quoted per the dialect). `parts`: each
    pipeline of the script with its outputs (an evaluation has one per run);
    `more_inputs`: further (label, table) inputs (an evaluation's other runs)."""
    cols = spec.columns

    def table(name: str) -> str:
        return to_sql(exp.to_table(table_ref(name), dialect=CANONICAL_DIALECT), dialect)

    lines = [f"abcde {__version__}: {TITLES[kind]} for {dialect}.",
             "Generated SQL: runs as is, statement after statement; it only creates and drops",
             "the output tables below (DROP TABLE IF EXISTS + CREATE TABLE ... AS).",
             ""]
    advice = get_dialect(dialect).run_advice
    lines += [*advice, ""] if advice else []
    if command:
        lines += ["Command:", f"  {command}", ""]
    lines.append("Inputs (tables; ids declared, not checked: "
                 f"item ids {spec.item_type}, cluster ids {spec.cluster_type}):")
    desc = {"base": f"{cols.item}, {cols.cluster}", "exp": f"{cols.item}, {cols.cluster}",
            "weights": f"{cols.item}, {cols.weight} (in {WEIGHT_RANGE_TEXT})",
            "attributes": ", ".join(
                dict.fromkeys([cols.item, *(c for s in spec.slicings for c in s)]))}
    for role, name in spec.tables().items():
        shown = (roles or {}).get(role, role)
        # a label of 10 characters or more (a run's `actual <name>`) still gets its space
        lines.append(f"  {shown:<10} {table(name)} ({desc[role]})")
        if role == "exp":
            lines += [f"  {label:<10} {table(name)} ({desc[role]})"
                      for label, name in more_inputs]
    if not spec.weights:
        lines.append("  weights    none: every item weighs 1")
    elif spec.missing_weight is not None:
        lines.append(f"  items the weights table lacks weigh {spec.missing_weight:g}")
    lines += ["", "Outputs (tables):"]
    for pipeline, outputs in parts:
        for o in outputs:
            lines.append(f"  {to_sql(pipeline.table(o.step), dialect)}")
            lines += textwrap.wrap(o.doc, 84, initial_indent="    ",
                                   subsequent_indent="    ")
    lines += ["", "Validation: check `input_valid` (in every output table) before reading any",
              "number; " + ", ".join(to_sql(p.table(o[0].step), dialect) for p, o in parts)
              + " count each problem and show example ids."
              if len(parts) > 1 else
              f"number; {to_sql(parts[0][0].table(parts[0][1][0].step), dialect)} counts "
              "each problem and shows example ids."]
    work, reused = [], []
    for pipeline, outputs in parts:
        shown = {o.step for o in outputs}
        work += [to_sql(pipeline.table(n), dialect) for n, st in pipeline.steps.items()
                 if st.materialise and n not in shown and n not in pipeline.provided
                 and st.runs_on(dialect)]
        reused += [to_sql(pipeline.table(n), dialect) for n in pipeline.steps
                   if n in pipeline.provided]
    if reused:
        # Spark has no information_schema: without the tables its first statement
        # fails with the warehouse's own "does not exist", so the header says what to run
        # first; elsewhere the first statement (script/cells_exist.sql) says it
        missing = ("the first statement stops with abcde's message naming the missing "
                   "tables" if get_dialect(dialect).table_exists(None, "s", "t") else
                   "the first statement fails with the warehouse's error that a table does "
                   "not exist")
        lines += textwrap.wrap(
            "--reuse-cells: reads the cell tables of an earlier script of the round, which "
            "must exist: run `abcde sql impact` (or the round's first script, without "
            "--reuse-cells) with the same --prefix/--schema and input options first; "
            f"without them {missing}. Made from other inputs, they set cells_match 0 and "
            "input_valid FALSE. Made with another --slice-by, they serve a script without "
            "per-slice tables (sample-items, or no --slice-by); one with them stops, saying "
            "so. Tables read: " + ", ".join(reused), 86)
    if work:
        lines.append("Work tables (also created): " + ", ".join(work))
    return comment(lines)


def comment(lines: Sequence[str]) -> str:
    """`-- ` before every line, including the lines inside a given line: no text can end
    the comment (any line break of any engine: \\n, \\r, U+2028, ...)."""
    return "".join(f"-- {part}".rstrip() + "\n"
                   for line in lines for part in (line.splitlines() or [""]))


# sqlglot warnings known to be harmless: BigQuery cannot say NULLS LAST in the window
# ORDER BY of cells/cell_metrics.sql, and needs not (the frames sum the OTHER cells of a
# cluster, whatever their order).
_KNOWN_WARNINGS = ("'NULLS LAST' translation not supported in window function",
                   "'NULLS FIRST' translation not supported in window function")


class _KnownWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(_KNOWN_WARNINGS)


@contextmanager
def quiet_sqlglot() -> Iterator[None]:
    """Hide the sqlglot warnings known to be harmless (_KNOWN_WARNINGS), and only those."""
    logger = logging.getLogger("sqlglot")
    known = _KnownWarnings()
    logger.addFilter(known)
    try:
        yield
    finally:
        logger.removeFilter(known)


def script_text(spec: ScriptSpec, parts: Sequence[tuple[Pipeline, list[Output]]],
                dialect: str, command: str | None = None, kind: str = "impact",
                roles: dict[str, str] | None = None,
                more_inputs: Sequence[tuple[str, str]] = ()) -> str:
    """A whole script for `dialect`: header, then every statement of every pipeline,
    `;`-terminated. Names the dialect cannot hold are refused (`check_dialect_names`)."""
    get_dialect(dialect)
    check_dialect_names(spec, dialect)
    for pipeline, _ in parts:
        check_created_names(spec, dialect, pipeline)
    with quiet_sqlglot():
        body = [f"{sql};" for pipeline, _ in parts
                for _, sql in pipeline.statements(dialect, pretty=True)]
    return (header(spec, parts, dialect, command, kind, roles, more_inputs) + "\n"
            + "\n\n".join(body) + "\n")


def impact_script(spec: ScriptSpec, dialect: str, command: str | None = None) -> str:
    """The whole impact script for `dialect`: header, then every statement."""
    get_dialect(dialect)
    check_dialect_names(spec, dialect)
    pipeline, _, outputs = impact_pipeline(spec)
    return script_text(spec, [(pipeline, outputs)], dialect, command)


def pipeline_statements(pipeline: Pipeline, dialect: str) -> list[tuple[str, str]]:
    """(step, its DROP + CREATE statements) for every step the script creates, in order."""
    with quiet_sqlglot():
        return [(name,
                 ";\n\n".join(pipeline.create_statements(name, dialect, pretty=True)) + ";\n")
                for name, step in pipeline.steps.items()
                if step.materialise and name not in pipeline.provided
                and step.runs_on(dialect)]


def step_statements(spec: ScriptSpec, dialect: str) -> list[tuple[str, str]]:
    """(step, its DROP + CREATE statements) for every materialised step of the impact
    script, in order."""
    pipeline, _, _ = impact_pipeline(spec)
    return pipeline_statements(pipeline, dialect)
