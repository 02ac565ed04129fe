"""Spark Connect (issue 16): the impact, sampling and evaluation pipelines run on a Spark
Connect server started by the test session on 127.0.0.1 (tests/conftest.py) and give
the same numbers and samples as DuckDB; the CLI's engine options; no JVM output on the
terminal; an unreachable server, a missing Java runtime and contradicting options exit
2 with what to check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from structures import same

import abcde
from abcde.cli import main
from abcde.engines.duckdb import DuckDBEngine
from abcde.evaluation.run import evaluate
from abcde.sampling.items import sample_items

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
INPUTS = {"base": str(EX / "base.csv"), "exp": str(EX / "exp.csv"),
          "weights": str(EX / "weights.csv")}
ATTRS = str(EX / "attributes.csv")

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def connect_engine(spark_connect_session: Any) -> Any:
    from abcde.engines.spark import SparkEngine, is_connect

    assert is_connect(spark_connect_session)
    engine = SparkEngine(spark_connect_session)
    yield engine
    engine.close()


def test_pipelines_on_spark_connect_agree_with_duckdb(connect_engine: Any,
                                                      tmp_path: Path) -> None:
    """impact (with slices and --out), sample-items, sample-pairs and evaluate (of
    tab-separated files) on a Spark Connect server: the numbers and samples DuckDB
    gives. The three pipelines of a round
    run through one Comparison on each engine (the inputs registered and the cells built
    once, as `abcde.Comparison` does for a user)."""
    got: dict[str, list[Any]] = {"impact": [], "items": [], "pairs": []}
    for engine, out in ((None, "duck"), (connect_engine, "connect")):
        with abcde.Comparison(**INPUTS, attributes=ATTRS, slice_by="provenance",
                              engine=engine) as c:
            got["impact"].append(c.impact(out=tmp_path / out))
            got["items"].append(c.sample_items(300, seed=4))
            got["pairs"].append(c.sample_pairs(200, seed=4, population="jaccard"))
    want, connect = got["impact"]
    same(connect.overall, want.overall)
    same(connect.top_clusters, want.top_clusters)
    same(connect.slices[0]["rows"], want.slices[0]["rows"])
    items = got["items"]
    same(items[1].rows, items[0].rows)
    assert items[1].manifest["fingerprint"] == items[0].manifest["fingerprint"]
    pairs = got["pairs"]
    same(pairs[1].draws, pairs[0].draws)
    assert pairs[1].manifest["sample_id"] == pairs[0].manifest["sample_id"]
    # evaluate reads tab-separated copies on the server: read with their delimiter
    tsv = {}
    for role in ("base", "exp", "weights"):
        tsv[role] = str(tmp_path / f"{role}.tsv")
        Path(tsv[role]).write_text(Path(INPUTS[role]).read_text().replace(",", "\t"))
    truth = str(EX / "truth.csv")
    ev = [evaluate(truth, [f["base"], f["exp"]], f["weights"], engine=e).to_dict()
          for f, e in ((INPUTS, None), (tsv, connect_engine))]
    for a, b in zip(ev[1]["runs"], ev[0]["runs"], strict=True):
        same(a["overall"], b["overall"])
        same(a["classic"], b["classic"])
        same(a["yandex"]["basic"], b["yandex"]["basic"])
    same(ev[1]["uir"]["matrix"], ev[0]["uir"]["matrix"])


@pytest.mark.parametrize(("line", "reason"), [
    ('"b,1', "a quoted value is never closed"),  # found by the check's corrupt records
    ('"b"x,1', "a quoted value is never closed"),  # by the inference (RAISE_ERROR)
    ("b,1,x", "more fields than the 2 of the header"),
])
def test_a_malformed_csv_on_spark_connect(connect_engine: Any, tmp_path: Path, line: str,
                                          reason: str) -> None:
    """A malformed CSV line is refused on a Spark Connect server as on a classic
    session, with its line (the server's errors reach the client as other classes)."""
    bad = tmp_path / "bad.csv"
    bad.write_text(f"item_id,cluster_id\na,1\n{line}\nc,2\n")
    with pytest.raises(abcde.InputError) as caught:
        abcde.impact(str(bad), INPUTS["exp"], engine=connect_engine)
    assert str(caught.value).startswith(
        f"table base ({bad}): cannot parse {bad}: line 3: {reason}\n"), caught.value


def test_text_that_is_not_utf8_on_spark_connect(connect_engine: Any, tmp_path: Path) -> None:
    """Text that is not UTF-8 is refused on a Spark Connect session with its line (a
    tab-separated file read with its delimiter there:
    test_pipelines_on_spark_connect_agree_with_duckdb)."""
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("item_id,cluster_id\na,1\nb\xe9,1\n".encode("latin-1"))
    with pytest.raises(abcde.InputError) as caught:
        abcde.impact(str(bad), INPUTS["exp"], engine=connect_engine)
    assert str(caught.value).startswith(
        f"table base ({bad}): cannot parse {bad}: line 3: the text is not valid UTF-8\n")


def test_workspace_on_spark_connect(spark_connect_url: str, tmp_path: Path,
                                    caplog: pytest.LogCaptureFixture) -> None:
    """A round on a Spark Connect server with --workspace (a database of its catalog),
    each command a client session of its own: the second command reads the cells the
    first stored; the sample is that of a command without the workspace."""
    runner = CliRunner()
    common = ["--base", INPUTS["base"], "--exp", INPUTS["exp"], "--weights",
              INPUTS["weights"], "--attributes", ATTRS, "--spark-remote", spark_connect_url,
              "--workspace", "abcde_ws_test"]
    first = runner.invoke(main, ["impact", *common, "--format", "json"])
    assert first.exit_code == 0, first.output
    with caplog.at_level("INFO", logger="abcde"):
        second = runner.invoke(main, ["sample-items", *common, "--size", "200", "--seed",
                                      "3", "--out", str(tmp_path / "ws.parquet")])
    assert second.exit_code == 0, second.output
    assert "step cell_rows: read from the workspace" in caplog.text
    plain = sample_items(INPUTS["base"], INPUTS["exp"], INPUTS["weights"],
                         attributes=ATTRS, size=200, seed=3)
    with DuckDBEngine() as duck:
        rows = duck.fetch(f"SELECT * FROM '{tmp_path / 'ws.parquet'}' ORDER BY first_draw")
    assert [r["item_id"] for r in rows] == [r["item_id"] for r in plain.rows]
    assert [r["draw_count"] for r in rows] == [r["draw_count"] for r in plain.rows]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "abcde", *args], capture_output=True,
                          text=True, env=env, timeout=600, cwd=ROOT)


