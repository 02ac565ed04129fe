"""Files read and written through an in-process DuckDB, for engines whose server cannot
see the caller's files (PostgreSQL) or would write a directory of parts (Spark)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path

import duckdb
import numpy as np

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


def create_table(con: duckdb.DuckDBPyConnection, name: str, columns: Sequence[str],
                 rows: Sequence[Sequence[object]], *, temp: bool = False) -> None:
    """CREATE [TEMP] TABLE `name` from Python rows, each column of the SQL type of its
    values (`sql_type_of`), rows in the given order. The rows are scanned as numpy
    arrays: DuckDB's executemany takes seconds per thousand rows."""
    types = [sql_type_of(row[k] for row in rows) for k in range(len(columns))]
    convert = {"VARCHAR": str, "DOUBLE": float}
    arrays = {}
    for k, t in enumerate(types):
        conv = convert.get(t)
        values = [None if r[k] is None else conv(r[k]) if conv else r[k] for r in rows]
        arrays[f"c{k}"] = np.array(values, dtype=object)
    scan = f"abcde_rows_{secrets.token_hex(6)}"
    con.register(scan, arrays)
    try:
        select = ", ".join(f"CAST(c{k} AS {t}) AS {ident(c)}"
                           for k, (c, t) in enumerate(zip(columns, types, strict=True)))
        con.execute(f"CREATE {'TEMP ' if temp else ''}TABLE {ident(name)} AS "
                    f"SELECT {select} FROM {scan}")
    finally:
        con.unregister(scan)


def write_rows(columns: Sequence[str], rows: Sequence[tuple], path: Path, fmt: str) -> None:
    """Write rows to one Parquet or CSV file, in the given order."""
    con = duckdb.connect(":memory:")
    try:
        create_table(con, "t", columns, rows)
        option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
        con.execute(f"COPY t TO {literal(str(path))} ({option})")
    finally:
        con.close()
