"""User-given names and values reach SQL only quoted (abcde.sql.quoting)."""

from __future__ import annotations

import math

import sqlglot

import abcde
from abcde.sql.dialects import to_sql
from abcde.sql.quoting import ident, table_ref


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
