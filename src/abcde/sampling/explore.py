"""Exploring the impact from an importance-weighted sample of affected items
(ABCDE §4.1.1; docs/method.md §7): the interactive slicing and dicing of §4.1.1.

`explore` groups a `sample_items` sample by attribute values (optionally filtered) and
ranks the groups by estimated contribution Σ_{i ∈ group} w(i)·m(i), with example items.
Its standard errors treat the Σdc draws as independent draws from q, each contributing
x = JD(T)·m(i)/JD(i)·1(i ∈ group): SE = sd(x)/√Σdc."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from abcde.cells import IMPACT_METRICS
from abcde.errors import InputError
from abcde.results import plain_row
from abcde.sql.helpers import rank_value
from abcde.sql.quoting import ident, literal


def _where(where: str | None) -> exp.Expression | None:
    """A user's filter: one boolean SQL expression over the sample's columns (DuckDB
    syntax), parsed so that nothing but an expression gets through."""
    if not where:
        return None
    try:
        cond = sqlglot.parse_one(where, read="duckdb", into=exp.Condition)
    except sqlglot.errors.ParseError as err:
        raise InputError(f"--where is not an SQL condition: {err}") from err
    if cond.find(exp.Query, exp.Command, exp.Create, exp.Drop, exp.Insert, exp.Delete):
        raise InputError("--where must be a condition over the sample's columns, not a "
                         "query")
    return cond


#: Operators of `filters` → their SQL (the only SQL a filter brings; its value is a
#: bound parameter and its column one of the sample's, quoted).
FILTER_OPS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
              "contains": "contains"}


def _filter_sql(filters: Sequence[tuple[str, str, Any]], types: dict[str, str]
                ) -> tuple[list[str], list[Any]]:
    """SQL conditions with ? placeholders, and their parameters, for (column, operator,
    value) filters: the column must be one of the sample's, the operator one of
    :data:`FILTER_OPS`; the value is cast in SQL to the column's type."""
    conds, params = [], []
    for column, op, value in filters:
        if column not in types:
            raise InputError(f"filter on {column!r}: the sample has no such column; its "
                             f"columns are {', '.join(types)}")
        if op not in FILTER_OPS:
            raise InputError(f"filter on {column!r}: unknown operator {op!r} (one of "
                             f"{', '.join(FILTER_OPS)})")
        if op == "contains":
            conds.append(f"contains(CAST({ident(column)} AS VARCHAR), CAST(? AS VARCHAR))")
        else:  # the type comes from DESCRIBE, never from the user
            conds.append(f"{ident(column)} {FILTER_OPS[op]} CAST(? AS {types[column]})")
        params.append(value)
    return conds, params


