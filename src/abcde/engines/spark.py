"""Spark through PySpark (`pip install 'abcde[spark]'`): an existing SparkSession from
Python (classic or Spark Connect), else a session abcde starts: a local one
(`local[2]`), one on a cluster manager (`master`, e.g. `spark://host:7077`), or a Spark
Connect client (`remote`, `sc://host:15002`).

Work tables go to a private database `abcde_work_<random>` (dropped on close); inputs
are temporary views. Settings of a local session: docs/method.md §11.4.

Nothing of Spark's own output reaches the user's terminal: a JVM that abcde starts
writes its stdout and stderr (log lines, progress bars) to a log file of its own, and
PySpark's loggers are silenced while abcde's statements run (their errors become
`EngineError`s).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from abcde.engines.base import Engine, sql_type_of
from abcde.engines.files import (
    NOT_UTF8,
    NOT_UTF8_HINT,
    UNCLOSED_QUOTE,
    CsvProblem,
    csv_delimiter,
    header_delimiter,
    line_number,
    line_problem,
    strict_csv_problem,
    write_rows,
)
from abcde.errors import EngineError, EngineUnavailable, InputError
from abcde.sql.dialects import Spark
from abcde.sql.quoting import ident, table_ref

try:
    from pyspark.errors import PySparkException
    from pyspark.sql import DataFrameReader, SparkSession
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
def _connect_env(values: dict[str, str]) -> Iterator[None]:
    """PySpark's process-wide switches between classic and Connect mode set to `values`
    for the block and given back after it: PySpark sets them when it opens a Connect
    session, and a classic session opened later in the same process would then refuse
    to start (and the other way round)."""
    saved = {k: os.environ.get(k) for k in _CONNECT_ENV}
    for k in _CONNECT_ENV:
        os.environ.pop(k, None)
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def java_missing() -> str | None:
    """Why no Java runtime can start Spark's JVM, or None when one is there."""
    home = os.environ.get("JAVA_HOME")
    if home:
        if (Path(home) / "bin" / "java").exists():
            return None
        return f"JAVA_HOME={home} holds no bin/java"
    if shutil.which("java") is None:
        return "no Java runtime found (no `java` on PATH and JAVA_HOME is not set)"
    return None


@contextlib.contextmanager
def _jvm_output(log_file: Path) -> Iterator[None]:
    """File descriptors 1 and 2 point at `log_file` for the block: a JVM started in it
    (PySpark's `spark-submit` child inherits them) writes its start-up lines, log lines and
    progress bars there for its whole life, never on the user's terminal or into
    abcde's JSON on stdout."""
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


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


def _java_reason(err: Exception, jvm_log: Path) -> str:
    """What went wrong, in a line or two rather than Py4J's Java stack trace: the JVM
    log's ERROR lines (e.g. "All masters are unresponsive! Giving up."), else the Java
    exception's own line."""
    tail = _tail(jvm_log, 200).splitlines()
    logged = [line.split(" ERROR ", 1)[1].strip() for line in tail if " ERROR " in line]
    if logged:
        return "; ".join(dict.fromkeys(logged[-3:]))[:500]
    # a JVM that ended before PySpark could talk to it (JAVA_GATEWAY_EXITED): what
    # spark-submit or the JVM printed, e.g. "Invalid maximum heap size: -Xmxlots" or
    # "Master must either be yarn or start with spark, k8s, or local"
    died = [re.sub(r"^Exception in thread \S+ [\w.$]+: ", "", line.strip()) for line in tail
            if line.startswith(("Exception in thread", "Invalid ", "Error occurred",
                                "Unrecognized option", "Error: Could not create"))]
    if died and "JAVA_GATEWAY_EXITED" in str(err):
        return "; ".join(dict.fromkeys(died[:2]))[:500]
    lines = [line.strip() for line in str(err).splitlines()]
    java = [line.lstrip(": ") for line in lines if line.startswith(": ")]
    return (java[:1] or lines[:1] or [type(err).__name__])[0][:500]


