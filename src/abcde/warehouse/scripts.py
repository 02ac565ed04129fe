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

import logging
import textwrap
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from sqlglot import exp

from abcde.cells import IMPACT_METRICS, add_cell_steps, add_item_steps
from abcde.errors import InputError
from abcde.inputs.checks import EXAMPLES, add_count_steps, checks, side_inputs
from abcde.inputs.session import Attribute, Inputs
from abcde.inputs.sources import ID_TYPES, Source
from abcde.inputs.spec import WEIGHT_RANGE_TEXT, InputSpec, check_missing_weight
from abcde.sql.dialects import get_dialect, to_sql
from abcde.sql.pipeline import Pipeline
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
    engine looks at the tables), and where the created tables go (`prefix`, `schema`)."""

    base: str = ""
    exp: str = ""
    weights: str | None = None
    attributes: str | None = None
    item_type: str = "string"
    cluster_type: str = "string"
    prefix: str = "abcde_"
    schema: str | None = None

    def tables(self) -> dict[str, str]:
        """Input role -> table name, for the inputs given."""
        named = {"base": self.base, "exp": self.exp, "weights": self.weights,
                 "attributes": self.attributes}
        return {k: v for k, v in named.items() if v}

    def names(self) -> dict[str, str]:
        """Every name the SQL will contain, by the option that gave it."""
        out = {f"--{role}": name for role, name in self.tables().items()}
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
        if not name.strip() or not all(p.strip() for p in parts):
            raise InputError(f"--{role} {name!r} is not a table name (an empty part)",
                             hint="Name the table as table, schema.table or "
                                  "database.schema.table.")
        if len(parts) > 3:
            raise InputError(f"--{role} {name!r} has {len(parts)} parts; a table is named "
                             "by at most three (database.schema.table)",
                             hint="A '.' separates the parts: a table whose own name holds "
                                  "one cannot be named here; create a view without it.")
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


# Characters BigQuery does not allow in a column name, even a flexible one: '.' would
# read as a path into a STRUCT (BigQuery documentation, "Flexible column names").
BIGQUERY_COLUMN_CHARS = frozenset('!"$()*,./;?@[\\]^`{}~')


def check_dialect_names(spec: ScriptSpec, dialect: str) -> None:
    """Names a target cannot hold: on BigQuery, column names with a character of
    BIGQUERY_COLUMN_CHARS (the SQL would name a field of a STRUCT, or not parse)."""
    if get_dialect(dialect).name != "bigquery":
        return
    for option, name in spec.names().items():
        if not option.startswith(("--item-col", "--cluster-col", "--weight-col",
                                  "--slice-by")):
            continue
        bad = sorted({c for c in name if c in BIGQUERY_COLUMN_CHARS})
        if bad:
            raise InputError(f"{option} {name!r}: BigQuery column names cannot hold "
                             f"{' '.join(repr(c) for c in bad)}",
                             hint="Rename the column (letters, digits and underscores are "
                                  "always safe) or select it under another name in a view.")


def _inputs(spec: ScriptSpec, relations: dict[str, str] | None = None) -> Inputs:
    for kind, value in (("--item-type", spec.item_type), ("--cluster-type", spec.cluster_type)):
        if value not in ID_KINDS:
            raise InputError(f"{kind} must be one of {', '.join(ID_KINDS)}, not {value!r}")
    _check_names(spec)
    check_missing_weight(spec.missing_weight)
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
    attrs = [Attribute(n, f"s_{k}", "VARCHAR") for k, n in enumerate(names)]
    return Inputs(base, exp, weights, attributes, cols, item_t, cluster_t, cluster_t,
                  False, False, spec.missing_weight, attrs)


def _failures(inputs: Inputs) -> list[tuple[str, str]]:
    """(column, SQL over `v` = validation_counts and `ic` = input counts) of each check
    that refuses the input in `abcde impact`; > 0 means failed."""
    null_ids = " + ".join(["COALESCE(v.null_item_base, 0)", "COALESCE(v.null_item_exp, 0)",
                           *(f"ic.{n}_null_ids" for n in side_inputs(inputs))])
    out = [("empty_base", "CASE WHEN ic.base_rows = 0 THEN 1 ELSE 0 END"),
           ("empty_exp", "CASE WHEN ic.exp_rows = 0 THEN 1 ELSE 0 END"),
           ("null_item_ids", null_ids),
           ("repeated_item_ids",
            "CASE WHEN COALESCE(v.repeated_one_side, 0) > 0"
            " OR COALESCE(v.joined_base_rows, 0) <> ic.base_rows"
            " OR COALESCE(v.joined_exp_rows, 0) <> ic.exp_rows THEN 1 ELSE 0 END")]
    out += [(c.name, f"COALESCE(v.{c.name}, 0)") for c in checks(inputs)]
    out.append(("no_common_items", "CASE WHEN COALESCE(v.common_rows, 0) = 0 THEN 1 ELSE 0 END"))
    return out


def impact_pipeline(spec: ScriptSpec, relations: dict[str, str] | None = None,
                    ) -> tuple[Pipeline, Inputs, list[Output]]:
    """The impact pipeline over named tables, with the validation table and flagged
    output tables materialised (ABCDE §4; docs/method.md §1–3). `relations` replaces the quoted
    input table names (role -> SQL relation), e.g. by dbt sources."""
    inputs = _inputs(spec, relations)
    pipeline = Pipeline(prefix=spec.prefix, schema=spec.schema)
    add_item_steps(pipeline, inputs, with_examples=True)
    all_inputs = add_count_steps(pipeline, inputs, with_examples=True)
    failures = _failures(inputs)
    examples = [c.name for c in checks(inputs)]
    coverage = ["without_attributes"] if inputs.attributes is not None else []
    pipeline.add("validation", render("script/validation.sql", inputs=all_inputs,
                                      failures=failures, examples=examples,
                                      coverage=coverage), materialise=True)
    validation_columns = ("items_in_both", *(f"{n}_rows" for n in all_inputs),
                          *(n for n, _ in failures), *(f"{n}_example" for n in examples),
                          *coverage, "input_problems", "input_valid")
    slice_steps = add_cell_steps(pipeline, inputs, spec.slicings)

    outputs = [Output("validation", validation_columns,
                      "Input checks (one row): counts of each problem over the whole input, "
                      "an example id per failed row-level check, and input_valid.")]

    def flagged(name: str, query: object, columns: Sequence[str], doc: str) -> None:
        pipeline.add(f"{name}_unflagged", query)  # type: ignore[arg-type]
        pipeline.add(name, render("script/flagged.sql", relation=f"{name}_unflagged"),
                     materialise=True)
        outputs.append(Output(name, (*columns, "input_valid"), doc))

    flagged("overall", render("impact/overall.sql", metrics=IMPACT_METRICS), OVERALL_COLUMNS,
            "Overall impact metrics over T, the items in both clusterings (ABCDE §4).")
    for side, name, who in (("b", "base_clusters", "Base"), ("e", "exp_clusters", "Exp")):
        flagged(name, render("impact/clusters.sql", side=side, metrics=IMPACT_METRICS,
                             affected_only=False), CLUSTER_COLUMNS,
                f"Impact metrics of every {who} cluster and its contribution to the "
                "overall JaccardDistance (ABCDE §4.1).")
    for k, (slicing, step) in enumerate(zip(spec.slicings, slice_steps, strict=True)):
        attrs = [inputs.attribute(c) for c in slicing]
        flagged(f"slices_{k}", render("impact/slices.sql", slice_columns=attrs,
                                      slice_cells=step, metrics=IMPACT_METRICS),
                (*slicing, *GROUP_METRICS),
                f"Impact metrics per value of {', '.join(slicing)} (ABCDE §4).")
    flagged("coverage", render("impact/coverage.sql", limit=EXAMPLES), COVERAGE_COLUMNS,
            "Items in only one clustering, per side: count, weight, example ids.")
    if relations is None:
        _check_unshadowed(spec, pipeline)
    return pipeline, inputs, outputs


def _check_unshadowed(spec: ScriptSpec, pipeline: Pipeline) -> None:
    """An unqualified table name equal to a step or CTE of the script would be read as
    that relation (a CTE shadows a table of its name), and so would an output table
    named like one: both are refused. Engines match case-insensitively (DuckDB,
    Snowflake, Spark), so the comparison is too."""
    taken = {n.lower() for n in pipeline.relation_names()}
    for role, name in spec.tables().items():
        if "." not in name and name.lower() in taken:
            raise InputError(
                f"the {role} table may not be named {name!r} without its schema: the "
                "script names one of its own relations so, and would read that instead",
                table=role, hint=f"Qualify it, e.g. --{role} my_schema.{name}.")
    if spec.schema is None:
        ctes = taken - {n.lower() for n in pipeline.steps}
        for step, s in pipeline.steps.items():
            if s.materialise and f"{spec.prefix}{step}".lower() in ctes:
                raise InputError(f"--prefix {spec.prefix!r} names the table of step {step} "
                                 "like a relation inside the script",
                                 hint="Give another --prefix, or a --schema.")


def header(spec: ScriptSpec, pipeline: Pipeline, outputs: list[Output], dialect: str,
           command: str | None = None) -> str:
    """The comment block heading a script: abcde version, inputs, outputs, validation.
    Tables are shown as the script writes them (quoted per the dialect)."""
    cols = spec.columns

    def table(name: str) -> str:
        return to_sql(exp.to_table(table_ref(name), dialect=CANONICAL_DIALECT), dialect)

    def output(step: str) -> str:
        return to_sql(pipeline.table(step), dialect)

    lines = [f"abcde {__version__}: impact metrics (ABCDE §4) for {dialect}.",
             "Generated SQL: runs as is, statement after statement; it only creates and drops",
             "the output tables below (DROP TABLE IF EXISTS + CREATE TABLE ... AS).",
             ""]
    if command:
        lines += ["Command:", f"  {command}", ""]
    lines.append("Inputs (tables; ids declared, not checked: "
                 f"item ids {spec.item_type}, cluster ids {spec.cluster_type}):")
    desc = {"base": f"{cols.item}, {cols.cluster}", "exp": f"{cols.item}, {cols.cluster}",
            "weights": f"{cols.item}, {cols.weight} (in {WEIGHT_RANGE_TEXT})",
            "attributes": f"{cols.item}, " + ", ".join(
                dict.fromkeys(c for s in spec.slicings for c in s))}
    for role, name in spec.tables().items():
        lines.append(f"  {role:<11}{table(name)} ({desc[role]})")
    if not spec.weights:
        lines.append("  weights    none: every item weighs 1")
    elif spec.missing_weight is not None:
        lines.append(f"  items the weights table lacks weigh {spec.missing_weight:g}")
    lines += ["", "Outputs (tables):"]
    for o in outputs:
        lines.append(f"  {output(o.step)}")
        lines += textwrap.wrap(o.doc, 84, initial_indent="    ", subsequent_indent="    ")
    lines += ["", "Validation: check `input_valid` (in every output table) before reading any",
              f"number; {output('validation')} counts each problem and shows "
              "example ids.", "Work tables (also created): " + ", ".join(
                  output(n) for n in ("cell_rows", "cells", "cell_metrics"))]
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


def impact_script(spec: ScriptSpec, dialect: str, command: str | None = None) -> str:
    """The whole script for `dialect`: header, then every statement, `;`-terminated."""
    get_dialect(dialect)
    check_dialect_names(spec, dialect)
    pipeline, _, outputs = impact_pipeline(spec)
    with quiet_sqlglot():
        body = [f"{sql};" for _, sql in pipeline.statements(dialect, pretty=True)]
    return header(spec, pipeline, outputs, dialect, command) + "\n" + "\n\n".join(body) + "\n"


def step_statements(spec: ScriptSpec, dialect: str) -> list[tuple[str, str]]:
    """(step, its DROP + CREATE statements) for every materialised step, in order."""
    pipeline, _, _ = impact_pipeline(spec)
    with quiet_sqlglot():
        return [(name,
                 ";\n\n".join(pipeline.create_statements(name, dialect, pretty=True)) + ";\n")
                for name, step in pipeline.steps.items() if step.materialise]
