"""The engine options of the command line (issue 16): options of another engine, or
contradicting ones, exit 2 naming them — before any engine starts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main

EX = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(("options", "named"), [
    (["--spark-remote", "sc://h:1", "--spark-master", "local[1]"], "--spark-"),
    (["--spark-remote", "http://h:1"], "--spark-remote"),
    (["--spark-conf", "no_equals_sign"], "--spark-conf"),
    (["--engine", "spark", "--dsn", "postgresql://x"], "--dsn"),
    (["--engine", "spark", "--threads", "2"], "--threads"),
    (["--engine", "postgres", "--dsn", "postgresql://x", "--spark-master", "local"],
     "--spark-master"),
    (["--engine", "duckdb", "--spark-master", "local[1]"], "--spark-master"),
    (["--engine", "duckdb", "--dsn", "postgresql://x", "--spark-conf", "a=b"], "--dsn"),
])
def test_contradicting_engine_options_exit_2(options: list[str], named: str) -> None:
    """Options of another engine, or contradicting ones: exit 2 naming the option, before
    any engine starts."""
    args = ["impact", str(EX / "base.csv"), str(EX / "exp.csv"), *options]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert named in result.output and "Traceback" not in result.output


def test_verbose_prints_abcde_steps_and_other_libraries_warnings_only(tmp_path: Path) -> None:
    """-v logs abcde's steps; a library's INFO chatter (py4j's "Closing down clientserver
    connection" as a Spark session ends) stays out, its warnings do not."""
    base = tmp_path / "base.csv"
    base.write_text("item_id,cluster_id\n1,a\n2,a\n3,b\n")
    script = (
        "import logging, sys\n"
        "from abcde.cli import main\n"
        f"main(['-v', 'impact', {str(base)!r}, {str(base)!r}, '--format', 'json'],"
        " standalone_mode=False)\n"
        "logging.getLogger('py4j.clientserver').info('Closing down clientserver connection')\n"
        "logging.getLogger('py4j.java_gateway').warning('a warning of its own')\n"
        "logging.getLogger('abcde').info('one more step')\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "step cell_rows" in proc.stderr
    assert "one more step" in proc.stderr
    assert "a warning of its own" in proc.stderr
    assert "Closing down" not in proc.stderr


def test_an_unreachable_spark_master_is_said_at_once() -> None:
    """A standalone master nobody listens at: Spark retried it for a minute, then abcde
    printed Py4J's Java stack trace. Now a TCP probe refuses it before the JVM starts."""
    import socket

    pytest.importorskip("pyspark")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for master, message in [(f"spark://127.0.0.1:{port}", "cannot reach the Spark master"),
                            ("spark://127.0.0.1:x", "is not host:port")]:
        result = CliRunner().invoke(main, ["impact", str(EX / "base.csv"),
                                           str(EX / "exp.csv"), "--spark-master", master])
        assert result.exit_code == 2, result.output
        assert message in result.output and "java." not in result.output, result.output


def test_a_failed_spark_start_is_told_in_a_line_not_a_java_trace(tmp_path: Path) -> None:
    """What Spark logged as ERROR (or else the Java exception's line) stands for the
    failure; the stack trace stays in the JVM's log."""
    pytest.importorskip("pyspark")
    from abcde.engines.spark import _reason

    trace = ("An error occurred while calling None.org.apache.spark.sql.classic."
             "SparkSession.\n: java.lang.IllegalStateException: Cannot call methods on a "
             "stopped SparkContext.\nThis stopped SparkContext was created at:\n\n"
             "org.apache.spark.api.java.JavaSparkContext.<init>(JavaSparkContext.scala:59)\n"
             "\tat py4j.Gateway.invoke(Gateway.java:238)\n")
    log = tmp_path / "jvm.log"
    log.write_text("Setting default log level to \"WARN\".\n26/11/24 22:25:23 ERROR "
                   "StandaloneSchedulerBackend: Application has been killed. Reason: All "
                   "masters are unresponsive! Giving up.\n")
    assert _reason(RuntimeError(trace), log) == (
        "StandaloneSchedulerBackend: Application has been killed. Reason: All masters are "
        "unresponsive! Giving up.")
    log.write_text("nothing logged as an error\n")
    assert _reason(RuntimeError(trace), log) == (
        "java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext.")
    assert _reason(RuntimeError(trace), tmp_path / "missing.log").startswith(
        "java.lang.IllegalStateException")


def _abcde(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, as a user runs it: in this one, Spark's
    getOrCreate would hand back the test session's Spark session."""
    return subprocess.run([sys.executable, "-m", "abcde", *args], capture_output=True,
                          text=True, timeout=300)


def test_a_jvm_that_exits_at_start_is_told_by_its_log_which_is_kept() -> None:
    """A JVM that ends before PySpark can talk to it (a bad spark.driver.memory, an
    unknown master) was told as PySpark's "Java gateway process exited" only, and the
    message named a JVM log abcde had already deleted: now the JVM's own line stands
    for it, and the log is there to read."""
    import re

    pytest.importorskip("pyspark")
    result = _abcde("impact", str(EX / "base.csv"), str(EX / "exp.csv"),
                    "--spark-conf", "spark.driver.memory=lots")
    assert result.returncode == 2, result.stderr
    assert "Invalid maximum heap size: -Xmxlots" in result.stderr, result.stderr
    log = re.search(r"The JVM's log: (\S+)", result.stderr)
    assert log is not None and Path(log[1]).is_file(), result.stderr
    shutil.rmtree(Path(log[1]).parent)


def test_a_bad_spark_sql_setting_exits_2_naming_it() -> None:
    """A --spark-conf value Spark refuses (spark.sql.shuffle.partitions=abc) surfaced at
    the first statement as exit 1 with a JVM stack trace; now the session is checked
    as it starts: exit 2 with Spark's reason, which names the setting."""
    pytest.importorskip("pyspark")
    result = _abcde("impact", str(EX / "base.csv"), str(EX / "exp.csv"),
                    "--spark-conf", "spark.sql.shuffle.partitions=abc")
    assert result.returncode == 2, result.stderr
    assert ("Spark refused a setting of the session: [INVALID_CONF_VALUE.TYPE_MISMATCH] "
            "The value 'abc' in the config \"spark.sql.shuffle.partitions\" is invalid"
            in result.stderr), result.stderr
    assert "java." not in result.stderr and "JVM stacktrace" not in result.stderr
