"""Row-level input checks, run in SQL over the `items` step (one pass for all counts;
example ids are fetched only for a check that failed). SPEC §1: bad input is refused
with a message naming the table, the column and example ids — never a wrong number.
"""

from __future__ import annotations

from dataclasses import dataclass

from abcde.cells import Inputs
from abcde.dialects import to_sql
from abcde.engines.base import Engine
from abcde.errors import InputError, Shown
from abcde.pipeline import Pipeline
from abcde.templates import render

EXAMPLES = 10


@dataclass(frozen=True)
class Check:
    name: str
    table: str  # role of the input at fault: base, exp, weights, attributes
    column: str  # which configured column: item, cluster, weight, or an attribute
    message: str
    hint: str
    extra: tuple[str, ...] = ()  # items columns shown beside the example ids


def _checks(inputs: Inputs) -> list[Check]:
    b, e = inputs.base.role, inputs.exp.role
    cols = inputs.columns
    checks = []
    for role, source in ((b, inputs.base), (e, inputs.exp)):
        side = "base" if source is inputs.base else "exp"
        checks += [
            Check(f"null_item_{side}", role, cols.item, "{n} row(s) have a NULL item id",
                  "Every row needs an item id.", (f"n_{side}",)),
            Check(f"duplicate_{side}", role, cols.item,
                  "{n} item id(s) appear more than once; a clustering puts each item in "
                  "exactly one cluster", "Remove the duplicate rows.", (f"n_{side}",)),
            Check(f"null_cluster_{side}", role, cols.cluster,
                  "{n} item(s) have a NULL cluster id",
                  "Give every item a cluster (a singleton cluster id of its own, if alone)."),
        ]
    for name, role, source in (("weights", "weights", inputs.weights),
                               ("attributes", "attributes", inputs.attributes)):
        if source is not None:
            checks += [
                Check(f"null_item_{name}", role, cols.item, "{n} row(s) have a NULL item id",
                      "Every row needs an item id.", (f"n_{name}",)),
                Check(f"duplicate_{name}", role, cols.item,
                      "{n} item id(s) appear more than once", "Keep one row per item.",
                      (f"n_{name}",)),
            ]
    weight_hint = "Weights must be finite numbers > 0 (ABCDE §3)."
    if inputs.weights is not None:
        checks.append(Check("bad_weight_weights", "weights", cols.weight,
                            "{n} weight(s) are NULL, NaN, infinite, zero or negative",
                            weight_hint, ("table_weight",)))
        if inputs.missing_weight is None:
            checks.append(Check(
                "missing_weight", "weights", cols.item,
                "lacks {n} item(s) present in both clusterings",
                "Add their weights, or pass --missing-weight 1 to give them weight 1."))
    for side, used in (("base", inputs.base_weight), ("exp", inputs.exp_weight)):
        if used:
            role = b if side == "base" else e
            checks.append(Check(f"bad_weight_{side}", role, cols.weight,
                                "{n} weight(s) are NULL, NaN, infinite, zero or negative",
                                weight_hint, (f"{side}_weight",)))
    if inputs.base_weight and inputs.exp_weight:
        checks.append(Check("weight_mismatch", f"{b} and {e}", cols.weight,
                            "{n} item(s) have different weights in the two clusterings",
                            "Give one weights table with --weights.",
                            ("base_weight", "exp_weight")))
    return checks


def validate(engine: Engine, pipeline: Pipeline, inputs: Inputs) -> dict[str, int]:
    """Refuse bad input; return the counts (including `common`, the size of T)."""
    checks = _checks(inputs)
    names = ["empty_base", "empty_exp", "common", *(c.name for c in checks)]
    query = pipeline.rewrite_query(render("validation/counts.sql", checks=names))
    counts = {k: int(v or 0) for k, v in engine.fetch(to_sql(query, engine.dialect))[0].items()}
    labels = {inputs.base.role: inputs.base.label, inputs.exp.role: inputs.exp.label}
    if inputs.weights:
        labels["weights"] = inputs.weights.label
    if inputs.attributes:
        labels["attributes"] = inputs.attributes.label
    errors: list[InputError] = []
    for side, source in (("base", inputs.base), ("exp", inputs.exp)):
        if counts[f"empty_{side}"] == 0:
            errors.append(InputError("is empty (no rows)", table=source.label,
                                     hint="Check the file or table name."))
    for check in checks:
        n = counts[check.name]
        if n == 0:
            continue
        rows = engine.fetch(to_sql(pipeline.rewrite_query(render(
            "validation/examples.sql", check=check.name, extra=check.extra, limit=EXAMPLES)),
            engine.dialect))
        column = (inputs.columns.weight if check.column == inputs.columns.weight
                  else check.column)
        if check.name.startswith("null_item"):
            n = int(rows[0][check.extra[0]]) if rows else n
            examples: list[object] = []
        elif check.extra:
            examples = [_example(r, check.extra) for r in rows]
        else:
            examples = [r["item_id"] for r in rows]
        errors.append(InputError(check.message.format(n=n), table=labels.get(
            check.table, check.table), column=column, examples=examples, hint=check.hint))
    if not errors and counts["common"] == 0:
        errors.append(InputError(
            f"{inputs.base.label} and {inputs.exp.label} have no item id in common",
            column=inputs.columns.item,
            hint="Both clusterings must cluster the same items (check --item-col and the "
                 "id format, e.g. 7 vs 'item_7')."))
    if errors:
        raise combine(errors)
    return counts


def _example(row: dict[str, object], extra: tuple[str, ...]) -> Shown:
    shown = ", ".join(f"{k}={row[k]!r}" for k in extra)
    return Shown(f"{row['item_id']!r} ({shown})")


def combine(errors: list[InputError]) -> InputError:
    """One error listing every problem found, so a user fixes them in one round."""
    if len(errors) == 1:
        return errors[0]
    message = f"{len(errors)} problems with the input:\n- " + "\n- ".join(
        str(e).replace("\n", "\n  ") for e in errors)
    return InputError(message)
