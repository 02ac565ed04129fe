"""The placeholder helpers (abcde.sql.helpers): the SQL each one becomes on every
dialect, one table per helper (as sqlglot's dialect tests state one input and the SQL of
each dialect side by side), and its value on the engines that run here — DuckDB always,
PostgreSQL and Spark through the `engine` fixture — against an independent computation
in Python (the md5 recipe of docs/method.md §10, math.log, IEEE division).
"""

from __future__ import annotations

import doctest
import hashlib
import importlib
import math
import pkgutil

import duckdb
import pytest
import sqlglot

import abcde.sql
from abcde.engines import Engine
from abcde.sql import helpers
from abcde.sql.dialects import DIALECTS, to_sql
from abcde.sql.helpers import (
    WEIGHT_MAX,
    WEIGHT_MIN,
    as_sql,
    fdiv,
    is_finite,
    ln,
    order_key,
    rank_value,
    uniform,
    valid_weight,
)
from abcde.sql.helpers import rank_key as rank_key_sql

REL = 1e-12  # floats of different engines agree to ~2e-16 relative (docs/method.md §11)


def duck(sql: str) -> list[tuple]:
    return duckdb.connect().execute(sql).fetchall()


def md5_uniform(seed: str, *keys: object) -> float:
    """docs/method.md §10: u = (2n + 1) / 2^53, n = first 13 hex digits of
    md5('<seed>:<key>')."""
    text = ":".join([seed, *map(str, keys)])
    n = int(hashlib.md5(text.encode()).hexdigest()[:13], 16)
    return (2 * n + 1) / 2**53


def assert_written(helper_sql: str, expected: dict[str, str]) -> None:
    """`helper_sql` as each dialect writes it; an expected text may be wrapped over lines
    (at the spaces of the SQL)."""
    assert set(expected) == set(DIALECTS)
    for dialect, sql in expected.items():
        assert as_sql(helper_sql, dialect) == " ".join(sql.split()), dialect


def double(value: float | None) -> str:
    """A double literal of DuckDB SQL, NaN and infinities included."""
    if value is None:
        return "CAST(NULL AS DOUBLE)"
    if math.isnan(value):
        return "CAST('NaN' AS DOUBLE)"
    if math.isinf(value):
        return "CAST('Infinity' AS DOUBLE)" if value > 0 else "CAST('-Infinity' AS DOUBLE)"
    return f"CAST({value!r} AS DOUBLE)"


def run(engine: Engine, exprs: dict[str, str], rows: list[dict[str, str]]) -> list[dict]:
    """The helper expressions `exprs` (DuckDB SQL over the columns of `rows`, given as SQL
    literals), computed on `engine`: one dict per row, in order."""
    union = " UNION ALL ".join(
        "SELECT " + ", ".join([f"{k} AS k", *(f"{v} AS {c}" for c, v in row.items())])
        for k, row in enumerate(rows))
    select = ", ".join(f"{e} AS {name}" for name, e in exprs.items())
    sql = f"SELECT k, {select} FROM ({union}) AS t ORDER BY k"
    return engine.fetch(as_sql(sql, engine.dialect))


def close(got: float | None, want: float | None) -> bool:
    if want is None or got is None:
        return got is want
    return math.isclose(got, want, rel_tol=REL, abs_tol=0.0)


# --- fdiv -------------------------------------------------------------------------------


def test_fdiv_sql_per_dialect() -> None:
    """Both operands cast to a double on every target — on Snowflake a division of numbers
    keeps 6 decimals (1/10^7 is 0) — and a zero denominator gives NULL, not inf."""
    assert_written(fdiv("a", "b"), {
        "duckdb": "CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), CAST(0 AS DOUBLE))",
        "bigquery": "CAST(a AS FLOAT64) / NULLIF(CAST(b AS FLOAT64), CAST(0 AS FLOAT64))",
        "snowflake": "CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), CAST(0 AS DOUBLE))",
        "spark": "CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), CAST(0 AS DOUBLE))",
        "postgres": """CAST(a AS DOUBLE PRECISION) / NULLIF(CAST(b AS DOUBLE PRECISION), CAST(0 AS
                       DOUBLE PRECISION))""",
    })


