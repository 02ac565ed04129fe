"""DuckDB, in-process: the default engine."""

from __future__ import annotations

import contextlib
import itertools
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
WORKSPACE_WAIT = 120.0  # seconds to wait for a workspace file another process writes
_UNITS = {"bytes": 0, "KiB": 1, "MiB": 2, "GiB": 3, "TiB": 4, "PiB": 5, "EiB": 6}

log = logging.getLogger("abcde")


class DuckDBEngine(Engine):
    """An in-memory DuckDB (or the caller's `connection`, whose settings are kept); the
    user's database file `db` is attached read-only, so abcde never writes to it. Work
    tables spill to a private temporary directory under `memory_limit`."""

    dialect = DuckDB()
    reads_frames = True
    row_hash = "CAST(HASH({key}) % 1000000007 AS BIGINT)"

    def __init__(self, db: str | Path | None = None, memory_limit: str | None = None,
                 threads: int | None = None,
                 connection: duckdb.DuckDBPyConnection | None = None) -> None:
        self._time_zone: str | None = None  # of the frames' timestamps (`_follow_zone`)
        self._stats: dict[str, tuple[int, int]] = {}  # input file -> (size, mtime) read
        self.con = connection or duckdb.connect(":memory:")
        self.temp_dir = private_dir("duckdb") if connection is None else None
        try:
            if self.temp_dir is not None:
                # no progress bar beside abcde's; each input file is read by several
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
        (DuckDB would take it, and the machine swap or the kernel kill the process)."""
        try:
            self.con.execute(f"SET memory_limit = {literal(limit)}")
            size = self.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        except duckdb.Error as err:
            raise InputError(f"{{option}} {limit!r} is not a memory size: "
                             f"{first_line(str(err))}", option="memory_limit",
                             hint="Write e.g. 4GB or 500MB.") from err
        number, _, unit = str(size).partition(" ")
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        if unit in _UNITS and float(number) * 1024 ** _UNITS[unit] > total:
            raise InputError(f"{{option}} {limit!r} is more than this machine's memory "
                             f"({total / 1024 ** 3:.1f} GiB)", option="memory_limit",
                             hint="Give at most what the machine has (the default is 80% "
                                  "of it).")

    def _attach_problem(self, path: Path, option: str, err: duckdb.Error | None = None
                        ) -> str | None:
        """Why `path` cannot be attached as --db or --workspace (before ATTACH, or from
        its error `err`)."""
        if err is not None:
            text = str(err)
            return ("another process has it open for writing (DuckDB locks the file)"
                    if "lock" in text.lower() else "it is not a DuckDB database file"
                    if "not a valid DuckDB database" in text else first_line(text))
        kind = file_format(path)
        return (f"{option} {path} is a directory, not a DuckDB database file" if path.is_dir()
                else f"{option} {path} is a {str(kind).upper()} file, not a DuckDB database"
                if kind is not None else None)

    def _attach(self, db: Path) -> None:
        """Attach the user's database read-only; every way this fails is the user's to fix."""
        hint = ("--db takes a DuckDB database file; CSV and Parquet files are given to "
                "--base, --exp, --weights and --attributes directly.")
        problem = (f"database file {db} does not exist" if not db.exists()
                   else self._attach_problem(db, "--db"))
        if problem is not None:
            raise InputError(problem, hint=hint, option="db")
        try:
            self.con.execute(f"ATTACH {literal(str(db))} AS {USER_DB} (READ_ONLY)")
        except duckdb.Error as err:
            raise InputError(f"cannot open database file {db}: "
                             f"{self._attach_problem(db, '--db', err)}", option="db",
                             hint="Close the other program (or copy the file) and run "
                                  "again." if "lock" in str(err).lower() else hint) from err
        self.user_db = USER_DB
        self._user_db_path = db.resolve()

    def attach_workspace(self, location: str) -> str:
        """The DuckDB database file `location` (created if absent), attached read-write;
        one another process holds is waited for (WORKSPACE_WAIT s, then WorkspaceBusy)."""
        path = Path(location)
        hint = "--workspace takes a DuckDB database file, e.g. round1.duckdb."
        problem = (self._attach_problem(path, "--workspace")
                   or (f"--workspace {path}: directory {path.parent} does not exist"
                       if not path.parent.is_dir() else
                       f"--workspace {path} is the --db file, which abcde never writes to"
                       if self.user_db is not None and self._user_db_path == path.resolve()
                       else None))
        if problem is not None:
            raise InputError(problem, hint=hint, option="workspace")
        deadline = time.monotonic() + WORKSPACE_WAIT
        for attempt in itertools.count():
            try:
                self.con.execute(f"ATTACH {literal(str(path))} AS {WORKSPACE_DB}")
                return f"{WORKSPACE_DB}.main"
            except duckdb.Error as err:
                if "lock" not in str(err).lower():
                    raise (read_error(err, {}) or InputError(  # a full disk: not a wrong file
                        f"cannot open workspace {path}: "
                        f"{self._attach_problem(path, '--workspace', err)}", hint=hint,
                        option="workspace")) from err
                if time.monotonic() >= deadline:
                    raise WorkspaceBusy(f"workspace {path} is held by another process "
                                        f"(waited {WORKSPACE_WAIT:g} s)") from err
                if not attempt:
                    log.warning("workspace %s is held by another abcde command; waiting "
                                "for it", path)
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
        """Run a statement (and fetch its rows: a damaged page fails only then); DuckDB's
        errors as abcde's (`_error`), Ctrl-C ("Query interrupted") as itself."""
        try:
            cur = self.con.execute(sql)
            return (cur, cur.fetchall()) if fetch else cur
        except duckdb.InterruptException as err:
            raise KeyboardInterrupt from err
        except duckdb.Error as err:
            raise self._error(err, sql) from err
        except RuntimeError as err:
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
        """An input file changed since it was registered (cut short while read), else the
        user's part of the error (`read_error`), else abcde's, with its SQL."""
        for path, before in self._stats.items():
            with contextlib.suppress(OSError):
                if _stat(Path(path)) == before:
                    continue
            return InputError(f"{path} changed while abcde read it", option=None,
                              table=self.file_labels.get(path),
                              hint="Run again once the file is written whole.")
        return read_error(err, self.file_labels, self.temp_dir) or EngineError(
            f"DuckDB refused a statement: {shown(str(err))}\n{sql}")

    def user_table(self, name: str) -> str:
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
        """Free a relation name, whatever it held (a view, a table or a frame)."""
        with contextlib.suppress(duckdb.Error):
            self.con.unregister(name)
        for kind in ("VIEW", "TABLE"):  # DROP VIEW of a table is a CatalogException
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
        """Show timestamps with a time zone in the zone of the caller's data (DuckDB
        writes them as text in the session's TimeZone, by default the machine's): the
        first frame whose such columns are all of one zone sets it; a connection the
        caller lent keeps its settings; a zone ICU does not know leaves it."""
        dtypes = getattr(obj, "dtypes", None)
        if hasattr(obj, "schema") and hasattr(obj, "column_names"):  # pyarrow.Table
            zones = {str(f.type.tz) for f in obj.schema  # type: ignore[attr-defined]
                     if getattr(f.type, "tz", None)}
        else:
            values = (dtypes.values() if callable(getattr(dtypes, "values", None))
                      else () if dtypes is None else dtypes)
            zones = {str(z) for d in values
                     if (z := getattr(d, "tz", None) or getattr(d, "time_zone", None))}
        if self.temp_dir is not None and len(zones) == 1 and self._time_zone is None:
            with contextlib.suppress(duckdb.Error):
                self.con.execute(f"SET TimeZone = {literal(next(iter(zones)))}")
                self._time_zone = next(iter(zones))

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
            self.con.close()
        finally:
            if self.temp_dir is not None:
                shutil.rmtree(self.temp_dir, ignore_errors=True)


def _stat(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns
