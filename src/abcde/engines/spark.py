"""Spark through PySpark (`pip install 'abcde[spark]'`): an existing SparkSession from
Python (classic or Spark Connect), else a session abcde starts: a local one
(`local[2]`), one on a cluster manager (`master`, e.g. `spark://host:7077`), or a Spark
Connect client (`remote`, `sc://host:15002`).

Work tables go to a private database `abcde_work_<random>` (dropped on close); inputs
are temporary views over the rows DuckDB reads from the files (`abcde.engines.files`),
so that Spark sees the same rows, types and errors as every engine. Settings of a local
session: docs/method.md §11.4. A JVM that abcde starts writes its output to a log file
of its own, never to the terminal, and dies with the abcde process.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from abcde.engines.base import Engine, plain, sql_type_of
from abcde.engines.files import copy_file, file_columns, private_dir, write_rows
from abcde.errors import EngineError, EngineUnavailable, InputError
from abcde.sql.dialects import Spark
from abcde.sql.quoting import ident, table_ref

try:
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession
    from pyspark.sql import types as T
except ImportError as err:  # pragma: no cover - depends on the installed extras
    raise EngineUnavailable("the Spark engine needs PySpark: pip install 'abcde[spark]'"
                            ) from err

try:  # the classic session's bridge to the JVM; a Spark Connect client has none
    from py4j.protocol import Py4JError
except ImportError:  # pragma: no cover - depends on the installed extras
    Py4JError = PySparkException  # type: ignore[assignment,misc]

_SPARK_TYPES = {"BIGINT": T.LongType(), "DOUBLE": T.DoubleType(), "VARCHAR": T.StringType(),
                "BOOLEAN": T.BooleanType()}

log = logging.getLogger("abcde")

#: PySpark's Python loggers that print a JSON record of every failed query (abcde
#: reports the error itself).
_PYSPARK_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger", "py4j",
                    "py4j.clientserver", "py4j.java_gateway", "pyspark.sql.connect.client",
                    "pyspark.sql.connect.client.logger")

#: Spark's log4j configuration for a JVM abcde starts: errors only, into the JVM's own
#: log file (its stderr, see `_jvm_output`), never a progress bar.
_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
"""

Conf = Sequence[tuple[str, str]]


def is_connect(spark: Any) -> bool:
    """Whether `spark` is a Spark Connect session (no SparkContext, no JVM in-process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


@contextlib.contextmanager
def quiet_pyspark() -> Iterator[None]:
    """PySpark's loggers silenced for the block (they print a JSON record with a JVM stack
    trace for every failed query, which abcde turns into an error of its own)."""
    from pyspark.logger import PySparkLogger

    loggers = [PySparkLogger.getLogger(n) if "Context" in n else logging.getLogger(n)
               for n in _PYSPARK_LOGGERS]
    before = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    try:
        yield
    finally:
        for lg, was in zip(loggers, before, strict=True):
            lg.disabled = was


_CONNECT_ENV = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_LOCAL_REMOTE")


@contextlib.contextmanager
def _classic_env() -> Iterator[None]:
    """PySpark's process-wide switches to Connect mode cleared for the block and given
    back after it: PySpark sets them when it opens a Connect session, and a classic
    session opened later in the same process would then refuse to start."""
    saved = {k: os.environ.pop(k, None) for k in _CONNECT_ENV}
    try:
        yield
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v


def java_missing() -> str | None:
    """Why no Java runtime can start Spark's JVM, or None when one is there."""
    home = os.environ.get("JAVA_HOME")
    if home:
        return None if (Path(home) / "bin" / "java").exists() else \
            f"JAVA_HOME={home} holds no bin/java"
    if shutil.which("java") is None:
        return "no Java runtime found (no `java` on PATH and JAVA_HOME is not set)"
    return None


