"""`abcde dbt`: the impact pipeline (abcde.scripts) as a dbt project — one model per
pipeline step, `ref()` between them, `source()` for the input tables, and a schema.yml
with column docs and the tests that hold on valid input.

Materialised steps become `table` models, the others `ephemeral` (inlined as CTEs, as
the pipeline inlines them). The `validation` model's test `input_valid = true` fails
`dbt build` on invalid input, and dbt then skips every model downstream of it: metrics
of invalid input are not built.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sqlglot import exp

from abcde import __version__
from abcde.dialects import to_sql
from abcde.scripts import Output, ScriptSpec, impact_pipeline, quiet_sqlglot

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
    "bad_weight_weights": "Weights that are NULL, NaN, infinite, zero or negative.",
    "missing_weight": "Items of T the weights table lacks.",
    "no_common_items": "1 when the clusterings have no item id in common.",
    "without_attributes": "Items of T without a row in the attributes table (not an error).",
}
# tests that hold on valid input, per output step
TESTS = {
    "validation": {"input_valid": ["not_null", {"accepted_values": {
        "values": [True], "quote": False}}]},
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


def _split_name(name: str) -> dict[str, str]:
    parts = name.split(".")
    keys = ["identifier", "schema", "database"]
    return {k: p for k, p in zip(keys, reversed(parts), strict=False)}


def dbt_project(spec: ScriptSpec, dialect: str, out: Path) -> list[Path]:
    """Write the dbt project for `dialect` into `out`; returns the files written."""
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
            schema_models.append(_model_doc(model(step_name), step_name,
                                            by_step.get(step_name)))

    sources = []
    for role, name in spec.tables().items():
        where = _split_name(name)
        sources.append({
            "name": f"{SOURCE}_{role}", "description": f"The {role} input of abcde impact.",
            **({"database": where["database"]} if "database" in where else {}),
            "schema": where.get("schema", "{{ target.schema }}"),
            "tables": [{"name": role, "identifier": where["identifier"],
                        "description": f"The {role} input ({name})."}]})
    schema = {"version": 2, "sources": sources, "models": schema_models}
    files = {
        out / "dbt_project.yml": {
            "name": "abcde_impact", "version": __version__, "config-version": 2,
            "profile": "abcde", "model-paths": ["models"],
            "models": {"abcde_impact": {"+materialized": "table"}}},
        models / "schema.yml": schema,
    }
    for path, doc in files.items():
        path.write_text(f"# abcde {__version__}: generated by `abcde dbt --dialect {dialect}`\n"
                        + _yaml(doc))
        written.append(path)
    return written


def _column_doc(step: str, column: str) -> str:
    if column in COLUMN_DOCS:
        return COLUMN_DOCS[column]
    if step.startswith("slices_"):
        return f"Slice column {column} (its value; NULL for items without one)."
    if column.endswith("_example"):
        return f"An item id failing check {column[:-len('_example')]} (NULL if none)."
    if column.endswith("_rows"):
        return f"Rows of the {column[:-len('_rows')]} input."
    if column.startswith("example_"):
        return "An example item id (ordered by id)."
    return column.replace("_", " ").capitalize() + "."


def _model_doc(name: str, step: str, output: Output | None) -> dict[str, object]:
    if output is None:
        return {"name": name, "description": f"Work table of abcde (step {step})."
                + (" Cells (Base cluster, Exp cluster) of T with their size and weight."
                   if step == "cells" else ""),
                "columns": [{"name": c, "description": COLUMN_DOCS[c],
                             **({"data_tests": TESTS[step][c]} if c in TESTS.get(step, {})
                                else {})}
                            for c in ("b", "e", "n", "w")] if step == "cells" else []}
    columns = []
    for c in output.columns:
        entry: dict[str, object] = {"name": c, "description": _column_doc(step, c)}
        if c in TESTS.get(step, {}):
            entry["data_tests"] = TESTS[step][c]
        columns.append(entry)
    return {"name": name, "description": output.doc, "columns": columns}


__all__ = ["dbt_project"]
