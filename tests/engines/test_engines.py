"""Every impact metric agrees across DuckDB, PostgreSQL and Spark (real engines, see
conftest.py) to 1e-12 relative, and with the brute-force definitions of
tests/reference.py (ABCDE §4; Jaccard decomposition §4–5), on inputs with slices,
clusters of one item, items outside T and weights spanning 1e-6 to 1e6.
"""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path
from typing import Any

import duckdb
import pytest
from reference import IMPACT_METRICS, impact_by_group, impact_overall, slice_of

import abcde
from abcde.engines import Engine
from abcde.engines.duckdb import DuckDBEngine
from abcde.errors import InputError
from abcde.impact.run import impact
from abcde.sql.helpers import rank_value

REL = 1e-12
TOP = 5
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OVERALL_KEYS = ("items", "weight", "affected_items", "affected_weight", *IMPACT_METRICS,
                "affected_jaccard_index", "unaffected_jaccard_index")
GROUP_KEYS = ("items", "weight", "affected_items", "affected_weight", *IMPACT_METRICS,
              "contribution")


def _hand_case() -> dict[str, Any]:
    """Integer ids; singletons on both sides; a heavy cell beside a light one (1e6 and
    1e-6 in one cluster); a cluster split three ways; items only in one clustering."""
    base = {1: 10, 2: 10, 3: 10, 4: 11, 5: 12, 6: 12, 7: 13, 8: 14, 9: 14, 10: 14, 11: 15}
    exp = {1: 20, 2: 20, 3: 21, 4: 22, 5: 22, 6: 22, 7: 23, 8: 24, 9: 25, 10: 26, 12: 27}
    weight = {1: 1e6, 2: 1e-6, 3: 2.5, 4: 1e-6, 5: 1e6, 6: 3.0, 7: 1.0, 8: 1e-3, 9: 1e3,
              10: 7.0, 11: 1.0, 12: 1.0}
    attributes = {i: {"color": ["red", "blue", None][i % 3], "size": ["s", "l"][i % 2]}
                  for i in weight}
    return {"base": base, "exp": exp, "weights": weight, "attributes": attributes,
            "slices": [["color"], ["size"], ["color", "size"]]}


def _random_case(seed: int, n: int = 400) -> dict[str, Any]:
    """String ids; weights log-uniform on [1e-6, 1e6]; Exp a perturbation of Base with
    splits, merges and moves; some items in one clustering only."""
    rng = random.Random(seed)
    base = {f"i{k:04d}": f"c{rng.randrange(n // 4)}" for k in range(n)}
    exp = {}
    for item, c in base.items():
        r = rng.random()
        exp[item] = (f"x{c}" if r < 0.6 else f"x{c}_{rng.randrange(2)}" if r < 0.8
                     else f"x{rng.randrange(n // 8)}" if r < 0.95 else f"solo_{item}")
    for item in rng.sample(sorted(base), 8):
        del exp[item]
    for k in range(5):
        exp[f"new{k}"] = f"xnew{k % 2}"
    everyone = sorted({*base, *exp})  # a set iterates in a per-process order
    weight = {i: 10 ** rng.uniform(-6, 6) for i in everyone}
    weight[next(iter(base))] = 1e-6
    weight[sorted(base)[1]] = 1e6
    attributes = {i: {"region": rng.choice(["eu", "us", "apac", None]),
                      "tier": rng.choice([1, 2, 3])} for i in everyone}
    return {"base": base, "exp": exp, "weights": weight, "attributes": attributes,
            "slices": [["region"], ["region", "tier"]]}


def _read_csv(path: Path, value: str) -> dict[str, str]:
    with path.open() as f:
        return {row["item_id"]: row[value] for row in csv.DictReader(f)}


def _example_case() -> dict[str, Any]:
    """The example files, read by each engine from CSV."""
    with (EXAMPLES / "attributes.csv").open() as f:
        attributes = {r["item_id"]: {"provenance": r["provenance"],
                                     "size_class": r["size_class"]}
                      for r in csv.DictReader(f)}
    return {"base": _read_csv(EXAMPLES / "base.csv", "cluster_id"),
            "exp": _read_csv(EXAMPLES / "exp.csv", "cluster_id"),
            "weights": {k: float(v) for k, v in
                        _read_csv(EXAMPLES / "weights.csv", "weight").items()},
            "attributes": attributes, "slices": [["provenance"], ["provenance", "size_class"]],
            "files": {"base": EXAMPLES / "base.csv", "exp": EXAMPLES / "exp.csv",
                      "weights": EXAMPLES / "weights.csv",
                      "attributes": EXAMPLES / "attributes.csv"}}