def test_fdiv_on_engines(engine: Engine) -> None:
    """Integers and decimals divide as doubles (Spark and PostgreSQL would divide them
    exactly, as integers or decimals); x/0 is NULL."""
    pairs = [("1", "3", 1 / 3), ("1", "10000000", 1e-7), ("-3", "2", -1.5), ("7", "0", None),
             ("0", "0", None)]
    rows = [{"a": f"CAST({a} AS BIGINT)", "b": f"CAST({b} AS BIGINT)",
             "c": f"CAST({a} AS DECIMAL(12, 2))", "d": f"CAST({b} AS DECIMAL(12, 2))"}
            for a, b, _ in pairs]
    got = run(engine, {"ints": fdiv("a", "b"), "decimals": fdiv("c", "d")}, rows)
    for row, (_, _, want) in zip(got, pairs, strict=True):
        assert close(row["ints"], want) and close(row["decimals"], want), (row, want)


def test_fdiv_is_float_division_with_null_for_zero() -> None:
    tree = sqlglot.parse_one("SELECT ABCDE_FDIV(1, 3) AS a, ABCDE_FDIV(1, 0) AS b")
    a, b = duck(to_sql(tree, "duckdb"))[0]
    assert a == 1 / 3 and b is None
    for dialect in DIALECTS:
        sql = to_sql(tree, dialect)
        assert sql.count("CAST(") >= 4, sql  # both operands cast to a double


# --- ln ---------------------------------------------------------------------------------


def test_ln_sql_per_dialect() -> None:
    """LN everywhere: LOG(x) is log10 on DuckDB, ln elsewhere, and refused by PostgreSQL
    in the form sqlglot writes."""
    assert_written(ln("x"), {
        "duckdb": "LN(CAST(x AS DOUBLE))",
        "bigquery": "LN(CAST(x AS FLOAT64))",
        "snowflake": "LN(CAST(x AS DOUBLE))",
        "spark": "LN(CAST(x AS DOUBLE))",
        "postgres": "LN(CAST(x AS DOUBLE PRECISION))",
    })


def test_ln_on_engines(engine: Engine) -> None:
    """The natural logarithm, as math.log, from 1e-300 to 1e300."""
    values = [1.0, math.e, 10.0, 0.5, 2.0, 1e-300, 1e300]
    got = run(engine, {"v": ln("x")}, [{"x": double(v)} for v in values])
    for row, x in zip(got, values, strict=True):
        assert close(row["v"], math.log(x)), (x, row)


def test_ln_is_natural_log_everywhere() -> None:
    tree = sqlglot.parse_one("SELECT ABCDE_LN(x) FROM t")
    for dialect in DIALECTS:
        sql = to_sql(tree, dialect)
        assert "LN(" in sql and "LOG(" not in sql, (dialect, sql)
    assert math.isclose(duck(to_sql(sqlglot.parse_one("SELECT ABCDE_LN(2.718281828459045)"),
                                     "duckdb"))[0][0], 1.0)


# --- uniform ----------------------------------------------------------------------------


def snowflake_uniform(key: str) -> str:
    """Snowflake's uniform of the key string `key`: no function of Snowflake parses hex
    that fakesnow runs too, so n sums the 13 hex digits, each the CHARINDEX of its digit
    in '0123456789abcdef' less one, times its power of 16 (docs/method.md §10.2)."""
    n = " + ".join(f"(CHARINDEX(SUBSTRING(MD5({key}), {i}, 1), '0123456789abcdef') - 1)"
                   + (f" * {16 ** (13 - i)}" if i < 13 else "") for i in range(1, 14))
    return f"(CAST(({n}) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE))"


