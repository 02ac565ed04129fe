"""The SQL machinery: named helpers per dialect, identifier quoting, the pipeline."""

from __future__ import annotations

import hashlib
import math

import duckdb
import pytest
import sqlglot

import abcde
from abcde.sql.dialects import DIALECTS, to_sql
from abcde.sql.helpers import rank_key as rank_key_sql
from abcde.sql.helpers import rank_value
from abcde.sql.pipeline import Pipeline
from abcde.sql.quoting import ident, table_ref


def duck(sql: str) -> list[tuple]:
    return duckdb.connect().execute(sql).fetchall()


def md5_uniform(seed: str, *keys: object) -> float:
    """ENGINES.md: u = (2n + 1) / 2^53, n = first 13 hex digits of md5('<seed>:<key>')."""
    text = ":".join([seed, *map(str, keys)])
    n = int(hashlib.md5(text.encode()).hexdigest()[:13], 16)
    return (2 * n + 1) / 2**53


@pytest.mark.parametrize("keys", [(1,), ("item_7",), (123456789012, "b", 3)])
def test_uniform_equals_the_md5_recipe(keys: tuple) -> None:
    args = ", ".join(repr(k) if isinstance(k, str) else str(k) for k in keys)
    sql = to_sql(sqlglot.parse_one(f"SELECT ABCDE_UNIFORM('42', {args}) AS u"), "duckdb")
    assert duck(sql)[0][0] == md5_uniform("42", *keys)


def test_uniform_per_dialect_parses_md5_hex_digits() -> None:
    """Each target parses the 13 hex digits its own way (ENGINES.md table)."""
    tree = sqlglot.parse_one("SELECT ABCDE_UNIFORM('7', k) AS u FROM t")
    expected = {"duckdb": "'0x' ||", "bigquery": "TO_HEX(MD5(", "snowflake": "'XXXXXXXXXXXXX'",
                "spark": "CONV(", "postgres": "AS BIT(64)"}
    for dialect in DIALECTS:
        sql = to_sql(tree, dialect)
        assert expected[dialect] in sql, (dialect, sql)
        assert "RANDOM" not in sql.upper()


def test_fdiv_is_float_division_with_null_for_zero() -> None:
    tree = sqlglot.parse_one("SELECT ABCDE_FDIV(1, 3) AS a, ABCDE_FDIV(1, 0) AS b")
    a, b = duck(to_sql(tree, "duckdb"))[0]
    assert a == 1 / 3 and b is None
    for dialect in DIALECTS:
        sql = to_sql(tree, dialect)
        assert sql.count("CAST(") >= 4, sql  # both operands cast to a double


def test_is_finite_refuses_null_nan_and_infinities() -> None:
    values = ["NULL", "'NaN'::DOUBLE", "'Infinity'::DOUBLE", "'-Infinity'::DOUBLE", "0.0",
              "-2.5", "1e300"]
    sql = to_sql(sqlglot.parse_one(
        "SELECT " + ", ".join(f"ABCDE_IS_FINITE({v})" for v in values)), "duckdb")
    assert duck(sql)[0] == (False, False, False, False, True, True, True)


def test_ln_is_natural_log_everywhere() -> None:
    tree = sqlglot.parse_one("SELECT ABCDE_LN(x) FROM t")
    for dialect in DIALECTS:
        sql = to_sql(tree, dialect)
        assert "LN(" in sql and "LOG(" not in sql, (dialect, sql)
    assert math.isclose(duck(to_sql(sqlglot.parse_one("SELECT ABCDE_LN(2.718281828459045)"),
                                     "duckdb"))[0][0], 1.0)


def _rank_keys_in_duckdb(values: list[float]) -> list[float | None]:
    rows = ", ".join(f"({k}, CAST({v!r} AS DOUBLE))" for k, v in enumerate(values))
    sql = to_sql(sqlglot.parse_one(
        f"SELECT {rank_key_sql('x')} FROM (VALUES {rows}) AS t(k, x) ORDER BY k"), "duckdb")
    return [r[0] for r in duck(sql)]