def explore(sample: str | Path | Sequence[dict[str, Any]], group_by: str | Sequence[str] = (),
            *, where: str | None = None, metric: str = "jaccard_distance", top: int = 20,
            examples: int = 3, filters: Sequence[tuple[str, str, Any]] = ()
            ) -> dict[str, Any]:
    """Top groups of a `sample_items` sample by estimated contribution to `metric`(T)
    (ABCDE §4.1.1).

    Parameters
    ----------
    sample
        The sample file (.parquet or .csv) or its rows.
    group_by
        Attribute column(s) to group by ("a,b" or a list); none: one group.
    where
        A boolean SQL condition over the sample's columns, applied first.
    metric
        The impact metric whose contribution ranks the groups.
    top, examples
        Groups to return (0: all); example items per group (the most drawn).
    filters
        (column, operator, value) conditions applied with `where`: a column of the
        sample, an operator of :data:`FILTER_OPS`, a value bound as a query parameter
        (never written into the SQL) — what the exploration page sends.

    Returns
    -------
    dict
        Per group of attribute values: Σ w(i)·m(i) for every impact metric
        (`contribution_<metric>`), the estimated weight share Σ w(i), the estimated
        metric of the group's affected items, the sampled items and draws, an SE of the
        contribution to `metric`, and the example items.

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals.
    Google LLC, §4.1.1. Importance weights: docs/method.md §7.3.
    """
    if metric not in IMPACT_METRICS:
        raise InputError(f"--metric must be one of {', '.join(IMPACT_METRICS)}")
    for name, value, zero in (("--top", top, "all groups"), ("--examples", examples, "none")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{name} must be an integer >= 0 (0: {zero}), got {value!r}")
    groups = [c.strip() for c in group_by.split(",")] if isinstance(group_by, str) \
        else list(group_by)
    groups = [g for g in groups if g]
    empty = {"metric": metric, "group_by": groups, "where": where, "sample_draws": 0,
             "filtered_draws": 0, "groups": []}
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        if isinstance(sample, str | Path):
            path = Path(sample)
            if not path.exists():
                raise InputError(f"sample file {path} does not exist")
            reader = "read_csv" if path.suffix.lower() == ".csv" else "read_parquet"
            relation = f"{reader}({literal(str(path))})"
        else:
            rows = list(sample)
            if not rows:
                return empty
            from abcde.engines.duckdb import DuckDBEngine

            DuckDBEngine(connection=con).register_rows(
                "sample_rows", list(rows[0]), [tuple(r.values()) for r in rows])
            relation = ident("sample_rows")
        described = con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
        columns = [r[0] for r in described]
        conds, params = _filter_sql(filters, {r[0]: r[1] for r in described})
        for c in [*groups, "importance_weight", "draw_count", *IMPACT_METRICS]:
            if c not in columns:
                raise InputError(f"the sample has no column {c!r}; its columns are "
                                 f"{', '.join(columns)}")
        cond = _where(where)
        if not con.execute(f"SELECT COUNT(*) FROM {relation}").fetchone()[0]:
            return empty  # nothing was affected; an empty CSV's columns would read as text
        base = exp.select("*").from_(exp.maybe_parse(relation, dialect="duckdb"))
        if cond is not None:
            base = base.where(cond)
        filtered = base.sql("duckdb")
        if conds:
            filtered = f"SELECT * FROM ({filtered}) AS f WHERE {' AND '.join(conds)}"
        try:  # the one query that first applies the user's condition to every row
            totals = con.execute(f"SELECT SUM(draw_count) FROM ({filtered}) AS s",
                                 params).fetchone()
        except duckdb.Error as err:
            if cond is None and not conds:
                raise
            what = f"--where {where!r}" if cond is not None else "the filters"
            if conds and cond is not None:
                what = f"--where {where!r} or the filters"
            raise InputError(f"{what} cannot be applied to the sample: "
                             f"{str(err).splitlines()[0]}",
                             hint=f"The sample's columns are {', '.join(columns)}.") from None
        all_draws = con.execute(f"SELECT SUM(draw_count) FROM {relation}").fetchone()[0] or 0
        g = ", ".join(ident(c) for c in groups)
        key = f"{g}, " if groups else ""
        contribs = ", ".join(f"SUM(importance_weight * {m}) AS {ident('contribution_' + m)}"
                             for m in IMPACT_METRICS)
        # x = JD(T)/JD(i)·m(i) per draw = importance_weight·m(i)·Σdc/dc(i)
        x = f"importance_weight * {metric} * {int(all_draws)} / draw_count"
        sql = (f"SELECT {key}COUNT(*) AS items, SUM(draw_count) AS draws, "
               f"SUM(importance_weight) AS weight_share, {contribs}, "
               f"SUM(draw_count * ({x}) * ({x})) AS sum_x2 "
               f"FROM ({filtered}) AS s {'GROUP BY ' + g if groups else ''}")
        cur = con.execute(sql, params)
        names = [d[0] for d in cur.description]
        result_rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        out_rows = []
        for r in result_rows:
            if not r["items"]:  # no group by and nothing passed the filter: no group
                continue
            est = float(r[f"contribution_{metric}"] or 0.0)
            n = max(int(all_draws), 1)
            mean_x2 = float(r.pop("sum_x2") or 0.0) / n
            var = max(mean_x2 - est * est, 0.0)
            r["se"] = math.sqrt(var / (n - 1)) if n > 1 else None
            share = float(r["weight_share"] or 0.0)
            r[metric] = est / share if share > 0 else None
            r["contribution"] = est
            out_rows.append(plain_row(r))
        out_rows.sort(key=lambda r: (-rank_value(abs(r["contribution"])),
                                     *(str(r[c]) for c in groups)))
        out_rows = out_rows[:top] if top else out_rows
        if examples and out_rows:
            for r in out_rows:
                conds = [(f"{ident(c)} IS NULL" if r[c] is None
                          else f"{ident(c)} = {literal(r[c])}") for c in groups]
                sql = (f"SELECT item_id FROM ({filtered}) AS s "
                       f"{'WHERE ' + ' AND '.join(conds) if conds else ''} "
                       f"ORDER BY draw_count DESC, first_draw LIMIT {int(examples)}")
                r["examples"] = [e[0] for e in con.execute(sql, params).fetchall()]
        return {"metric": metric, "group_by": groups, "where": where,
                "filters": [list(f) for f in filters],
                "sample_draws": int(all_draws), "filtered_draws": int(totals[0] or 0),
                "groups": out_rows}
    finally:
        con.close()
