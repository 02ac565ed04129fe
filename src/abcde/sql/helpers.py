"""Placeholder helpers for the SQL templates: the unsafe constructs of docs/method.md §11
(float division, natural log, random numbers, finiteness, ranking ties) written once as
`ABCDE_*` functions that `abcde.sql.dialects` rewrites per target. Each returns DuckDB SQL
text; its doctest shows what it becomes on DuckDB (tests/sql/test_helpers.py: on every
dialect)."""

from __future__ import annotations

import math
from collections.abc import Callable

import sqlglot

from abcde.sql.dialects import Dialect, to_sql
from abcde.sql.quoting import CANONICAL_DIALECT, ident, literal, table_ref


def as_sql(text: str, dialect: str | Dialect = "duckdb") -> str:
    """SQL text holding helpers (DuckDB's dialect, as templates) as `dialect` writes it.

    >>> as_sql("SELECT ABCDE_LN(x) AS y FROM t", "spark")
    'SELECT LN(CAST(x AS DOUBLE)) AS y FROM t'
    """
    return to_sql(sqlglot.parse_one(text, read=CANONICAL_DIALECT), dialect, copy=False)


def _placeholder(name: str, doc: str) -> Callable[..., str]:
    """The helper writing `ABCDE_<name>(args...)`, which `abcde.sql.dialects` rewrites
    per target; `doc` (with its doctest) is the helper's."""
    def helper(*args: object) -> str:
        return f"ABCDE_{name}({', '.join(map(str, args))})"

    helper.__name__ = helper.__qualname__ = name.lower()
    helper.__doc__ = doc
    return helper


fdiv = _placeholder("FDIV", """Float division a / b, NULL for a zero denominator
(docs/method.md §11).

>>> as_sql(fdiv("a", "b"))
'CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), CAST(0 AS DOUBLE))'
""")
ln = _placeholder("LN", """Natural logarithm (`LOG` is log10 on DuckDB, ln elsewhere).

>>> as_sql(ln("x"))
'LN(CAST(x AS DOUBLE))'
""")
uniform = _placeholder("UNIFORM", """Reproducible U(0,1) from md5('<seed>:<key1>:...'),
identical on every engine (docs/method.md §10); keys are integers or strings.

>>> print(as_sql(uniform("'7'", "k")))  # doctest: +NORMALIZE_WHITESPACE
(CAST((CAST('0x' || SUBSTRING(MD5(CAST('7' AS TEXT) || ':' || CAST(k AS TEXT)), 1, 13)
  AS BIGINT)) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE))
""")
md5_hex = _placeholder("MD5_HEX", """md5('<part1>:<part2>...') as 32 lower-case hex digits
on every engine.

>>> as_sql(md5_hex("'items'", "n"))
"MD5(CAST('items' AS TEXT) || ':' || CAST(n AS TEXT))"
""")
id_hash = _placeholder("ID_HASH", """A 64-bit hash of an id as a number the target sums
exactly: the multiset test of `abcde.cells.same_ids` (sums compared within one run).

>>> as_sql(id_hash("item_id"))
'HASH(item_id)'
>>> as_sql(id_hash("item_id"), "postgres")
'HASHTEXTEXTENDED(CAST(item_id AS TEXT), 0)'
""")
is_finite = _placeholder("IS_FINITE", """TRUE when x is a finite number (not NULL, NaN or
±inf).

>>> as_sql(is_finite("x"))
'COALESCE(CAST(x AS DOUBLE) - CAST(x AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)'
""")
fail = _placeholder("FAIL", """Stops the statement with the text `message` when evaluated
(a CASE branch no valid input reaches).

>>> as_sql(fail("'stop'"))
"CAST('stop' AS INT)"
>>> as_sql(fail("'stop'"), "spark")
"RAISE_ERROR('stop')"
""")
table_exists = _placeholder("TABLE_EXISTS", """TRUE when the table (catalog, schema,
table: string literals, '' for the current one) exists, by the target's
information_schema (Spark has none).

>>> print(as_sql(table_exists("''", "'s'", "'t'")))  # doctest: +NORMALIZE_WHITESPACE
((SELECT COUNT(*) FROM information_schema.tables WHERE LOWER(table_name) = LOWER('t')
  AND LOWER(table_schema) = LOWER('s')) > 0)
""")
slice_text = _placeholder("SLICE_TEXT", """A slice attribute of any type as the text
`abcde impact` gives in JSON (`Dialect.slice_text`).

>>> as_sql(slice_text("a"), "bigquery")
'CAST(a AS STRING)'
""")


def order_key(*ids: str) -> str:
    """A sort key of ids that depends only on their text (the same for 10 and '10' on
    every engine, whatever the types and collations): the md5 uniform of ('order', ids);
    sort by it, then by the ids (a tie only a 52-bit md5 collision reaches).

    >>> print(as_sql(order_key("id")))  # doctest: +NORMALIZE_WHITESPACE
    (CAST((CAST('0x' || SUBSTRING(MD5(CAST('order' AS TEXT) || ':' || CAST(id AS TEXT)), 1,
      13) AS BIGINT)) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE))
    """
    return uniform(literal("order"), *ids)