def test_rank_key_ties_last_bit_differences_and_orders_the_rest() -> None:
    """Values a few ulps apart (the same sum added in another order) share a key; values
    apart in the 9th significant digit do not, and keys order like the values. SQL and
    Python compute the same key."""
    tied = [(0.1 + 0.2) + 0.3, 0.1 + (0.2 + 0.3), 1 / 3, math.nextafter(1 / 3, 1),
            5e-300, math.nextafter(5e-300, 0), 1.0, math.nextafter(1.0, 0)]
    sql_keys = _rank_keys_in_duckdb(tied)
    assert sql_keys == [rank_value(v) for v in tied]
    for a, b in zip(sql_keys[::2], sql_keys[1::2], strict=True):
        assert a == b
    ordered = [1e-12, 2e-12, 0.012345678, 0.012345679, 0.3, math.e - 1e-8, math.e, 1.0 + 1e-8,
               1.5, 7.0]
    ordered.sort()
    keys = _rank_keys_in_duckdb(ordered)
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert keys == [rank_value(v) for v in ordered]
    assert _rank_keys_in_duckdb([0.0, -1.0]) == [None, None]


def test_rank_key_uses_only_portable_functions() -> None:
    tree = sqlglot.parse_one(f"SELECT {rank_key_sql('x')} FROM t")
    for dialect in DIALECTS:
        sql = to_sql(tree, dialect).upper()
        assert "LN(" in sql and "LOG(" not in sql and "ROUND(" not in sql, (dialect, sql)


def test_user_names_are_quoted_identifiers() -> None:
    hostile = 'x"; DROP TABLE base; --'
    quoted = ident(hostile)
    assert quoted == '"x""; DROP TABLE base; --"'
    tree = sqlglot.parse_one(f"SELECT {quoted} FROM {table_ref('proj.ds.base')}")
    assert len(tree.selects) == 1
    assert to_sql(tree, "bigquery") == 'SELECT `x"; DROP TABLE base; --` FROM `proj`.`ds`.`base`'


def test_hostile_column_name_works_end_to_end() -> None:
    """A user column named like an injection is just a column."""
    col = "we'ight\"; --"
    r = abcde.impact({1: "a", 2: "a"}, {1: "x", 2: "y"}, {1: 1.0, 2: 3.0}, weight_col=col)
    assert math.isclose(r.overall["split_rate"], (1 * 3 / 4 + 3 * 1 / 4) / 4)


def test_pipeline_inlines_ctes_and_materialises_in_order() -> None:
    p = Pipeline(prefix="t_")
    p.add("a", sqlglot.parse_one("SELECT 1 AS x"))
    p.add("b", sqlglot.parse_one("WITH inner_b AS (SELECT x FROM a) SELECT x + 1 AS y "
                                 "FROM inner_b"), materialise=True)
    p.add("c", sqlglot.parse_one("SELECT y * 10 AS z FROM b JOIN a ON TRUE"))
    statements = [sql for _, sql in p.statements("postgres")]
    assert statements[0] == 'DROP TABLE IF EXISTS "t_b"'
    assert statements[1] == ('CREATE TABLE "t_b" AS WITH a AS (SELECT 1 AS x), inner_b AS '
                             "(SELECT x FROM a) SELECT x + 1 AS y FROM inner_b")
    assert p.query("c").sql() == ('WITH a AS (SELECT 1 AS x) SELECT y * 10 AS z FROM "t_b" '
                                  "AS b JOIN a ON TRUE")
    con = duckdb.connect()
    for sql in statements:
        con.execute(sql)
    assert con.execute(p.query("c").sql("duckdb")).fetchall() == [(20,)]


def test_nested_helpers_are_all_rewritten() -> None:
    tree = sqlglot.parse_one("SELECT ABCDE_FDIV(ABCDE_LN(ABCDE_FDIV(x, 2)), 3) AS v FROM t")
    for dialect in DIALECTS:
        assert "ABCDE_" not in to_sql(tree, dialect), dialect
    sql = to_sql(sqlglot.parse_one("SELECT ABCDE_FDIV(ABCDE_LN(ABCDE_FDIV(8, 2)), 3)"),
                 "duckdb")
    assert math.isclose(duck(sql)[0][0], math.log(4) / 3)
