"""DuckDB, in-process: the default engine."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from abcde.engines.base import Engine, plain
from abcde.engines.files import (
    copy_query,
    create_table,
    file_format,
    first_line,
    private_dir,
    read_error,
    read_source,
    shown,
)
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
        # a borrowed connection keeps its own settings: no private directory for it
        self._own_tmp = temp_dir is None and connection is None
        self.temp_dir: Path | None = (Path(temp_dir) if temp_dir is not None else
                                      private_dir("duckdb") if connection is None else None)
        self._own_con = connection is None
        self._time_zone: str | None = None  # set from the frames' data (`_follow_zone`)
        self._stats: dict[str, tuple[int, int]] = {}  # input file -> (size, mtime) read
        self.con = connection
        try:
            if self.con is None:
                self.con = duckdb.connect(":memory:")
                # no progress bar beside abcde's own; each input file is read by several
                # steps, so its Parquet footer is parsed once
                for setting in (f"temp_directory = {literal(str(self.temp_dir))}",
                                "preserve_insertion_order = false",
                                "enable_progress_bar = false", "parquet_metadata_cache = true"):
                    self.con.execute(f"SET {setting}")
            if memory_limit:
                self._limit_memory(str(memory_limit))
            if threads is not None:
                self.con.execute(f"SET threads = {int(threads)}")
            if db is not None:
                self._attach(Path(db))
        except BaseException:  # Ctrl-C here too: the directory is not left behind
            self.close()
            raise

    def _limit_memory(self, limit: str) -> None:
        """SET memory_limit, refused when it is no size or more than the machine has
        (DuckDB would take it and the machine swap, or the kernel kill the process)."""
        hint = "Write e.g. 4GB or 500MB."
        try:
            self.con.execute(f"SET memory_limit = {literal(limit)}")
            size = self.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        except duckdb.Error as err:
            raise InputError(f"{{option}} {limit!r} is not a memory size: "
                             f"{first_line(str(err))}", option="memory_limit",
                             hint=hint) from err
        number, _, unit = str(size).partition(" ")
        units = {"bytes": 0, "KiB": 1, "MiB": 2, "GiB": 3, "TiB": 4, "PiB": 5, "EiB": 6}
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") \
            if hasattr(os, "sysconf") else None
        if total and unit in units and float(number) * 1024 ** units[unit] > total:
            raise InputError(f"{{option}} {limit!r} is more than this machine's memory "
                             f"({total / 1024 ** 3:.1f} GiB)", option="memory_limit",
                             hint="Give at most what the machine has (the default is 80% "
                                  "of it).")

    def _attach(self, db: Path) -> None:
        """Attach the user's database read-only; every way this fails is the user's to fix."""
        hint = ("--db takes a DuckDB database file; CSV and Parquet files are given to "
                "--base, --exp, --weights and --attributes directly.")
        problem = (f"database file {db} does not exist" if not db.exists() else
                   f"--db {db} is a directory, not a DuckDB database file" if db.is_dir()
                   else f"--db {db} is a {str(file_format(db)).upper()} file, not a DuckDB "
                   "database" if file_format(db) is not None else None)
        if problem is not None:
            raise InputError(problem, hint=hint, option="db")
        try:
            self.con.execute(f"ATTACH {literal(str(db))} AS {USER_DB} (READ_ONLY)")
        except duckdb.Error as err:
            locked = "lock" in str(err).lower()
            raise InputError(f"cannot open database file {db}: {_attach_reason(err)}",
                             option="db", hint="Close the other program (or copy the file) "
                             "and run again." if locked else hint) from err
        self.user_db = USER_DB
        self._user_db_path = db.resolve()

    def attach_workspace(self, location: str) -> str:
        """The DuckDB database file `location` (created if absent), attached read-write.
        A file another process holds is waited for (up to WORKSPACE_WAIT seconds, then
        `WorkspaceBusy`)."""
        path = Path(location)
        hint = "--workspace takes a DuckDB database file, e.g. round1.duckdb."
        problem = (" is a directory" if path.is_dir() else
                   f" is a {str(file_format(path)).upper()} file, not a DuckDB database"
                   if file_format(path) is not None else
                   f": directory {path.parent} does not exist" if not path.parent.is_dir()
                   else " is the --db file, which abcde never writes to"
                   if self.user_db is not None and self._user_db_path == path.resolve()
                   else None)
        if problem is not None:
            raise InputError(f"--workspace {path}{problem}", hint=hint, option="workspace")
        deadline, waiting = time.monotonic() + WORKSPACE_WAIT, False
        while True:
            try:
                self.con.execute(f"ATTACH {literal(str(path))} AS {WORKSPACE_DB}")
                return f"{WORKSPACE_DB}.main"
            except duckdb.Error as err:
                if "lock" not in str(err).lower():
                    full = read_error(err, {}, None)  # a full disk is not a wrong file
                    if full is not None:
                        raise full from err
                    raise InputError(f"cannot open workspace {path}: {_attach_reason(err)}",
                                     hint=hint, option="workspace") from err
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

    def _run(self, sql: str, fetch: bool = False) -> Any:
        """Run a statement (and fetch its rows); DuckDB's errors as abcde's (`_error`),
        Ctrl-C as itself. A damaged page fails only when the rows are fetched."""
        try:
            cur = self.con.execute(sql)
            return (cur, cur.fetchall()) if fetch else cur
        except duckdb.InterruptException as err:
            raise KeyboardInterrupt from err
        except duckdb.Error as err:
            raise self._error(err, sql) from err
        except RuntimeError as err:  # "Query interrupted" when Ctrl-C stops a query
            if "interrupted" in str(err).lower():
                raise KeyboardInterrupt from err
            raise

    def execute(self, sql: str) -> None:
        self._run(sql)

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        cur, rows = self._run(sql, fetch=True)
        names = [d[0] for d in cur.description]
        return [{k: plain(v) for k, v in zip(names, row, strict=True)} for row in rows]

    def _error(self, err: duckdb.Error, sql: str) -> AbcdeError:
        """The user's part of a DuckDB error (`read_error`; an input file that changed
        since it was registered: cut short while read), else abcde's, with its SQL."""
        for path, before in self._stats.items():
            with contextlib.suppress(OSError):
                if _stat(Path(path)) == before:
                    continue
            return InputError(f"{path} changed while abcde read it", option=None,
                              table=self.file_labels.get(path),
                              hint="Run again once the file is written whole.")
        found = read_error(err, self.file_labels, self.temp_dir)
        return found or EngineError(f"DuckDB refused a statement: {shown(str(err))}\n{sql}")

    def user_table(self, name: str) -> str:
        """A table of the attached database, as a quoted reference."""
        if self.user_db is None:
            raise InputError(f"{name!r} is not a file, and no database was given (--db)")
        return f"{ident(self.user_db)}.{table_ref(name)}"

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        with contextlib.suppress(OSError):
            self._stats[str(path)] = _stat(path)
        source = read_source(self.con, path, fmt, string_columns)
        self._drop(name)
        self.execute(f"CREATE TEMP VIEW {ident(name)} AS SELECT * FROM {source}")

    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        self._drop(name)
        create_table(self.con, name, columns, rows, temp=True)

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
        self._follow_zone(obj)

    def _follow_zone(self, obj: object) -> None:
        """Show timestamps with a time zone in the zone of the caller's data: DuckDB
        writes them as text (slice values, explore's groups) in the session's TimeZone,
        by default the machine's. The first frame holding such columns, all in one zone,
        sets it; a connection the caller lent keeps its own settings."""
        zones = _time_zones(obj)
        if not self._own_con or len(zones) != 1 or self._time_zone is not None:
            return
        (zone,) = zones
        with contextlib.suppress(duckdb.Error):  # a zone ICU does not know: as it was
            self.con.execute(f"SET TimeZone = {literal(zone)}")
            self._time_zone = zone

    def columns(self, relation: str) -> list[tuple[str, str]]:
        return [(row[0], row[1]) for row in
                self._run(f"DESCRIBE SELECT * FROM {relation}", fetch=True)[1]]

    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
        # COPY keeps an ORDER BY's order even with preserve_insertion_order off
        query = copy_query(relation, self.columns(relation) if fmt != "parquet" else [],
                           fmt, order_by)
        self.execute(f"COPY ({query}) TO {literal(str(path))} ({option})")

    def close(self) -> None:
        self.closed = True
        try:
            if self.con is not None:
                self.con.close()
        finally:
            if self._own_tmp and self.temp_dir is not None:
                shutil.rmtree(self.temp_dir, ignore_errors=True)


def _stat(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def _attach_reason(err: duckdb.Error) -> str:
    text = str(err)
    if "lock" in text.lower():
        return "another process has it open for writing (DuckDB locks the file)"
    if "not a valid DuckDB database" in text:
        return "it is not a DuckDB database file"
    return first_line(text)


def _time_zones(obj: object) -> set[str]:
    """The time zones of the timestamp columns of a pandas/polars DataFrame or an Arrow
    table (empty for naive timestamps and for anything else)."""
    dtypes = getattr(obj, "dtypes", None)
    if hasattr(obj, "schema") and hasattr(obj, "column_names"):  # pyarrow.Table
        return {str(f.type.tz) for f in obj.schema  # type: ignore[attr-defined]
                if getattr(f.type, "tz", None)}
    if dtypes is None:
        return set()
    values = dtypes.values() if hasattr(dtypes, "values") and callable(dtypes.values) \
        else dtypes
    return {str(z) for d in values
            if (z := getattr(d, "tz", None) or getattr(d, "time_zone", None))}