def test_uniform_sql_per_dialect() -> None:
    """The md5 recipe (docs/method.md §10), its 13 hex digits parsed each target's way;
    never the engine's RANDOM() (Snowflake's is a 64-bit integer)."""
    assert_written(uniform("'7'", "k"), {
        "duckdb": """(CAST((CAST('0x' || SUBSTRING(MD5(CAST('7' AS TEXT) || ':' || CAST(k AS
                     TEXT)), 1, 13) AS BIGINT)) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS
                     DOUBLE))""",
        "bigquery": """(CAST((CAST(CONCAT('0x', SUBSTR(TO_HEX(MD5(CONCAT(CAST('7' AS STRING), ':',
                       CAST(k AS STRING)))), 1, 13)) AS INT64)) * 2 + 1 AS FLOAT64) /
                       CAST(9007199254740992 AS FLOAT64))""",
        "snowflake": snowflake_uniform("CONCAT(CAST('7' AS VARCHAR), ':', CAST(k AS VARCHAR))"),
        "spark": """(CAST((CAST(CONV(SUBSTRING(MD5(CONCAT(CAST('7' AS STRING), ':', CAST(k AS
                    STRING))), 1, 13), 16, 10) AS BIGINT)) * 2 + 1 AS DOUBLE) /
                    CAST(9007199254740992 AS DOUBLE))""",
        "postgres": """(CAST((CAST(CAST('x' || LPAD(SUBSTRING(MD5(CAST('7' AS VARCHAR) || ':' ||
                       CAST(k AS VARCHAR)) FROM 1 FOR 13), 16, '0') AS BIT(64)) AS BIGINT)) * 2 + 1
                       AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION))""",
    })


def test_uniform_on_engines(engine: Engine) -> None:
    """Bit-identical to the md5 recipe computed in Python, for integer and string keys,
    one key or several, a string seed or an integer one."""
    keys = [(1, "item_7"), (123456789012, "b"), (-5, ""), (0, "ünï")]
    rows = [{"s": "'42'", "n": f"CAST({n} AS BIGINT)", "t": f"'{t}'"} for n, t in keys]
    got = run(engine, {"by_int": uniform("s", "n"), "by_text": uniform("s", "t"),
                       "by_both": uniform("s", "n", "t"), "int_seed": uniform("7", "n")},
              rows)
    for row, (n, t) in zip(got, keys, strict=True):
        assert row["by_int"] == md5_uniform("42", n), (n, row)
        assert row["by_text"] == md5_uniform("42", t), (t, row)
        assert row["by_both"] == md5_uniform("42", n, t), (n, t, row)
        assert row["int_seed"] == md5_uniform("7", n), (n, row)
        assert 0 < row["by_int"] < 1


@pytest.mark.parametrize("keys", [(1,), ("item_7",), (123456789012, "b", 3)])
def test_uniform_equals_the_md5_recipe(keys: tuple) -> None:
    args = ", ".join(repr(k) if isinstance(k, str) else str(k) for k in keys)
    sql = to_sql(sqlglot.parse_one(f"SELECT ABCDE_UNIFORM('42', {args}) AS u"), "duckdb")
    assert duck(sql)[0][0] == md5_uniform("42", *keys)


def test_uniform_per_dialect_parses_md5_hex_digits() -> None:
    """Each target parses the 13 hex digits its own way (docs/method.md §10)."""
    tree = sqlglot.parse_one("SELECT ABCDE_UNIFORM('7', k) AS u FROM t")
    expected = {"duckdb": "'0x' ||", "bigquery": "TO_HEX(MD5(",
                "snowflake": "CHARINDEX(SUBSTRING(MD5(", "spark": "CONV(",
                "postgres": "AS BIT(64)"}
    for dialect in DIALECTS:
        sql = to_sql(tree, dialect)
        assert expected[dialect] in sql, (dialect, sql)
        assert "RANDOM" not in sql.upper()


