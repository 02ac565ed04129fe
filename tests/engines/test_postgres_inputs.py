"""What a PostgreSQL user is told about the tables and the database they name: on the
test session's server (tests/conftest.py), with a role of their own where it matters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from abcde.errors import InputError
from abcde.impact.run import impact

pytestmark = pytest.mark.postgres

SCHEMA = "abcde_t_names"
ROLE = "abcde_t_reader"


@pytest.fixture
def admin(postgres_dsn: str) -> Iterator[object]:
    """A superuser connection, and a schema and a login role (no privileges) dropped at
    the end."""
    import psycopg

    with psycopg.connect(postgres_dsn, autocommit=True) as con:
        con.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        con.execute(f"DROP ROLE IF EXISTS {ROLE}")
        con.execute(f"CREATE SCHEMA {SCHEMA}")
        con.execute(f"CREATE ROLE {ROLE} LOGIN")
        try:
            yield con
        finally:
            con.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
            con.execute(f"REVOKE ALL ON DATABASE postgres FROM {ROLE}")
            con.execute(f"DROP ROLE IF EXISTS {ROLE}")


def _as_role(dsn: str) -> str:
    return dsn.replace("//postgres@", f"//{ROLE}@")


def test_a_missing_table_names_its_other_case_and_an_unreadable_one_its_grant(
        admin: object, postgres_dsn: str) -> None:
    """`CREATE TABLE s.MyBase` makes s.mybase: the user who types s.MyBase is told of
    s.mybase (not of DuckDB's --db); a table the user may not read is named as such, with
    the GRANT it needs, not as missing."""
    from abcde.engines.postgres import PostgresEngine

    admin.execute(f"CREATE TABLE {SCHEMA}.MyBase (item_id TEXT, cluster_id TEXT)")  # type: ignore[attr-defined]
    admin.execute(f"INSERT INTO {SCHEMA}.mybase VALUES ('a', '1')")  # type: ignore[attr-defined]
    with PostgresEngine(postgres_dsn) as engine, pytest.raises(InputError) as err:
        impact(f"{SCHEMA}.MyBase", f"{SCHEMA}.mybase", engine=engine)
    text = str(err.value)
    assert f"named '{SCHEMA}.MyBase'" in text and f"has {SCHEMA}.mybase" in text, text
    assert "--db" not in text, text

    admin.execute(f"GRANT CREATE ON DATABASE postgres TO {ROLE}")  # type: ignore[attr-defined]
    with PostgresEngine(_as_role(postgres_dsn)) as engine, pytest.raises(InputError) as err:
        impact(f"{SCHEMA}.mybase", f"{SCHEMA}.mybase", engine=engine)
    text = str(err.value)
    assert "cannot be read: permission denied for schema" in text, text
    assert (f'GRANT USAGE ON SCHEMA "{SCHEMA}" TO "{ROLE}"; GRANT SELECT ON '
            f'"{SCHEMA}"."mybase" TO "{ROLE}"') in text, text


def test_an_unqualified_table_is_found_in_the_connections_search_path(
        admin: object, postgres_dsn: str) -> None:
    """The search_path of the DSN (options=-csearch_path=...) or of the role is where a
    table named without its schema is looked up, as in psql: the work schema goes ahead
    of it, not in place of it (it was `<work>, public`). Base {a, b}, Exp {a}, {b}: both
    items affected."""
    from abcde.engines.postgres import PostgresEngine

    for name, rows in (("b", "('a', '1'), ('b', '1')"), ("e", "('a', '1'), ('b', '2')")):
        admin.execute(f"CREATE TABLE {SCHEMA}.{name} (item_id TEXT, cluster_id TEXT)")  # type: ignore[attr-defined]
        admin.execute(f"INSERT INTO {SCHEMA}.{name} VALUES {rows}")  # type: ignore[attr-defined]
    with PostgresEngine(f"{postgres_dsn}?options=-csearch_path%3D{SCHEMA}") as engine:
        result = impact("b", "e", engine=engine)
    assert (result.overall["items"], result.overall["affected_items"]) == (2, 2)


def test_a_user_who_may_not_create_schemas_is_told_the_grant(
        admin: object, postgres_dsn: str) -> None:
    """A role without CREATE on the database (PostgreSQL's default for a new role) cannot
    make abcde's work schema, and one without CREATE on an existing --workspace schema
    cannot write there: both exit 2 with the GRANT that lets them (the first was
    PostgreSQL's error and exit 1, the second a refused DROP TABLE deep in the run)."""
    from abcde.engines.postgres import PostgresEngine
    from abcde.errors import EngineUnavailable

    with pytest.raises(EngineUnavailable) as err:
        PostgresEngine(_as_role(postgres_dsn))
    assert err.value.exit_code == 2
    assert f'GRANT CREATE ON DATABASE "postgres" TO "{ROLE}"' in str(err.value), err.value

    admin.execute(f"GRANT CREATE ON DATABASE postgres TO {ROLE}")  # type: ignore[attr-defined]
    with PostgresEngine(_as_role(postgres_dsn)) as engine:
        with pytest.raises(InputError) as err:
            engine.attach_workspace(SCHEMA)  # the admin's
        assert err.value.exit_code == 2
        assert f'GRANT USAGE, CREATE ON SCHEMA "{SCHEMA}" TO "{ROLE}"' in str(err.value)
        mine = f"{SCHEMA}_own"
        try:
            assert engine.attach_workspace(mine) == mine  # created, so the role's own
        finally:
            engine.execute(f"DROP SCHEMA {mine} CASCADE")


def test_a_statement_the_servers_timeout_stops_says_how_to_lift_it(postgres_dsn: str) -> None:
    """A statement_timeout of the role or database (common in production) stopped a
    step with exit 1 and the whole statement; now exit 2 and how to lift it in --dsn."""
    from abcde.engines.postgres import PostgresEngine
    from abcde.errors import ResourceError

    with PostgresEngine(f"{postgres_dsn}?options=-cstatement_timeout%3D20") as engine:
        with pytest.raises(ResourceError) as err:
            engine.execute("SELECT pg_sleep(0.5)")
        assert err.value.exit_code == 2
        assert "statement timeout" in str(err.value)
        assert "?options=-cstatement_timeout%3D0" in str(err.value)
        assert "pg_sleep" not in str(err.value), "the statement is not the user's to read"


def test_a_connection_lost_under_a_statement_says_so(postgres_dsn: str) -> None:
    """A session ended on the server (pg_terminate_backend, as an administrator or a
    restart does) was 'PostgreSQL refused a statement' and exit 1; now exit 2, what to
    check, and the work schema left behind with how to drop it."""
    import psycopg

    from abcde.engines.postgres import PostgresEngine
    from abcde.errors import EngineUnavailable

    engine = PostgresEngine(postgres_dsn)
    pid = engine.fetch("SELECT pg_backend_pid() AS pid")[0]["pid"]
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        try:
            with pytest.raises(EngineUnavailable) as err:
                engine.execute("SELECT 1")
            assert err.value.exit_code == 2 and "lost the connection" in str(err.value)
            assert f'DROP SCHEMA "{engine.work_schema}" CASCADE' in str(err.value)
        finally:
            engine.close()
            admin.execute(f'DROP SCHEMA IF EXISTS "{engine.work_schema}" CASCADE')


def test_the_work_schema_of_a_lost_session_is_dropped_by_the_next_run(
        postgres_dsn: str) -> None:
    """A run whose connection was lost left its work schema behind for good (every such
    run added one); the next engine of the same user drops it, and leaves alone the work
    schema of a session still running and one named as an older abcde named them (it
    cannot tell whether that one's session still runs)."""
    import psycopg

    from abcde.engines.postgres import PostgresEngine

    def schemas() -> set[str]:
        rows = admin.execute("SELECT nspname FROM pg_namespace").fetchall()
        return {r[0] for r in rows}

    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute('CREATE SCHEMA IF NOT EXISTS "abcde_work_0123abcd"')
        lost, running = PostgresEngine(postgres_dsn), PostgresEngine(postgres_dsn)
        try:
            pid = lost.fetch("SELECT pg_backend_pid() AS pid")[0]["pid"]
            admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
            assert {lost.work_schema, running.work_schema} <= schemas()
            with PostgresEngine(postgres_dsn) as later:
                left = schemas()
                assert later.work_schema in left
            assert lost.work_schema not in left
            assert {running.work_schema, "abcde_work_0123abcd"} <= left
        finally:
            running.close()
            admin.execute(f'DROP SCHEMA IF EXISTS "{lost.work_schema}" CASCADE')
            admin.execute('DROP SCHEMA IF EXISTS "abcde_work_0123abcd"')


def test_values_a_file_has_no_type_for_are_written_as_postgresql_text(
        admin: object, postgres_dsn: str, tmp_path: Path) -> None:
    """An attribute of type jsonb, an array, interval or bytea rides along into the
    sample file as PostgreSQL's text of it ({"k": 1}, {1,2}, 1 day, \\x0102); it was the
    repr of the Python value ({'k': 1}, [1, 2], 1 day, 0:00:00, b'\\x01\\x02'), which no
    reader takes for JSON or PostgreSQL. An array is no single value: not a slice."""
    from duck import duck

    from abcde.engines.postgres import PostgresEngine
    from abcde.sampling.items import sample_items

    admin.execute(f"CREATE TABLE {SCHEMA}.b AS SELECT * FROM (VALUES ('a', '1'), ('b', '1')) "  # type: ignore[attr-defined]
                  "t(item_id, cluster_id)")
    admin.execute(f"CREATE TABLE {SCHEMA}.e AS SELECT * FROM (VALUES ('a', '1'), ('b', '2')) "  # type: ignore[attr-defined]
                  "t(item_id, cluster_id)")
    admin.execute(f"CREATE TABLE {SCHEMA}.at AS SELECT item_id, jsonb_build_object('k', 1) "  # type: ignore[attr-defined]
                  "AS j, ARRAY[1, 2] AS arr, interval '1 day' AS iv, '\\x0102'::bytea AS by, "
                  f"TRUE AS flag FROM {SCHEMA}.b")
    out = tmp_path / "sample.parquet"
    with PostgresEngine(postgres_dsn) as engine:
        sample_items(f"{SCHEMA}.b", f"{SCHEMA}.e", attributes=f"{SCHEMA}.at", size=2,
                     out=out, engine=engine)
        with pytest.raises(InputError, match="column 'arr': has type int4\\[\\]"):
            impact(f"{SCHEMA}.b", f"{SCHEMA}.e", attributes=f"{SCHEMA}.at",
                   slice_by="arr", engine=engine)
    rows = duck(f"SELECT DISTINCT j, arr, iv, \"by\", flag FROM '{out}'")
    assert rows == [('{"k": 1}', "{1,2}", "1 day", "\\x0102", True)]


def test_a_read_only_connection_says_abcde_needs_writes(postgres_dsn: str) -> None:
    """A standby, or default_transaction_read_only on the role, refuses abcde's work
    schema: exit 2 saying so and what to connect to (it was PostgreSQL's error, exit 1)."""
    from abcde.engines.postgres import PostgresEngine
    from abcde.errors import EngineUnavailable

    with pytest.raises(EngineUnavailable) as err:
        PostgresEngine(f"{postgres_dsn}?options=-cdefault_transaction_read_only%3Don")
    assert err.value.exit_code == 2
    assert "read-only transaction" in str(err.value) and "primary" in str(err.value)


def test_uuid_ids_are_ids_of_text(admin: object, postgres_dsn: str) -> None:
    """A PostgreSQL uuid item or cluster id was refused ('ids must be integers or
    strings'); it is read as its text, so uuid ids give the numbers of the same ids as
    text, and a uuid column matches a text column holding those UUIDs. Base {a, b},
    Exp {a}, {b}: two items, both affected (by hand)."""
    from abcde.engines.postgres import PostgresEngine

    a, b = "0b5e8a8e-2f6b-4a53-9d1c-3c9f2f0e1a01", "7f000000-0000-4000-8000-00000000000b"
    c1 = "11111111-1111-4111-8111-111111111111"
    admin.execute(f"CREATE TABLE {SCHEMA}.bu (item_id uuid, cluster_id uuid)")  # type: ignore[attr-defined]
    admin.execute(f"INSERT INTO {SCHEMA}.bu VALUES ('{a}', '{c1}'), ('{b}', '{c1}')")  # type: ignore[attr-defined]
    admin.execute(f"CREATE TABLE {SCHEMA}.et (item_id text, cluster_id text)")  # type: ignore[attr-defined]
    admin.execute(f"INSERT INTO {SCHEMA}.et VALUES ('{a}', 'x'), ('{b}', 'y')")  # type: ignore[attr-defined]
    with PostgresEngine(postgres_dsn) as engine:
        result = impact(f"{SCHEMA}.bu", f"{SCHEMA}.et", engine=engine, top=1)
    assert (result.overall["items"], result.overall["affected_items"]) == (2, 2)
    assert result.top_base_clusters[0]["cluster_id"] == c1


def test_whole_numeric_ids_are_integer_ids(admin: object, postgres_dsn: str) -> None:
    """numeric(20,0), PostgreSQL's column for unsigned 64-bit keys, was refused ('type
    decimal: ids must be integers or strings'); a numeric of scale 0 is an integer id,
    compared as text when BIGINT cannot hold it, so 2^64 - 1 matches itself and 7 in a
    numeric(10,0) matches 7 in a bigint. Base {2^64-1, 7}, Exp {2^64-1}, {7}: two items,
    both affected (by hand). A numeric without a declared scale may hold fractions: no id."""
    from abcde.engines.postgres import PostgresEngine

    big = 2**64 - 1
    for name, item, cluster, rows in (
            ("bn", "numeric(20,0)", "numeric(12,0)", f"({big}, 5), (7, 5)"),
            ("en", "numeric(20,0)", "bigint", f"({big}, 1), (7, 2)"),
            ("b10", "numeric(10,0)", "text", "(7, 'x'), (8, 'x')"),
            ("e64", "bigint", "text", "(7, 'x'), (8, 'y')"),
            ("bfree", "numeric", "text", "(7, 'x'), (8, 'x')")):
        admin.execute(f"CREATE TABLE {SCHEMA}.{name} (item_id {item}, cluster_id {cluster})")  # type: ignore[attr-defined]
        admin.execute(f"INSERT INTO {SCHEMA}.{name} VALUES {rows}")  # type: ignore[attr-defined]
    with PostgresEngine(postgres_dsn) as engine:
        wide = impact(f"{SCHEMA}.bn", f"{SCHEMA}.en", engine=engine, top=1)
        narrow = impact(f"{SCHEMA}.b10", f"{SCHEMA}.e64", engine=engine)
        with pytest.raises(InputError, match=r"item ids have type decimal \(numeric\)"):
            impact(f"{SCHEMA}.bfree", f"{SCHEMA}.e64", engine=engine)
    assert (wide.overall["items"], wide.overall["affected_items"]) == (2, 2)
    assert wide.top_base_clusters[0]["cluster_id"] in (5, "5")
    assert (narrow.overall["items"], narrow.overall["affected_items"]) == (2, 2)


def test_a_file_is_copied_with_its_values(postgres_dsn: str, tmp_path: Path) -> None:
    """A file's rows reach PostgreSQL with DuckDB's values: a struct holding a date as
    its JSON (it raised "Object of type date is not JSON serializable", exit 1: the rows
    went through Python one tuple at a time, seconds per million rows), a FLOAT's exact
    bits, NaN and infinities, the empty string apart from NULL, text with the quote, the
    delimiter, a line break and a lone \\. line (COPY's end-of-data mark)."""
    from duck import duck

    from abcde.engines.postgres import PostgresEngine

    path = tmp_path / "attributes.parquet"
    duck(f"COPY (SELECT * FROM (VALUES (1, {{'d': DATE '2020-01-02', 'x': 0.5}}, "
         "CAST(0.1 AS FLOAT), CAST('nan' AS DOUBLE), '', 'a\"b,c\n\\.\nd'), "
         "(2, NULL, NULL, CAST('-inf' AS DOUBLE), NULL, '\\.')) "
         f"t(item_id, meta, f, x, s, odd)) TO '{path}' (FORMAT PARQUET)")
    with PostgresEngine(postgres_dsn) as engine:
        engine.register_file("attrs", path, "parquet")
        rows = engine.fetch("SELECT item_id, meta::text AS meta, f::float8 AS f, "
                            "x::text AS x, s, odd FROM attrs ORDER BY item_id")
    assert rows == [
        {"item_id": 1, "meta": '{"d": "2020-01-02", "x": 0.5}',
         "f": 0.10000000149011612, "x": "NaN", "s": "", "odd": 'a"b,c\n\\.\nd'},
        {"item_id": 2, "meta": None, "f": None, "x": "-Infinity", "s": None, "odd": "\\."}]


def test_a_sample_keeps_the_attribute_types_of_its_input(
        admin: object, postgres_dsn: str, tmp_path: Path) -> None:
    """An attribute of type INTEGER, SMALLINT or FLOAT (a file's, or int4, int2 and real
    of a table) rides into the sample file with that type, as on DuckDB; PostgreSQL
    wrote BIGINT, BIGINT and DOUBLE."""
    from duck import duck

    from abcde.engines.postgres import PostgresEngine
    from abcde.sampling.items import sample_items

    base, exp, attrs = (tmp_path / f"{n}.parquet" for n in ("base", "exp", "attrs"))
    duck(f"COPY (SELECT * FROM (VALUES ('a', 1), ('b', 1))t(item_id, cluster_id)) TO '{base}'")
    duck(f"COPY (SELECT * FROM (VALUES ('a', 1), ('b', 2))t(item_id, cluster_id)) TO '{exp}'")
    duck(f"COPY (SELECT item_id, CAST(7 AS INTEGER) AS i, CAST(3 AS SMALLINT) AS s, "
         f"CAST(0.1 AS FLOAT) AS f FROM '{base}') TO '{attrs}'")
    admin.execute(f"CREATE TABLE {SCHEMA}.at AS SELECT item_id, 7::int4 AS i, 3::int2 AS s, "  # type: ignore[attr-defined]
                  f"0.1::real AS f FROM (VALUES ('a'), ('b')) t(item_id)")
    with PostgresEngine(postgres_dsn) as engine:
        for name, given in (("file", str(attrs)), ("table", f"{SCHEMA}.at")):
            sample_items(str(base), str(exp), attributes=given, size=2,
                         out=tmp_path / f"{name}.parquet", engine=engine)
    for name in ("file", "table"):
        out = tmp_path / f"{name}.parquet"
        assert duck(f"SELECT column_name, column_type FROM (DESCRIBE SELECT i, s, f "
                    f"FROM '{out}')") == [("i", "INTEGER"), ("s", "SMALLINT"), ("f", "FLOAT")]
        assert set(duck(f"SELECT i, s, f FROM '{out}'")) == {(7, 3, 0.10000000149011612)}


def test_a_csv_input_is_copied_to_the_server_once(
        postgres_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CSV input was copied to the server twice (once to learn its columns, again with
    its id columns as text): now once, its ids still text (007 is not 7). Base {007, 7}
    in one cluster, Exp apart: two items, both affected (by hand)."""
    from abcde.engines.postgres import PostgresEngine

    copied: list[tuple[str, tuple[str, ...]]] = []
    register = PostgresEngine.register_file

    def spy(self: PostgresEngine, name: str, path: Path, fmt: str,
            string_columns: tuple[str, ...] = ()) -> None:
        copied.append((path.name, tuple(string_columns)))
        register(self, name, path, fmt, string_columns)

    monkeypatch.setattr(PostgresEngine, "register_file", spy)
    (tmp_path / "base.csv").write_text("item_id,cluster_id\n007,1\n7,1\n")
    (tmp_path / "exp.csv").write_text("item_id,cluster_id\n007,1\n7,2\n")
    with PostgresEngine(postgres_dsn) as engine:
        result = impact(str(tmp_path / "base.csv"), str(tmp_path / "exp.csv"), engine=engine)
    assert (result.overall["items"], result.overall["affected_items"]) == (2, 2)
    assert sorted(copied) == [("base.csv", ("item_id", "cluster_id")),
                              ("exp.csv", ("item_id", "cluster_id"))]


def test_a_loaded_input_has_the_planners_statistics(postgres_dsn: str, tmp_path: Path) -> None:
    """A file or Python rows copied into a temporary table had no statistics (autovacuum
    never analyses one): the planner took 10^6 rows for 10^16 once joined, and the cell
    step of a 1M-item impact took 8-11 s instead of 3. The table is analysed: its row
    count is known (pg_class.reltuples, -1 for a table never analysed)."""
    from duck import duck

    from abcde.engines.postgres import PostgresEngine

    path = tmp_path / "base.parquet"
    duck(f"COPY (SELECT range AS item_id, range % 7 AS cluster_id FROM range(1000)) "
         f"TO '{path}'")
    with PostgresEngine(postgres_dsn) as engine:
        engine.register_file("from_file", path, "parquet")
        engine.register_rows("from_rows", ["item_id", "weight"], [(1, 0.5), (2, 1.5)])
        rows = engine.fetch("SELECT relname, reltuples FROM pg_class WHERE relname IN "
                            "('from_file', 'from_rows') AND relpersistence = 't' ORDER BY 1")
    assert [(r["relname"], r["reltuples"]) for r in rows] == [("from_file", 1000),
                                                              ("from_rows", 2)]


def test_a_users_table_named_like_an_input_is_not_dropped(
        admin: object, postgres_dsn: str, tmp_path: Path) -> None:
    """Before copying a file in, abcde dropped any table of the input's name
    (abcde_src_base) the search_path reached: the user's own table of that name was
    gone after the run. It drops only its own temporary table now."""
    from abcde.engines.postgres import PostgresEngine

    admin.execute(f"CREATE TABLE {SCHEMA}.abcde_src_base (precious int)")  # type: ignore[attr-defined]
    admin.execute(f"INSERT INTO {SCHEMA}.abcde_src_base VALUES (42)")  # type: ignore[attr-defined]
    (tmp_path / "base.csv").write_text("item_id,cluster_id\na,1\nb,1\n")
    (tmp_path / "exp.csv").write_text("item_id,cluster_id\na,1\nb,2\n")
    with PostgresEngine(f"{postgres_dsn}?options=-csearch_path%3D{SCHEMA}") as engine:
        result = impact(str(tmp_path / "base.csv"), str(tmp_path / "exp.csv"), engine=engine)
    assert result.overall["affected_items"] == 2
    assert admin.execute(f"SELECT precious FROM {SCHEMA}.abcde_src_base").fetchall() == [(42,)]  # type: ignore[attr-defined]


def test_a_numeric_column_is_written_whatever_its_values_widths(
        postgres_dsn: str, tmp_path: Path) -> None:
    """A numeric(12,2) column (an attribute riding into a sample, say) whose first value
    has fewer digits than a later one failed to write: "Casting value 123456.78 to type
    DECIMAL(3,2) failed", exit 1. The file holds the values, as DECIMAL(12,2)."""
    from decimal import Decimal

    from duck import duck

    from abcde.engines.postgres import PostgresEngine

    out = tmp_path / "t.parquet"
    with PostgresEngine(postgres_dsn) as engine:
        # DuckDB takes the DECIMAL of a scan from its first few thousand values
        engine.execute("CREATE TABLE t AS SELECT k, CASE WHEN k < 5000 THEN 1.5 ELSE "
                       "123456.78 END::numeric(12,2) AS price, DATE '2020-01-02' AS d "
                       "FROM generate_series(1, 5000) k")
        engine.write("t", out, "parquet", ["k"])
    assert duck(f"SELECT column_type FROM (DESCRIBE SELECT price FROM '{out}')") == [
        ("DECIMAL(12,2)",)]
    assert duck(f"SELECT price, COUNT(*) FROM '{out}' GROUP BY 1 ORDER BY 1") == [
        (Decimal("1.50"), 4999), (Decimal("123456.78"), 1)]


def test_a_result_file_keeps_the_types_of_columns_without_values(
        postgres_dsn: str, tmp_path: Path) -> None:
    """A float8 or int8 column holding only NULLs (an attribute nobody filled, riding
    into a sample) was written as VARCHAR: result files were typed by their Python
    values. They are read back from COPY with the columns' own types now, as DuckDB
    writes them (and 100,000 clusters take 0.3 s instead of 1.8 s); the other values
    are exactly those of the table (NaN, infinities, the empty string apart from NULL)."""
    from duck import duck

    from abcde.engines.postgres import PostgresEngine

    out = tmp_path / "t.parquet"
    with PostgresEngine(postgres_dsn) as engine:
        engine.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, NULL::float8, NULL::int8, "
                       "'NaN'::float8, ''), (2, NULL, NULL, '-Infinity', NULL), "
                       "(3, NULL, NULL, 0.1, 'a\"b,\nc')) v(k, f, i, x, s)")
        engine.write("t", out, "parquet", ["k"])
    assert duck(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{out}')") == [
        ("k", "INTEGER"), ("f", "DOUBLE"), ("i", "BIGINT"), ("x", "DOUBLE"), ("s", "VARCHAR")]
    assert duck(f"SELECT k, f, i, CAST(x AS VARCHAR), s FROM '{out}'") == [
        (1, None, None, "nan", ""), (2, None, None, "-inf", None),
        (3, None, None, "0.1", 'a"b,\nc')]


def test_the_copy_of_an_input_is_logged_with_its_time(
        postgres_dsn: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """-v logs every SQL step with its time, but the copy of each input file to the
    server (seconds per million rows, a good part of a run) was not logged at all."""
    import logging

    from abcde.engines.postgres import PostgresEngine

    (tmp_path / "base.csv").write_text("item_id,cluster_id\na,1\nb,1\n")
    (tmp_path / "exp.csv").write_text("item_id,cluster_id\na,1\nb,2\n")
    with caplog.at_level(logging.INFO, logger="abcde"), PostgresEngine(postgres_dsn) as engine:
        impact(str(tmp_path / "base.csv"), str(tmp_path / "exp.csv"), engine=engine)
    loads = [r.getMessage() for r in caplog.records if r.getMessage().startswith("load ")]
    assert len(loads) == 2
    assert all(" s (" in m and "copied to the server" in m for m in loads)
    assert {m.split(" (")[1].split(" copied")[0] for m in loads} == {
        str(tmp_path / "base.csv"), str(tmp_path / "exp.csv")}


def test_a_quoted_table_name_is_offered_without_its_quotes(
        admin: object, postgres_dsn: str) -> None:
    """Names are taken exactly as typed, without quotes (as on DuckDB and Spark):
    '"abcde_t_names"."My Base"', copied from SQL, is no table, and the message only
    described the rule; it now names the table the user meant, abcde_t_names.My Base."""
    from abcde.engines.postgres import PostgresEngine

    admin.execute(f'CREATE TABLE {SCHEMA}."My Base" (item_id TEXT, cluster_id TEXT)')  # type: ignore[attr-defined]
    with PostgresEngine(postgres_dsn) as engine, pytest.raises(InputError) as err:
        impact(f'"{SCHEMA}"."My Base"', f"{SCHEMA}.My Base", engine=engine)
    assert err.value.exit_code == 2
    assert f"The database has {SCHEMA}.My Base." in str(err.value), str(err.value)


def test_inputs_are_read_before_a_users_table_of_their_name(
        admin: object, postgres_dsn: str, tmp_path: Path) -> None:
    """With a search_path naming pg_temp after a schema of the user's (public, pg_temp,
    as advised for security definer functions), the Base file's rows were copied into the
    user's own table abcde_src_base, and that table read as Base (its rows too: an item
    only in Base). Base {a, b}, Exp {a}, {b}: two items, both affected, none only in Base
    (by hand); the user's table keeps its one row."""
    from abcde.engines.postgres import PostgresEngine

    admin.execute(f"CREATE TABLE {SCHEMA}.abcde_src_base AS SELECT 'z' AS item_id, "  # type: ignore[attr-defined]
                  "'1' AS cluster_id")
    (tmp_path / "base.csv").write_text("item_id,cluster_id\na,1\nb,1\n")
    (tmp_path / "exp.csv").write_text("item_id,cluster_id\na,1\nb,2\n")
    dsn = f"{postgres_dsn}?options=-csearch_path%3D{SCHEMA}%2Cpg_temp"
    with PostgresEngine(dsn) as engine:
        result = impact(str(tmp_path / "base.csv"), str(tmp_path / "exp.csv"), engine=engine)
    assert (result.overall["items"], result.overall["affected_items"]) == (2, 2)
    assert result.coverage["only_in_base"]["items"] == 0
    assert admin.execute(f"SELECT * FROM {SCHEMA}.abcde_src_base").fetchall() == [("z", "1")]  # type: ignore[attr-defined]
