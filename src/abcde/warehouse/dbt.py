"""`abcde dbt`: the impact pipeline (abcde.warehouse.scripts) as a dbt project — one model per
pipeline step, `ref()` between them, `source()` for the input tables, and a schema.yml
with column docs and the tests that hold on valid input.

Materialised steps become `table` models, the others `ephemeral` (inlined as CTEs, as
the pipeline inlines them). The `validation` model's test `abcde_is_true` on
`input_valid` (a generic test the project ships, without arguments, so that it reads the
same in every dbt version) fails `dbt build` on invalid input, and dbt then skips every
model downstream of it: metrics of invalid input are not built.

Models are built where the dbt profile says. Input tables are sources quoted by the rule
of abcde.sql.dialects (exact names; on Snowflake a lower-case name is its upper-case form),
as in `abcde sql`. dbt renders every model and schema.yml as Jinja, so a name holding
Jinja syntax is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from sqlglot import exp

from abcde.errors import InputError
from abcde.inputs.spec import WEIGHT_RANGE_TEXT
from abcde.outputs import output_dir
from abcde.sql.dialects import Dialect, get_dialect, identifier, to_sql
from abcde.version import __version__
from abcde.warehouse.scripts import (
    Output,
    ScriptSpec,
    check_dialect_names,
    impact_pipeline,
    quiet_sqlglot,
)

SOURCE = "abcde_inputs"
_REF = "abcde_dbt_ref__"
_SRC = "abcde_dbt_source__"
_PLACEHOLDER = re.compile(r"[`\"]?(abcde_dbt_ref__|abcde_dbt_source__)(\w+)[`\"]?")

COLUMN_DOCS = {
    "items": "Number of items (of T, the items in both clusterings).",
    "weight": "Total weight of the items.",
    "affected_items": "Items whose Base and Exp clusters differ as sets (ABCDE eq. 7).",
    "affected_weight": "Weight of the affected items.",
    "split_rate": "Weighted mean of weight(Base(i) minus Exp(i)) / weight(Base(i)) (ABCDE eq. 1).",
    "merge_rate": "Weighted mean of weight(Exp(i) minus Base(i)) / weight(Exp(i)) (ABCDE eq. 2).",
    "jaccard_distance": "Weighted mean Jaccard distance of Base(i) and Exp(i) (ABCDE eq. 3).",
    "split_distance": "Split part of the JaccardDistance (Jaccard decomposition eq. 2).",
    "merge_distance": "Merge part of the JaccardDistance (Jaccard decomposition eq. 3).",
    "jaccard_index": "1 - JaccardDistance (Jaccard decomposition eq. 37).",
    "affected_jaccard_index": "JaccardIndex mass of the affected items "
                              "(Jaccard decomposition eq. 48).",
    "unaffected_jaccard_index": "Weight share of unaffected items (Jaccard decomposition eq. 52).",
    "contribution": "weight(C) * JaccardDistance(C) / weight(T): share of the overall "
                    "JaccardDistance (ABCDE §4.1).",
    "cluster_id": "The cluster id.",
    "cells": "Number of cells (Base cluster, Exp cluster) the cluster meets.",
    "input_valid": "TRUE when the input passed every check (see the validation model).",
    "input_problems": "Number of failed input checks.",
    "side": "base: items only in Base; exp: items only in Exp.",
    "b": "Base cluster id.", "e": "Exp cluster id.", "n": "Items of the cell.",
    "w": "Weight of the cell.",
    "items_in_both": "Rows of items in both clusterings (|T| on valid input).",
    "empty_base": "1 when the Base table has no rows.",
    "empty_exp": "1 when the Exp table has no rows.",
    "null_item_ids": "Rows with a NULL item id, over all inputs.",
    "repeated_item_ids": "1 when an input repeats an item id.",
    "null_cluster_base": "Items of T with a NULL Base cluster id.",
    "null_cluster_exp": "Items of T with a NULL Exp cluster id.",
    "bad_weight_weights": f"Weights that are NULL, NaN, infinite or outside {WEIGHT_RANGE_TEXT}.",
    "missing_weight": "Items of T the weights table lacks.",
    "no_common_items": "1 when the clusterings have no item id in common.",
    "without_attributes": "Items of T without a row in the attributes table (not an error).",
}
# columns of the work models, where they differ from (or are missing in) COLUMN_DOCS
WORK_DOCS = {
    "cell_rows": {
        "side": "Which clusterings hold the rows: 1 Base only, 2 Exp only, 3 both (T).",
        "common": "side = 3: the rows are items of T.",
        "one_side_id": "Item id of an item in only one clustering (NULL for items of T).",
        "item_rows": "Input rows of the group.",
        "weight_rows": "Rows of the group the weights table matched.",
        "attribute_rows": "Rows of the group the attributes table matched.",
        "w": "Weight of the group.",
    },
    "cell_metrics": {
        "n_b": "Items of T in Base cluster b.", "n_e": "Items of T in Exp cluster e.",
        "w_b": "Weight of Base cluster b.", "w_e": "Weight of Exp cluster e.",
        "u": "Weight of the union of b and e.",
        "split_w": "Weight of b outside e (W_b - w_c, summed from the other cells of b).",
        "merge_w": "Weight of e outside b (W_e - w_c, summed from the other cells of e).",
        "affected": "TRUE when b and e differ as sets (ABCDE eq. 7).",
    },
}
TRUE_TEST = "abcde_is_true"
TRUE_TEST_SQL = f"""{{# abcde {__version__}: rows where the column is not TRUE (FALSE or NULL)
   fail the test #}}
{{% test {TRUE_TEST}(model, column_name) %}}
select {{{{ column_name }}}} from {{{{ model }}}} where not coalesce({{{{ column_name }}}}, false)
{{% endtest %}}
"""
# tests that hold on valid input, per output step
TESTS = {
    "validation": {"input_valid": ["not_null", TRUE_TEST]},
    "overall": {"items": ["not_null"], "weight": ["not_null"], "input_valid": ["not_null"]},
    "base_clusters": {"cluster_id": ["not_null", "unique"]},
    "exp_clusters": {"cluster_id": ["not_null", "unique"]},
    "coverage": {"side": ["not_null", "unique"]},
    "cells": {"b": ["not_null"], "e": ["not_null"], "w": ["not_null"]},
}


def _yaml(value: object, indent: int = 0) -> str:
    """A small YAML writer (JSON scalars are valid YAML), to need no YAML library."""
    pad = "  " * indent
    if isinstance(value, dict):
        return "".join(
            f"{pad}{k}:\n{_yaml(v, indent + 1)}" if isinstance(v, dict | list) and v
            else f"{pad}{k}: {json.dumps(v)}\n" for k, v in value.items())
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, dict):
                body = _yaml(v, indent + 1).lstrip()
                out.append(f"{pad}- {body}")
            else:
                out.append(f"{pad}- {json.dumps(v)}\n")
        return "".join(out)
    return f"{pad}{json.dumps(value)}\n"


_JINJA = ("{{", "{%", "{#")


def _check_names(spec: ScriptSpec, dialect: str | Dialect) -> None:
    """Names dbt would render as Jinja, and sources the dbt adapter cannot name (dbt-spark:
    no database), are refused; so are names the dialect cannot hold
    (abcde.warehouse.scripts.check_dialect_names)."""
    check_dialect_names(spec, get_dialect(dialect).name)
    for option, name in spec.names().items():
        if any(j in name for j in _JINJA):
            raise InputError(f"{option} {name!r} holds Jinja syntax, which dbt would run",
                             hint="Rename it, without '{{', '{%' or '{#'.")
    target = get_dialect(dialect)
    for role, name in spec.tables().items():
        if not target.dbt_source_has_database and name.count(".") > 1:
            raise InputError(f"--{role} {name!r}: dbt-{target.name} sources have a schema but "
                             "no database", hint=f"Name it schema.table, e.g. "
                             f"{'.'.join(name.split('.')[-2:])}.")


def _source(role: str, name: str, dialect: str) -> dict[str, object]:
    """A dbt source for one input table, quoted by abcde's rule (abcde.sql.dialects)."""
    parts = dict(zip(["identifier", "schema", "database"], reversed(name.split(".")),
                     strict=False))
    where: dict[str, object] = {}
    quoting = {}
    for key in ("database", "schema", "identifier"):
        if key in parts:
            ident = identifier(parts[key], dialect)
            written = to_sql(ident, dialect)
            if ident.quoted and written != f"{written[0]}{ident.this}{written[-1]}":
                # a quote character inside the name: dbt's quoting does not escape it,
                # so the part goes in escaped as `abcde sql` writes it, and dbt leaves
                # it as is
                where[key], quoting[key] = written, False
            else:
                where[key] = ident.this
                quoting[key] = bool(ident.quoted)
    table = {"name": role, "identifier": where.pop("identifier"),
             "description": f"The {role} input ({name})."}
    return {"name": f"{SOURCE}_{role}", "description": f"The {role} input of abcde impact.",
            **where, **({} if "schema" in where else {"schema": "{{ target.schema }}"}),
            "quoting": quoting, "tables": [table]}


MARKER = ".abcde-dbt.json"
# what `abcde dbt` writes into a project directory (and `--overwrite` replaces in one it
# did not write)
PROJECT_ENTRIES = ("dbt_project.yml", "models/", "macros/")


def _replaced(out: Path, overwrite: bool) -> list[str]:
    """The entries of an existing `out` that the new project replaces: those its marker
    lists (a project abcde wrote is replaced whole, stale models included); in a
    directory abcde did not write, the project files only with `overwrite`."""
    marker = out / MARKER
    if marker.is_file():
        try:
            listed = json.loads(marker.read_text(encoding="utf-8"))["files"]
            if isinstance(listed, list) and all(isinstance(f, str) for f in listed):
                return [*listed, MARKER]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            pass
    present = [e for e in PROJECT_ENTRIES if (out / e.rstrip("/")).exists()]
    if present and not overwrite:
        raise InputError(
            f"--out {out} holds a dbt project abcde did not write ({', '.join(present)}; "
            f"no {MARKER})", hint="Choose a new directory, or pass --overwrite to replace "
            "its dbt_project.yml, models/ and macros/ (other files are kept).")
    others = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if others and not overwrite:  # e.g. a repository's root given by mistake
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise InputError(
            f"--out {out} is a directory abcde did not write and it is not empty ({shown}; "
            f"no {MARKER})", hint="Choose a new or empty directory, or pass --overwrite to "
            "write the project's dbt_project.yml, models/ and macros/ there (other files "
            "are kept).")
    return [*PROJECT_ENTRIES, MARKER]


def dbt_project(spec: ScriptSpec, dialect: str, out: Path, *,
                overwrite: bool = False) -> list[Path]:
    """Write the dbt project for `dialect` into `out`; returns the files written.

    The project is written atomically (`abcde.outputs.output_dir`) with a marker file
    listing its files: a project abcde wrote before is replaced whole (no stale model
    of a removed slicing or weights table is left for `dbt build`), other files of the
    directory (profiles.yml, dbt's target/ and logs/) are kept; a directory holding a
    dbt project abcde did not write, or any other non-empty directory without the marker,
    is refused unless `overwrite`."""
    _check_names(spec, dialect)
    replaces = _replaced(out, overwrite) if out.exists() else []
    with output_dir(out, replaces=replaces) as od:
        written = _write_project(spec, dialect, od.path)
        rel = sorted(str(p.relative_to(od.path)) for p in written)
        (od.path / MARKER).write_text(json.dumps(
            {"written_by": f"abcde {__version__} dbt --dialect {dialect}", "files": rel},
            indent=2) + "\n", encoding="utf-8")
    return [od.final(p) for p in written]


def _write_project(spec: ScriptSpec, dialect: str, out: Path) -> list[Path]:
    """The project's files under `out` (a fresh directory)."""
    relations = {role: f"{_SRC}{role}" for role in spec.tables()}
    pipeline, _, outputs = impact_pipeline(spec, relations)
    by_step = {o.step: o for o in outputs}
    models = out / "models"
    models.mkdir(parents=True, exist_ok=True)
    written = []
    names = set(pipeline.steps)

    def model(step: str) -> str:
        return f"{spec.prefix}{step}"

    schema_models = []
    for step_name, step in pipeline.steps.items():
        def visit(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Table) and not node.db and node.name in names:
                table = exp.to_table(f"{_REF}{node.name}")
                table.set("alias", node.args.get("alias") or exp.TableAlias(
                    this=exp.to_identifier(node.name)))
                return table
            return node

        query = step.query.transform(visit)
        with quiet_sqlglot():
            sql = to_sql(query, dialect, pretty=True)
        sql = _PLACEHOLDER.sub(
            lambda m: (f"{{{{ ref('{model(m.group(2))}') }}}}" if m.group(1) == _REF
                       else f"{{{{ source('{SOURCE}_{m.group(2)}', '{m.group(2)}') }}}}"),
            sql)
        materialized = "table" if step.materialise else "ephemeral"
        text = (f"-- abcde {__version__}: pipeline step {step_name} ({dialect})\n"
                f"{{{{ config(materialized='{materialized}') }}}}\n\n{sql}\n")
        path = models / f"{model(step_name)}.sql"
        path.write_text(text)
        written.append(path)
        if step.materialise:
            schema_models.append(_model_doc(model(step_name), step_name, step.query,
                                            by_step.get(step_name), spec))

    sources = [_source(role, name, dialect) for role, name in spec.tables().items()]
    schema = {"version": 2, "sources": sources, "models": schema_models}
    macros = out / "macros"
    macros.mkdir(exist_ok=True)
    (macros / f"{TRUE_TEST}.sql").write_text(TRUE_TEST_SQL)
    written.append(macros / f"{TRUE_TEST}.sql")
    files = {
        out / "dbt_project.yml": {
            "name": "abcde_impact", "version": __version__, "config-version": 2,
            "profile": "abcde", "model-paths": ["models"], "macro-paths": ["macros"],
            "models": {"abcde_impact": {"+materialized": "table"}}},
        models / "schema.yml": schema,
    }
    for path, doc in files.items():
        path.write_text(f"# abcde {__version__}: generated by `abcde dbt --dialect {dialect}`\n"
                        + _yaml(doc))
        written.append(path)
    return written


def _column_doc(step: str, column: str, spec: ScriptSpec) -> str:
    if column in WORK_DOCS.get(step, {}):
        return WORK_DOCS[step][column]
    if column in COLUMN_DOCS:
        return COLUMN_DOCS[column]
    if step.startswith("slices_"):
        return f"Slice column {column} (its value; NULL for items without one)."
    if step == "cell_rows" and column.startswith("s_"):
        names = list(dict.fromkeys(c for s in spec.slicings for c in s))
        return f"Value of the slice attribute {names[int(column[2:])]} (as a string)."
    if step == "cell_rows" and column.endswith("_n"):
        return f"Rows of the group failing check {column[:-len('_n')]}."
    if column.endswith("_example"):
        return f"An item id failing check {column[:-len('_example')]} (NULL if none)."
    if column.endswith("_rows"):
        return f"Rows of the {column[:-len('_rows')]} input."
    if column.startswith("example_"):
        return "An example item id (ordered by id)."
    return column.replace("_", " ").capitalize() + "."


def _model_doc(name: str, step: str, query: exp.Query, output: Output | None,
               spec: ScriptSpec) -> dict[str, object]:
    """The schema.yml entry of a table model: the output's columns and doc, or for a work
    table the columns its query selects."""
    if output is None:
        description = f"Work table of abcde (step {step})." + (
            " Cells (Base cluster, Exp cluster) of T with their size and weight."
            if step == "cells" else "")
        names: Sequence[str] = query.named_selects
    else:
        description, names = output.doc, output.columns
    columns = []
    for c in names:
        entry: dict[str, object] = {"name": c, "description": _column_doc(step, c, spec)}
        if c in TESTS.get(step, {}):
            entry["data_tests"] = TESTS[step][c]
        columns.append(entry)
    return {"name": name, "description": description, "columns": columns}


__all__ = ["dbt_project"]