# --- is_finite --------------------------------------------------------------------------


def test_is_finite_sql_per_dialect() -> None:
    """x - x = 0, FALSE when NULL: no test of NaN itself (NaN = NaN is TRUE on DuckDB,
    Spark and PostgreSQL)."""
    assert_written(is_finite("x"), {
        "duckdb": "COALESCE(CAST(x AS DOUBLE) - CAST(x AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)",
        "bigquery": "COALESCE(CAST(x AS FLOAT64) - CAST(x AS FLOAT64) = CAST(0 AS FLOAT64), FALSE)",
        "snowflake": "COALESCE(CAST(x AS DOUBLE) - CAST(x AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)",
        "spark": "COALESCE(CAST(x AS DOUBLE) - CAST(x AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)",
        "postgres": """COALESCE(CAST(x AS DOUBLE PRECISION) - CAST(x AS DOUBLE PRECISION) = CAST(0
                       AS DOUBLE PRECISION), FALSE)""",
    })


def test_is_finite_on_engines(engine: Engine) -> None:
    """TRUE exactly where math.isfinite is (NULL: FALSE), subnormals included."""
    values = [None, math.nan, math.inf, -math.inf, 0.0, -2.5, 1e300, 5e-324]
    got = run(engine, {"v": is_finite("x")}, [{"x": double(v)} for v in values])
    for row, x in zip(got, values, strict=True):
        assert row["v"] is (x is not None and math.isfinite(x)), (x, row)


def test_is_finite_refuses_null_nan_and_infinities() -> None:
    values = ["NULL", "'NaN'::DOUBLE", "'Infinity'::DOUBLE", "'-Infinity'::DOUBLE", "0.0",
              "-2.5", "1e300"]
    sql = to_sql(sqlglot.parse_one(
        "SELECT " + ", ".join(f"ABCDE_IS_FINITE({v})" for v in values)), "duckdb")
    assert duck(sql)[0] == (False, False, False, False, True, True, True)


# --- order_key --------------------------------------------------------------------------


def test_order_key_sql_per_dialect() -> None:
    """The md5 uniform of ('order', ids...): a key that depends only on the ids' text."""
    assert_written(order_key("id"), {
        "duckdb": """(CAST((CAST('0x' || SUBSTRING(MD5(CAST('order' AS TEXT) || ':' || CAST(id AS
                     TEXT)), 1, 13) AS BIGINT)) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS
                     DOUBLE))""",
        "bigquery": """(CAST((CAST(CONCAT('0x', SUBSTR(TO_HEX(MD5(CONCAT(CAST('order' AS STRING),
                       ':', CAST(id AS STRING)))), 1, 13)) AS INT64)) * 2 + 1 AS FLOAT64) /
                       CAST(9007199254740992 AS FLOAT64))""",
        "snowflake": snowflake_uniform(
            "CONCAT(CAST('order' AS VARCHAR), ':', CAST(id AS VARCHAR))"),
        "spark": """(CAST((CAST(CONV(SUBSTRING(MD5(CONCAT(CAST('order' AS STRING), ':', CAST(id AS
                    STRING))), 1, 13), 16, 10) AS BIGINT)) * 2 + 1 AS DOUBLE) /
                    CAST(9007199254740992 AS DOUBLE))""",
        "postgres": """(CAST((CAST(CAST('x' || LPAD(SUBSTRING(MD5(CAST('order' AS VARCHAR) || ':'
                       || CAST(id AS VARCHAR)) FROM 1 FOR 13), 16, '0') AS BIT(64)) AS BIGINT)) * 2
                       + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION))""",
    })


