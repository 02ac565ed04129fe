"""Files read and written through an in-process DuckDB, for engines whose server cannot
see the caller's files (PostgreSQL) or would write a directory of parts (Spark)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from abcde.engines.base import sql_type_of
from abcde.errors import EngineError
from abcde.templates import ident, literal


def file_source(path: Path, fmt: str, string_columns: Sequence[str] = ()) -> str:
    """DuckDB's table function reading a CSV/Parquet file; `string_columns` of a CSV are
    read as text (ids such as 007 must not become 7)."""
    p = literal(str(path))
    if fmt == "parquet":
        return f"read_parquet({p})"
    if fmt == "csv":
        types = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in string_columns)
        return f"read_csv({p}, header = true" + (f", types = {{{types}}})" if types else ")")
    raise EngineError(f"{path}: unsupported file format {fmt!r} (use CSV or Parquet)")


def read_file(path: Path, fmt: str, string_columns: Sequence[str] = (),
              ) -> tuple[list[tuple[str, str]], list[tuple]]:
    """(column name, DuckDB type) and rows of a CSV/Parquet file, typed as the DuckDB
    engine types them (so every engine sees the same input)."""
    source = file_source(path, fmt, string_columns)
    con = duckdb.connect(":memory:")
    try:
        cur = con.execute(f"SELECT * FROM {source}")
        columns = [(d[0], str(d[1])) for d in cur.description]
        return columns, cur.fetchall()
    except duckdb.Error as err:
        raise EngineError(f"cannot read {path}: {err}") from err
    finally:
        con.close()


def write_rows(columns: Sequence[str], rows: Sequence[tuple], path: Path, fmt: str) -> None:
    """Write rows to one Parquet or CSV file."""
    types = [sql_type_of(row[k] for row in rows) for k in range(len(columns))]
    con = duckdb.connect(":memory:")
    try:
        cols = ", ".join(f"{ident(c)} {t}" for c, t in zip(columns, types, strict=True))
        con.execute(f"CREATE TABLE t ({cols})")
        if rows:
            marks = ", ".join("?" for _ in columns)
            con.executemany(f"INSERT INTO t VALUES ({marks})", [tuple(r) for r in rows])
        option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
        con.execute(f"COPY t TO {literal(str(path))} ({option})")
    finally:
        con.close()