@contextlib.contextmanager
def _jvm_output(log_file: Path) -> Iterator[None]:
    """File descriptors 1 and 2 point at `log_file` for the block: a JVM started in it
    inherits them, and writes its log lines there for its whole life, never on the
    user's terminal or into abcde's JSON on stdout."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    fd = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in (*saved, fd):
            os.close(f)


@contextlib.contextmanager
def _tied_jvm() -> Iterator[None]:
    """A JVM that PySpark launches in the block dies with this process on every exit
    path: PR_SET_PDEATHSIG on Linux (even SIGKILL), and killed at once when its start
    fails or is interrupted (PySpark relies on the JVM noticing its closed stdin)."""
    import pyspark.java_gateway as gateway

    launch, started = gateway.Popen, []
    prctl = None
    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        # only from the main thread: the signal comes when the thread that started the
        # JVM ends, and a worker thread of the caller's may end before the process
        with contextlib.suppress(OSError, AttributeError):
            prctl = ctypes.CDLL(None, use_errno=True).prctl

    def popen(command: Any, **kwargs: Any) -> Any:
        before = kwargs.get("preexec_fn")

        def preexec() -> None:
            if before is not None:
                before()
            if prctl is not None:
                prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

        started.append(launch(command, **{**kwargs, "preexec_fn": preexec}))
        return started[-1]

    gateway.Popen = popen
    try:
        yield
    except BaseException:
        for proc in started:
            with contextlib.suppress(OSError):
                proc.kill()
                proc.wait(timeout=10)
        raise
    finally:
        gateway.Popen = launch


def _reason(err: BaseException, jvm_log: Path | None = None) -> str:
    """What went wrong, in a line rather than a Java stack trace: the JVM log's last
    ERROR lines (or what a JVM that died at start printed), else the gRPC details, the
    deepest "Caused by" or the Java exception's own line; without Spark's SQLSTATE."""
    tail: list[str] = []
    with contextlib.suppress(OSError):
        tail = jvm_log.read_text(errors="replace").splitlines()[-200:] if jvm_log else []
    logged = [line.split(" ERROR ", 1)[1].strip() for line in tail if " ERROR " in line]
    died = [re.sub(r"^Exception in thread \S+ [\w.$]+: ", "", line.strip()) for line in tail
            if line.startswith(("Exception in thread", "Invalid ", "Error occurred",
                                "Unrecognized option", "Error: "))]
    lines = [line.strip() for line in str(err).strip().splitlines()]
    grpc = re.search(r'details = "(.*?)"', str(err))
    causes = [re.sub(r"^Caused by: [\w.$]+: ", "", line) for line in lines
              if line.startswith("Caused by:")]
    java = [line.lstrip(": ") for line in lines if line.startswith(": ")]
    reason = ("; ".join(dict.fromkeys(logged[-3:] or died[:2])) if logged or died
              else grpc[1] if grpc
              else (causes[-1:] or java[:1] or lines[:1] or [type(err).__name__])[0])
    return re.sub(r"\s*SQLSTATE: \w+\.?$", "", reason)[:500]


def _start_failure(err: BaseException, where: str, jvm_log: Path | None = None
                   ) -> EngineUnavailable:
    """The one message of a session that did not start, with what the user can do."""
    reason = _reason(err, jvm_log)
    text = f"{reason} {err}"
    if "BindException" in text or "Cannot assign requested address" in text \
            or "could not bind" in text:
        advice = ("Spark could not bind its driver's port on this machine's address: set "
                  "SPARK_LOCAL_IP=127.0.0.1 (or --spark-conf spark.driver.bindAddress=…).")
    elif "handshake failed" in text.lower():
        advice = ("The server does not speak TLS as the URL asks (use_ssl=true): drop that "
                  "option, or give the server a certificate.")
    elif where.startswith("sc://"):
        advice = ("Check that the server runs and listens there (start-connect-server.sh, "
                  "spark.connect.grpc.binding.port), and the host and port of "
                  "--spark-remote.")
    else:
        advice = ("Check the Java runtime (17 or later), the --spark-master URL and the "
                  "--spark-conf settings.")
    shown_log = f" The JVM's log: {jvm_log}" if jvm_log is not None else ""
    what = ("cannot reach the Spark Connect server at" if where.startswith("sc://") else
            "cannot reach the Spark master at" if isinstance(err, OSError)
            else "cannot start a Spark session on")
    return EngineUnavailable(f"{what} {where}: {reason}\n{advice}{shown_log}")


def _reachable(addresses: Sequence[str], where: str) -> None:
    """A plain TCP connection to one of the host:port `addresses`, else refused at once:
    Spark retries an unreachable master or Connect server for minutes."""
    problems = []
    for address in addresses:
        host, _, port = address.strip().rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
            return
        except ValueError:
            raise EngineUnavailable(f"{where}: {address!r} is not host:port") from None
        except OSError as err:
            problems.append(f"{address}: {err.strerror or err}")
    raise _start_failure(OSError("; ".join(problems)), where)


def _classic_session_running() -> bool:
    """Whether this process runs a classic SparkContext already (which a builder's
    getOrCreate would hand back rather than start one)."""
    from pyspark import SparkContext

    return SparkContext._active_spark_context is not None


def local_session(master: str = "local[2]", warehouse: str | Path | None = None,
                  driver_memory: str = "2g", conf: Conf = (),
                  log_dir: str | Path | None = None) -> SparkSession:
    """A classic SparkSession on `master` (default `local[2]` with the settings of
    docs/method.md §11.4; a cluster manager URL gets only abcde's quiet settings), `conf`
    applied last. The JVM writes to `log_dir`/jvm.log (default: a private temporary
    directory), never to the terminal, and dies with the process."""
    missing = java_missing()
    if missing:
        raise EngineUnavailable(
            f"Spark needs a Java runtime (17 or later): {missing}. Install one (e.g. "
            "apt-get install openjdk-17-jre-headless) or set JAVA_HOME to it.")
    logs = Path(log_dir) if log_dir is not None else private_dir("spark-log")
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "log4j2.properties").write_text(_LOG4J)
    settings = {"spark.ui.showConsoleProgress": "false",  # abcde draws its own progress
                "spark.driver.extraJavaOptions":
                    f"-Dlog4j2.configurationFile=file:{logs / 'log4j2.properties'}",
                "spark.sql.session.timeZone": "UTC"}
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        settings.update({"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
                         "spark.driver.memory": driver_memory,
                         "spark.driver.host": "127.0.0.1",
                         "spark.driver.bindAddress": "127.0.0.1",
                         # its block files where a later run removes them if it is killed
                         "spark.local.dir": str(logs / "local")})
    if warehouse is not None:
        settings["spark.sql.warehouse.dir"] = str(warehouse)
    builder = SparkSession.builder.master(master).appName("abcde")
    for key, value in [*settings.items(), *conf]:
        builder = builder.config(key, value)
    if master.startswith("spark://"):
        _reachable(master.removeprefix("spark://").split(","), master)
    jvm_log = logs / "jvm.log"
    # getOrCreate hands back a session the process already runs, which is not abcde's
    # to stop when its settings fail
    running = _classic_session_running()
    session = None
    try:
        with _jvm_output(jvm_log), quiet_pyspark(), _classic_env(), _tied_jvm():
            session = builder.getOrCreate()
            # Spark reads the SQL settings (spark.sql.*) only when the first query comes
            session.sql("SELECT 1")
    except Exception as err:  # the JVM did not start, a port was refused, a setting ...
        if session is None:
            raise _start_failure(err, master, jvm_log) from None
        if not running:
            with quiet_pyspark(), contextlib.suppress(Exception):
                session.stop()
        raise EngineUnavailable(f"Spark refused a setting of the session: {_reason(err)}\n"
                                "Fix or drop that --spark-conf.") from None
    session.sparkContext.setLogLevel("ERROR")
    log.info("Spark %s on %s; the JVM's log: %s", session.version, master, jvm_log)
    return session


def remote_session(url: str, conf: Conf = (), probe_retries: int = 4) -> SparkSession:
    """A Spark Connect session on the server at `url` (`sc://host:port[/;options]`) with
    the session settings `conf`, probed with `SELECT 1` and a few quick retries (not Spark
    Connect's ten minutes of them): a server that does not answer is `EngineUnavailable`."""
    # gRPC's C core logs to the terminal (a failed TLS handshake, once per retry); abcde
    # reports the failure itself. Read when gRPC starts, so set before the first channel.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    try:
        from pyspark.sql.connect.client.retries import DefaultPolicy
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except ImportError as err:
        raise EngineUnavailable(f"the Spark Connect client is missing ({err}): pip install "
                                "'abcde[spark]' (it includes pyspark[connect])") from None
    shown = url.split(";", 1)[0]  # never print a token
    address = url.removeprefix("sc://").split("/", 1)[0].split(";", 1)[0]
    _reachable([address if re.search(r":[^\]]*$", address) else f"{address}:15002"], shown)
    client = None
    try:
        with quiet_pyspark(), _classic_env(), warnings.catch_warnings():
            # PySpark warns RETRIES_EXCEEDED before raising what abcde reports
            warnings.simplefilter("ignore", UserWarning)
            # a session of its own (not getOrCreate's shared one, nor the generic
            # builder, which refuses one in a process running a classic session)
            session = ConnectSession.builder.remote(url).create()
            client = session.client  # type: ignore[attr-defined]
            client.set_retry_policies([DefaultPolicy(max_retries=probe_retries,
                                                     max_backoff=2000)])
            session.sql("SELECT 1").collect()
            client.set_retry_policies([DefaultPolicy()])  # a slow server later is waited for
    except Exception as err:
        if client is not None:
            # closed, the client skips its exit-time clean-up calls, which would retry
            # the server that does not answer for ten minutes and keep the process alive
            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                client.close()
        raise _start_failure(err, shown) from None
    # set one by one after the probe: the builder's config() drops any the server refuses
    for key, value in conf:
        try:
            with quiet_pyspark():
                session.conf.set(key, value)
        except Exception as err:
            with quiet_pyspark(), contextlib.suppress(Exception):
                session.stop()
            hint = ("It is a setting of the server itself: set it where the Spark Connect "
                    "server starts (--conf of start-connect-server.sh, spark-defaults.conf)."
                    if "CANNOT_MODIFY" in str(err) else "Fix or drop that --spark-conf.")
            raise EngineUnavailable(f"the Spark Connect server refused --spark-conf "
                                    f"{key}={value}: {_reason(err)}\n{hint}") from None
    log.info("Spark Connect %s at %s", session.version, shown)
    return session


def _failure(err: Exception, sql: str) -> EngineError:
    """A refused statement, or (a Py4J error) a failure of the JVM under a classic
    session, most often a driver out of heap whose SparkContext shut down."""
    if isinstance(err, PySparkException):
        return EngineError(f"Spark refused a statement: {err}\n{sql}")
    return EngineError(
        f"Spark failed while running a step: {_reason(err)}\nWhen the SparkContext has "
        "shut down, the usual cause is a driver out of memory: give it more (--spark-conf "
        "spark.driver.memory=8g) or split the work finer (--spark-conf "
        f"spark.sql.shuffle.partitions=64).\n{sql}")


def _file_type(spark_type: T.DataType) -> str | None:
    """The DuckDB type a result column of `spark_type` is written with, for the types
    whose Python values do not tell it (a date would be written as text); None: by its
    values. Spark hands a TIMESTAMP (with local time zone) to Python as a local time,
    which DuckDB reads in the same zone."""
    if isinstance(spark_type, T.DecimalType):
        return f"DECIMAL({spark_type.precision},{spark_type.scale})"
    return {T.DateType: "DATE", T.TimestampNTZType: "TIMESTAMP",
            T.TimestampType: "TIMESTAMPTZ"}.get(type(spark_type))


class SparkEngine(Engine):
    """Runs the pipeline's Spark SQL on `spark` (left open), else on a session it starts
    and stops on close: Spark Connect at `remote`, else a classic session on `master`
    (default `local[2]`; one the process already runs is used and left running)."""

    dialect = Spark()
    reads_frames = True
    row_hash = "PMOD(XXHASH64({key}), 1000000007)"

    def __init__(self, spark: SparkSession | None = None, master: str | None = None,
                 work_schema: str | None = None, *, remote: str | None = None,
                 conf: Conf = (), driver_memory: str = "2g") -> None:
        if sum(bool(v) for v in (spark, master, remote)) > 1:
            raise EngineUnavailable("give one of a SparkSession, --spark-master and "
                                    "--spark-remote")
        self._own_session = spark is None
        self._tmp = private_dir("spark")
        try:
            if remote:
                spark = remote_session(remote, conf)
            elif spark is None:
                master = master or "local[2]"
                if _classic_session_running():
                    # getOrCreate hands back the process's own session (the user's):
                    # abcde works in it but does not stop it on close
                    self._own_session = False
                    log.info("a Spark session already runs in this process: abcde works "
                             "in it (its master, not %s) and leaves it running", master)
                warehouse = self._tmp / "warehouse" if master.startswith("local") else None
                spark = local_session(master, warehouse=warehouse, conf=conf,
                                      driver_memory=driver_memory, log_dir=self._tmp)
        except BaseException as err:
            # the message of a session that did not start names the JVM's log here
            if str(self._tmp) not in str(err):
                shutil.rmtree(self._tmp, ignore_errors=True)
            raise
        self.spark = spark
        # files as Parquet on this machine for a classic local session; as Arrow tables
        # for any other, whose executors or server may not see this machine's files
        self._local = not is_connect(spark) and str(
            spark.sparkContext.master).startswith("local")
        self.work_schema = work_schema or f"abcde_work_{secrets.token_hex(4)}"
        self._views: list[str] = []
        self.execute(f"CREATE DATABASE IF NOT EXISTS {self._quote(self.work_schema)}")

    @staticmethod
    def _quote(name: str) -> str:
        return "`" + name.replace("`", "``") + "`"

    def attach_workspace(self, location: str) -> str:
        """The database `location` of the session's catalog (created if absent). It
        outlives the command only where the catalog does: a Spark Connect server, a
        cluster's metastore — not the in-memory catalog of a local session abcde starts."""
        if not location or "." in location:
            raise InputError(f"--workspace {location!r}: name one database of the Spark "
                             "catalog (no dots), e.g. abcde_round1", option="workspace")
        if self._own_session and not is_connect(self.spark):
            log.warning("--workspace %s on a Spark session abcde started: its catalog lives "
                        "in memory and ends with this command (use --spark-remote, or a "
                        "session of your own from Python)", location)
        self.execute(f"CREATE DATABASE IF NOT EXISTS {self._quote(location)}")
        return location

    def list_tables(self, schema: str) -> list[str]:
        rows = self.fetch(f"SHOW TABLES IN {self._quote(schema)}")
        return [r["tableName"] for r in rows if not r.get("isTemporary")]

    def _run(self, sql: str) -> Any:
        try:
            with quiet_pyspark():
                return self.spark.sql(sql)
        except (PySparkException, Py4JError) as err:
            raise _failure(err, sql) from err

    def execute(self, sql: str) -> None:
        self._run(sql)

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        try:
            with quiet_pyspark():
                rows = self.spark.sql(sql).collect()
        except (PySparkException, Py4JError) as err:
            raise _failure(err, sql) from err
        return [{k: plain(v) for k, v in row.asDict().items()} for row in rows]

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        """A temporary view of the file's rows as DuckDB reads them: written as Parquet
        to the engine's private directory for a local session, else handed over as an
        Arrow table."""
        if self._local:
            out = self._tmp / f"{name}_{len(self._views)}.parquet"
            copy_file(path, fmt, out, string_columns, self.file_labels)
            self._view(name, lambda: self.spark.read.parquet(str(out)))
            return
        from pyspark.sql.pandas.types import from_arrow_schema

        from abcde.engines.files import read_source, reading

        with reading(self.file_labels) as con:
            table = con.sql(f"SELECT * FROM {read_source(con, path, fmt, string_columns)}"
                            ).to_arrow_table()
        # an empty table's schema is given: Spark Connect cannot infer it from no rows
        schema = from_arrow_schema(table.schema) if table.num_rows == 0 else None
        self._view(name, lambda: self.spark.createDataFrame(table, schema=schema))

    def csv_columns(self, path: Path) -> list[str]:
        return file_columns(path, "csv", self.file_labels)

    def _view(self, name: str, frame: Any) -> None:
        try:
            with quiet_pyspark():
                frame().createOrReplaceTempView(name)
        except (PySparkException, Py4JError) as err:
            raise _failure(err, f"(the rows of {name})") from err
        self._views.append(name)

    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        types = [sql_type_of(row[k] for row in rows) for k in range(len(columns))]
        schema = T.StructType([T.StructField(c, _SPARK_TYPES[t], True)
                               for c, t in zip(columns, types, strict=True)])
        self._view(name, lambda: self.spark.createDataFrame([tuple(r) for r in rows], schema))

    def register_relation(self, name: str, obj: object) -> None:
        """A Spark DataFrame (of this session), as a temporary view."""
        if not hasattr(obj, "createOrReplaceTempView"):
            raise InputError(f"cannot read a {type(obj).__name__} on the Spark engine; "
                             "give a Spark DataFrame, a file or a table")
        self._view(name, lambda: obj)

    def user_table(self, name: str) -> str:
        """A table or view of the session's catalog, read through a temporary view of
        abcde's own name (the user's name could be one of abcde's steps or CTEs); as given
        when Spark cannot resolve it, for `table_exists` to report."""
        try:
            with quiet_pyspark():
                frame = self.spark.table(".".join(self._quote(p) for p in name.split(".")))
                frame.columns  # noqa: B018 - Spark Connect resolves the name lazily
        except PySparkException:
            return table_ref(name)
        alias = f"abcde_table_{secrets.token_hex(4)}"
        self._view(alias, lambda: frame)
        return ident(alias)

    def missing_table(self, name: str, relation: str) -> tuple[str, str]:
        """There is no --db on Spark: a name is a table or view of the session's catalog,
        or a path the driver reads."""
        current = "its current database"
        with contextlib.suppress(Exception), quiet_pyspark():
            current = f"the current database, {self.spark.catalog.currentDatabase()}"
        return (f"no file, and no table or view of the Spark session's catalog, named "
                f"{name!r}",
                "Give a path to a CSV/Parquet file, or a table or view of the session's "
                f"catalog (db.table; a name without a database is looked up in {current}; "
                "SHOW TABLES IN db lists them).")

    def columns(self, relation: str) -> list[tuple[str, str]]:
        return list(self._run(self.select_sql(relation)).dtypes)

    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        """One file (collected through the driver, or to the client of a Spark Connect
        session: results are per cluster or slice)."""
        sql = self.select_sql(relation, order_by)
        try:
            with quiet_pyspark():
                df = self.spark.sql(sql)
                rows = [tuple(r) for r in df.collect()]
        except (PySparkException, Py4JError) as err:
            raise _failure(err, sql) from err
        write_rows(df.columns, rows, path, fmt, [_file_type(f.dataType)
                                                  for f in df.schema.fields])

    def close(self) -> None:
        self.closed = True
        try:
            self.execute(f"DROP DATABASE IF EXISTS {self._quote(self.work_schema)} CASCADE")
            with quiet_pyspark():
                for view in self._views:
                    self.spark.catalog.dropTempView(view)
        finally:
            if self._own_session:
                with quiet_pyspark(), contextlib.suppress(Exception):
                    self.spark.stop()
            shutil.rmtree(self._tmp, ignore_errors=True)


__all__ = ["SparkEngine", "is_connect", "java_missing", "local_session", "quiet_pyspark",
           "remote_session"]
