"""PostgreSQL through psycopg 3 (`pip install 'abcde[postgres]'`).

Work tables go to a private schema `abcde_work_p<server process>_<random>` (dropped on
close; a later engine drops one whose session ended without closing) put ahead of
the connection's search_path; input files are read in-process by DuckDB and copied into
temporary tables (the server may not see the caller's files).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import sqlglot

from abcde.engines.base import Engine, categorise, plain, sql_type_of
from abcde.engines.files import (
    copy_file,
    file_columns,
    private_dir,
    write_rows,
)
from abcde.errors import AbcdeError, EngineError, EngineUnavailable, InputError, ResourceError
from abcde.sql.dialects import Postgres
from abcde.sql.quoting import CANONICAL_DIALECT, ident, table_ref

try:
    import psycopg
    from psycopg.types.json import Jsonb
except ImportError as err:  # pragma: no cover - depends on the installed extras
    raise EngineUnavailable("the PostgreSQL engine needs psycopg: pip install "
                            "'abcde[postgres]'") from err

log = logging.getLogger("abcde")

# DuckDB type (of a file read by DuckDB, or of sql_type_of) -> PostgreSQL type
# (the narrowest that holds every value: a result file has the input's column type, as
# on DuckDB, not BIGINT for an INTEGER and DOUBLE for a FLOAT)
_PG_TYPES = {"BIGINT": "BIGINT", "INTEGER": "INTEGER", "SMALLINT": "SMALLINT",
             "TINYINT": "SMALLINT", "HUGEINT": "NUMERIC", "UBIGINT": "NUMERIC",
             "UINTEGER": "BIGINT", "USMALLINT": "INTEGER", "UTINYINT": "SMALLINT",
             "DOUBLE": "DOUBLE PRECISION", "FLOAT": "REAL",
             "VARCHAR": "TEXT", "BOOLEAN": "BOOLEAN", "DATE": "DATE",
             "TIMESTAMP": "TIMESTAMP", "TIMESTAMP_S": "TIMESTAMP", "TIMESTAMP_MS": "TIMESTAMP",
             "TIMESTAMP_NS": "TIMESTAMP", "TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ",
             "UUID": "UUID"}

# PostgreSQL type -> the DuckDB type of a result file's column, for the types whose
# Python values do not tell it (a date would be written as text, an int4 as BIGINT, a
# real as DOUBLE); int8 and float8 are typed by their values, as from every engine
# (`abcde.engines.files.write_rows`)
_FILE_TYPES = {"date": "DATE", "timestamp": "TIMESTAMP", "timestamptz": "TIMESTAMPTZ",
               "uuid": "UUID", "int2": "SMALLINT", "int4": "INTEGER", "float4": "FLOAT"}


# PostgreSQL types whose Python values a result file holds as they are (typed by value or
# by _FILE_TYPES); a column of any other type is written as PostgreSQL's text of it
_BY_VALUE = frozenset({"int2", "int4", "int8", "float4", "float8", "numeric", "bool", "text",
                       "varchar", "bpchar", "char", "name", *_FILE_TYPES})


def _file_type(name: str, precision: int | None, scale: int | None) -> str | None:
    """The DuckDB type a result column of PostgreSQL type `name` is written with; None:
    by its values. A NUMERIC without precision (a SUM) is a number of its values."""
    if name == "numeric":
        return (f"DECIMAL({precision},{scale or 0})"
                if precision is not None and precision <= 38 else None)
    return _FILE_TYPES.get(name)


# PostgreSQL type -> the DuckDB type a result file's column is read back with from
# COPY's text (`PostgresEngine._write_by_copy`): as `_file_type` and the values type them
_COPY_TYPES = {"int2": "SMALLINT", "int4": "INTEGER", "int8": "BIGINT", "float4": "FLOAT",
               "float8": "DOUBLE", "bool": "BOOLEAN", "text": "VARCHAR", "varchar": "VARCHAR",
               "bpchar": "VARCHAR", "char": "VARCHAR", "name": "VARCHAR", "uuid": "UUID"}


def _copy_type(type_name: str) -> str | None:
    """The DuckDB type of a result column of PostgreSQL type `type_name` (as `columns`
    names it) read from COPY's text; None: written from Python values (a date, whose
    text depends on DateStyle; a NUMERIC typed by its values)."""
    base = type_name.split("(")[0]
    if base not in _BY_VALUE:
        return "VARCHAR"  # written as PostgreSQL's text of it
    if base == "numeric" and "(" in type_name:
        precision, scale = (int(x) for x in type_name[len("numeric("):-1].split(","))
        return _file_type("numeric", precision, scale)
    return _COPY_TYPES.get(base)


def _pg_type(duckdb_type: str) -> str:
    t = duckdb_type.upper()
    if categorise(t) == "nested":  # a list, struct or map of a file: JSON (never an id)
        return "JSONB"
    if t.startswith("DECIMAL"):
        return t.replace("DECIMAL", "NUMERIC")
    return _PG_TYPES.get(t, "TEXT")


# the password of a URI (scheme://user:PASSWORD@host) and of a key=value DSN; up to the
# last @ of the authority: a password with an unencoded @ is hidden whole
_URI_PASSWORD = re.compile(r"(://[^/@:]*:)[^/]*(@)")
_KV_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)", re.IGNORECASE)


def redact(text: str, dsn: str) -> str:
    """`text` without the password of `dsn` (a URI or key=value connection string)."""
    secrets_ = [m.group(0)[len(m.group(1)):-1] for m in _URI_PASSWORD.finditer(dsn)]
    # libpq splits such a password at its first @ and reads the rest as the host name,
    # which its messages then show: each piece is a secret too
    secrets_ += [piece for s in secrets_ for piece in s.split("@")]
    secrets_ += [m.group(2).strip("'") for m in _KV_PASSWORD.finditer(dsn)]
    text = _KV_PASSWORD.sub(r"\1***", _URI_PASSWORD.sub(r"\1***\2", text))
    for secret in secrets_:
        if len(secret) >= 3:  # a shorter one would blank out ordinary words
            text = text.replace(secret, "***")
    return text


# a work schema's name, abcde_work_p<server process id>_<random>, the process captured
_ORPHAN_PATTERN = "^abcde_work_p([0-9]{1,9})_[0-9a-f]{8}$"

CONNECT_TIMEOUT = 30
"""Seconds to wait for a server, unless the DSN or PGCONNECT_TIMEOUT says otherwise:
libpq waits forever by default, and a host behind a firewall that drops packets would
hang the command."""


def _connect(dsn: str) -> Any:
    """An autocommit connection, or EngineUnavailable saying whether the DSN is malformed
    (what to write) or the server did not answer (what to check)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as err:
        raise EngineUnavailable(redact(
            f"--dsn {dsn!r} is not a PostgreSQL connection string: {str(err).strip()}\n"
            "Write a URI, e.g. postgresql://user@host:5432/db, or key=value pairs, e.g. "
            "'host=localhost port=5432 dbname=db user=me'.", dsn)) from None
    extra = ({} if "connect_timeout" in given or os.environ.get("PGCONNECT_TIMEOUT")
             else {"connect_timeout": CONNECT_TIMEOUT})
    try:
        return psycopg.connect(dsn, autocommit=True, **extra)
    except psycopg.Error as err:
        waited = (f" (no answer within {extra['connect_timeout']} s; a DSN's "
                  "connect_timeout=N waits longer)"
                  if isinstance(err, psycopg.errors.ConnectionTimeout) and extra else "")
        # the DSN redacted apart: a key=value password runs to the next blank, and
        # would take the text after it along
        raise EngineUnavailable(
            f"cannot connect to PostgreSQL ({redact(dsn, dsn)}): "
            f"{redact(str(err).strip(), dsn)}{waited}\nCheck "
            f"{_connect_advice(str(err))}.") from None


