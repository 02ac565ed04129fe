"""The dialects (abcde.sql.dialects): one class per target, found by name or given as an
object, every engine difference in them and nowhere else in the package."""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import ClassVar

import pytest
import sqlglot
from duck import duck
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

import abcde
from abcde.errors import TemplateError
from abcde.sql.dialects import (
    DIALECTS,
    BigQuery,
    Dialect,
    DuckDB,
    Postgres,
    Rewrite,
    Snowflake,
    Spark,
    get_dialect,
    identifier,
    to_sql,
)

PACKAGE = Path(abcde.__file__).parent


def test_nested_helpers_are_all_rewritten() -> None:
    tree = sqlglot.parse_one("SELECT ABCDE_FDIV(ABCDE_LN(ABCDE_FDIV(x, 2)), 3) AS v FROM t")
    for dialect in DIALECTS:
        assert "ABCDE_" not in to_sql(tree, dialect), dialect
    sql = to_sql(sqlglot.parse_one("SELECT ABCDE_FDIV(ABCDE_LN(ABCDE_FDIV(8, 2)), 3)"),
                 "duckdb")
    assert math.isclose(duck(sql)[0][0], math.log(4) / 3)


def test_one_class_per_target_found_by_name_or_given_as_object() -> None:
    classes = {"duckdb": DuckDB, "bigquery": BigQuery, "snowflake": Snowflake,
               "spark": Spark, "postgres": Postgres}
    assert tuple(classes) == DIALECTS
    for name, cls in classes.items():
        dialect = get_dialect(name)
        assert type(dialect) is cls and isinstance(dialect, Dialect)
        assert get_dialect(dialect) is dialect and dialect == cls()
        assert str(dialect) == name and dialect.sqlglot_name == name
        assert dialect.REWRITES.keys() >= Dialect.REWRITES.keys()
    with pytest.raises(TemplateError, match="unknown dialect 'oracle'"):
        get_dialect("oracle")


def test_a_dialect_object_writes_what_its_name_writes() -> None:
    """`to_sql` and `identifier` take a name or a Dialect, with the same result."""
    tree = sqlglot.parse_one('SELECT ABCDE_UNIFORM(1, "Item") AS "order", ABCDE_LN(x) FROM t')
    for name in DIALECTS:
        assert to_sql(tree, get_dialect(name)) == to_sql(tree, name)
        for column in ("item_id", "Item", "order"):
            assert identifier(column, get_dialect(name)) == identifier(column, name)
    assert identifier("item_id", Snowflake()) == exp.to_identifier("item_id", quoted=False)
    assert identifier("order", Snowflake()) == exp.to_identifier("ORDER", quoted=True)
    assert identifier("item_id", Spark()) == exp.to_identifier("item_id", quoted=True)


def test_a_target_extends_the_rewrite_table() -> None:
    """A dialect is its table: a subclass that replaces one entry changes that helper
    only (the way sqlglot's generators extend TRANSFORMS)."""

    class Custom(DuckDB):
        REWRITES: ClassVar[dict[str, Rewrite]] = {
            **Dialect.REWRITES,
            "ABCDE_LN": lambda _, x: exp.Anonymous(this="MY_LN", expressions=[x]),
        }

    tree = sqlglot.parse_one("SELECT ABCDE_LN(x), ABCDE_FDIV(a, b) FROM t")
    assert to_sql(tree, Custom()) == to_sql(tree, "duckdb").replace(
        "LN(CAST(x AS DOUBLE))", "MY_LN(x)")