def test_order_key_on_engines(engine: Engine) -> None:
    """The md5 recipe of ('order', id) in Python; equal for the integer 10 and the text
    '10' (one input as Parquet integers, the other as CSV text), though 9 < 10 and
    '9' > '10' in their native orders."""
    ids = [9, 10, 123456789012]
    rows = [{"n": f"CAST({i} AS BIGINT)", "t": f"'{i}'"} for i in ids]
    got = run(engine, {"by_int": order_key("n"), "by_text": order_key("t"),
                       "pair": order_key("n", "t")}, rows)
    for row, i in zip(got, ids, strict=True):
        assert row["by_int"] == row["by_text"] == md5_uniform("order", i), (i, row)
        assert row["pair"] == md5_uniform("order", i, i), (i, row)


# --- valid_weight -----------------------------------------------------------------------


def test_valid_weight_sql_per_dialect() -> None:
    """Finite, and inside [1e-100, 1e100] (WEIGHT_MIN, WEIGHT_MAX)."""
    assert_written(valid_weight("w"), {
        "duckdb": """(COALESCE(CAST(w AS DOUBLE) - CAST(w AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)
                     AND w >= CAST(1e-100 AS DOUBLE) AND w <= CAST(1e+100 AS DOUBLE))""",
        "bigquery": """(COALESCE(CAST(w AS FLOAT64) - CAST(w AS FLOAT64) = CAST(0 AS FLOAT64),
                       FALSE) AND w >= CAST(1e-100 AS FLOAT64) AND w <= CAST(1e+100 AS FLOAT64))""",
        "snowflake": """(COALESCE(CAST(w AS DOUBLE) - CAST(w AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)
                        AND w >= CAST(1e-100 AS DOUBLE) AND w <= CAST(1e+100 AS DOUBLE))""",
        "spark": """(COALESCE(CAST(w AS DOUBLE) - CAST(w AS DOUBLE) = CAST(0 AS DOUBLE), FALSE) AND
                    w >= CAST(1e-100 AS DOUBLE) AND w <= CAST(1e+100 AS DOUBLE))""",
        "postgres": """(COALESCE(CAST(w AS DOUBLE PRECISION) - CAST(w AS DOUBLE PRECISION) = CAST(0
                       AS DOUBLE PRECISION), FALSE) AND w >= CAST(1e-100 AS DOUBLE PRECISION) AND w
                       <= CAST(1e+100 AS DOUBLE PRECISION))""",
    })


def test_valid_weight_on_engines(engine: Engine) -> None:
    """TRUE exactly for finite weights in [WEIGHT_MIN, WEIGHT_MAX], both bounds included;
    FALSE (not NULL) for a missing weight."""
    values = [None, math.nan, math.inf, -math.inf, 0.0, -1.0, 1e-101, WEIGHT_MIN, 1.0,
              WEIGHT_MAX, 1e101]
    got = run(engine, {"v": valid_weight("w")}, [{"w": double(v)} for v in values])
    for row, w in zip(got, values, strict=True):
        want = w is not None and math.isfinite(w) and WEIGHT_MIN <= w <= WEIGHT_MAX
        assert row["v"] is want, (w, row)


# --- rank_key ---------------------------------------------------------------------------


