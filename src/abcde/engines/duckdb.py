"""DuckDB, in-process: the default engine."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from abcde.engines.base import Engine, select_all
from abcde.engines.local_files import create_table, file_source
from abcde.errors import EngineError, InputError
from abcde.templates import ident, literal, table_ref

USER_DB = "abcde_user_db"


class DuckDBEngine(Engine):
    """An in-memory DuckDB; a user's database file is attached read-only, so abcde never
    writes to it. Work tables spill to a private temp directory under `memory_limit`."""

    dialect = "duckdb"

    def __init__(self, db: str | Path | None = None, memory_limit: str | None = None,
                 threads: int | None = None, temp_dir: str | Path | None = None,
                 connection: duckdb.DuckDBPyConnection | None = None) -> None:
        self._own_tmp = temp_dir is None and connection is None
        self.temp_dir = Path(temp_dir or tempfile.mkdtemp(prefix="abcde_duckdb_"))
        self.con = connection or duckdb.connect(":memory:")
        self.user_db: str | None = None
        if connection is None:
            self.execute(f"SET temp_directory = {literal(str(self.temp_dir))}")
            self.execute("SET preserve_insertion_order = false")
            # no progress bar on the terminal beside abcde's own output; each input file
            # is read by several steps, so its Parquet footer is parsed once
            self.execute("SET enable_progress_bar = false")
            self.execute("SET parquet_metadata_cache = true")
        if memory_limit:
            self.execute(f"SET memory_limit = {literal(memory_limit)}")
        if threads:
            self.execute(f"SET threads = {int(threads)}")
        if db is not None:
            if not Path(db).exists():
                raise InputError(f"database file {db} does not exist", hint="Check --db.")
            try:
                self.execute(f"ATTACH {literal(str(db))} AS {USER_DB} (READ_ONLY)")
            except duckdb.Error as err:
                raise InputError(f"cannot open database file {db}: {err}") from err
            self.user_db = USER_DB

    def execute(self, sql: str) -> None:
        try:
            self.con.execute(sql)
        except duckdb.Error as err:
            raise EngineError(f"DuckDB refused a statement: {err}\n{sql}") from err

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        try:
            cur = self.con.execute(sql)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        except duckdb.Error as err:
            raise EngineError(f"DuckDB refused a query: {err}\n{sql}") from err

    def user_table(self, name: str) -> str:
        """A table of the attached database, as a quoted reference."""
        if self.user_db is None:
            raise InputError(f"{name!r} is not a file, and no database was given (--db)")
        return f"{ident(self.user_db)}.{table_ref(name)}"

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        source = file_source(path, fmt, string_columns)
        self._drop(name)
        self.execute(f"CREATE TEMP VIEW {ident(name)} AS SELECT * FROM {source}")

    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        self._drop(name)
        try:
            create_table(self.con, name, columns, rows, temp=True)
        except duckdb.Error as err:
            raise EngineError(f"DuckDB refused rows for {name}: {err}") from err

    def _drop(self, name: str) -> None:
        """Free a relation name whatever it was before (view, table or registered frame),
        so that one engine can be reused across calls with other kinds of input."""
        with contextlib.suppress(duckdb.Error):
            self.con.unregister(name)
        for kind in ("VIEW", "TABLE"):
            # DROP VIEW on a table (and the reverse) is a CatalogException: the other kind
            with contextlib.suppress(duckdb.CatalogException):
                self.con.execute(f"DROP {kind} IF EXISTS {ident(name)}")

    def register_relation(self, name: str, obj: object) -> None:
        """A pandas/polars DataFrame or Arrow table, scanned in place."""
        self._drop(name)
        try:
            self.con.register(name, obj)
        except Exception as err:
            raise InputError(f"cannot read {type(obj).__name__} as a table: {err}") from err

    def columns(self, relation: str) -> list[tuple[str, str]]:
        try:
            cur = self.con.execute(f"DESCRIBE SELECT * FROM {relation}")
            return [(row[0], row[1]) for row in cur.fetchall()]
        except duckdb.Error as err:
            raise EngineError(str(err)) from err

    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
        # COPY keeps an ORDER BY's order even with preserve_insertion_order off
        self.execute(f"COPY ({select_all(relation, order_by)}) TO {literal(str(path))} "
                     f"({option})")

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            if self._own_tmp:
                shutil.rmtree(self.temp_dir, ignore_errors=True)