# The weights abcde accepts (docs/method.md §1): only ratios matter, and inside this range
# every sum (of up to 1e10 items), product and ratio the estimators form is a normal double.
WEIGHT_MIN, WEIGHT_MAX = 1e-100, 1e100


def valid_weight(x: str) -> str:
    """TRUE when x is a weight abcde accepts: finite and in [WEIGHT_MIN, WEIGHT_MAX].

    >>> print(as_sql(valid_weight("w")))  # doctest: +NORMALIZE_WHITESPACE
    (COALESCE(CAST(w AS DOUBLE) - CAST(w AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)
      AND w >= CAST(1e-100 AS DOUBLE) AND w <= CAST(1e+100 AS DOUBLE))
    """
    return (f"({is_finite(x)} AND {x} >= CAST({WEIGHT_MIN!r} AS DOUBLE) "
            f"AND {x} <= CAST({WEIGHT_MAX!r} AS DOUBLE))")


# Significant digits at which two positive numbers count as equal when ranking.
RANK_DIGITS = 9


def rank_key(x: str) -> str:
    """A key that orders positive x like x but is equal for values that agree to about
    RANK_DIGITS significant digits (equal values differ in their last bits between
    engines and parallel runs; ranked by this key, such ties break by id everywhere):
    k = floor(ln x + 1/2) and the mantissa x·e^−k rounded to RANK_DIGITS decimals, packed
    into one exact number. NULL for x ≤ 0. Python's twin: `rank_value`.

    >>> print(as_sql(rank_key("x")))  # doctest: +NORMALIZE_WHITESPACE
    (CASE WHEN x > 0 THEN CAST(4000000000 AS DOUBLE) * FLOOR(LN(CAST(x AS DOUBLE))
      + CAST(0.5 AS DOUBLE)) + FLOOR(CAST(x AS DOUBLE) * EXP(-FLOOR(LN(CAST(x AS DOUBLE))
      + CAST(0.5 AS DOUBLE))) * CAST(1000000000 AS DOUBLE) + CAST(0.5 AS DOUBLE)) END)
    """
    k = f"FLOOR({ln(x)} + CAST(0.5 AS DOUBLE))"
    scale = f"CAST({10 ** RANK_DIGITS} AS DOUBLE)"
    mantissa = f"FLOOR(CAST({x} AS DOUBLE) * EXP(-{k}) * {scale} + CAST(0.5 AS DOUBLE))"
    return (f"(CASE WHEN {x} > 0 THEN CAST({4 * 10 ** RANK_DIGITS} AS DOUBLE) * {k} "
            f"+ {mantissa} END)")


def round_relative(x: str, digits: int = 12) -> str:
    """Positive x rounded to about `digits` significant digits, so that a parallel SUM
    gives the same number on every run (not ROUND: PostgreSQL has none for a double with
    decimals; docs/method.md §11). NULL for x ≤ 0 or NULL.

    >>> print(as_sql(round_relative("x", 3)))  # doctest: +NORMALIZE_WHITESPACE
    (CASE WHEN x > 0 THEN (CAST(FLOOR(CAST(x AS DOUBLE) * EXP(-FLOOR(LN(CAST(x AS DOUBLE))
      + CAST(0.5 AS DOUBLE))) * CAST(1000 AS DOUBLE) + CAST(0.5 AS DOUBLE)) AS DOUBLE)
      / NULLIF(CAST(CAST(1000 AS DOUBLE) AS DOUBLE), CAST(0 AS DOUBLE)))
      * EXP(FLOOR(LN(CAST(x AS DOUBLE)) + CAST(0.5 AS DOUBLE))) END)
    """
    k = f"FLOOR({ln(x)} + CAST(0.5 AS DOUBLE))"
    scale = f"CAST({10 ** digits} AS DOUBLE)"
    mantissa = f"FLOOR(CAST({x} AS DOUBLE) * EXP(-{k}) * {scale} + CAST(0.5 AS DOUBLE))"
    return f"(CASE WHEN {x} > 0 THEN {fdiv(mantissa, scale)} * EXP({k}) END)"


def rank_value(x: float | None) -> float:
    """The Python twin of `rank_key`; −inf for x ≤ 0 or None (last when descending)."""
    if x is None or not x > 0:
        return -math.inf
    k = math.floor(math.log(x) + 0.5)
    scale = float(10 ** RANK_DIGITS)
    return 4 * scale * k + math.floor(x * math.exp(-k) * scale + 0.5)


HELPERS = {"ident": ident, "table_ref": table_ref, "literal": literal, "fdiv": fdiv,
           "ln": ln, "uniform": uniform, "order_key": order_key, "is_finite": is_finite,
           "rank_key": rank_key, "valid_weight": valid_weight, "md5_hex": md5_hex,
           "round_relative": round_relative, "id_hash": id_hash, "fail": fail,
           "table_exists": table_exists, "slice_text": slice_text}