def _comparisons_with_names(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, code) of every comparison (==, !=, in, not in, match/case) of a value with a
    string of `names`, but those of the CLI's --engine choice (`engine_name`), which names
    an engine, not a dialect."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.match_case):
            operands = [node.pattern]
        else:
            continue
        strings = {n.value for o in operands for n in ast.walk(o)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if strings & names and not any(isinstance(o, ast.Name) and o.id == "engine_name"
                                       for o in operands):
            found.append((node.lineno if hasattr(node, "lineno") else node.pattern.lineno,
                          ast.unparse(node) if isinstance(node, ast.Compare)
                          else ast.unparse(node.pattern)))
    return found


def test_no_dialect_name_comparisons_in_the_package() -> None:
    """What differs between targets is said by their Dialect classes; no module asks
    `dialect == "snowflake"` (or `name in ("spark", ...)`, or `case "bigquery":`)."""
    names = {*DIALECTS, *(get_dialect(d).sqlglot_name for d in DIALECTS)}
    found = {f"{path.relative_to(PACKAGE)}:{line}: {code}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for line, code in _comparisons_with_names(path.read_text(), names)}
    assert not found, "\n".join(sorted(found))


def test_the_comparison_check_finds_what_it_looks_for() -> None:
    names = set(DIALECTS)
    code = ('if dialect == "spark":\n    pass\n'
            'x = self.name in ("snowflake", "bigquery")\n'
            'match d:\n    case "postgres":\n        pass\n'
            'if engine_name == "postgres":\n    pass\n')
    assert [line for line, _ in _comparisons_with_names(code, names)] == [1, 3, 5]


# --- frames that run to UNBOUNDED FOLLOWING (docs/method.md §11.1) ---------------------

def _following_sums(rows: list[tuple[int, int, int | None, int]], key_desc: bool,
                    nulls_first: bool, start: int) -> dict[int, int | None]:
    """By definition: per row, the sum of w over the rows of its partition that come
    `start` or more places after it in ORDER BY k, id (None for an empty frame)."""
    def order(r: tuple[int, int, int | None, int]) -> tuple:
        _, _, k, ident = r
        null_rank = (0 if nulls_first else 1) if k is None else (1 if nulls_first else 0)
        return (null_rank, 0 if k is None else (-k if key_desc else k), ident)

    out: dict[int, int | None] = {}
    for p in {r[0] for r in rows}:
        part = sorted((r for r in rows if r[0] == p), key=order)
        for i, r in enumerate(part):
            frame = part[i + start:]
            out[r[3]] = sum(x[1] for x in frame) if frame else None
    return out


@given(rows=st.lists(st.tuples(st.integers(0, 2), st.integers(-5, 5),
                               st.none() | st.integers(0, 3)), min_size=1, max_size=25),
       key_desc=st.booleans(), nulls_first=st.booleans(), start=st.integers(0, 2))
@settings(max_examples=60, deadline=None)
def test_mirrored_following_frames_sum_the_same_rows(rows: list, key_desc: bool,
                                                     nulls_first: bool, start: int) -> None:
    """Spark and PostgreSQL recompute a frame that runs to UNBOUNDED FOLLOWING for every
    row (O(n²) per partition: 268 s of 327 s in a 10M-item sample-pairs on Spark); they
    get the mirrored frame over the reversed order, which must sum exactly the same rows
    — NULL keys, DESC keys and CURRENT ROW included. Integer weights: exact sums."""
    table = [(p, w, k, ident) for ident, (p, w, k) in enumerate(rows)]
    values = ", ".join(f"({p}, {w}, {'NULL' if k is None else k}, {i})" for p, w, k, i in table)
    bound = "CURRENT ROW" if start == 0 else f"{start} FOLLOWING"
    sql = (f"SELECT id, SUM(w) OVER (PARTITION BY p ORDER BY k {'DESC' if key_desc else 'ASC'} "
           f"NULLS {'FIRST' if nulls_first else 'LAST'}, id "
           f"ROWS BETWEEN {bound} AND UNBOUNDED FOLLOWING) AS s "
           f"FROM (VALUES {values}) AS t(p, w, k, id)")
    tree = sqlglot.parse_one(sql, read="duckdb")
    expected = _following_sums(table, key_desc, nulls_first, start)
    for dialect in (Spark(), Postgres()):
        mirrored = dialect.rewrite(tree)
        assert "UNBOUNDED FOLLOWING" not in mirrored.sql("duckdb")
        got = {i: (None if s is None else int(s)) for i, s in duck(mirrored.sql("duckdb"))}
        assert got == expected
    assert {i: (None if s is None else int(s)) for i, s in duck(sql)} == expected


def test_only_order_free_aggregates_and_running_frames_are_mirrored() -> None:
    """What is not a frame to UNBOUNDED FOLLOWING of SUM/COUNT/MIN/MAX stays as written;
    DuckDB (a segment tree: such frames cost it nothing) keeps every frame."""
    kept = ["SELECT FIRST_VALUE(w) OVER (ORDER BY k ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED "
            "FOLLOWING) FROM t",
            "SELECT SUM(w) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) "
            "FROM t",
            "SELECT SUM(w) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING) "
            "FROM t",
            "SELECT SUM(w) OVER (PARTITION BY b) FROM t"]
    for sql in kept:
        tree = sqlglot.parse_one(sql, read="duckdb")
        assert Spark().rewrite(tree) == tree
    running = sqlglot.parse_one("SELECT SUM(w) OVER (ORDER BY k ROWS BETWEEN 1 FOLLOWING AND "
                                "UNBOUNDED FOLLOWING) FROM t", read="duckdb")
    assert DuckDB().rewrite(running) == running
    assert "UNBOUNDED FOLLOWING" in to_sql(running, "duckdb")
    assert "UNBOUNDED FOLLOWING" not in to_sql(running, "spark")


@pytest.mark.parametrize("dialect", ["spark", "postgres"])
def test_no_quadratic_frame_in_the_golden_sql(dialect: str) -> None:
    """Every script abcde writes for Spark and PostgreSQL is free of a frame whose start
    moves while its end is UNBOUNDED FOLLOWING."""
    golden = Path(__file__).resolve().parents[1] / "golden" / dialect
    files = list(golden.rglob("*.sql"))
    assert files
    for f in files:
        text = " ".join(f.read_text().split())
        assert "FOLLOWING AND UNBOUNDED FOLLOWING" not in text, f


def test_bigquery_orders_nulls_of_an_aggregate_window_its_own_way(
        caplog: pytest.LogCaptureFixture) -> None:
    """BigQuery cannot say NULLS LAST in the window of an aggregate over a frame: sqlglot
    drops it with a warning. The BigQuery dialect writes such windows in BigQuery's own
    order (the same SQL, without a warning); other windows keep their NULLS LAST."""
    import logging

    sql = ("SELECT SUM(w) OVER (PARTITION BY b ORDER BY e ROWS BETWEEN UNBOUNDED PRECEDING "
           "AND 1 PRECEDING) AS s, ROW_NUMBER() OVER (ORDER BY e) AS k FROM t")
    tree = sqlglot.parse_one(sql, read="duckdb")
    with caplog.at_level(logging.WARNING, logger="sqlglot"):
        written = to_sql(tree, "bigquery")
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    assert written == ("SELECT SUM(w) OVER (PARTITION BY b ORDER BY e ROWS BETWEEN UNBOUNDED "
                       "PRECEDING AND 1 PRECEDING) AS s, ROW_NUMBER() OVER (ORDER BY e NULLS "
                       "LAST) AS k FROM t")
