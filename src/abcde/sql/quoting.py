"""Identifiers and literals: the only way a user-given name or value reaches SQL.

Names are quoted with sqlglot in the canonical dialect (DuckDB, the dialect every
template is written in); `abcde.sql.dialects` then writes them for each target.
"""

from __future__ import annotations

from sqlglot import exp

CANONICAL_DIALECT = "duckdb"


def ident(name: str) -> str:
    """A user-given column name as a quoted identifier (never pasted text).

    >>> ident('a"b')
    '"a""b"'
    """
    return exp.to_identifier(name, quoted=True).sql(CANONICAL_DIALECT)


def table_ref(name: str) -> str:
    """A possibly qualified table name (`db.schema.table`), every part quoted.

    >>> table_ref("proj.ds.base")
    '"proj"."ds"."base"'
    """
    return ".".join(ident(p) for p in name.split("."))


def literal(value: object) -> str:
    """A Python value as a SQL literal (strings escaped by sqlglot).

    >>> literal("it's"), literal(2), literal(0.5), literal(True)
    ("'it''s'", '2', 'CAST(0.5 AS DOUBLE)', 'TRUE')
    """
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return f"CAST({value!r} AS DOUBLE)" if isinstance(value, float) else str(value)
    return exp.Literal.string(str(value)).sql(CANONICAL_DIALECT)
