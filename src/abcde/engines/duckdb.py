"""DuckDB, in-process: the default engine."""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from abcde.engines.base import Engine, select_all
from abcde.engines.files import create_table, csv_problem, file_format, file_source
from abcde.errors import AbcdeError, EngineError, InputError, WorkspaceBusy
from abcde.sql.dialects import DuckDB
from abcde.sql.quoting import ident, literal, table_ref

USER_DB = "abcde_user_db"
WORKSPACE_DB = "abcde_workspace"
#: How long a command waits for a workspace file another process holds (DuckDB lets one
#: process at a time write a database file), in seconds.
WORKSPACE_WAIT = 120.0

log = logging.getLogger("abcde")


class DuckDBEngine(Engine):
    """An in-memory DuckDB; a user's database file is attached read-only, so abcde never
    writes to it. Work tables spill to a private temp directory under `memory_limit`."""

    dialect = DuckDB()
    reads_frames = True
    reads_tables = True
    keeps_workspace = True
    row_hash = "CAST(HASH({key}) % 1000000007 AS BIGINT)"

    def __init__(self, db: str | Path | None = None, memory_limit: str | None = None,
                 threads: int | None = None, temp_dir: str | Path | None = None,
                 connection: duckdb.DuckDBPyConnection | None = None) -> None:
        self._own_tmp = temp_dir is None and connection is None
        self.temp_dir = Path(temp_dir or tempfile.mkdtemp(prefix="abcde_duckdb_"))
        self.con = connection or duckdb.connect(":memory:")
        try:
            self._configure(connection is None, memory_limit, threads)
            if db is not None:
                self._attach(Path(db))
        except BaseException:
            self.close()
            raise

    def _configure(self, new: bool, memory_limit: str | None, threads: int | None) -> None:
        if new:
            self.execute(f"SET temp_directory = {literal(str(self.temp_dir))}")
            self.execute("SET preserve_insertion_order = false")
            # no progress bar on the terminal beside abcde's own output; each input file
            # is read by several steps, so its Parquet footer is parsed once
            self.execute("SET enable_progress_bar = false")
            self.execute("SET parquet_metadata_cache = true")
        if memory_limit:
            try:
                self.con.execute(f"SET memory_limit = {literal(str(memory_limit))}")
            except duckdb.Error as err:
                raise InputError(f"--memory-limit {memory_limit!r} is not a memory size: "
                                 f"{_first_line(err)}", hint="Write e.g. 4GB or 500MB.") from err
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
                raise InputError(f"--threads must be a whole number >= 1, not {threads!r}")
            self.execute(f"SET threads = {threads}")

    def _attach(self, db: Path) -> None:
        """Attach the user's database read-only; every way this fails is the user's to fix."""
        hint = ("--db takes a DuckDB database file; CSV and Parquet files are given to "
                "--base, --exp, --weights and --attributes directly.")
        if not db.exists():
            raise InputError(f"database file {db} does not exist", hint=hint)
        if db.is_dir():
            raise InputError(f"--db {db} is a directory, not a DuckDB database file", hint=hint)
        if file_format(db) is not None:
            raise InputError(f"--db {db} is a {file_format(db).upper()} file, not a DuckDB "
                             "database", hint=hint)
        try:
            self.con.execute(f"ATTACH {literal(str(db))} AS {USER_DB} (READ_ONLY)")
        except duckdb.Error as err:
            text = str(err)
            if "lock" in text.lower():
                reason = "another process has it open for writing (DuckDB locks the file)"
                hint = "Close the other program (or copy the file) and run again."
            elif "not a valid DuckDB database" in text:
                reason = "it is not a DuckDB database file"
            else:
                reason = _first_line(err)
            raise InputError(f"cannot open database file {db}: {reason}", hint=hint) from err
        self.user_db = USER_DB
        self._user_db_path = db.resolve()

    def attach_workspace(self, location: str) -> str:
        """The DuckDB database file `location` (created if absent), attached read-write.
        A file another process holds is waited for (up to WORKSPACE_WAIT seconds, then
        `WorkspaceBusy`)."""
        path = Path(location)
        hint = "--workspace takes a DuckDB database file, e.g. round1.duckdb."
        if path.is_dir():
            raise InputError(f"--workspace {path} is a directory", hint=hint)
        if file_format(path) is not None:
            raise InputError(f"--workspace {path} is a {file_format(path).upper()} file, "
                             "not a DuckDB database", hint=hint)
        if self.user_db is not None and self._user_db_path == path.resolve():
            raise InputError(f"--workspace {path} is the --db file, which abcde never "
                             "writes to", hint="Name another file.")
        deadline = time.monotonic() + WORKSPACE_WAIT
        waiting = False
        while True:
            try:
                self.con.execute(f"ATTACH {literal(str(path))} AS {WORKSPACE_DB}")
                return f"{WORKSPACE_DB}.main"
            except duckdb.Error as err:
                text = str(err)
                if "lock" not in text.lower():
                    raise InputError(f"cannot open workspace {path}: {_first_line(err)}",
                                     hint=hint) from err
                if time.monotonic() >= deadline:
                    raise WorkspaceBusy(f"workspace {path} is held by another process "
                                        f"(waited {WORKSPACE_WAIT:g} s)") from err
                if not waiting:
                    log.warning("workspace %s is held by another abcde command; waiting "
                                "for it", path)
                    waiting = True
                time.sleep(0.25)

    def detach_workspace(self) -> None:
        with contextlib.suppress(duckdb.Error):
            self.con.execute(f"DETACH {WORKSPACE_DB}")

    def list_tables(self, schema: str) -> list[str]:
        database, _, name = schema.partition(".")
        rows = self.fetch("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                          f"{literal(database)} AND schema_name = {literal(name or 'main')}")
        return [r["table_name"] for r in rows]

    def execute(self, sql: str) -> None:
        try:
            self.con.execute(sql)
        except duckdb.Error as err:
            raise self._error(err, f"DuckDB refused a statement: {err}\n{sql}") from err

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        try:
            cur = self.con.execute(sql)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        except duckdb.Error as err:
            raise self._error(err, f"DuckDB refused a query: {err}\n{sql}") from err

    def _error(self, err: duckdb.Error, text: str) -> AbcdeError:
        """A line of an input CSV that DuckDB cannot parse is the user's to fix (exit 2),
        named by `file_labels`: a CSV value DuckDB cannot convert fails only when the query
        reaches its line. Anything else is abcde's."""
        problem = csv_problem(str(err))
        if problem is None:
            return EngineError(text)
        return InputError(problem.message(), table=self.file_labels.get(problem.file or ""),
                          column=problem.column, hint=problem.hint)

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


def _first_line(err: Exception) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
