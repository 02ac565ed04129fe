"""DuckDB, in-process: the default engine."""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from abcde.engines.base import Engine
from abcde.engines.files import (
    copy_query,
    create_table,
    csv_problem,
    file_format,
    read_source,
    strict_csv_problem,
)
from abcde.errors import EngineError, InputError, ResourceError, WorkspaceBusy
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
        # a borrowed connection keeps its own settings: no private directory is made
        # for it (one per call was left behind in the temp directory)
        self.temp_dir: Path | None = (
            Path(temp_dir) if temp_dir is not None
            else Path(tempfile.mkdtemp(prefix="abcde_duckdb_")) if connection is None
            else None)
        try:
            self.con = connection or duckdb.connect(":memory:")
        except BaseException:  # Ctrl-C here too: the directory is not left behind
            if self._own_tmp and self.temp_dir is not None:
                shutil.rmtree(self.temp_dir, ignore_errors=True)
            raise
        self._own_con = connection is None
        self._time_zone: str | None = None  # set from the frames' data (`_follow_zone`)
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
        if not path.parent.is_dir():
            raise InputError(f"--workspace {path}: directory {path.parent} does not exist",
                             hint="Create the directory, or name a file in an existing one.")
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
                    reason = ("it is not a DuckDB database file"
                              if "not a valid DuckDB database" in text else _first_line(err))
                    raise InputError(f"cannot open workspace {path}: {reason}",
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
        except RuntimeError as err:
            _reraise_interrupt(err)
            raise

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        try:
            cur = self.con.execute(sql)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        except duckdb.Error as err:
            raise self._error(err, f"DuckDB refused a query: {err}\n{sql}") from err
        except RuntimeError as err:
            _reraise_interrupt(err)
            raise

    def _error(self, err: duckdb.Error, text: str) -> BaseException:
        """What a DuckDB error means for the user. A line of an input CSV that DuckDB
        cannot parse, and an input file it cannot read (a damaged Parquet file fails
        only when a query reaches the broken page), are the user's to fix (exit 2),
        named by `file_labels`; so is running out of memory or temporary disk (advice in
        abcde's options). Ctrl-C is an interrupt. Anything else is abcde's."""
        if isinstance(err, duckdb.InterruptException):
            return KeyboardInterrupt()
        message = str(err)
        if isinstance(err, duckdb.OutOfMemoryException) or message.startswith(
                "Out of Memory Error"):
            return ResourceError(
                f"DuckDB ran out of memory: {_first_line(err)}",
                hint="Give it more with --memory-limit (e.g. --memory-limit 8GB; the default "
                     "is 80% of the machine's memory), run fewer --threads (each holds its "
                     "own buffers, e.g. --threads 2), or use a machine with more memory.")
        if "No space left on device" in message:
            return ResourceError(
                f"DuckDB ran out of disk space for its temporary files: {_first_line(err)}",
                hint=f"Free space where they go ({self._spill_parent()}, set by TMPDIR), or "
                     "lower --threads.")
        problem = csv_problem(message)
        sniffed = re.search(r'Error when sniffing file "(.*?)"', message)
        if problem is None and sniffed is not None and sniffed[1] in self.file_labels:
            # the sniffer gives up on a file with an unclosed quote in its sample, and
            # names no line: a strict read finds it
            problem = strict_csv_problem(Path(sniffed[1]))
        if problem is not None:
            return InputError(problem.message(), table=self.file_labels.get(problem.file or ""),
                              column=problem.column, hint=problem.hint)
        for path, label in self.file_labels.items():
            if path and (f'"{path}"' in message or f"'{path}'" in message):
                reason = re.sub(r'^.*?Error: (Failed to read file ".*?": )?', "",
                                _first_line(err))
                return InputError(
                    f"cannot read {path}: {reason}",
                    table=label, hint="The file is damaged (cut short or corrupt): write it "
                                      "again from its source.")
        damaged = self._damaged_parquet(err)
        if damaged is not None:
            return damaged
        return EngineError(text)

    def _damaged_parquet(self, err: duckdb.Error) -> InputError | None:
        """The input Parquet file a read error comes from, when DuckDB's message does not
        name it (a damaged page: "TProtocolException: Invalid data", a failed
        decompression): each Parquet input is read whole until one fails. Errors of the
        SQL itself (parser, binder, catalog) are abcde's and are not probed."""
        if isinstance(err, duckdb.ParserException | duckdb.BinderException |
                      duckdb.CatalogException):
            return None
        for path, label in self.file_labels.items():
            if not path.lower().endswith(".parquet"):
                continue
            try:
                self.con.execute("SELECT min(hash(COLUMNS(*))) FROM read_parquet(?)",
                                 [path]).fetchall()
            except duckdb.Error as probe:
                return InputError(
                    f"cannot read {path}: {_first_line(probe)}", table=label,
                    hint="The file is damaged (cut short or corrupt): write it again from "
                         "its source.")
        return None

    def user_table(self, name: str) -> str:
        """A table of the attached database, as a quoted reference."""
        if self.user_db is None:
            raise InputError(f"{name!r} is not a file, and no database was given (--db)")
        return f"{ident(self.user_db)}.{table_ref(name)}"

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        source = read_source(self.con, path, fmt, string_columns)
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
        self._follow_zone(obj)

    def _follow_zone(self, obj: object) -> None:
        """Show timestamps with a time zone in the zone of the caller's data: DuckDB
        writes them as text (slice values, explore's groups) in the session's TimeZone,
        by default the machine's, so a pandas column in Europe/Berlin came out as UTC on
        a server. The first frame holding such columns, all in one zone, sets it; a
        connection the caller lent keeps its own settings."""
        zones = _time_zones(obj)
        if not self._own_con or len(zones) != 1 or self._time_zone is not None:
            return
        (zone,) = zones
        try:
            self.con.execute(f"SET TimeZone = {literal(zone)}")
        except duckdb.Error:  # a zone ICU does not know (a fixed offset of pytz): as was
            return
        self._time_zone = zone

    def columns(self, relation: str) -> list[tuple[str, str]]:
        try:
            cur = self.con.execute(f"DESCRIBE SELECT * FROM {relation}")
            return [(row[0], row[1]) for row in cur.fetchall()]
        except duckdb.InterruptException as err:
            raise KeyboardInterrupt from err
        except duckdb.Error as err:
            raise EngineError(str(err)) from err
        except RuntimeError as err:
            _reraise_interrupt(err)
            raise

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
            if self._own_tmp and self.temp_dir is not None:
                shutil.rmtree(self.temp_dir, ignore_errors=True)

    def _spill_parent(self) -> Path:
        """The directory DuckDB's temporary files go under."""
        return self.temp_dir.parent if self.temp_dir is not None else Path(
            tempfile.gettempdir())


def _reraise_interrupt(err: RuntimeError) -> None:
    """duckdb raises RuntimeError("Query interrupted") when Ctrl-C stops a query: that is
    a KeyboardInterrupt."""
    if "interrupted" in str(err).lower():
        raise KeyboardInterrupt from err


def _first_line(err: Exception) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


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
