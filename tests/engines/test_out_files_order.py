"""The files of `impact --out` and `evaluate --out` hold their rows in the order of each
table's key (cluster id, slice values), the same on every engine: the same inputs give
the same file contents, row by row, on DuckDB and PostgreSQL (the `engine` fixture's
PostgreSQL, tests/conftest.py)."""

from __future__ import annotations

import csv
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from abcde.engines import Engine
from abcde.engines.duckdb import DuckDBEngine
from abcde.engines.postgres import PostgresEngine
from abcde.evaluation.run import evaluate
from abcde.impact.run import impact

# keys of each file: in code point order ('B' < 'a'), NULL last (DuckDB's and
# PostgreSQL's ascending order, and Spark's as abcde asks it)
KEYS = {"base_clusters": ["cluster_id"], "exp_clusters": ["cluster_id"],
        "truth_clusters": ["cluster_id"], "actual_clusters": ["cluster_id"],
        "yandex_themes": ["cluster_id"], "slices_region": ["region"],
        "slices_region_tier": ["region", "tier"]}


def _case() -> dict[str, Any]:
    """400 items in some 150 clusters whose ids mix upper and lower case (a collation
    other than code point order sorts them differently), two attributes with NULLs."""
    rng = random.Random(3)
    names = [f"{c}{k}" for c in "aBcD" for k in range(40)]
    items = [f"i{k:04d}" for k in range(400)]
    base = {i: rng.choice(names) for i in items}
    exp = {i: (base[i] if rng.random() < 0.6 else rng.choice(names)) for i in items}
    regions = ["eu", "US", "asia", "Africa", None]
    attributes = {i: {"region": rng.choice(regions), "tier": rng.choice([1, 2, 3, None])}
                  for i in items}
    return {"base": base, "exp": exp, "attributes": attributes}


def _rows(path: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect()
    try:
        return con.execute(f"SELECT * FROM read_parquet('{path}')").fetchall()
    finally:
        con.close()


def _files(engine: Any, out: Path) -> dict[str, Path]:
    c = _case()
    slice_by = ["region", "region,tier"]
    impact(c["base"], c["exp"], attributes=c["attributes"], slice_by=slice_by,
           engine=engine, out=out / "impact")
    evaluate(c["base"], [c["exp"]], names=["run"], attributes=c["attributes"],
             slice_by=slice_by, engine=engine, out=out / "evaluate")
    return {f"{p.parent.name}/{p.stem}": p for p in sorted(out.rglob("*.parquet"))}


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)
    return a == b


def _sort_key(value: object) -> tuple[int, object]:
    return (1, "") if value is None else (0, value)


@pytest.fixture(params=["C", "en-US"])
def database(request: pytest.FixtureRequest, postgres_dsn: str) -> Iterator[str]:
    """The test server's database (locale C), or one whose collation is ICU's English
    ('a' < 'B' < 'c': not code point order)."""
    if request.param == "C":
        yield postgres_dsn
        return
    import psycopg

    name = "abcde_order_en"
    with psycopg.connect(postgres_dsn, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {name}")
        con.execute(f"CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu "
                    "ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
    try:
        yield postgres_dsn.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as con:
            con.execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.postgres
def test_out_files_are_ordered_by_key_and_alike_on_duckdb_and_postgres(
        database: str, tmp_path: Path) -> None:
    with DuckDBEngine(threads=4) as duck:
        duck_files = _files(duck, tmp_path / "duckdb")
    with PostgresEngine(database) as pg:
        pg_files = _files(pg, tmp_path / "postgres")
    assert sorted(duck_files) == sorted(pg_files)
    assert len(duck_files) == 9
    for name, path in duck_files.items():
        duck_rows, pg_rows = _rows(path), _rows(pg_files[name])
        assert len(duck_rows) == len(pg_rows) > 4, name
        for k, (d, p) in enumerate(zip(duck_rows, pg_rows, strict=True)):
            assert all(_same(x, y) for x, y in zip(d, p, strict=True)), (name, k, d, p)
        con = duckdb.connect()
        cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM '{path}'").fetchall()]
        con.close()
        key = KEYS[path.stem]
        keys = [tuple(_sort_key(r[cols.index(c)]) for c in key) for r in duck_rows]
        assert keys == sorted(keys), name
        assert len(set(keys)) == len(keys), name


def test_csv_files_spell_non_finite_slice_keys_as_the_json_does(engine: Engine,
                                                              tmp_path: Path) -> None:
    """A float slice key that is NaN or infinite is NaN, Infinity, -Infinity in the CSV
    files of --out, as in the JSON (and the warehouse scripts' slice keys): DuckDB's
    nan, inf, -inf did not match them. Finite floats stay as DuckDB writes them."""
    values = ["'NaN'", "'Infinity'", "'-Infinity'", "0.5", "1e16", "NULL"]
    items = [f"i{k}" for k in range(12)]
    base = {i: f"b{k % 3}" for k, i in enumerate(items)}
    exp = {i: f"e{k % 4}" for k, i in enumerate(items)}
    attributes = tmp_path / "attributes.parquet"  # a mapping's NaN would be NULL
    rows = ", ".join(f"('{i}', CAST({values[k % len(values)]} AS DOUBLE))"
                     for k, i in enumerate(items))
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * FROM (VALUES {rows}) v(item_id, score)) TO "
                f"'{attributes}' (FORMAT PARQUET)")
    con.close()
    result = impact(base, exp, attributes=attributes, slice_by="score", engine=engine,
                    out=tmp_path / "out", out_format="csv")
    with open(result.files["slices_score"], newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # ordered by the number: -Infinity first, NaN after Infinity, NULL (empty) last
    assert [r["score"] for r in rows] == ["-Infinity", "0.5", "1e+16", "Infinity", "NaN", ""]
    from_json = {r["score"]: r["items"] for r in result.to_dict()["slices"][0]["rows"]}
    assert len(from_json) == 6
    assert {"NaN", "Infinity", "-Infinity"} <= set(from_json)
    for r in rows:
        if r["score"] in ("NaN", "Infinity", "-Infinity"):
            assert int(r["items"]) == from_json[r["score"]] == 2
