"""Standalone SQL for warehouses abcde cannot connect to: the impact pipeline (ABCDE §4;
docs/method.md §2–3) written for one dialect as a script (`abcde sql impact`) or as dbt
models (`abcde dbt`), with the inputs named as tables.

No engine looks at the tables, so their types are declared: item and cluster ids are
`string` or `integer` (`--item-type`, `--cluster-type`), slice attributes are read as
text. The row-level checks of `abcde.inputs.checks` become the `validation` table, and
every output table carries its verdict `input_valid`: a script cannot refuse input the way
`abcde impact` does, but it never shows metrics of invalid input without the flag.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shlex
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from sqlglot import exp

from abcde.cells import IMPACT_METRICS, add_cell_steps, add_item_steps
from abcde.errors import InputError
from abcde.inputs.checks import EXAMPLES, add_count_steps, checks, side_inputs
from abcde.inputs.session import Attribute, Inputs
from abcde.inputs.sources import ID_TYPES, Source
from abcde.inputs.spec import WEIGHT_RANGE_TEXT, InputSpec, check_options, check_slice_names
from abcde.sql.dialects import DIALECTS, Dialect, get_dialect, to_sql
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
    """What a standalone script reads and writes: the inputs as warehouse table names, the
    types their ids are CAST to, and where the created tables go (`prefix`, `schema`).
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
        """Input role -> table name, for the inputs given (Base and Exp always: an empty
        name is refused by `name_problems`)."""
        named = {"base": self.base, "exp": self.exp, "weights": self.weights,
                 "attributes": self.attributes}
        return {k: v for k, v in named.items() if v is not None and (v or k in ("base", "exp"))}

    def option(self, role: str) -> str:
        """The option naming the input `role` (an evaluation's --truth and --actual)."""
        return "--" + {"base": self.roles[0], "exp": self.roles[1]}.get(role, role)

    def names(self) -> list[tuple[str, str, str]]:
        """(option, kind, name) of every name the SQL will hold; kind is table, column,
        prefix or schema."""
        cols = self.columns
        out = [(self.option(role), "table", name) for role, name in self.tables().items()]
        out += [("--item-col", "column", cols.item), ("--cluster-col", "column", cols.cluster),
                *([("--weight-col", "column", cols.weight)] if self.weights else []),
                *((f"--slice-by ({k + 1})", "column", c)
                  for k, c in enumerate(self.attribute_names)),
                ("--prefix", "prefix", self.prefix)]
        return out + ([("--schema", "schema", self.schema)] if self.schema is not None else [])


@dataclass(frozen=True)
class Output:
    """A table the script creates: its step, columns and what it holds."""

    step: str
    columns: tuple[str, ...]
    doc: str


Problem = tuple[str, str]
"""What is wrong with a name, and what to do."""


def refuse(problems: Iterable[Problem]) -> None:
    """Stop at the first problem (InputError: exit 2, the message and what to do)."""
    for message, hint in problems:
        raise InputError(message, hint=hint)


_QUOTED = re.compile(r'".*"|`.*`|\[.*\]', re.DOTALL)