def test_rank_key_sql_per_dialect() -> None:
    """k = floor(ln x + 1/2) and the mantissa x·e^−k to 9 decimals, packed in one double;
    only LN, EXP and FLOOR (ROUND rounds half to even on PostgreSQL)."""
    assert_written(rank_key_sql("x"), {
        "duckdb": """(CASE WHEN x > 0 THEN CAST(4000000000 AS DOUBLE) * FLOOR(LN(CAST(x AS DOUBLE))
                     + CAST(0.5 AS DOUBLE)) + FLOOR(CAST(x AS DOUBLE) * EXP(-FLOOR(LN(CAST(x AS
                     DOUBLE)) + CAST(0.5 AS DOUBLE))) * CAST(1000000000 AS DOUBLE) + CAST(0.5 AS
                     DOUBLE)) END)""",
        "bigquery": """(CASE WHEN x > 0 THEN CAST(4000000000 AS FLOAT64) * FLOOR(LN(CAST(x AS
                       FLOAT64)) + CAST(0.5 AS FLOAT64)) + FLOOR(CAST(x AS FLOAT64) *
                       EXP(-FLOOR(LN(CAST(x AS FLOAT64)) + CAST(0.5 AS FLOAT64))) * CAST(1000000000
                       AS FLOAT64) + CAST(0.5 AS FLOAT64)) END)""",
        "snowflake": """(CASE WHEN x > 0 THEN CAST(4000000000 AS DOUBLE) * FLOOR(LN(CAST(x AS
                        DOUBLE)) + CAST(0.5 AS DOUBLE)) + FLOOR(CAST(x AS DOUBLE) *
                        EXP(-FLOOR(LN(CAST(x AS DOUBLE)) + CAST(0.5 AS DOUBLE))) * CAST(1000000000
                        AS DOUBLE) + CAST(0.5 AS DOUBLE)) END)""",
        "spark": """(CASE WHEN x > 0 THEN CAST(4000000000 AS DOUBLE) * FLOOR(LN(CAST(x AS DOUBLE))
                    + CAST(0.5 AS DOUBLE)) + FLOOR(CAST(x AS DOUBLE) * EXP(-FLOOR(LN(CAST(x AS
                    DOUBLE)) + CAST(0.5 AS DOUBLE))) * CAST(1000000000 AS DOUBLE) + CAST(0.5 AS
                    DOUBLE)) END)""",
        "postgres": """(CASE WHEN x > 0 THEN CAST(4000000000 AS DOUBLE PRECISION) * FLOOR(LN(CAST(x
                       AS DOUBLE PRECISION)) + CAST(0.5 AS DOUBLE PRECISION)) + FLOOR(CAST(x AS
                       DOUBLE PRECISION) * EXP(-FLOOR(LN(CAST(x AS DOUBLE PRECISION)) + CAST(0.5 AS
                       DOUBLE PRECISION))) * CAST(1000000000 AS DOUBLE PRECISION) + CAST(0.5 AS
                       DOUBLE PRECISION)) END)""",
    })


def test_rank_key_on_engines(engine: Engine) -> None:
    """Equal to the Python twin `rank_value` (NULL where it gives −inf: x ≤ 0 or
    missing), values a few ulps apart sharing a key."""
    values = [(0.1 + 0.2) + 0.3, 0.1 + (0.2 + 0.3), 1 / 3, math.nextafter(1 / 3, 1), 5e-300,
              1.0, math.nextafter(1.0, 0), 1e-12, math.e, 7.0, 0.0, -1.0, None]
    got = run(engine, {"v": rank_key_sql("x")}, [{"x": double(v)} for v in values])
    for row, x in zip(got, values, strict=True):
        want = rank_value(x)
        assert row["v"] == (None if want == -math.inf else want), (x, row)
    assert got[0]["v"] == got[1]["v"] and got[2]["v"] == got[3]["v"]


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


# --- doctests ---------------------------------------------------------------------------


def test_every_helper_shows_its_sql_in_a_doctest() -> None:
    for helper in (fdiv, ln, uniform, is_finite, order_key, valid_weight, rank_key_sql):
        assert ">>> " in (helper.__doc__ or "") and "as_sql(" in helper.__doc__, helper


@pytest.mark.parametrize("module", sorted(
    f"abcde.sql.{m.name}" for m in pkgutil.iter_modules(abcde.sql.__path__)))
def test_doctests_of_the_sql_modules(module: str) -> None:
    """The doctests of abcde.sql (the SQL each helper writes, quoting) run in the suite."""
    result = doctest.testmod(importlib.import_module(module), verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} doctest(s) of {module} failed (output above)"
    if module in (helpers.__name__, "abcde.sql.quoting"):
        assert result.attempted > 0