def _ties_case(seed: int = 5, clusters: int = 12) -> dict[str, Any]:
    """Every Base cluster split in two Exp clusters: the halves contribute exactly the same
    (w_A·w_B/(W_b·W)) but are summed along different paths, so engines differ in the last
    bits; the top lists must still agree, ties broken by id."""
    rng = random.Random(seed)
    base, exp, weight = {}, {}, {}
    for c in range(clusters):
        for k in range(rng.randrange(2, 7)):
            item = f"c{c}_{k}"
            base[item] = f"b{c}"
            exp[item] = f"e{c}_{k % 2}"
            weight[item] = rng.choice([0.1, 0.2, 0.3, 0.7, 1 / 3, 2.0, 1e-6, 1e6])
    attributes = {i: {"half": i[-1]} for i in weight}
    return {"base": base, "exp": exp, "weights": weight, "attributes": attributes,
            "slices": [["half"]]}


CASES = {"hand": _hand_case, "random": lambda: _random_case(3), "examples": _example_case,
         "ties": _ties_case}


def _ranking(groups: dict[Any, dict[str, Any]], k: int) -> list[Any]:
    """The top-K ids (or (side, id)) of brute-force contributions: contributions equal to
    rank_key's precision are ties, broken by id (SQL's order: numbers as numbers)."""
    ranked = sorted((g for g, r in groups.items() if r["contribution"] > 0),
                    key=lambda g: (-rank_value(groups[g]["contribution"]), g))
    return ranked[:k]


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=0.0)  # type: ignore[arg-type]
    return a == b


def _assert_rows(got: dict[Any, dict[str, Any]], want: dict[Any, dict[str, Any]],
                 keys: tuple[str, ...], what: str) -> None:
    assert set(got) == set(want), what
    for k, row in want.items():
        for m in keys:
            assert _close(got[k][m], row[m]), (what, k, m, got[k][m], row[m])


def _run(engine: Engine, case: dict[str, Any], out: Path) -> dict[str, Any]:
    src = case.get("files") or case
    result = impact(src["base"], src["exp"], src["weights"], attributes=src["attributes"],
                    slice_by=[",".join(s) for s in case["slices"]], engine=engine, out=out,
                    top=TOP)
    con = duckdb.connect()
    tables = {}
    for name, path in result.files.items():
        cur = con.execute(f"SELECT * FROM read_parquet('{path}')")
        cols = [d[0] for d in cur.description]
        tables[name] = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    con.close()
    return {"result": result.to_dict(), "tables": tables}


