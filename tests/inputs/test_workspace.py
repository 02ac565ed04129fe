"""The workspace of a round (issue 16, abcde.inputs.workspace): cells stored by the first
command are read by the next one on the same inputs, never when the inputs changed —
also a file rewritten with the same size and modification time — and the samples are
identical with and without the workspace."""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import threading
import time
from pathlib import Path

import duckdb
import pytest

import abcde
from abcde.engines import duckdb as duck_engine
from abcde.inputs.workspace import file_identity
from abcde.sampling.items import sample_items
from abcde.sampling.pairs import sample_pairs

EX = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, str]:
    """The examples copied (a test may rewrite them)."""
    out = {}
    for name in ("base", "exp", "weights", "attributes"):
        shutil.copy(EX / f"{name}.csv", tmp_path / f"{name}.csv")
        out[name] = str(tmp_path / f"{name}.csv")
    return out


def same(a: object, b: object, path: str = "") -> None:
    """Equal structures; floats to 1e-12 relative (parallel sums vary in the last bits
    from run to run), everything else (ids, counts, draw order) exactly."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert set(a) == set(b), path
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list | tuple) and isinstance(b, list | tuple):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{k}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15), (path, a, b)
    else:
        assert a == b, (path, a, b)


def reads(caplog: pytest.LogCaptureFixture) -> set[str]:
    """The steps read from the workspace, as logged."""
    return {r.getMessage().split(":")[0].removeprefix("step ") for r in caplog.records
            if "read from the workspace" in r.getMessage()}


def test_a_round_reuses_the_cells_and_samples_the_same(
        inputs: dict[str, str], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    ws = tmp_path / "round.duckdb"
    args = (inputs["base"], inputs["exp"], inputs["weights"])
    plain = {"impact": abcde.impact(*args, attributes=inputs["attributes"]).to_dict(),
             "items": sample_items(*args, attributes=inputs["attributes"], size=300, seed=5),
             "pairs": sample_pairs(*args, attributes=inputs["attributes"], budget=200,
                                   seed=5, population="jaccard")}
    with caplog.at_level(logging.INFO, logger="abcde"):
        first = abcde.impact(*args, attributes=inputs["attributes"], workspace=ws)
        assert reads(caplog) == set()
        caplog.clear()
        items = sample_items(*args, attributes=inputs["attributes"], size=300, seed=5,
                             workspace=ws)
        assert reads(caplog) == {"cell_rows", "cells", "cell_metrics"}
        caplog.clear()
        pairs = sample_pairs(*args, attributes=inputs["attributes"], budget=200, seed=5,
                             population="jaccard", workspace=ws)
        assert reads(caplog) == {"cell_rows", "cells", "cell_metrics", "affected_item_rows",
                                 "fingerprint"}
        caplog.clear()
        again = abcde.impact(*args, attributes=inputs["attributes"], workspace=ws)
        assert reads(caplog) == {"cell_rows", "cells", "cell_metrics"}
    same(first.to_dict(), plain["impact"])
    same(again.to_dict(), plain["impact"])
    same(items.rows, plain["items"].rows)
    same(items.manifest, plain["items"].manifest)
    same(pairs.draws, plain["pairs"].draws)
    same(pairs.manifest, plain["pairs"].manifest)


def test_changed_inputs_are_never_served_stale_cells(
        inputs: dict[str, str], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A file rewritten with the same size and its old modification time (what `cp -p`
    or `touch -r` leave) gets new cells: its change time and content differ."""
    ws = tmp_path / "round.duckdb"
    args = (inputs["base"], inputs["exp"], inputs["weights"])
    before = abcde.impact(*args, workspace=ws)
    exp = Path(inputs["exp"])
    text = exp.read_text()
    st = exp.stat()
    lines = text.splitlines(keepends=True)
    # swap the clusters of two items of different clusters: same bytes, same size
    head, rows = lines[0], lines[1:]
    i = next(k for k in range(1, len(rows)) if rows[k].split(",")[1] != rows[0].split(",")[1]
             and len(rows[k]) == len(rows[0]))
    a, b = rows[0].rstrip("\n").split(","), rows[i].rstrip("\n").split(",")
    rows[0], rows[i] = f"{a[0]},{b[1]}\n", f"{b[0]},{a[1]}\n"
    identity = file_identity(exp)
    exp.write_text(head + "".join(rows))
    os.utime(exp, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert exp.stat().st_size == st.st_size and exp.stat().st_mtime_ns == st.st_mtime_ns
    assert file_identity(exp) != identity
    with caplog.at_level(logging.INFO, logger="abcde"):
        after = abcde.impact(*args, workspace=ws)
    assert reads(caplog) == set()
    same(after.to_dict(), abcde.impact(*args).to_dict())
    assert after.overall != before.overall


def test_tables_of_a_database_are_fingerprinted_by_content(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Inputs that are tables (here of --db) are fingerprinted by a row count and row
    hashes: a changed row makes new cells."""
    db = tmp_path / "inputs.duckdb"
    con = duckdb.connect(str(db))
    for name in ("base", "exp", "weights"):
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_csv('{EX / name}.csv', "
                    "all_varchar = true)")
    con.execute("ALTER TABLE weights ALTER weight TYPE DOUBLE")
    con.close()
    ws = tmp_path / "round.duckdb"
    with caplog.at_level(logging.INFO, logger="abcde"):
        abcde.impact("base", "exp", "weights", db=db, workspace=ws)
        # the scan is timed in -v, as every other query of a run
        (timed,) = [r.getMessage() for r in caplog.records
                    if r.getMessage().startswith("query input_fingerprint: ")]
        assert timed.endswith(" s (3 table input(s) hashed row by row)"), timed
        caplog.clear()
        abcde.impact("base", "exp", "weights", db=db, workspace=ws)
        assert "cell_rows" in reads(caplog)
        con = duckdb.connect(str(db))
        con.execute("UPDATE weights SET weight = weight * 2 WHERE item_id = "
                    "(SELECT MIN(item_id) FROM weights)")
        con.close()
        caplog.clear()
        changed = abcde.impact("base", "exp", "weights", db=db, workspace=ws)
        assert reads(caplog) == set()
    same(changed.to_dict(), abcde.impact("base", "exp", "weights", db=db).to_dict())


def test_other_options_make_other_cells(inputs: dict[str, str], tmp_path: Path,
                                        caplog: pytest.LogCaptureFixture) -> None:
    """The key covers the SQL: slices (another grouping of cell_rows) are not served the
    cells of a command without them."""
    ws = tmp_path / "round.duckdb"
    args = (inputs["base"], inputs["exp"], inputs["weights"])
    abcde.impact(*args, attributes=inputs["attributes"], workspace=ws)
    with caplog.at_level(logging.INFO, logger="abcde"):
        sliced = abcde.impact(*args, attributes=inputs["attributes"], slice_by="provenance",
                              workspace=ws)
    assert "cell_rows" not in reads(caplog)
    same(sliced.to_dict(), abcde.impact(*args, attributes=inputs["attributes"],
                                        slice_by="provenance").to_dict())


def test_bad_inputs_leave_no_cells(inputs: dict[str, str], tmp_path: Path) -> None:
    """Cells of inputs that fail the checks are never stored."""
    ws = tmp_path / "round.duckdb"
    bad = tmp_path / "bad_weights.csv"
    bad.write_text("item_id,weight\n" + "".join(
        f"{line.split(',')[0]},-1\n" for line in Path(inputs["base"]).read_text()
        .splitlines()[1:]))
    with pytest.raises(abcde.InputError):
        abcde.impact(inputs["base"], inputs["exp"], str(bad), workspace=ws)
    con = duckdb.connect(str(ws))
    assert con.execute("SELECT COUNT(*) FROM duckdb_tables()").fetchone()[0] == 0


def test_a_workspace_held_by_another_process_is_waited_for_then_left(
        inputs: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """DuckDB lets one process write a file: a command waits for the workspace, then
    runs without it (same results), with a warning."""
    ws = tmp_path / "round.duckdb"
    args = (inputs["base"], inputs["exp"], inputs["weights"])
    abcde.impact(*args, workspace=ws)
    monkeypatch.setattr(duck_engine, "WORKSPACE_WAIT", 1.0)
    script = (f"import duckdb, time; c = duckdb.connect({str(ws)!r}); "
              "print('locked', flush=True); time.sleep(30)")
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with caplog.at_level(logging.INFO, logger="abcde"):
            result = abcde.impact(*args, workspace=ws)
        assert "held by another" in caplog.text and "running without the workspace" \
            in caplog.text
        assert reads(caplog) == set()
        same(result.to_dict(), abcde.impact(*args).to_dict())
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.postgres
def test_concurrent_rounds_in_one_postgres_schema(inputs: dict[str, str], postgres_dsn: str,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    """Two commands on the same inputs at once, each on its own connection, in one
    schema: each writes tables of its own (no clash), both give the right numbers, and
    a later command reads finished cells."""
    from abcde.engines.postgres import PostgresEngine

    args = (inputs["base"], inputs["exp"], inputs["weights"])
    want = abcde.impact(*args).to_dict()
    results: list[dict] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with PostgresEngine(postgres_dsn) as engine:
                results.append(abcde.impact(*args, engine=engine,
                                            workspace="abcde_ws_concurrent").to_dict())
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    with caplog.at_level(logging.INFO, logger="abcde"), PostgresEngine(postgres_dsn) as eng:
        results.append(abcde.impact(*args, engine=eng, workspace="abcde_ws_concurrent"
                                    ).to_dict())
        eng.execute("DROP SCHEMA abcde_ws_concurrent CASCADE")
    assert "cell_rows" in reads(caplog)
    for got in results:
        assert got["overall"] == pytest.approx(want["overall"], rel=1e-12)


@pytest.mark.postgres
def test_a_workspace_schema_created_by_another_session_meanwhile(postgres_dsn: str) -> None:
    """`CREATE SCHEMA IF NOT EXISTS` is not safe against a concurrent creation on
    PostgreSQL: the session that waits for the other's uncommitted schema gets a unique
    violation on pg_namespace when it commits. The race made deterministic: another
    session creates the schema in an open transaction, abcde attaches the same
    workspace (and waits on the lock), the other session commits — abcde must go on."""
    import psycopg

    from abcde.engines.postgres import PostgresEngine

    schema = f"abcde_ws_race_{secrets.token_hex(4)}"
    other = psycopg.connect(postgres_dsn)  # not autocommit: a transaction stays open
    errors: list[BaseException] = []
    try:
        other.execute(f'CREATE SCHEMA "{schema}"')
        with PostgresEngine(postgres_dsn) as engine:
            pid = engine.fetch("SELECT pg_backend_pid() AS pid")[0]["pid"]

            def attach() -> None:
                try:
                    assert engine.attach_workspace(schema) == schema
                except BaseException as err:
                    errors.append(err)

            thread = threading.Thread(target=attach)
            thread.start()
            with psycopg.connect(postgres_dsn, autocommit=True) as watcher:
                for _ in range(500):  # until abcde's session waits on the other's lock
                    row = watcher.execute("SELECT wait_event_type FROM pg_stat_activity "
                                          "WHERE pid = %s", (pid,)).fetchone()
                    if row and row[0] == "Lock":
                        break
                    time.sleep(0.01)
                else:
                    pytest.fail("abcde's session never waited on the other's schema")
            other.commit()
            thread.join(timeout=30)
            assert not thread.is_alive()
    finally:
        other.rollback()
        other.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        other.commit()
        other.close()
    assert not errors, errors
