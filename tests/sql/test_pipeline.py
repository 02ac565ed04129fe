"""A pipeline of named steps: one WITH query, or materialised tables in order."""

from __future__ import annotations

import duckdb
import sqlglot

from abcde.sql.pipeline import Pipeline


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