def _by_cluster(rows: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {r["cluster_id"]: r for r in rows}


def _by_slice(rows: list[dict[str, Any]], cols: list[str]) -> dict[Any, dict[str, Any]]:
    return {tuple(r[c] for c in cols): r for r in rows}


@pytest.fixture(scope="module")
def duckdb_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = {}
    for name, make in CASES.items():
        with DuckDBEngine() as eng:
            out[name] = _run(eng, make(), tmp_path_factory.mktemp(f"duck_{name}"))
    return out


def on_engines(cases: list[tuple[Any, ...]], spark: list[tuple[Any, ...]]) -> list[Any]:
    """(engine, *case) for the `engine` fixture (indirect): DuckDB and PostgreSQL over
    every case, Spark over those of `spark` only. Spark reads a file as DuckDB's reader
    gives it (`SparkEngine.register_file`): a variant of the file that DuckDB and
    PostgreSQL read (a delimiter, the example files) adds up to a minute of JVM time
    and no Spark path; one file case on Spark keeps that route tested."""
    marks = {"postgres": pytest.mark.postgres, "spark": pytest.mark.spark}
    return [pytest.param(name, *case, marks=marks.get(name, ()))
            for name in ("duckdb", "postgres", "spark")
            for case in cases if name != "spark" or case in spark]


@pytest.mark.parametrize(("engine", "case_name"),
                         on_engines([(c,) for c in CASES],
                                    spark=[("hand",), ("random",), ("ties",)]),
                         indirect=["engine"])
def test_impact_agrees_with_brute_force_and_duckdb(
        engine: Engine, case_name: str, tmp_path: Path,
        duckdb_results: dict[str, dict[str, Any]]) -> None:
    """Overall, every Base/Exp cluster, every slice, the top lists and the coverage: equal
    to the brute-force definitions and to DuckDB's numbers, 1e-12 relative."""
    case = CASES[case_name]()
    got = _run(engine, case, tmp_path)
    duck = duckdb_results[case_name]
    base, exp, weight = case["base"], case["exp"], case["weights"]

    ref_overall = impact_overall(base, exp, weight)
    for m in OVERALL_KEYS:
        assert _close(got["result"]["overall"][m], ref_overall[m]), (m, "vs brute force")
        assert _close(got["result"]["overall"][m], duck["result"]["overall"][m]), (m, "duckdb")

    for side, clustering in (("base_clusters", base), ("exp_clusters", exp)):
        want = impact_by_group(base, exp, weight, clustering)
        _assert_rows(_by_cluster(got["tables"][side]), want, GROUP_KEYS, side)
        _assert_rows(_by_cluster(got["tables"][side]), _by_cluster(duck["tables"][side]),
                     GROUP_KEYS, f"{side} vs duckdb")

    for cols in case["slices"]:
        name = f"slices_{'_'.join(cols)}"
        want = impact_by_group(base, exp, weight, slice_of(case["attributes"], cols))
        _assert_rows(_by_slice(got["tables"][name], cols), want, GROUP_KEYS, name)

    by_side = {side: impact_by_group(base, exp, weight, clustering)
               for side, clustering in (("base", base), ("exp", exp))}
    for side in ("base", "exp"):
        top = f"top_{side}_clusters"
        assert [r["cluster_id"] for r in got["result"][top]] == \
            _ranking(by_side[side], TOP), (top, "vs brute force")
    both = {(side, c): r for side, rows in by_side.items() for c, r in rows.items()}
    assert [(r["side"], r["cluster_id"]) for r in got["result"]["top_clusters"]] == \
        _ranking(both, TOP), "top_clusters vs brute force"
    for top in ("top_base_clusters", "top_exp_clusters", "top_clusters"):
        assert [r["cluster_id"] for r in got["result"][top]] == \
            [r["cluster_id"] for r in duck["result"][top]], top
    cov, duck_cov = got["result"]["coverage"], duck["result"]["coverage"]
    for side in ("only_in_base", "only_in_exp"):
        assert cov[side]["items"] == duck_cov[side]["items"]
        assert cov[side]["examples"] == duck_cov[side]["examples"]
        assert _close(cov[side]["weight"], duck_cov[side]["weight"])


@pytest.mark.parametrize("dsn", [
    "postgresql://someone:s3cret-pw@127.0.0.1:{port}/db",
    "host=127.0.0.1 port={port} user=someone password=s3cret-pw dbname=db",
    "host=127.0.0.1 port={port} user=someone password='s3cret-pw' dbname=db",
    "host=127.0.0.1 port={port} user=someone dbname=db password=s3cret-pw"])
def test_postgres_connection_error_hides_the_password(dsn: str) -> None:
    """A refused connection names the server, never the password of the DSN."""
    pytest.importorskip("psycopg")
    import socket

    from abcde.engines.postgres import PostgresEngine
    from abcde.errors import EngineError

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(EngineError) as err:
        PostgresEngine(dsn.format(port=port))
    assert "s3cret-pw" not in str(err.value) and "127.0.0.1" in str(err.value)
    assert err.value.__cause__ is None and err.value.__suppress_context__
    # the text after a key=value password is kept (its closing parenthesis was taken)
    assert "): connection failed" in str(err.value), err.value


def test_a_password_with_an_unencoded_at_is_hidden_whole() -> None:
    """libpq reads `user:TOP@SECRET@host` as password TOP and host SECRET@host, and says
    so in its message: no piece of the password the user wrote is shown."""
    pytest.importorskip("psycopg")
    from abcde.engines.postgres import PostgresEngine
    from abcde.errors import EngineError

    with pytest.raises(EngineError) as err:
        PostgresEngine("postgresql://someone:TOP@SECRET@127.0.0.1:1/db")
    text = str(err.value)
    assert "TOP" not in text and "SECRET" not in text, text


def test_a_malformed_dsn_says_how_to_write_one() -> None:
    pytest.importorskip("psycopg")
    from abcde.engines.postgres import PostgresEngine
    from abcde.errors import EngineError

    with pytest.raises(EngineError) as err:
        PostgresEngine("garbage password=s3cret-pw")
    text = str(err.value)
    assert "is not a PostgreSQL connection string" in text and "postgresql://" in text
    assert "Check that the server runs" not in text and "s3cret-pw" not in text, text


def test_a_server_that_never_answers_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """libpq waits forever by default: a port that accepts and stays silent (a firewall
    that drops packets behaves alike) hung the command. A default connect_timeout ends it
    with exit 2 and says how to wait longer; a DSN's own connect_timeout is kept."""
    pytest.importorskip("psycopg")
    import socket

    import abcde.engines.postgres as pg
    from abcde.errors import EngineError

    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    monkeypatch.setattr(pg, "CONNECT_TIMEOUT", 1)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        with pytest.raises(EngineError) as err:
            pg.PostgresEngine(f"postgresql://someone@127.0.0.1:{port}/db")
        assert "no answer within 1 s" in str(err.value) and "connect_timeout" in str(err.value)
        with pytest.raises(EngineError) as err:  # the DSN's value wins
            pg.PostgresEngine(f"postgresql://someone@127.0.0.1:{port}/db?connect_timeout=2")
        assert "timeout" in str(err.value) and "no answer within" not in str(err.value)


@pytest.mark.postgres
def test_postgres_engine_restores_the_search_path_of_a_given_connection(
        postgres_dsn: str) -> None:
    """The engine puts its work schema first on the caller's connection (after pg_temp,
    where its inputs are), and puts the caller's search_path back on close (its own
    connection it simply closes)."""
    import psycopg

    from abcde.engines.postgres import PostgresEngine

    with psycopg.connect(postgres_dsn, autocommit=True) as con:
        con.execute("SET search_path TO pg_catalog, public")
        engine = PostgresEngine(connection=con)
        inside = con.execute("SHOW search_path").fetchone()[0]
        assert inside.startswith(f"pg_temp, {engine.work_schema}")
        engine.close()
        assert con.execute("SHOW search_path").fetchone()[0] == "pg_catalog, public"
        assert not con.closed


@pytest.mark.parametrize("engine_name", [pytest.param("postgres", marks=pytest.mark.postgres),
                                         pytest.param("spark", marks=pytest.mark.spark)])
def test_input_tables_named_like_steps_are_read_as_themselves(
        request: pytest.FixtureRequest, engine_name: str, tmp_path: Path) -> None:
    """Tables `items` (Base {a, b}, {c}) and `cell_rows` (Exp {a}, {b, c}) of the
    engine's catalog, given without a schema: abcde reads them, not its steps of those
    names — three items, every one affected (by hand)."""
    from conftest import make_engine

    gen = make_engine(request, engine_name)
    engine = next(gen)
    rows = {"items": [("a", "1"), ("b", "1"), ("c", "2")],
            "cell_rows": [("a", "1"), ("b", "2"), ("c", "2")]}
    try:
        for name, data in rows.items():
            values = ", ".join(f"('{i}', '{c}')" for i, c in data)
            if engine_name == "postgres":
                engine.execute(f"CREATE TABLE public.{name} (item_id TEXT, cluster_id TEXT)")
                engine.execute(f"INSERT INTO public.{name} VALUES {values}")
            else:
                engine.execute(f"CREATE TEMPORARY VIEW {name} AS SELECT * FROM VALUES "
                               f"{values} AS t(item_id, cluster_id)")
        result = impact("items", "cell_rows", engine=engine)
        assert (result.overall["items"], result.overall["affected_items"]) == (3, 3)
        # a missing table is told in the engine's terms: there is no --db on either
        with pytest.raises(InputError) as missing:
            impact("items", "no_such_table_x", engine=engine)
        text = f"{missing.value} {missing.value.hint}"
        assert "'no_such_table_x'" in text and "--db" not in text, text
        assert {"postgres": "search_path (", "spark": "current database, "}[engine_name] \
            in text, text
    finally:
        for name in rows:
            engine.execute(f"DROP TABLE IF EXISTS public.{name}" if engine_name == "postgres"
                           else f"DROP VIEW IF EXISTS {name}")
        gen.close()


def test_engine_by_name_from_python_and_anything_else_refused() -> None:
    """`engine=` of the Python API takes an engine or its name; a SparkSession, a DuckDB
    connection or a typo is refused with what to pass — not an AttributeError deep in
    the run (as `abcde.impact(..., engine="spark")` once failed)."""
    from abcde.errors import InputError

    base = {"a": "x", "b": "x", "c": "y"}
    exp = {"a": "x", "b": "z", "c": "y"}
    want = impact_overall(base, exp, dict.fromkeys(base, 1.0))
    got = impact(base, exp, engine="duckdb").overall
    for m in ("split_rate", "merge_rate", "jaccard_distance"):
        assert _close(got[m], want[m]), m
    with pytest.raises(InputError, match="unknown engine 'sparkk'"):
        impact(base, exp, engine="sparkk")
    with duckdb.connect() as con, pytest.raises(InputError) as err:
        impact(base, exp, engine=con)
    assert "DuckDBPyConnection" in str(err.value)
    assert "abcde.connect" in str(err.value.hint)


def test_evaluate_and_samplers_take_an_engine_by_name() -> None:
    """The other public functions with `engine=` take its name too: evaluate against
    scikit-learn's ARI and V-measure, sample_items giving the default engine's sample."""
    from sklearn.metrics import adjusted_rand_score, v_measure_score

    import abcde

    truth = {"a": "x", "b": "x", "c": "y", "d": "y", "e": "y"}
    actual = {"a": "x", "b": "z", "c": "y", "d": "y", "e": "x"}
    ids = sorted(truth)
    classic = abcde.evaluate(truth, actual, engine="duckdb").runs[0].classic
    t, a = [truth[i] for i in ids], [actual[i] for i in ids]
    assert _close(classic["adjusted_rand_index"], adjusted_rand_score(t, a))
    assert _close(classic["v_measure"], v_measure_score(t, a))
    items = abcde.sample_items(truth, actual, size=2, seed=1, engine="duckdb")
    assert items.rows == abcde.sample_items(truth, actual, size=2, seed=1).rows


def test_a_dead_spark_driver_is_an_engine_error_not_an_internal_error() -> None:
    """When Spark's driver dies mid-run (at 100M items a heap too small brought the
    SparkContext down), PySpark raises a Py4J error, not a PySparkException: abcde says
    what failed and what to change instead of "internal error"."""
    from py4j.protocol import Py4JError

    from abcde.engines.spark import SparkEngine
    from abcde.errors import EngineError

    text = ("An error occurred while calling o43.sql.\n"
            ": org.apache.spark.SparkException: [INTERNAL_ERROR] Executed command failed.\n"
            "\tat org.apache.spark.sql.execution.QueryExecution.eagerlyExecuteCommands\n"
            "Caused by: java.lang.NullPointerException: Cannot invoke \"org.apache.spark."
            "scheduler.DAGScheduler.cleanupQueryJobs(long)\" because the return value of "
            "\"org.apache.spark.SparkContext.dagScheduler()\" is null\n")

    class DeadSession:
        def sql(self, sql: str) -> None:
            raise Py4JError(text)

    eng = object.__new__(SparkEngine)  # no JVM: only the session's answer matters here
    eng.spark = DeadSession()
    for call in (eng.execute, eng.fetch):
        with pytest.raises(EngineError) as err:
            call("SELECT 1 AS one")
        message = str(err.value)
        assert err.value.exit_code == 1 and 'dagScheduler()" is null' in message
        assert "spark.driver.memory" in message and "SELECT 1 AS one" in message


@pytest.mark.parametrize(("text", "line", "reason"), [
    ("item_id,cluster_id\na,1\n\"b,1\nc,2\nd,2\n", 3, "a quoted value is never closed"),
    ("item_id,cluster_id\na,1\nb,1\nc,2\n\"d,2\n", 5, "a quoted value is never closed"),
    ("item_id,cluster_id\n\"a,x\",1\nb,1\n\"c,2\nd,3\n", 4, "a quoted value is never closed"),
    ("item_id,cluster_id\na,1\nb\nc,2\n", 3, "1 field(s) where the header has 2"),
    ("item_id,cluster_id\na,1\nb,1,x\nc,2\n", 3, "more fields than the 2 of the header"),
    # a quoted value followed by more text: DuckDB calls it never closed
    ("item_id,cluster_id\na,1\n\"b\"x,1\nc,2\n", 3, "a quoted value is never closed"),
])
def test_a_malformed_csv_line_is_refused_with_its_line(
        engine: Engine, tmp_path: Path, text: str, line: int, reason: str) -> None:
    """README: a CSV with an unclosed quote or a line of more or fewer fields than its
    header is refused, naming the file and the line, on every engine alike. DuckDB read
    an unclosed quote with no quoting (`"b` an id); PostgreSQL reads files through
    DuckDB; Spark's own reader (PERMISSIVE) took the rest of the line as one value
    (`b,1`, a NULL cluster id), padded a short line with NULL, dropped the extra fields
    of a long one and read `"b"x` as a value."""
    from abcde.errors import InputError

    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    good = tmp_path / "good.csv"
    good.write_text("item_id,cluster_id\na,1\nb,1\nc,2\nd,3\n")
    with pytest.raises(InputError) as caught:
        impact(str(bad), str(good), engine=engine)
    assert caught.value.exit_code == 2
    assert str(caught.value).startswith(
        f"table base ({bad}): cannot parse {bad}: line {line}: {reason}\n"), caught.value


def test_a_csv_rewritten_between_two_runs_is_read_again(engine: Engine,
                                                         tmp_path: Path) -> None:
    """An engine used twice (the Python API) reads a file as it is at each run: Spark
    keeps the schema and check of a CSV per file version (size, modification time)."""
    from abcde.errors import InputError

    path = tmp_path / "base.csv"
    good = tmp_path / "good.csv"
    good.write_text("item_id,cluster_id\na,1\nb,1\nc,2\n")
    path.write_text("item_id,cluster_id\na,1\nb,2\nc,2\n")
    assert impact(str(path), str(good), engine=engine).overall["items"] == 3
    path.write_text("item_id,cluster_id\na,1\n\"b,2\nc,2\n")
    with pytest.raises(InputError, match="line 3: a quoted value is never closed"):
        impact(str(path), str(good), engine=engine)


def test_csv_quotes_are_read_as_rfc_4180_on_every_engine(engine: Engine,
                                                         tmp_path: Path) -> None:
    """A quote inside a quoted value is written twice and a backslash is an ordinary
    character (RFC 4180): every engine reads the ids Python's csv module reads. Spark's
    default escape is a backslash: it read `"b""q"` as the id `"b""q"` and took
    `"C:\\"` as a quote never closed."""
    from abcde.inputs.sources import open_source

    text = 'item_id,cluster_id\na,1\n"b""q",1\n"C:\\",2\n"x, y",2\nb"q,3\n'
    path = tmp_path / "quotes.csv"
    path.write_text(text)
    want = sorted(row[0] for row in list(csv.reader(text.splitlines()))[1:])
    assert want == ["C:\\", "a", 'b"q', 'b"q', "x, y"]
    source = open_source(engine, "base", path, string_columns=["item_id"])
    got = sorted(r["item_id"] for r in engine.fetch(engine.select_sql(source.relation)))
    assert got == want


def test_a_quoted_line_break_in_a_csv(engine: Engine, tmp_path: Path) -> None:
    """A quoted value holding a line break is RFC 4180: every engine reads it (Spark
    through DuckDB), not as two rows ("b with a NULL cluster, then b" in cluster 1)."""
    from abcde.inputs.sources import open_source

    text = 'item_id,cluster_id\na,1\n"b\nb",1\nc,2\n'
    path = tmp_path / "breaks.csv"
    path.write_text(text)
    source = open_source(engine, "base", path, string_columns=["item_id"])
    got = sorted(r["item_id"] for r in engine.fetch(engine.select_sql(source.relation)))
    assert got == sorted(row[0] for row in list(csv.reader(text.splitlines(True)))[1:])


def _write_delimited(path: Path, header: tuple[str, ...], rows: list[tuple[Any, ...]],
                     delimiter: str) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.mark.parametrize(("engine", "suffix", "delimiter"), on_engines(
    [(".csv", ","), (".tsv", "\t"), (".csv", "\t"), (".csv", ";"), (".txt", "|")],
    spark=[(".tsv", "\t")]), indirect=["engine"])
def test_a_csv_is_read_with_the_delimiter_of_its_header(
        engine: Engine, tmp_path: Path, suffix: str, delimiter: str) -> None:
    """A tab-, semicolon- or pipe-separated file is read as DuckDB sniffs it, on every
    engine: the same numbers as the brute-force definitions. Spark always split at
    commas, so a .tsv was one column `item_id\\tcluster_id` ("no column 'item_id'"), and a
    ;-file one whose ids held the whole line. An id holding a comma (quoted only in the
    comma file) stays one id."""
    case = _random_case(11, n=120)
    base, exp, weight = case["base"], case["exp"], case["weights"]
    renamed = {"i0003": "i0003, b", "i0004": "i0004;c"}
    base = {renamed.get(i, i): c for i, c in base.items()}
    exp = {renamed.get(i, i): c for i, c in exp.items()}
    weight = {renamed.get(i, i): w for i, w in weight.items()}
    files = [_write_delimited(tmp_path / f"{name}{suffix}", header, rows, delimiter)
             for name, header, rows in (
                 ("base", ("item_id", "cluster_id"), list(base.items())),
                 ("exp", ("item_id", "cluster_id"), list(exp.items())),
                 ("weights", ("item_id", "weight"), [(i, repr(w)) for i, w in weight.items()]))]
    got = impact(*(str(f) for f in files), engine=engine).to_dict()["overall"]
    want = impact_overall(base, exp, weight)
    for m in OVERALL_KEYS:
        assert _close(got[m], want[m]), (m, got[m], want[m])


@pytest.mark.parametrize(("before", "line"), [(1, 3), (5000, 5002)])
def test_a_csv_that_is_not_utf8_is_refused_with_its_line(
        engine: Engine, tmp_path: Path, before: int, line: int) -> None:
    """README: text that is not UTF-8 is refused, naming the file and the line, on every
    engine (also past the rows DuckDB sniffs). Spark decoded a Latin-1 byte as U+FFFD:
    the id `bé` became `b\\ufffd`, and two ids differing there became one."""
    from abcde.errors import InputError

    bad = tmp_path / "latin1.csv"
    bad.write_bytes(b"item_id,cluster_id\n" + b"".join(b"a%d,1\n" % k for k in range(before))
                    + "b\xe9,1\nc,2\n".encode("latin-1"))
    good = tmp_path / "good.csv"
    good.write_text("item_id,cluster_id\na0,1\nc,2\n")
    with pytest.raises(InputError) as caught:
        impact(str(bad), str(good), engine=engine)
    assert caught.value.exit_code == 2
    message = str(caught.value)
    assert message.startswith(f"table base ({bad}): cannot parse {bad}: line {line}: the "
                              "text is not valid UTF-8\n"), message
    assert "UTF-8" in str(caught.value.hint)


def test_a_utf8_csv_holding_the_replacement_character_is_read(engine: Engine,
                                                              tmp_path: Path) -> None:
    """U+FFFD written as UTF-8 is text like any other: Spark, which finds bytes that are
    not UTF-8 by the U+FFFD it decodes them to, reads such a file as the others do."""
    from abcde.inputs.sources import open_source

    path = tmp_path / "fffd.csv"
    path.write_text("item_id,cluster_id\na,1\nb\ufffd,1\nb,2\n", encoding="utf-8")
    source = open_source(engine, "base", path, string_columns=["item_id"])
    got = sorted(r["item_id"] for r in engine.fetch(engine.select_sql(source.relation)))
    assert got == ["a", "b", "b\ufffd"]


def test_a_csv_with_another_delimiter_is_one_column_and_says_which_to_use(
        engine: Engine, tmp_path: Path) -> None:
    """A delimiter none of the engines sniffs (`:`) leaves one column on each: the
    missing-column error says which delimiters a CSV may use."""
    from abcde.errors import InputError

    path = tmp_path / "colon.csv"
    path.write_text("item_id:cluster_id\na:1\nb:2\n")
    with pytest.raises(InputError) as caught:
        impact(str(path), str(path), engine=engine)
    assert caught.value.exit_code == 2
    assert "its columns are 'item_id:cluster_id'" in str(caught.value)
    assert "separated by a comma, a tab, ; or |" in str(caught.value.hint)


def test_result_files_keep_dates_timestamps_and_decimals_on_every_engine(
        engine: Engine, tmp_path: Path) -> None:
    """A file an engine writes (a sample's attributes, --out) holds a date attribute as a
    DATE, a timestamp as a TIMESTAMP and a decimal as its DECIMAL, with the values of the
    input, as DuckDB writes them: PostgreSQL and Spark wrote them as text (their Python
    values typed the column), and PostgreSQL read a timestamp as text."""
    from abcde.inputs.sources import open_source

    source = tmp_path / "attributes.parquet"
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT * FROM (VALUES ('a', DATE '2024-02-29', TIMESTAMP '2024-01-01 01:30:00',"
        " TIMESTAMPTZ '2024-01-01 01:30:00+00', CAST(1.25 AS DECIMAL(10,2))), ('b', NULL, NULL,"
        " NULL, NULL)) t(item_id, d, ts, tstz, dec)) "
        f"TO '{source}' (FORMAT PARQUET)")
    relation = open_source(engine, "attributes", source).relation
    out = tmp_path / "written.parquet"
    engine.write(relation, out, "parquet", order_by=("item_id",))
    want = con.execute(f"DESCRIBE SELECT * FROM '{source}'").fetchall()
    got = con.execute(f"DESCRIBE SELECT * FROM '{out}'").fetchall()
    assert [(r[0], r[1]) for r in got] == [(r[0], r[1]) for r in want]
    assert (con.execute(f"SELECT * FROM '{out}' ORDER BY item_id").fetchall()
            == con.execute(f"SELECT * FROM '{source}' ORDER BY item_id").fetchall())


def test_result_files_keep_nan_and_infinities_on_every_engine(engine: Engine,
                                                              tmp_path: Path) -> None:
    """A NaN in a table an engine writes (a NaN slice key of --out) stays NaN in the
    file, beside the infinities and NULL: PostgreSQL and Spark, whose rows pass through
    Python, wrote it as NULL (DuckDB's scan of Python floats reads NaN as missing)."""
    from abcde.inputs.sources import open_source

    source = tmp_path / "scores.parquet"
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT * FROM (VALUES (1, CAST('NaN' AS DOUBLE), CAST('NaN' AS REAL)), "
        "(2, CAST('Infinity' AS DOUBLE), CAST('-Infinity' AS REAL)), "
        "(3, CAST('-Infinity' AS DOUBLE), CAST(0.1 AS REAL)), (4, 0.1, NULL), "
        "(5, NULL, CAST(1e30 AS REAL))) t(item_id, x, r)) "
        f"TO '{source}' (FORMAT PARQUET)")
    relation = open_source(engine, "scores", source).relation

    def values(path: Path) -> list[tuple[str | None, ...]]:
        # repr: NaN equals NaN; a CAST to VARCHAR would read the CSV's own text
        rows = con.execute(f"SELECT x, CAST(r AS REAL) FROM '{path}' ORDER BY item_id")
        return [tuple(None if v is None else repr(v) for v in row) for row in rows.fetchall()]

    want = values(source)
    assert want[0] == ("nan", "nan") and want[1] == ("inf", "-inf")
    for fmt in ("parquet", "csv"):
        out = tmp_path / f"written.{fmt}"
        engine.write(relation, out, fmt, order_by=("item_id",))
        assert values(out) == want, fmt
    con.close()


def test_parquet_with_lists_and_structs_on_every_engine(engine: Engine,
                                                         tmp_path: Path) -> None:
    """A Parquet input holding a list, a struct or a map: an unused such attribute rides
    along and a scalar slice gives DuckDB's numbers; such a column as an id or slice is
    refused by name. PostgreSQL could not load the file at all ("cannot adapt type
    'dict'"), whichever column was asked for."""
    from abcde.errors import InputError

    base, exp, attrs = (tmp_path / f"{n}.parquet" for n in ("base", "exp", "attrs"))
    con = duckdb.connect()
    rows = ("(VALUES ('a', 'x', 'p'), ('b', 'x', 'p'), ('c', 'y', 'p'), "
            "('d', 'y', 'q')) t(c0, c1, c2)")
    con.execute(f"COPY (SELECT c0 AS item_id, c1 AS cluster_id FROM {rows}) TO '{base}'")
    con.execute(f"COPY (SELECT c0 AS item_id, c2 AS cluster_id FROM {rows}) TO '{exp}'")
    con.execute(f"COPY (SELECT c0 AS item_id, c1 AS kind, [1, 2] AS tags, {{'k': c2}} AS st,"
                f" MAP {{'m': 1}} AS mp FROM {rows}) TO '{attrs}'")
    want = impact(str(base), str(exp), attributes=str(attrs), slice_by="kind")
    got = impact(str(base), str(exp), attributes=str(attrs), slice_by="kind", engine=engine)
    assert got.overall == pytest.approx(want.overall, rel=REL)
    assert [r["items"] for r in got.slices[0]["rows"]] == [
        r["items"] for r in want.slices[0]["rows"]]
    for column in ("tags", "st", "mp"):
        with pytest.raises(InputError, match=f"column '{column}': has type .*must hold "
                           "single values"):
            impact(str(base), str(exp), attributes=str(attrs), slice_by=column,
                   engine=engine)


_KEEPS_USER_SESSION = """
import shutil, tempfile
from abcde.engines.spark import SparkEngine, local_session

warehouse = tempfile.mkdtemp(prefix="abcde_spark_wh_")
logs = tempfile.mkdtemp(prefix="abcde_spark_test_log_")
mine = local_session("local[1]", warehouse=warehouse, log_dir=logs)
try:
    engine = SparkEngine(master="local[1]")
    assert engine.spark.sparkContext is mine.sparkContext
    assert engine.fetch("SELECT 2 AS two") == [{"two": 2}]
    engine.close()
    print("after close:", mine.sql("SELECT 1 AS one").collect()[0].one)
finally:
    mine.stop()
    shutil.rmtree(warehouse, ignore_errors=True)
    shutil.rmtree(logs, ignore_errors=True)
"""


@pytest.mark.spark
def test_spark_engine_leaves_a_session_of_the_process_running() -> None:
    """`SparkEngine(master=...)` in a process that runs a Spark session of its own gets
    that session from getOrCreate: closing the engine stopped it under its user. Run in
    a process of its own, so that the test suite's session is never at stake."""
    import subprocess
    import sys

    from conftest import unavailable

    pytest.importorskip("pyspark")
    from abcde.engines.spark import java_missing

    if java_missing():
        unavailable(f"no Java runtime for Spark: {java_missing()}")
    result = subprocess.run([sys.executable, "-c", _KEEPS_USER_SESSION],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "after close: 1" in result.stdout, result.stdout


@pytest.mark.parametrize(("refusal", "advice"), [
    ('FATAL:  password authentication failed for user "me"', "PGPASSWORD or ~/.pgpass"),
    ("fe_sendauth: no password supplied", "PGPASSWORD or ~/.pgpass"),
    ('FATAL:  no pg_hba.conf entry for host "10.0.0.1", user "me", database "db"',
     "pg_hba.conf lets this user connect"),
    ("Connection refused", "that the server runs")])
def test_a_refused_login_says_to_check_the_password_not_the_server(
        monkeypatch: pytest.MonkeyPatch, refusal: str, advice: str) -> None:
    """A server that answers and refuses the login (libpq's message, as a real server
    sends it) points at the password or pg_hba.conf; it said to check that the server
    runs and the host and port, whatever the reason."""
    psycopg = pytest.importorskip("psycopg")
    import abcde.engines.postgres as pg
    from abcde.errors import EngineUnavailable

    def refuse(*args: object, **kwargs: object) -> None:
        raise psycopg.OperationalError(
            f'connection failed: connection to server at "10.0.0.1", port 5432 failed: '
            f"{refusal}")

    monkeypatch.setattr(psycopg, "connect", refuse)
    with pytest.raises(EngineUnavailable) as err:
        pg.PostgresEngine("postgresql://me:pw-123@10.0.0.1:5432/db")
    text = str(err.value)
    assert advice in text and "pw-123" not in text, text
    assert ("that the server runs" in text) == (advice == "that the server runs"), text


def test_connect_refuses_an_unknown_engine_or_option_as_bad_input() -> None:
    """abcde.connect('sqlite') raised EngineError (exit 1 in a script's handler) where
    engine='sqlite' raised InputError; an option the engine lacks raised the
    constructor's TypeError ('DuckDBEngine.__init__() got an unexpected keyword')."""
    for name in ("sqlite", "DuckDB", None):
        with pytest.raises(InputError, match=r"unknown engine .*; choose one of duckdb, "
                           "spark, postgres"):
            abcde.connect(name)  # type: ignore[arg-type]
    with pytest.raises(InputError) as err:
        abcde.connect("DuckDB")
    assert err.value.hint == "The names are lower case."
    with pytest.raises(InputError, match=r"abcde.connect\('duckdb'\) takes no option 'dsn'; "
                       "its options are db, memory_limit, threads"):
        abcde.connect("duckdb", dsn="postgresql://x")