def _connect_advice(message: str) -> str:
    """What to check for libpq's connection error `message`: the server reached, a
    refused login is the user's and password's (or pg_hba.conf's), not the host's."""
    if "pg_hba.conf" in message:
        return ("that the server's pg_hba.conf lets this user connect to this database "
                "from this host (its administrator's to change), and the user and database "
                "of --dsn")
    if "authentication failed" in message or "no password supplied" in message:
        return ("the user and password of --dsn (the password as user:password@host in "
                "a URI, its special characters %-encoded, e.g. @ as %40), or the password in "
                "PGPASSWORD or ~/.pgpass")
    return "that the server runs and the host, port, user and database of --dsn"


def _error(err: psycopg.Error, text: str, work_schema: str | None = None) -> AbcdeError:
    """A statement the server stopped at a limit of its own — statement_timeout or
    lock_timeout (often set per role in production), its disk, memory or temp_file_limit —
    is the user's to lift (exit 2, saying how), not a failure of abcde's SQL (exit 1, the
    statement shown); so is a connection lost under a statement."""
    state = err.sqlstate or ""
    reason = str(err).strip().splitlines()[0]
    if state in ("57014", "55P03"):  # query_canceled, lock_not_available
        setting = ("statement_timeout" if "statement timeout" in reason else
                   "lock_timeout" if "lock timeout" in reason or state == "55P03" else None)
        hint = (f"The server's {setting} (of the database, the role or the server) stopped "
                f"it. Lift it for abcde's session in --dsn: ?options=-c{setting}%3D0 after "
                f"a URI, or options='-c {setting}=0' among key=value pairs."
                if setting else "It was cancelled on the server (pg_cancel_backend): run "
                "the command again.")
        return ResourceError(f"PostgreSQL stopped a statement: {reason}", hint=hint)
    if state.startswith(("08", "57P")) or (isinstance(err, psycopg.OperationalError)
                                           and not state):
        # the session ended under abcde (server restarted, pg_terminate_backend, network)
        left = (f" It leaves its work schema {ident(work_schema)} behind, which the next "
                "abcde run of this user on this database drops (or now: DROP SCHEMA "
                f"{ident(work_schema)} CASCADE)." if work_schema else "")
        return EngineUnavailable(
            f"lost the connection to PostgreSQL: {reason}\nCheck that the server still "
            "runs (restarted, or the session ended by an administrator or the network), "
            f"and run the command again.{left}")
    if state.startswith("53"):  # insufficient_resources: disk, memory, temp_file_limit
        return ResourceError(
            f"PostgreSQL ran out of resources: {reason}",
            hint="Free disk space on the server (its temporary files), or have its "
                 "administrator raise the limit it names (temp_file_limit, work_mem).")
    return EngineError(text)


