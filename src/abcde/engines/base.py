"""The engine interface: run SQL, register a table, read a small result.

Implementations know nothing of clusterings; the SQL they run is written by
`abcde.sql.dialects` for their `dialect`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import sqlglot

from abcde.errors import EngineError
from abcde.sql.quoting import CANONICAL_DIALECT, ident

TypeCategory = Literal["integer", "string", "float", "decimal", "boolean", "nested", "other"]

# Type names of values holding several values (DuckDB's, Spark's and PostgreSQL's): a
# column of these is never an id, a weight or a slice value.
_NESTED = ("STRUCT", "MAP", "LIST", "ARRAY", "UNION", "ROW")


def categorise(type_name: str) -> TypeCategory:
    """Engine type name -> the category that decides what abcde accepts. Only the outer
    type counts: INTEGER[] is a list and STRUCT(a VARCHAR) a struct, whatever they hold."""
    t = type_name.strip().upper()
    outer = t.split("(", 1)[0].split("<", 1)[0].strip()
    if t.endswith("]") or outer in _NESTED:
        return "nested"
    if outer == "ENUM":
        return "string"
    if any(k in outer for k in ("CHAR", "STRING", "TEXT")):
        return "string"
    if outer in ("DECIMAL", "NUMERIC"):
        return "decimal"
    if any(k in outer for k in ("DOUBLE", "FLOAT", "REAL")):
        return "float"
    if any(k in outer for k in ("INT", "LONG", "SHORT", "BYTE")) and "INTERVAL" not in outer:
        return "integer"
    if "BOOL" in outer:
        return "boolean"
    return "other"


def sql_type_of(values: Iterable[object]) -> str:
    """The SQL type for a column of Python values (None is NULL of any type)."""
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {bool}:
        return "BOOLEAN" if kinds else "VARCHAR"
    if kinds <= {int}:
        return "BIGINT"
    if kinds <= {int, float}:
        return "DOUBLE"
    return "VARCHAR"


def select_all(relation: str, order_by: Sequence[str] = ()) -> str:
    """SELECT * FROM relation [ORDER BY columns] (DuckDB quoting; engines transpile)."""
    order = f" ORDER BY {', '.join(ident(c) for c in order_by)}" if order_by else ""
    return f"SELECT * FROM {relation}{order}"


class Engine(ABC):
    """What every engine provides. `dialect` names the sqlglot dialect it runs;
    `work_schema`, if set, is the private schema/database for abcde's work tables."""

    dialect: str
    work_schema: str | None = None

    def select_sql(self, relation: str, order_by: Sequence[str] = ()) -> str:
        """`select_all` of a relation reference of abcde (DuckDB quoting), written in this
        engine's dialect."""
        return sqlglot.transpile(select_all(relation, order_by), read=CANONICAL_DIALECT,
                                 write=self.dialect)[0]

    @abstractmethod
    def execute(self, sql: str) -> None:
        """Run one statement."""

    @abstractmethod
    def fetch(self, sql: str) -> list[dict[str, Any]]:
        """Run a query and return its (small) result as dicts."""

    @abstractmethod
    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        """Expose a CSV/Parquet file as relation `name`; `string_columns` are read as
        text (ids such as 007 must not become 7)."""

    @abstractmethod
    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        """Expose Python rows as relation `name`."""

    @abstractmethod
    def columns(self, relation: str) -> list[tuple[str, str]]:
        """(column name, engine type name) of a relation or table."""

    @abstractmethod
    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        """Write a table to a Parquet or CSV file, rows in `order_by` order if given (the
        same data then gives the same file, whatever the engine's parallelism)."""

    def table_exists(self, relation: str) -> bool:
        try:
            self.columns(relation)
        except EngineError:
            return False
        return True

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