SPARK_LOG_WORDS = ("INFO", "WARN ", "log4j", "SparkContext", "NativeCodeLoader",
                   "Stage ", "SQLQueryContextLogger", "JVM stacktrace")


def _quiet_impact(*engine: str) -> None:
    """`abcde impact ... --format json` on `engine`: stderr holds nothing but abcde's own
    output (here none: no log line, no progress bar), and stdout is the JSON document."""
    import json

    done = _cli("impact", INPUTS["base"], INPUTS["exp"], "--weights", INPUTS["weights"],
                "--format", "json", *engine)
    assert done.returncode == 0, done.stderr
    assert not any(w in done.stderr for w in SPARK_LOG_WORDS), done.stderr
    assert done.stderr.strip() == "", done.stderr
    assert json.loads(done.stdout)["overall"]["items"] == 3700


def test_no_spark_output_on_the_terminal_from_a_local_session() -> None:
    """A local Spark session abcde starts prints no log line or progress bar (its own
    JVM: in no xdist group, so either worker runs it)."""
    _quiet_impact("--engine", "spark")


def test_no_spark_output_on_the_terminal_from_a_connect_client(spark_connect_url: str
                                                                ) -> None:
    """Nor does a Spark Connect client."""
    _quiet_impact("--spark-remote", spark_connect_url)


def test_unreachable_server_and_missing_java_exit_2() -> None:
    """Exit 2 with what to check or install; no traceback, no JVM output."""
    from conftest import _free_port

    done = _cli("impact", INPUTS["base"], INPUTS["exp"], "--spark-remote",
                f"sc://127.0.0.1:{_free_port()}")
    assert done.returncode == 2, done.stderr
    assert "cannot reach the Spark Connect server" in done.stderr
    assert "Traceback" not in done.stderr
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)
    done = _cli("impact", INPUTS["base"], INPUTS["exp"], "--engine", "spark", env=env)
    assert done.returncode == 2, done.stderr
    assert "Java runtime" in done.stderr and "openjdk" in done.stderr