def _probe_masters(master: str, check: str) -> None:
    """A standalone cluster URL (spark://host:port[,host:port]) whose masters refuse a
    plain TCP connection is refused at once: Spark would retry it for a minute before
    giving up."""
    if not master.startswith("spark://"):
        return
    problems = []
    for address in master.removeprefix("spark://").split(","):
        host, _, port = address.strip().rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
            return
        except ValueError:
            raise EngineUnavailable(f"--spark-master {master}: {address!r} is not "
                                    "host:port (e.g. spark://master:7077)") from None
        except OSError as err:
            problems.append(f"{address}: {err.strerror or err}")
    raise EngineUnavailable(f"cannot reach the Spark master at {master} "
                            f"({'; '.join(problems)})\n{check}")


def _classic_session_running() -> bool:
    """Whether this process runs a classic SparkContext already (which a builder's
    getOrCreate would hand back rather than start one)."""
    from pyspark import SparkContext

    return SparkContext._active_spark_context is not None


def local_session(master: str = "local[2]", warehouse: str | Path | None = None,
                  driver_memory: str = "2g", conf: Conf = (),
                  log_dir: str | Path | None = None) -> SparkSession:
    """A classic SparkSession on `master` (default `local[2]`, with the settings measured
    for abcde: docs/method.md §11.4; a cluster manager URL such as `spark://host:7077` or
    `yarn` gets only abcde's quiet settings). `conf`: (key, value) pairs applied last,
    so they override abcde's. The JVM's output goes to `log_dir`/jvm.log (default: a
    temporary directory), never to the terminal."""
    missing = java_missing()
    if missing:
        raise EngineUnavailable(
            f"Spark needs a Java runtime (17 or later): {missing}. Install one (e.g. "
            "apt-get install openjdk-17-jre-headless) or set JAVA_HOME to it.")
    local = master.startswith("local")
    logs = (Path(log_dir) if log_dir is not None
            else Path(tempfile.mkdtemp(prefix="abcde_spark_log_")))
    logs.mkdir(parents=True, exist_ok=True)
    log4j = logs / "log4j2.properties"
    log4j.write_text(_LOG4J)
    java_options = f"-Dlog4j2.configurationFile=file:{log4j}"
    builder = (SparkSession.builder.master(master).appName("abcde")
               # abcde draws its own progress (abcde.progress): no console bars of Spark's
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.extraJavaOptions", java_options)
               .config("spark.sql.session.timeZone", "UTC"))
    if local:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (builder.config("spark.ui.enabled", "false")
                   .config("spark.sql.shuffle.partitions", "4")
                   .config("spark.driver.memory", driver_memory)
                   .config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1"))
    if warehouse is not None:
        builder = builder.config("spark.sql.warehouse.dir", str(warehouse))
    for key, value in conf:
        builder = builder.config(key, value)
    check = ("Check the Java runtime (17 or later), the --spark-master URL and the "
             "--spark-conf settings.")
    _probe_masters(master, check)
    jvm_log = logs / "jvm.log"
    # getOrCreate hands back a session the process already runs, which is not abcde's
    # to stop when its settings fail
    running = _classic_session_running()
    try:
        with _jvm_output(jvm_log), quiet_pyspark(), _connect_env({}):
            session = builder.getOrCreate()
    except Exception as err:  # the JVM did not start, a port was refused, ...
        raise EngineUnavailable(
            f"cannot start a Spark session on {master}: {_java_reason(err, jvm_log)}\n"
            f"{check} The JVM's log: {jvm_log}") from None
    try:  # Spark reads the SQL settings (spark.sql.*) only when the first query comes
        with quiet_pyspark():
            session.sql("SELECT 1")
    except Exception as err:
        if not running:
            with quiet_pyspark(), contextlib.suppress(Exception):
                session.stop()
        raise EngineUnavailable(f"Spark refused a setting of the session: "
                                f"{_setting_reason(err)}\nFix or drop that --spark-conf."
                                ) from None
    session.sparkContext.setLogLevel("ERROR")
    log.info("Spark %s on %s; the JVM's log: %s", session.version, master, jvm_log)
    return session


def _setting_reason(err: Exception) -> str:
    """Spark's reason for refusing a setting (its error's last cause, e.g. "[INVALID_CONF_
    VALUE.TYPE_MISMATCH] The value 'abc' in the config "spark.sql.shuffle.partitions" is
    invalid. ..."), without the Java class names or the stack trace."""
    origin = getattr(err, "_origin", None)  # the Java exception of a classic session
    try:
        while origin is not None and origin.getCause() is not None:
            origin = origin.getCause()
        root = origin.getMessage() if origin is not None else None
    except Exception:  # the JVM has gone
        root = None
    text = str(err).strip()
    reason = (root or (_java_cause(err) if "Caused by:" in text
                       else (text.splitlines() or [type(err).__name__])[0]))[:500]
    reason = re.sub(r"^Caused by: [\w.$]+: ", "", reason)
    return re.sub(r"\s*SQLSTATE: \w+\.?$", "", reason)


def _host_port(url: str) -> tuple[str, int]:
    """Host and port of a Spark Connect URL (sc://host[:port][/;options]; port 15002 by
    default)."""
    rest = url.removeprefix("sc://").split("/", 1)[0].split(";", 1)[0]
    if rest.startswith("["):  # an IPv6 address
        host, _, tail = rest[1:].partition("]")
        port = tail.removeprefix(":")
    else:
        host, _, port = rest.partition(":")
    try:
        return host, int(port) if port else 15002
    except ValueError:
        raise EngineUnavailable(f"--spark-remote {url!r}: {port!r} is not a port number"
                                ) from None


def _grpc_reason(err: Exception) -> str:
    """What a failed gRPC call says (its `details`, e.g. "failed to connect to all
    addresses; ... Failed parsing HTTP/2" when the port serves something else), rather
    than the first line of its repr."""
    text = str(err).strip()
    found = re.search(r'details = "(.*?)"\n', text)
    if found:
        return found[1][:300]
    return (text.splitlines()[0] if text else type(err).__name__)[:300]


def remote_session(url: str, conf: Conf = (), probe_retries: int = 4) -> SparkSession:
    """A Spark Connect session on the server at `url` (`sc://host:port`, with the
    options Spark Connect URLs take, e.g. `sc://host:443/;use_ssl=true;token=...`).
    `conf`: (key, value) session settings. The server is asked for `SELECT 1` with a
    few quick retries (not Spark Connect's ten minutes of them): one that does not
    answer is an `EngineUnavailable` naming the URL."""
    # gRPC's C core logs to the terminal (a failed TLS handshake of ;use_ssl=true with a
    # server that has none, once per retry); abcde reports the failure itself. Read
    # when gRPC starts, so set before the first channel.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    try:
        from pyspark.sql.connect.client.retries import DefaultPolicy
    except ImportError as err:
        raise EngineUnavailable(f"the Spark Connect client is missing ({err}): pip install "
                                "'abcde[spark]' (it includes pyspark[connect])") from None
    # the Connect client's own builder: the generic one refuses a remote session in a
    # process that already runs a classic one (SESSION_ALREADY_EXIST)
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    # the settings are set after the probe, one by one (`_set_remote_conf`): the
    # builder's own config() sets them silently, dropping any the server refuses
    builder = ConnectSession.builder.remote(url)
    shown = url.split(";", 1)[0]  # never print a token
    check = ("Check that the server runs and listens there (start-connect-server.sh, "
             "spark.connect.grpc.binding.port), and the host and port of --spark-remote.")
    host, port = _host_port(url)
    try:  # a plain TCP connection first: PySpark retries an unreachable server for minutes
        socket.create_connection((host, port), timeout=10).close()
    except OSError as err:
        raise EngineUnavailable(f"cannot reach the Spark Connect server at {shown}: "
                                f"{err}\n{check}") from None
    client = None
    try:
        with quiet_pyspark(), _connect_env({}), warnings.catch_warnings():
            # PySpark warns RETRIES_EXCEEDED before raising what abcde reports
            warnings.simplefilter("ignore", UserWarning)
            # a session of its own (not getOrCreate's shared one): stopping it when the
            # command ends leaves other sessions of the process on the server open
            session = builder.create()
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
        reason = _grpc_reason(err)
        if "handshake failed" in reason.lower():
            check = ("The server does not speak TLS as the URL asks (use_ssl=true): drop "
                     "that option, or give the server a certificate.")
        raise EngineUnavailable(f"cannot reach the Spark Connect server at {shown}: "
                                f"{reason}\n{check}") from None
    _set_remote_conf(session, conf)
    log.info("Spark Connect %s at %s", session.version, shown)
    return session


def _set_remote_conf(session: SparkSession, conf: Conf) -> None:
    """Set `conf` on a Spark Connect session; a setting the server refuses (a value of
    the wrong type, a setting of the server's own start such as spark.driver.memory)
    stops the session and is an `EngineUnavailable` naming it."""
    for key, value in conf:
        try:
            with quiet_pyspark():
                session.conf.set(key, value)
        except Exception as err:
            with quiet_pyspark(), contextlib.suppress(Exception):
                session.stop()
            text = str(err).strip()
            reason = re.sub(r"\s*SQLSTATE: \w+\.?$", "",
                            (text.splitlines() or [type(err).__name__])[0])[:500]
            hint = ("It is a setting of the server itself: set it where the Spark Connect "
                    "server starts (--conf of start-connect-server.sh, spark-defaults.conf)."
                    if "CANNOT_MODIFY" in text else "Fix or drop that --spark-conf.")
            raise EngineUnavailable(f"the Spark Connect server refused --spark-conf "
                                    f"{key}={value}: {reason}\n{hint}") from None


def _java_cause(err: Exception) -> str:
    """The line of a Py4J error that says what failed: its last "Caused by", else the
    Java exception's own line (its first line only names the Py4J call)."""
    lines = [line.strip() for line in str(err).splitlines()]
    causes = [line for line in lines if line.startswith("Caused by:")]
    errors = [line.lstrip(": ") for line in lines if line.startswith(": ")]
    return (causes[-1:] or errors[:1] or [type(err).__name__])[0][:500]


def _driver_failure(err: Exception, sql: str) -> EngineError:
    """A failure of the JVM under a classic session (not a refusal of the SQL): most
    often its driver ran out of heap and the SparkContext shut down, which surfaces as
    a Py4J error (an internal error of Spark's, a NullPointerException of its
    scheduler) rather than as an error of the query."""
    what = _java_cause(err)
    return EngineError(
        f"Spark failed while running a step: {what}\nWhen the SparkContext has shut "
        "down, the usual cause is a driver out of memory: give it more (--spark-conf "
        "spark.driver.memory=8g) or split the work finer (--spark-conf "
        f"spark.sql.shuffle.partitions=64).\n{sql}")


def _file_type(spark_type: T.DataType) -> str | None:
    """The DuckDB type a result column of `spark_type` is written with, for the types
    whose Python values do not tell it (a date would be written as text); None: by its
    values, as integers and floats are from every engine (`write_rows`). Spark hands a
    TIMESTAMP (with local time zone) to Python as a local time, which DuckDB reads in
    the same zone."""
    if isinstance(spark_type, T.DateType):
        return "DATE"
    if isinstance(spark_type, T.TimestampNTZType):
        return "TIMESTAMP"
    if isinstance(spark_type, T.TimestampType):
        return "TIMESTAMPTZ"
    if isinstance(spark_type, T.DecimalType):
        return f"DECIMAL({spark_type.precision},{spark_type.scale})"
    return None


def _csv_reader(spark: SparkSession, sep: str) -> DataFrameReader:
    """Spark's CSV reader with a header and the delimiter `sep`, reading quotes as RFC
    4180 and the other engines do: a quote inside a quoted value is written twice
    (Spark's default escape is a backslash: "a""b" stayed the id "a""b" and "C:\\" never
    closed), and a quoted value followed by more text ("b"x) is an error, not the value
    "b"x."""
    return (spark.read.option("header", "true").option("sep", sep).option("escape", '"')
            .option("unescapedQuoteHandling", "RAISE_ERROR"))


class SparkEngine(Engine):
    """Runs the pipeline's Spark SQL on `spark` (left open), else on a session it starts
    and stops on close: Spark Connect at `remote` (`sc://host:port`), else a classic
    session on `master` (default `local[2]`; a classic session the process already
    runs is used instead, as Spark's getOrCreate does, and left running on close).
    `conf`: (key, value) settings of a session it starts."""

    dialect = Spark()
    reads_frames = True
    reads_tables = True
    keeps_workspace = True
    row_hash = "PMOD(XXHASH64({key}), 1000000007)"

    def __init__(self, spark: SparkSession | None = None, master: str | None = None,
                 work_schema: str | None = None, *, remote: str | None = None,
                 conf: Conf = (), driver_memory: str = "2g") -> None:
        if spark is not None and (master or remote):
            raise EngineError("give a SparkSession or master/remote, not both")
        if master and remote:
            raise EngineUnavailable("--spark-master and --spark-remote exclude each other: "
                                    "a classic session runs on a cluster manager, a Spark "
                                    "Connect session on a server")
        self._own_session = spark is None
        self._tmp: Path | None = None
        if spark is None:
            self._tmp = Path(tempfile.mkdtemp(prefix="abcde_spark_"))
            try:
                if remote:
                    spark = remote_session(remote, conf)
                else:
                    master = master or "local[2]"
                    # getOrCreate hands back a classic session this process already
                    # runs (the user's own, from Python): abcde works in it but is not
                    # the one to stop it on close
                    if _classic_session_running():
                        self._own_session = False
                        log.info("a Spark session already runs in this process: abcde "
                                 "works in it (its master, not %s) and leaves it running",
                                 master)
                    warehouse = self._tmp / "warehouse" if master.startswith("local") else None
                    spark = local_session(master, warehouse=warehouse, conf=conf,
                                          driver_memory=driver_memory, log_dir=self._tmp)
            except BaseException as err:
                # the message of a session that did not start names the JVM's log here
                if not (isinstance(err, EngineUnavailable) and str(self._tmp) in str(err)):
                    shutil.rmtree(self._tmp, ignore_errors=True)
                raise
        self.spark = spark
        self.work_schema = work_schema or f"abcde_work_{secrets.token_hex(4)}"
        self._views: list[str] = []
        # CSV files read and checked, by (path, size, modification time): `_csv_format`
        self._csv_formats: dict[tuple[str, int, int], tuple[T.StructType, str]] = {}
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
                             "catalog (no dots), e.g. abcde_round1")
        if self._own_session and not is_connect(self.spark):
            log.warning("--workspace %s on a Spark session abcde started: its catalog lives "
                        "in memory and ends with this command (use --spark-remote, or a "
                        "session of your own from Python)", location)
        self.execute(f"CREATE DATABASE IF NOT EXISTS {self._quote(location)}")
        return location

    def list_tables(self, schema: str) -> list[str]:
        rows = self.fetch(f"SHOW TABLES IN {self._quote(schema)}")
        return [r["tableName"] for r in rows if not r.get("isTemporary")]

    def execute(self, sql: str) -> None:
        try:
            with quiet_pyspark():
                self.spark.sql(sql)
        except PySparkException as err:
            raise EngineError(f"Spark refused a statement: {err}\n{sql}") from err
        except Py4JError as err:
            raise _driver_failure(err, sql) from err

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        try:
            with quiet_pyspark():
                return [row.asDict() for row in self.spark.sql(sql).collect()]
        except PySparkException as err:
            raise EngineError(f"Spark refused a query: {err}\n{sql}") from err
        except Py4JError as err:
            raise _driver_failure(err, sql) from err

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        """A temporary view over the file (read by Spark: by the server of a Spark
        Connect session); CSV types are inferred, except that `string_columns` are read
        as text (ids such as 007 stay distinct from 7). A CSV with a malformed line is
        an `InputError` (`_check_csv`). A relative path is made absolute for a Spark
        Connect server, which would resolve it against its own working directory (a
        file the client sees there, as abcde checked, is then the same file where the
        two share the file system)."""
        if is_connect(self.spark) and not path.is_absolute() and path.exists():
            label = self.file_labels.get(str(path))
            path = path.absolute()
            if label is not None:
                self.file_labels.setdefault(str(path), label)
        try:
            with quiet_pyspark():
                if fmt == "parquet":
                    df = self.spark.read.parquet(str(path))
                elif fmt == "csv":
                    schema, sep = self._csv_format(path)
                    if string_columns:
                        schema = T.StructType([
                            T.StructField(f.name, T.StringType() if f.name in string_columns
                                          else f.dataType, True) for f in schema.fields])
                    df = _csv_reader(self.spark, sep).schema(schema).csv(str(path))
                else:
                    raise InputError(f"{path}: unsupported file format {fmt!r} (use CSV or "
                                     "Parquet)")
                df.createOrReplaceTempView(name)
        except PySparkException as err:
            raise EngineError(f"Spark cannot read {path}: {err}") from err
        except Py4JError as err:  # a failed job of a classic session (e.g. a corrupt .gz)
            raise EngineError(f"Spark cannot read {path}: {_java_cause(err)}") from err
        self._views.append(name)

    def _csv_format(self, path: Path) -> tuple[T.StructType, str]:
        """The schema Spark infers for a CSV file (a pass over the whole file) and the
        delimiter it is read with (`_csv_delimiter`), once the file is known to hold no
        malformed line and only UTF-8 (`_check_csv`, another pass). Both are kept for
        the file as it is now: inputs are registered twice (again with their id columns
        as text), and a second inference would cost more than the check."""
        try:
            stat = path.stat()
            key: tuple[str, int, int] | None = (str(path), stat.st_size, stat.st_mtime_ns)
        except OSError:  # a path only the Spark Connect server sees
            key = None
        if key is not None and key in self._csv_formats:
            return self._csv_formats[key]
        local = key is not None
        sep = self._csv_delimiter(path, local=local)
        try:
            schema = (_csv_reader(self.spark, sep).option("inferSchema", "true")
                      .csv(str(path)).schema)
            self._check_csv(path, schema.fieldNames(), sep, local=local)
        except (PySparkException, Py4JError) as err:
            if "Unescaped quote character" not in str(err):
                raise
            # unescapedQuoteHandling=RAISE_ERROR: a quoted value followed by more text
            # ("b"x), which Spark otherwise took as the value "b"x
            raise self._malformed_csv(path, sep=sep) from err
        if key is not None:
            self._csv_formats[key] = (schema, sep)
        return schema, sep

    def _csv_delimiter(self, path: Path, *, local: bool) -> str:
        """The delimiter DuckDB would read the CSV with (`csv_delimiter`: a .tsv, or a
        file separated by ; or |, is not one column of whole lines as Spark's default
        comma made it). A file only a Spark Connect server sees is judged by its header
        line, read by Spark; a comma when the header suggests no other."""
        if local:
            return csv_delimiter(path) or ","
        try:
            with quiet_pyspark():
                first = self.spark.read.text(str(path)).first()
        except (PySparkException, Py4JError):  # the CSV read that follows says why
            return ","
        return (header_delimiter(first[0]) if first is not None and first[0] else None) or ","

    def _check_csv(self, path: Path, names: Sequence[str], sep: str, *, local: bool
                   ) -> None:
        """Refuse a CSV with a line of more or fewer fields than its header, as the other
        engines do; an unclosed quote is one (its value runs to the end of the line).
        Spark's PERMISSIVE read pads or cuts such a line into a row ("b,1 became the id
        `b,1` with a NULL cluster), and FAILFAST misses it when a query needs only some
        columns (Spark then splits only those). The line's text comes in a corrupt-record
        column, which also makes Spark split every field. The fields are read as text
        (a fifth cheaper than converting them; the inferred types fit every value).
        Refuse as well text that is not UTF-8 (`_not_utf8`): Spark decodes such a byte as
        U+FFFD, so `bé` in Latin-1 became the id `b\ufffd` (and two ids one)."""
        raw = "_abcde_malformed_line"
        while raw in names:
            raw += "_"
        text = [T.StructField(n, T.StringType()) for n in [*names, raw]]
        frame = (_csv_reader(self.spark, sep).schema(T.StructType(text))
                 .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", raw)
                 .csv(str(path)))
        # One job over every split (LIMIT 1 would scan them in growing rounds), in SQL
        # text (pyspark.sql.functions of a classic session fail under Spark Connect in
        # the same process). Every column is used: Spark checks the fields of the columns
        # a query reads only, and refuses a query of the corrupt-record column alone.
        fields = ", ".join(self._quote(n) for n in names)
        replaced = " OR ".join(f"instr({self._quote(n)}, '\ufffd') > 0" for n in names)
        found = (frame.where(f"{self._quote(raw)} IS NOT NULL OR {replaced}")
                 .selectExpr(f"first({self._quote(raw)}, true) AS line", "count(1) AS lines",
                             f"max(hash({fields})) AS any")
                 .first())
        if found is not None and found["line"] is not None:
            raise self._malformed_csv(path, found["line"], len(names), sep)
        if (found is not None and found["lines"]) or any("\ufffd" in n for n in names):
            problem = self._not_utf8(path, sep, local=local)
            if problem is not None:
                raise problem

    def _not_utf8(self, path: Path, sep: str, *, local: bool) -> InputError | None:
        """The error for a CSV in which Spark read a U+FFFD: a byte that is not UTF-8 (the
        first such line, as the other engines name it), or None when the file holds
        that character itself. A file only a Spark Connect server sees (not `local`) is
        read there as lines of bytes (Spark's text source does not decode them)."""
        label = self.file_labels.get(str(path))
        if local:
            problem = strict_csv_problem(path, sep)
            return None if problem is None else InputError(
                problem.message(), table=label, column=problem.column, hint=problem.hint)
        with quiet_pyspark():
            found = (self.spark.read.text(str(path)).where("NOT is_valid_utf8(value)")
                     .selectExpr("make_valid_utf8(value) AS line").first())
        if found is None:
            return None
        return InputError(f"cannot parse {path}: the line {found['line']!r}: {NOT_UTF8}",
                          table=label, hint=NOT_UTF8_HINT)

    def _malformed_csv(self, path: Path, line: str | None = None, width: int = 0,
                       sep: str = ",") -> InputError:
        """The error for a CSV Spark found a malformed `line` in (its text, of a header of
        `width` fields split at `sep`; None: a quoted value followed by more text). A
        file abcde can read here is read strictly as the other engines read it, for the
        same message (the first malformed line, by number); else the line is found by
        its text."""
        label = self.file_labels.get(str(path))
        problem = strict_csv_problem(path, sep)
        if problem is not None:
            return InputError(problem.message(), table=label, column=problem.column,
                              hint=problem.hint)
        if line is None:
            return InputError(f"cannot parse {path}: a quoted value is followed by more "
                              "text before the delimiter", table=label,
                              hint="Quote the whole value; a quote inside a quoted value is "
                                   "written twice (\"\").")
        reason, hint = line_problem(line, width, sep)
        if reason == UNCLOSED_QUOTE:  # or one the other engines read: across lines
            hint += (" Spark reads a CSV line by line: a quoted value cannot hold a line "
                     "break (give such a file as Parquet).")
        number = line_number(path, line)
        if number is None:  # not a file of this machine (a Spark Connect server's)
            return InputError(f"cannot parse {path}: the line {line!r}: {reason}",
                              table=label, hint=hint)
        return InputError(CsvProblem(str(path), number, reason).message(), table=label,
                          hint=hint)

    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        types = [sql_type_of(row[k] for row in rows) for k in range(len(columns))]
        schema = T.StructType([T.StructField(c, _SPARK_TYPES[t], True)
                               for c, t in zip(columns, types, strict=True)])
        try:
            with quiet_pyspark():
                self.spark.createDataFrame([tuple(r) for r in rows], schema
                                           ).createOrReplaceTempView(name)
        except PySparkException as err:
            raise EngineError(f"Spark refused the rows of {name}: {err}") from err
        self._views.append(name)

    def register_relation(self, name: str, obj: object) -> None:
        """A Spark DataFrame (of this session), as a temporary view."""
        if not hasattr(obj, "createOrReplaceTempView"):
            raise InputError(f"cannot read a {type(obj).__name__} on the Spark engine; "
                             "give a Spark DataFrame, a file or a table")
        obj.createOrReplaceTempView(name)  # type: ignore[attr-defined]
        self._views.append(name)

    def user_table(self, name: str) -> str:
        """A table or view of the session's catalog (`table`, `db.table`,
        `catalog.db.table`), read through a temporary view of abcde's own name: inside
        abcde's SQL the user's name could be one of its steps or CTEs (`cells`), which
        would be read instead. A name Spark cannot resolve is returned as is, for
        `table_exists` to report."""
        try:
            with quiet_pyspark():
                frame = self.spark.table(".".join(self._quote(p) for p in name.split(".")))
                frame.columns  # noqa: B018 - Spark Connect resolves the name lazily
        except PySparkException:
            return table_ref(name)
        alias = f"abcde_table_{secrets.token_hex(4)}"
        frame.createOrReplaceTempView(alias)
        self._views.append(alias)
        return ident(alias)

    def missing_table(self, name: str, relation: str) -> tuple[str, str]:
        """There is no --db on Spark: a name is a table or view of the session's catalog,
        or a path the driver reads (the default hint spoke of --db)."""
        current = "its current database"
        with contextlib.suppress(Exception), quiet_pyspark():
            current = f"the current database, {self.spark.catalog.currentDatabase()}"
        return (f"no file, and no table or view of the Spark session's catalog, named "
                f"{name!r}",
                "Give a path to a CSV/Parquet file that Spark's driver can read, or a table "
                f"or view of the session's catalog (db.table; a name without a database is "
                f"looked up in {current}; SHOW TABLES IN db lists them).")

    def columns(self, relation: str) -> list[tuple[str, str]]:
        try:
            with quiet_pyspark():
                return list(self.spark.sql(self.select_sql(relation)).dtypes)
        except PySparkException as err:
            raise EngineError(str(err)) from err

    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        """One file (collected through the driver, or to the client of a Spark Connect
        session: results are per cluster or slice)."""
        try:
            with quiet_pyspark():
                df = self.spark.sql(self.select_sql(relation, order_by))
                rows = [tuple(r) for r in df.collect()]
                names = df.columns
                types = [_file_type(f.dataType) for f in df.schema.fields]
        except PySparkException as err:
            raise EngineError(f"Spark refused to read {relation}: {err}") from err
        write_rows(names, rows, path, fmt, types)

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
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)


__all__ = ["SparkEngine", "is_connect", "java_missing", "local_session", "quiet_pyspark",
           "remote_session"]