def _valid(name: str) -> str:
    """A valid name like `name`, for a message: ASCII letters, digits and _ only."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)[:20] or "abcde_"


def name_problems(spec: ScriptSpec, dialect: str | Dialect | None = None,
                  runs: Sequence[str] = ()) -> Iterator[Problem]:
    """The names a script cannot use (and the further `runs` tables): a table of one to
    three non-empty parts, a schema of one or two, no name given in quotes (abcde quotes
    every name itself and would read the quotes as part of it), no empty column, no '.'
    in the prefix; and, for a `dialect`, the target's rules (`Dialect.name_rule`,
    `input_table_rule`, `column_name_forbidden`)."""
    target = get_dialect(dialect) if dialect else Dialect()
    for option, kind, name in [*spec.names(), *(("--actual", "table", t) for t in runs)]:
        parts = name.split(".") if kind in ("table", "schema") else [name]
        rule = (target.input_table_rule(parts) if kind == "table" else
                target.name_rule(parts[-1], kind.replace("prefix", "table")) if name
                and kind != "column" else None)
        bad = sorted(set(name) & target.column_name_forbidden) if kind == "column" else []
        if _QUOTED.fullmatch(name) or any(_QUOTED.fullmatch(p) for p in parts):
            bare = ".".join(p.strip('"`[]') for p in parts)
            yield (f"{option} {name!r} is written with quotes: abcde quotes every name "
                   "itself, and would read the quotes as part of it",
                   f"Give the name without quotes, e.g. {option} {bare} (docs/warehouse.md, "
                   "Names).")
        elif kind == "table" and (not all(p.strip() for p in parts) or len(parts) > 3):
            yield (f"{option} {name!r} is not a table name",
                   "Name it table, schema.table or database.schema.table (a view can "
                   "rename a table whose own name holds a '.').")
        elif kind == "schema" and (not all(p.strip() for p in parts) or len(parts) > 2):
            yield f"--schema {name!r} is not a schema name", "Name it schema or database.schema."
        elif kind == "column" and not name:
            yield f"{option} may not be empty", "Name the column."
        elif kind == "prefix" and "." in name:
            yield (f"--prefix {name!r} may not contain '.'",
                   "Give the schema of the created tables with --schema.")
        elif bad:
            yield (f"{option} {name!r}: {target.title} column names cannot hold "
                   f"{' '.join(map(repr, bad))}", "Rename the column (letters, digits and _ "
                   "are always safe) or select it under another name in a view.")
        elif rule and kind == "table":
            yield f"{option} {name!r}: {rule}", f"Name the table as {target.title} SQL names it."
        elif rule:
            valid = ".".join([*parts[:-1], _valid(parts[-1])])
            yield (f"{option} {name!r}: {rule}",
                   f"Give a {kind} so named, e.g. {option} {valid}.")


def created_problems(spec: ScriptSpec, dialect: str | Dialect, pipeline: Pipeline,
                     names: Sequence[str] | None = None) -> Iterator[Problem]:
    """A table the pipeline creates (or of `names`: dbt's models) that the target cannot
    name (`Dialect.name_rule`: PostgreSQL would cut a name past 63 bytes short)."""
    target = get_dialect(dialect)
    if names is None:
        names = [f"{pipeline.prefix}{n}" for n, st in pipeline.steps.items()
                 if st.materialise and n not in pipeline.provided]
    run = pipeline.prefix[len(spec.prefix):].rstrip("_")
    for name in names:
        if rule := target.name_rule(name, "table"):
            given = f"--prefix {spec.prefix!r}" + (f" with run name {run!r}" if run else "")
            yield (f"{given} makes the table name {name!r}: {rule}",
                   f"Give a shorter --prefix{' or run name' if run else ''}, e.g. --prefix "
                   f"{_valid(spec.prefix)[:8]}.")


def _inputs(spec: ScriptSpec, relations: dict[str, str] | None = None) -> Inputs:
    refuse(name_problems(spec))
    check_options(spec)  # as `abcde impact`
    cols = spec.columns
    item_t, cluster_t = ID_TYPES[spec.item_type], ID_TYPES[spec.cluster_type]

    def source(role: str, name: str, columns: dict[str, str]) -> Source:
        relation = relations[role] if relations else table_ref(name)
        return Source(role, f"{role} ({name})", relation, columns)

    base = source("base", spec.base, {cols.item: item_t, cols.cluster: cluster_t})
    exp = source("exp", spec.exp, {cols.item: item_t, cols.cluster: cluster_t})
    weights = (source("weights", spec.weights, {cols.item: item_t, cols.weight: "DOUBLE"})
               if spec.weights else None)
    names = spec.attribute_names
    attributes = (source("attributes", spec.attributes,
                         {cols.item: item_t, **dict.fromkeys(names, "VARCHAR")})
                  if spec.attributes else None)
    # read as text by slice_text (inputs/attributes.sql): the same key on every target
    attrs = [Attribute(n, f"s_{k}", "SLICE_TEXT") for k, n in enumerate(names)]
    return Inputs(base, exp, weights, attributes, cols, item_t, cluster_t, cluster_t,
                  False, False, spec.missing_weight, attrs)


def _failures(inputs: Inputs) -> list[tuple[str, str]]:
    """(column, SQL over `v` = validation_counts and `ic` = input counts) of each check
    that refuses the input in `abcde impact` (an empty side table too); > 0: failed."""
    sides = side_inputs(inputs)
    null_ids = " + ".join(["COALESCE(v.null_item_base, 0)", "COALESCE(v.null_item_exp, 0)",
                           *(f"ic.{n}_null_ids" for n in sides)])
    return [*((f"empty_{n}", f"CASE WHEN ic.{n}_rows = 0 THEN 1 ELSE 0 END")
              for n in ("base", "exp", *sides)),
            ("null_item_ids", null_ids),
            ("repeated_item_ids",
             "CASE WHEN COALESCE(v.repeated_one_side, 0) > 0"
             " OR COALESCE(v.joined_base_rows, 0) <> ic.base_rows"
             " OR COALESCE(v.joined_exp_rows, 0) <> ic.exp_rows THEN 1 ELSE 0 END"),
            *((c.name, f"COALESCE(v.{c.name}, 0)") for c in checks(inputs)),
            ("no_common_items", "CASE WHEN COALESCE(v.common_rows, 0) = 0 THEN 1 ELSE 0 END")]


CELL_STEPS = ("cell_rows", "validation", "cells", "cell_metrics", "cells_key")
# Columns of a script's tables besides the metrics, which no slice column may be named
# (check_slice_names words its refusal with what each one is)
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
    """The SQL digest of the cells as made without slices: the slice attributes add
    columns to cell_rows, not cells, so cells made with any --slice-by serve a script
    that reads no slice (cells_key's slice_attributes says which it may read)."""
    inputs = _inputs(replace(spec, slicings=()), relations)
    pipeline = Pipeline(prefix=spec.prefix, schema=spec.schema)
    add_item_steps(pipeline, inputs, with_examples=True, squares=True)
    add_cell_steps(pipeline, inputs, (), squares=True)
    return pipeline.digest("cell_metrics")[:16]


def build_cells(spec: ScriptSpec, relations: dict[str, str] | None = None,
                kind: str = "impact", *, reads_slices: bool = True) -> Cells:
    """The one join of the inputs into cells (docs/method.md §2), the validation row and
    the round's key `cells_key` (SQL digest of the cells, a fingerprint of each input).
    With `spec.reuse_cells` an earlier script's cells are read, not made (a warehouse
    bills every scan), and `<kind>_validation` adds `cells_match` (the key computed again
    without the join); a script that `reads_slices` stops unless they hold its slices."""
    inputs = _inputs(spec, relations)
    pipeline = Pipeline(prefix=spec.prefix, schema=spec.schema)
    # Σw² per cell (squares) for the pair sampler: every script of a round makes the
    # same cells, whichever comes first
    add_item_steps(pipeline, inputs, with_examples=True, squares=True)
    all_inputs = add_count_steps(pipeline, inputs, with_examples=True)
    failures = _failures(inputs)
    examples = [c.name for c in checks(inputs)]
    repeats = side_inputs(inputs)
    # counts that are no error, as `abcde impact` reports them: items of T without
    # attributes, and rows of a side input matching no item of either clustering
    coverage = [("without_attributes", "COALESCE(v.without_attributes, 0)")
                ] if inputs.attributes is not None else []
    coverage += [(f"unused_{n}", f"ic.{n}_rows - ic.{n}_null_ids"
                                 f" - COALESCE(v.matched_{n[:-1]}_rows, 0)") for n in repeats]
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
        check_unshadowed(spec, pipeline)
    # the inputs and checks that fix the columns of cells_key and validation, and the
    # slice attributes of cell_rows in the order of their columns s_0, s_1, … (as text,
    # made exact by the hash of the list: a name may hold ', ')
    shape = "+".join(all_inputs) + "/" + hashlib.md5(
        ",".join(validation_columns).encode()).hexdigest()[:8]
    names = [a.name for a in inputs.attribute_columns]
    attributes = (", ".join(names) or "none") + " (" + hashlib.md5(
        json.dumps(names).encode()).hexdigest()[:8] + ")"
    key = render("script/cells_key.sql", inputs=_fingerprints(inputs, all_inputs),
                 digest=_cells_digest(spec, relations), shape=shape, attributes=attributes)
    pipeline.add("cells_key", key, materialise=True)
    if not spec.reuse_cells:
        doc = ("Input checks (one row): counts of each problem over the whole input, an "
               "example id per failed row-level check, and input_valid.")
        return Cells(pipeline, inputs, [Output("validation", validation_columns, doc)],
                     "validation", slice_steps)
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
    doc = ("Input checks (one row), as the earlier script of the round counted them, "
           "cells_match (1 when the round's cell tables were made from these inputs) and "
           "input_valid.")
    columns = (*validation_columns[:-2], "cells_match", "input_problems", "input_valid")
    return Cells(pipeline, inputs, [Output(name, columns, doc)], name, slice_steps)


def _add_cells_exist(spec: ScriptSpec, pipeline: Pipeline, kind: str) -> None:
    """The first statement of a script that reuses the round's cells: stop with abcde's
    message naming the cell tables missing and the command that makes them, not the
    warehouse's "does not exist" (only where the target has an information_schema)."""
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
    """(input, columns, value columns) of each input's fingerprint in cells_key: the
    columns of its `<name>_in` step that make the cells, as text (NULL as '~'); for the
    attributes also the slice values (with the item id), which only a script that reads
    per-slice cells compares."""
    columns = {"base": ["item_id", "cluster_id"], "exp": ["item_id", "cluster_id"],
               "weights": ["item_id", "weight"], "attributes": ["item_id"]}

    def text(cols: Sequence[str]) -> list[str]:
        return [f"COALESCE(CAST({c} AS VARCHAR), '~')" for c in cols]

    values = [a.alias for a in inputs.attribute_columns]
    return [(n, text(columns[n]), text(["item_id", *values])
             if n == "attributes" and values else None) for n in names]


def flag(cells: Cells, name: str, query: exp.Query, columns: Sequence[str], doc: str) -> None:
    """Add output `name`: `query` with the verdict `input_valid` on every row
    (script/flagged.sql), materialised."""
    cells.pipeline.add(f"{name}_unflagged", query)
    cells.pipeline.add(name, render("script/flagged.sql", relation=f"{name}_unflagged",
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
    output tables (ABCDE §4; docs/method.md §1–3). `relations` replaces the quoted input
    table names (role -> SQL relation), e.g. by dbt sources."""
    from abcde.impact.run import SLICE_RESERVED

    check_slice_names(spec.slicings, SLICE_RESERVED, VERDICT_COLUMN)  # as `abcde impact`
    cells = build_cells(spec, relations, "impact")
    inputs = cells.inputs
    flagged = functools.partial(flag, cells)
    flagged("overall", render("impact/overall.sql", metrics=IMPACT_METRICS), OVERALL_COLUMNS,
            "Overall impact metrics over T, the items in both clusterings (ABCDE §4).")
    for side, name, who in (("b", "base_clusters", "Base"), ("e", "exp_clusters", "Exp")):
        flagged(name, render("impact/clusters.sql", side=side, metrics=IMPACT_METRICS,
                             affected_only=False), CLUSTER_COLUMNS,
                f"Impact metrics of every {who} cluster and its contribution to the "
                "overall JaccardDistance (ABCDE §4.1).")
    for k, (slicing, step) in enumerate(zip(spec.slicings, cells.slice_steps, strict=True)):
        flagged(f"slices_{k}", render("impact/slices.sql", slice_cells=step,
                                      slice_columns=[inputs.attribute(c) for c in slicing],
                                      metrics=IMPACT_METRICS), (*slicing, *GROUP_METRICS),
                f"Impact metrics per value of {', '.join(slicing)} (ABCDE §4).")
    flagged("coverage", render("impact/coverage.sql", limit=EXAMPLES), COVERAGE_COLUMNS,
            "Items in only one clustering, per side: count, weight, example ids.")
    if relations is None:
        check_unshadowed(spec, cells.pipeline)
    return cells.pipeline, inputs, cells.outputs


def _same_table(a: str, b: str) -> bool:
    """Whether table names may name one table: equal parts from the right, as far as both
    are qualified, ignoring case (the default schema is unknown)."""
    pa, pb = a.lower().split("."), b.lower().split(".")
    return all(x == y for x, y in zip(reversed(pa), reversed(pb), strict=False))


def check_unshadowed(spec: ScriptSpec, pipeline: Pipeline,
                      others: Sequence[tuple[str, str]] = ()) -> None:
    """Refuse an input the script would drop and create (destroying it), an unqualified
    input named like one of its steps or CTEs (read instead), and a prefix naming a table
    like a CTE; names compare ignoring case. `others`: more (option, table) inputs."""
    made = [".".join(p.name for p in pipeline.table(n).parts)
            for n, st in pipeline.steps.items() if st.materialise and n not in pipeline.provided]
    taken = {n.lower() for n in pipeline.relation_names()}
    ctes = taken - {n.lower() for n in pipeline.steps}

    def problems() -> Iterator[Problem]:
        for option, name in [*((spec.option(r), t) for r, t in spec.tables().items()),
                             *others]:
            if hit := next((t for t in made if _same_table(name, t)), None):
                yield (f"{option} {name!r} may be the table {hit!r} that the script drops "
                       "and creates: running it would destroy the input",
                       "Give another --prefix or --schema for the script's tables, or "
                       "qualify the input with its own schema.")
        for role, name in spec.tables().items():
            if "." not in name and name.lower() in taken:
                yield (f"the {spec.option(role)[2:]} table may not be named {name!r} without "
                       "its schema: the script names one of its own relations so, and "
                       "would read that instead",
                       f"Qualify it, e.g. {spec.option(role)} my_schema.{name}.")
        for step, st in pipeline.steps.items():
            if spec.schema is None and st.materialise and f"{spec.prefix}{step}".lower() in ctes:
                yield (f"--prefix {spec.prefix!r} names the table of step {step} like a "
                       "relation inside the script", "Give another --prefix, or a --schema.")

    refuse(problems())


TITLES = {"impact": "impact metrics (ABCDE §4)",
          "sample-items": "an item sample for exploring the impact (ABCDE §4.1.1, App. A)",
          "sample-pairs": "pairs for judgement (ABCDE §5.7–5.8, App. A; Jaccard "
                          "decomposition §7)",
          "evaluate": "evaluation against a ground truth (pointwise, classic, Yandex)"}
Parts = Sequence[tuple[Pipeline, list[Output]]]


def header(spec: ScriptSpec, parts: Parts, dialect: str | Dialect, command: str | None = None,
           kind: str = "impact", runs: Sequence[tuple[str, str]] = ()) -> str:
    """The comment block heading a script: abcde version, how to run it, inputs (an
    evaluation's truth and (name, table) `runs`), outputs, validation, work tables."""
    target, cols = get_dialect(dialect), spec.columns

    def table(name: str) -> str:
        return to_sql(exp.to_table(table_ref(name), dialect=CANONICAL_DIALECT), target)

    lines = [f"abcde {__version__}: {TITLES[kind]} for {target}.",
             "Generated SQL: runs as is, statement after statement; it only creates and drops",
             "the output tables below (DROP TABLE IF EXISTS + CREATE TABLE ... AS).", "",
             *(([*target.run_advice, ""]) if target.run_advice else []),
             *(["Command:", f"  {command}", ""] if command else []),
             "Inputs (tables; ids declared, not checked: "
             f"item ids {spec.item_type}, cluster ids {spec.cluster_type}):"]
    desc = {"base": f"{cols.item}, {cols.cluster}", "exp": f"{cols.item}, {cols.cluster}",
            "weights": f"{cols.item}, {cols.weight} (in {WEIGHT_RANGE_TEXT})",
            "attributes": ", ".join(dict.fromkeys([cols.item, *spec.attribute_names]))}
    for role, name in spec.tables().items():
        shown = ([(f"actual {n}", t) for n, t in runs] if runs and role == "exp" else
                 [("truth" if runs and role == "base" else role, name)])
        # a label of 10 characters or more (a run's `actual <name>`) still gets its space
        lines += [f"  {label:<10} {table(t)} ({desc[role]})" for label, t in shown]
    if not spec.weights:
        lines.append("  weights    none: every item weighs 1")
    elif spec.missing_weight is not None:
        lines.append(f"  items the weights table lacks weigh {spec.missing_weight:g}")
    lines += ["", "Outputs (tables):"]
    for pipeline, outputs in parts:
        for o in outputs:
            lines.append(f"  {to_sql(pipeline.table(o.step), target)}")
            lines += textwrap.wrap(o.doc, 84, initial_indent="    ", subsequent_indent="    ")
    checks_ = [to_sql(p.table(o[0].step), target) for p, o in parts]
    lines += ["", "Validation: check `input_valid` (in every output table) before reading any",
              f"number; {', '.join(checks_)} "
              + ("count each problem and show example ids." if len(parts) > 1 else
                 "counts each problem and shows example ids.")]
    work = [to_sql(p.table(n), target) for p, outputs in parts for n, st in p.steps.items()
            if st.materialise and n not in {o.step for o in outputs} and n not in p.provided
            and st.runs_on(target)]
    reused = [to_sql(p.table(n), target) for p, _ in parts for n in p.steps if n in p.provided]
    if reused:
        # no information_schema (Spark): the first statement fails with the warehouse's error
        missing = ("the first statement stops with abcde's message naming the missing "
                   "tables" if target.table_exists(None, "s", "t") else
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


def statements(pipeline: Pipeline, dialect: str | Dialect) -> list[tuple[str, str]]:
    """(step, its DROP + CREATE statements) for every table the script creates, in order."""
    return [(name, ";\n\n".join(pipeline.create_statements(name, dialect, pretty=True)) + ";\n")
            for name, step in pipeline.steps.items()
            if step.materialise and name not in pipeline.provided and step.runs_on(dialect)]


def script_text(spec: ScriptSpec, parts: Parts, dialect: str | Dialect,
                command: str | None = None, kind: str = "impact",
                runs: Sequence[tuple[str, str]] = ()) -> str:
    """A whole script for `dialect`: header, then every statement of every pipeline.
    Names the target cannot hold are refused (`name_problems`, `created_problems`)."""
    refuse(name_problems(spec, dialect, [t for _, t in runs]))
    for pipeline, _ in parts:
        refuse(created_problems(spec, dialect, pipeline))
    body = "\n".join(sql for pipeline, _ in parts for _, sql in statements(pipeline, dialect))
    return header(spec, parts, dialect, command, kind, runs) + "\n" + body