def test_a_port_that_is_not_spark_connect_exits_2_promptly(tmp_path: Path) -> None:
    """A port that answers, but not with Spark Connect's gRPC (here an HTTP/1 server):
    exit 2 with what the connection said, no PySpark warning, and the process ends —
    the Connect client's exit-time clean-up would otherwise retry the server for ten
    minutes."""
    import http.server
    import threading

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "abcde", "impact", INPUTS["base"], INPUTS["exp"],
             "--spark-remote", f"sc://127.0.0.1:{server.server_address[1]}"],
            capture_output=True, text=True, timeout=90, cwd=ROOT)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 2, done.stderr
    assert "cannot reach the Spark Connect server" in done.stderr
    assert "HTTP/2" in done.stderr, done.stderr  # gRPC's reason, not a repr
    assert "Rendezvous" not in done.stderr and "Warning" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_spark_conf_on_spark_connect_is_set_or_refused_by_name(spark_connect_url: str
                                                                ) -> None:
    """--spark-conf on a Spark Connect session: a valid setting is set; one the server
    refuses (a value of the wrong type, a setting of the server's own start) exits 2
    naming it. PySpark's builder set them silently: a refused one was dropped and the
    command ran without it."""
    from abcde.engines.spark import remote_session
    from abcde.errors import EngineUnavailable

    session = remote_session(spark_connect_url, conf=[("spark.sql.shuffle.partitions", "3")])
    try:
        assert session.conf.get("spark.sql.shuffle.partitions") == "3"
    finally:
        session.stop()
    with pytest.raises(EngineUnavailable) as caught:
        remote_session(spark_connect_url, conf=[("spark.sql.shuffle.partitions", "abc")])
    assert caught.value.exit_code == 2
    assert str(caught.value) == (
        "the Spark Connect server refused --spark-conf spark.sql.shuffle.partitions=abc: "
        "[INVALID_CONF_VALUE.TYPE_MISMATCH] The value 'abc' in the config "
        "\"spark.sql.shuffle.partitions\" is invalid. It should be a/an 'int' value.\n"
        "Fix or drop that --spark-conf.")
    with pytest.raises(EngineUnavailable, match=r"(?s)refused --spark-conf spark.driver."
                       r"memory=8g: \[CANNOT_MODIFY_CONFIG\].*set it where the Spark Connect "
                       r"server starts"):
        remote_session(spark_connect_url, conf=[("spark.driver.memory", "8g")])


def test_relative_paths_on_spark_connect(connect_engine: Any, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Files named relative to the client's working directory (`abcde impact base.csv
    exp.csv`) are read on Spark Connect: the server resolved them against its own
    working directory ("Path does not exist"), though abcde had found them here. A
    malformed CSV given so is still named by its label and line."""
    for role in ("base", "exp", "weights"):
        (tmp_path / f"{role}.csv").write_text(Path(INPUTS[role]).read_text())
    (tmp_path / "bad.csv").write_text("item_id,cluster_id\na,1\nb,1,x\n")
    monkeypatch.chdir(tmp_path)
    got = abcde.impact("base.csv", "exp.csv", "weights.csv", engine=connect_engine)
    same(got.to_dict()["overall"], abcde.impact(**INPUTS).to_dict()["overall"])
    with pytest.raises(abcde.InputError) as caught:
        abcde.impact("bad.csv", "exp.csv", engine=connect_engine)
    assert str(caught.value).startswith(
        "table base (bad.csv): cannot parse bad.csv: line 3: more fields "
        "than the 2 of the header\n"), caught.value


def test_tls_to_a_server_without_it_exits_2_without_grpc_log_lines(
        spark_connect_url: str) -> None:
    """`;use_ssl=true` with a server that speaks no TLS: exit 2 saying so. gRPC's C core
    printed a "Handshake failed" log line per retry on the terminal."""
    done = _cli("impact", INPUTS["base"], INPUTS["exp"], "--spark-remote",
                f"{spark_connect_url}/;use_ssl=true")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        f"error: cannot reach the Spark Connect server at {spark_connect_url}/: "), done.stderr
    assert "does not speak TLS as the URL asks (use_ssl=true)" in done.stderr, done.stderr
    assert "ssl_transport_security" not in done.stderr and "I1" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 2, done.stderr
