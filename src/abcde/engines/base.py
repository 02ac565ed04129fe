"""The engine interface: run SQL, register a table, read a small result.

Implementations know nothing of clusterings; the SQL they run is written by
`abcde.sql.dialects` for their `dialect` (a `Dialect` object). Every optional capability
is declared here with its default, and an engine overrides what it supports: callers ask
the engine (`engine.reads_frames`), never probe it (`hasattr`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Literal

import sqlglot

from abcde.errors import EngineError, InputError
from abcde.sql.dialects import Dialect
from abcde.sql.quoting import CANONICAL_DIALECT, ident

TypeCategory = Literal["integer", "string", "float", "decimal", "boolean", "nested", "other"]

# Type names of values holding several values (DuckDB's, Spark's and PostgreSQL's, whose
# engine holds the lists, structs and maps of a file as JSONB): a
# column of these is never an id, a weight or a slice value.
_NESTED = ("STRUCT", "MAP", "LIST", "ARRAY", "UNION", "ROW", "JSONB")


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


def plain(value: Any) -> Any:
    """A value of an engine's result as a plain Python value, what JSON and the
    estimators take: a whole Decimal (PostgreSQL's SUM of BIGINT) as int, another as
    float, a numpy scalar as its Python value, lists and mappings element by element;
    dates and text as they are."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        return int(value) if isinstance(exponent, int) and exponent >= 0 else float(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    if isinstance(value, bool | int | float | str):  # subclasses (np.float64 is a float)
        return type(value).__mro__[-2](value)
    return value


def select_all(relation: str, order_by: Sequence[str] = ()) -> str:
    """SELECT * FROM relation [ORDER BY columns] (DuckDB quoting; engines transpile)."""
    order = f" ORDER BY {', '.join(ident(c) for c in order_by)}" if order_by else ""
    return f"SELECT * FROM {relation}{order}"


class Engine(ABC):
    """What every engine provides: the abstract methods, and the optional capabilities
    below with their defaults (an engine overrides those it has)."""

    dialect: ClassVar[Dialect]
    """The dialect of the SQL it runs (`dialect.sqlglot_name` for sqlglot)."""

    work_schema: str | None = None
    """The private schema/database for abcde's work tables; None: the default one."""

    user_db: str | None = None
    """The name under which the user's database is attached (DuckDB's `--db`); None
    when there is none. With one, a name without a file suffix is one of its tables."""

    closed: bool = False
    """Set by `close`: a closed engine is refused as engine= (its connection is gone)."""

    reads_frames: ClassVar[bool] = False
    """Whether `register_relation` reads in-memory tables (DataFrames, Arrow tables)."""

    row_hash: ClassVar[str]
    """An expression of the engine's SQL hashing the text `{key}` to an integer below 2^30
    (fingerprints of tables: `abcde.inputs.workspace`)."""

    @cached_property
    def file_labels(self) -> dict[str, str]:
        """Input file path (as the engine names it in errors) -> how messages name that
        input; `abcde.inputs.sources` fills it, and an engine whose errors name a file
        (DuckDB's, for a CSV line past the rows it sniffed) reads it. One per engine."""
        return {}

    def register_relation(self, name: str, obj: object) -> None:
        """Expose an in-memory table (a DataFrame) as relation `name`; only on an engine
        that `reads_frames`."""
        raise InputError(f"cannot read a {type(obj).__name__} on this engine; give a file "
                         "or a table")

    @abstractmethod
    def user_table(self, name: str) -> str:
        """A table of the user's database or catalog, as a reference abcde's SQL can
        read."""

    def missing_table(self, name: str, relation: str) -> tuple[str, str]:
        """(what is wrong, what to do) when `name`, neither a file nor a readable table
        (`relation`, from `user_table`), was given as an input."""
        return (f"no file or table named {name!r}",
                "Give a path to a CSV/Parquet file, or a table of --db (with --db, a name "
                "without a .csv/.parquet suffix is a table).")

    def select_sql(self, relation: str, order_by: Sequence[str] = ()) -> str:
        """`select_all` of a relation reference of abcde (DuckDB quoting), written in this
        engine's dialect."""
        return sqlglot.transpile(select_all(relation, order_by), read=CANONICAL_DIALECT,
                                 write=self.dialect.sqlglot_name)[0]

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

    def csv_columns(self, path: Path) -> list[str] | None:
        """The column names `register_file` gives a CSV file, told without reading its
        rows, on an engine whose registration copies them (a second registration with
        the id columns as text would copy them again); None: registering is cheap, and
        the file is registered to learn them."""
        return None

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

    @abstractmethod
    def attach_workspace(self, location: str) -> str:
        """Open the workspace `location` (a database file, schema or database, as the
        engine keeps one) and return the schema its tables go to, as a dotted name."""

    def detach_workspace(self) -> None:  # noqa: B027 - optional hook
        """Close what `attach_workspace` opened."""

    @abstractmethod
    def list_tables(self, schema: str) -> list[str]:
        """The names of the tables of `schema` (a dotted name from `attach_workspace`)."""

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