@contextlib.contextmanager
def _private() -> Iterator[Path]:
    """A private directory for a copy of rows, removed at the end (also when
    interrupted; a later run removes one a killed run left, `private_dir`)."""
    tmp = private_dir("pg-copy")
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class PostgresEngine(Engine):
    """One autocommit connection to the server named by `dsn` (a libpq connection string
    or URI), or an existing psycopg connection, whose search_path is restored on close."""

    dialect = Postgres()
    row_hash = "MOD(HASHTEXTEXTENDED({key}, 0), 1000000007)"

    def __init__(self, dsn: str | None = None, connection: Any = None,
                 work_schema: str | None = None) -> None:
        own = connection is None
        if connection is None:
            if not dsn:
                raise EngineUnavailable("the PostgreSQL engine needs a connection string: "
                                        "--dsn 'postgresql://user@host:5432/db'")
            connection = _connect(dsn)
        self._own = own
        self.con = connection
        self.work_schema = None
        self._drop_orphaned_schemas()
        pid = self.fetch("SELECT pg_backend_pid() AS pid")[0]["pid"]
        self.work_schema = work_schema or f"abcde_work_p{pid}_{secrets.token_hex(4)}"
        path = self.fetch("SHOW search_path")[0]["search_path"]
        self._search_path = None if own else path
        self._create_schema(self.work_schema)
        # the work schema ahead of the connection's own search_path (the role's, or the
        # DSN's options=-csearch_path=...), where the user's unqualified tables are found;
        # pg_temp, where the inputs are copied, ahead of both: a path naming it after a
        # schema of the user's (public, pg_temp) read their table of an input's name
        path = (f"pg_temp, {ident(self.work_schema)}"
                + ("" if path.strip() in ("", '""') else f", {path}"))
        self.execute(f"SET search_path TO {path}")  # the server's own list syntax

    def _drop_orphaned_schemas(self) -> None:
        """Drop this user's work schemas whose server process no longer runs (a lost
        connection, a killed process); never on a caller's connection in a transaction, and
        never stopping the run: what fails is left for a later one."""
        if not self.con.autocommit:
            return
        try:
            rows = self.fetch(
                "SELECT n.nspname AS s FROM pg_catalog.pg_namespace n WHERE n.nspname ~ "
                f"'{_ORPHAN_PATTERN}' AND pg_catalog.pg_get_userbyid(n.nspowner) = "
                "current_user AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a "
                f"WHERE a.pid = CAST(substring(n.nspname FROM '{_ORPHAN_PATTERN}') AS BIGINT))")
        except AbcdeError as err:
            log.debug("could not look for orphaned work schemas: %s", err)
            return
        for row in rows:
            try:
                self.execute(f"DROP SCHEMA IF EXISTS {ident(row['s'])} CASCADE")
            except AbcdeError as err:  # another run dropping it at the same moment
                log.debug("could not drop %s: %s", row["s"], err)
                continue
            log.info("dropped work schema %s, left behind by a run whose connection was "
                     "lost", row["s"])

    def attach_workspace(self, location: str) -> str:
        """The schema `location` of the database (created if absent)."""
        if not location or "." in location:
            raise InputError(f"--workspace {location!r}: name one schema of the database "
                             "(no dots), e.g. abcde_round1")
        self._create_schema(location)
        # a schema of another owner exists already: abcde must create tables in it
        rows = self.fetch_params("SELECT has_schema_privilege(%s, 'USAGE, CREATE') AS ok, "
                                 "current_user AS u", (location,))
        if not rows[0]["ok"]:
            user = ident(rows[0]["u"])
            raise InputError(
                f"--workspace {location!r}: PostgreSQL user {user} may not create tables "
                "in that schema", hint=f"Name a schema of your own (abcde creates it), or "
                f"have its owner run GRANT USAGE, CREATE ON SCHEMA {ident(location)} TO "
                f"{user}.")
        return location

    def _create_schema(self, name: str) -> None:
        """CREATE SCHEMA IF NOT EXISTS, safe when another session creates it at the same
        moment (the slower one gets a unique violation: the schema is there)."""
        try:
            self.execute(f"CREATE SCHEMA IF NOT EXISTS {ident(name)}")
        except EngineError as err:
            # a caller's connection in a transaction is left to the caller: abcde does
            # not roll back work of theirs
            raced = (isinstance(err.__cause__, psycopg.errors.UniqueViolation
                                | psycopg.errors.DuplicateSchema)
                     and self.con.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
                     and self.fetch_params("SELECT 1 FROM pg_catalog.pg_namespace "
                                           "WHERE nspname = %s", (name,)))
            if isinstance(err.__cause__, psycopg.errors.InsufficientPrivilege):
                who = self.fetch("SELECT current_user AS u, current_database() AS d")[0]
                user, db = ident(who["u"]), ident(who["d"])
                raise EngineUnavailable(
                    f"PostgreSQL user {user} may not create schema {ident(name)} in database "
                    f"{db}: {str(err.__cause__).strip().splitlines()[0]}\nabcde keeps its "
                    "work tables (and a --workspace) in a schema of its own, dropped at the "
                    f"end (a workspace: when you drop it). Have the database's owner run "
                    f"GRANT CREATE ON DATABASE {db} TO {user}, or connect as a user who "
                    "may create schemas.") from None
            if isinstance(err.__cause__, psycopg.errors.ReadOnlySqlTransaction):
                raise EngineUnavailable(
                    f"PostgreSQL takes no writes on this connection: "
                    f"{str(err.__cause__).strip().splitlines()[0]}\nabcde keeps its work "
                    "tables in a schema of its own, so it needs a server that takes writes: "
                    "connect to the primary, not a standby (read replica); or, if "
                    "default_transaction_read_only is set for the role or database, lift "
                    "it in --dsn with ?options=-cdefault_transaction_read_only%3Doff.") from None
            if not raced:
                raise

    @contextlib.contextmanager
    def _cursor(self, what: str) -> Iterator[Any]:
        """A cursor whose errors are abcde's (`_error`), `what` naming what was asked."""
        try:
            with self.con.cursor() as cur:
                yield cur
        except psycopg.Error as err:
            raise _error(err, f"PostgreSQL refused {what}: {err}", self.work_schema) from err

    def list_tables(self, schema: str) -> list[str]:
        rows = self.fetch_params("SELECT tablename FROM pg_catalog.pg_tables WHERE "
                                 "schemaname = %s", (schema,))
        return [r["tablename"] for r in rows]

    def execute(self, sql: str) -> None:
        with self._cursor(f"a statement ({sql})") as cur:
            cur.execute(sql)

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        return self.fetch_params(sql, None)

    def fetch_params(self, sql: str, params: Sequence[Any] | None) -> list[dict[str, Any]]:
        """`fetch` with query parameters (%s placeholders, sent apart from the SQL)."""
        with self._cursor(f"a query ({sql})") as cur:
            cur.execute(sql, params)
            names = [d.name for d in cur.description]
            return [{k: plain(v) for k, v in zip(names, row, strict=True)}
                    for row in cur.fetchall()]

    def _load(self, name: str, columns: Sequence[tuple[str, str]], rows: Sequence[tuple]
              ) -> None:
        names = self._create_temporary(name, columns)
        json = [k for k, (_, t) in enumerate(columns) if t == "JSONB"]
        if json:  # psycopg adapts a dict or list only when told it is JSON
            rows = [tuple(Jsonb(v) if k in json and v is not None else v
                          for k, v in enumerate(row)) for row in rows]
        with self._cursor(f"the rows of {name}") as cur, cur.copy(
                f"COPY {ident(name)} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        self._analyze(name)

    def _create_temporary(self, name: str, columns: Sequence[tuple[str, str]]) -> str:
        """The temporary table `name` of `columns` (name, PostgreSQL type), empty, in
        place of one registered before; returns its column list for COPY."""
        self._drop_temporary(name)
        cols = ", ".join(f"{ident(c)} {t}" for c, t in columns)
        self.execute(f"CREATE TEMPORARY TABLE {ident(name)} ({cols})")
        return ", ".join(ident(c) for c, _ in columns)

    def _drop_temporary(self, name: str) -> None:
        """Drop an input registered before under `name`, qualified with pg_temp (an
        unqualified name could resolve to the user's own table)."""
        self.execute(f"DROP TABLE IF EXISTS pg_temp.{ident(name)}")

    def _analyze(self, name: str) -> None:
        """Statistics of a loaded temporary table (autovacuum never gathers them), without
        which the planner misjudges the joins by orders of magnitude."""
        self.execute(f"ANALYZE {ident(name)}")

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        """The file's rows, as DuckDB reads them, written as CSV to a private temporary
        directory and streamed into COPY; logged with its time (-v)."""
        start = time.perf_counter()
        with _private() as tmp:
            data = tmp / "rows.csv"
            columns = copy_file(path, fmt, data, string_columns, self.file_labels)
            names = self._create_temporary(name, [(c, _pg_type(t)) for c, t in columns])
            # ENCODING: DuckDB writes UTF-8, whatever the connection's client_encoding
            with self._cursor(f"the rows of {name}") as cur, cur.copy(
                    f"COPY {ident(name)} ({names}) FROM STDIN "
                    "(FORMAT csv, ENCODING 'UTF8')") as copy, data.open("rb") as f:
                while chunk := f.read(1 << 20):
                    copy.write(chunk)
        self._analyze(name)
        log.info("load %s: %.2f s (%s copied to the server)", name,
                 time.perf_counter() - start, path)

    def csv_columns(self, path: Path) -> list[str]:
        return file_columns(path, "csv", self.file_labels)

    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        types = [_pg_type(sql_type_of(row[k] for row in rows)) for k in range(len(columns))]
        self._load(name, list(zip(columns, types, strict=True)), rows)

    def user_table(self, name: str) -> str:
        """A table of the connected database, qualified with the schema it resolves to (an
        unqualified name could be one of abcde's steps or CTEs); as given when it resolves
        to nothing, for `table_exists` to report."""
        if "." in name:
            return table_ref(name)
        rows = self.fetch_params(
            "SELECT n.nspname AS schema FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace"
            " n ON n.oid = c.relnamespace WHERE c.oid = pg_catalog.to_regclass(%s)",
            (ident(name),))
        return f"{ident(rows[0]['schema'])}.{ident(name)}" if rows else ident(name)

    def columns(self, relation: str) -> list[tuple[str, str]]:
        with self._cursor(f"to read {relation}") as cur:
            cur.execute(self.select_sql(relation) + " LIMIT 0")
            return [(d.name, self._type_name(d.type_code, d.precision, d.scale))
                    for d in cur.description]

    def _type_name(self, oid: int, precision: int | None = None,
                   scale: int | None = None) -> str:
        """The name of type `oid`: an array's as `<element>[]` (never a single value), a
        declared numeric's with its precision and scale (numeric(20,0) can be an id)."""
        info = self.con.adapters.types.get(oid)
        if info is None:
            return str(oid)
        if oid == info.array_oid:
            return f"{info.name}[]"
        if info.name == "numeric" and precision is not None:
            return f"numeric({precision},{scale or 0})"
        return info.name

    def missing_table(self, name: str, relation: str) -> tuple[str, str]:
        """A table the user may not read is named as such, with the GRANT it needs; a missing
        one gets the tables of that name in another case (PostgreSQL folds unquoted names)."""
        try:
            self.columns(relation)
        except EngineError as err:
            if isinstance(err.__cause__, psycopg.errors.InsufficientPrivilege):
                user = ident(self.fetch("SELECT current_user AS u")[0]["u"])
                ref = ident(name) if "." not in name else ""
                schema = relation[:-len(ref) - 1] if ref and relation.endswith("." + ref) \
                    else table_ref(name.rsplit(".", 1)[0]) if "." in name else None
                grant = f"GRANT SELECT ON {relation} TO {user}"
                if schema is not None:
                    grant = f"GRANT USAGE ON SCHEMA {schema} TO {user}; {grant}"
                reason = str(err.__cause__).strip().splitlines()[0]
                return (f"table {name!r} cannot be read: {reason}",
                        f"Connect as a user who may read it, or have its owner run: {grant}")
        # the tables of that name without its quotes, too: "My Schema"."Order", as SQL
        # writes it, names My Schema.Order, which the hint can then offer
        parts = [p.strip('"') for p in name.split(".")]
        schema, table = (parts[-2], parts[-1]) if len(parts) > 1 else (None, parts[0])
        rows = self.fetch_params(
            "SELECT n.nspname AS s, c.relname AS t FROM pg_catalog.pg_class c JOIN "
            "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN "
            "('r', 'v', 'm', 'p', 'f') AND lower(c.relname) = lower(%s) AND "
            "(%s::text IS NULL OR lower(n.nspname) = lower(%s)) AND n.nspname NOT LIKE "
            "'pg\\_%%' ORDER BY 1, 2 LIMIT 5", (table, schema, schema))
        near = [f"{r['s']}.{r['t']}" for r in rows]
        path = ", ".join(p for p in self.fetch("SHOW search_path")[0]["search_path"]
                         .split(", ") if p.strip('"') != self.work_schema)
        hint = ("Names are used exactly as typed: case-sensitive, without quotes "
                "(schema.table, e.g. My Schema.Order for \"My Schema\".\"Order\"); a table "
                "created without quotes has a lower-case name. "
                + (f"The database has {', '.join(near)}. " if near else "")
                + ("" if schema else f"A name without a schema is looked up in the "
                   f"search_path ({path}). ")
                + "Or give a path to a CSV/Parquet file.")
        return (f"no file, and no table or view of the PostgreSQL database, named {name!r}",
                hint)

    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        columns = self.columns(relation)
        # a value the file has no type for (jsonb, an array, interval, bytea, inet, ...)
        # as PostgreSQL writes it as text, not as the repr of its Python value
        # ({'k': 0} for {"k": 0}, b'\x01' for \x01, 1 day, 0:00:00 for 1 day)
        sql = sqlglot.transpile(
            "SELECT " + ", ".join(ident(n) if t.split("(")[0] in _BY_VALUE
                                  else f"CAST({ident(n)} AS TEXT) AS {ident(n)}"
                                  for n, t in columns) + f" FROM {relation}",
            read=CANONICAL_DIALECT, write=self.dialect.sqlglot_name)[0]
        if order_by:
            # text in code point order, as DuckDB and Spark sort it: the database's own
            # collation (en_US: 'a' < 'B') would order the same file differently
            text = {n for n, t in columns if categorise(t) == "string"}
            sql += " ORDER BY " + ", ".join(
                ident(c) + (' COLLATE "C"' if c in text else "") for c in order_by)
        copied = [_copy_type(t) for _, t in columns]
        if all(copied) and self._exact_float_text():
            self._write_by_copy(sql, relation, [(n, t) for (n, _), t in
                                                zip(columns, copied, strict=True)], path, fmt)
            return
        with self._cursor(f"to read {relation}") as cur:
            cur.execute(sql)
            names = [d.name for d in cur.description]
            types = []
            for d in cur.description:
                info = self.con.adapters.types.get(d.type_code)
                types.append(_file_type(info.name if info else "", d.precision, d.scale))
            rows = [tuple(v if t else plain(v) for v, t in zip(row, types, strict=True))
                    for row in cur.fetchall()]
        write_rows(names, rows, path, fmt, types)

    def _exact_float_text(self) -> bool:
        """Whether the server writes a float as the shortest text that reads back to the
        same bits (PostgreSQL 12 on, unless extra_float_digits is set to 0 or less)."""
        if self.con.info.server_version < 120000:
            return False
        return int(self.fetch("SHOW extra_float_digits")[0]["extra_float_digits"]) > 0

    def _write_by_copy(self, sql: str, relation: str, columns: list[tuple[str, str]],
                       path: Path, fmt: str) -> None:
        """Write the rows of `sql` through COPY ... TO STDOUT as CSV, read by DuckDB with
        the columns' types (`columns`: name, DuckDB type) into the file: much faster than
        fetching Python tuples."""
        with _private() as tmp:
            data = tmp / "rows.csv"
            with self._cursor(f"to read {relation}") as cur, cur.copy(
                    f"COPY ({sql}) TO STDOUT (FORMAT csv, FORCE_QUOTE *, "
                    "ENCODING 'UTF8')") as copy, data.open("wb") as f:
                for chunk in copy:
                    f.write(chunk)
            write_rows([n for n, _ in columns], [], path, fmt, [t for _, t in columns],
                       copied=data)

    def close(self) -> None:
        self.closed = True
        if self.con.closed:
            return
        try:
            self.execute(f"DROP SCHEMA IF EXISTS {ident(self.work_schema)} CASCADE")
        finally:
            if self._own:
                self.con.close()
            elif self._search_path is not None:
                with self.con.cursor() as cur:
                    cur.execute("SELECT set_config('search_path', %s, false)",
                                (self._search_path,))

