"""The dialects (abcde.sql.dialects): one class per target, found by name or given as an
object, every engine difference in them and nowhere else in the package."""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import ClassVar

import duckdb
import pytest
import sqlglot
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


def duck(sql: str) -> list[tuple]:
    return duckdb.connect().execute(sql).fetchall()


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
