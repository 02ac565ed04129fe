"""The same inputs from CSV, Parquet, a DuckDB database table and Python mappings give
the same numbers (and CSV ids keep their leading zeros)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from reference import impact_overall

import abcde
from abcde.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def overall_via_cli(*args: str) -> dict:
    result = CliRunner().invoke(main, ["impact", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["overall"]


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> dict[str, Path]:
    """The example data as Parquet files and as tables of a DuckDB database file."""
    d = tmp_path_factory.mktemp("formats")
    con = duckdb.connect(str(d / "inputs.duckdb"))
    for name in ("base", "exp", "weights"):
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_csv('{EXAMPLES / name}.csv',"
                    " types = {'item_id': 'VARCHAR', 'cluster_id': 'VARCHAR'})"
                    if name != "weights" else
                    f"CREATE TABLE {name} AS SELECT * FROM read_csv('{EXAMPLES / name}.csv',"
                    " types = {'item_id': 'VARCHAR'})")
        con.execute(f"COPY {name} TO '{d / name}.parquet' (FORMAT PARQUET)")
    con.close()
    return {"dir": d, "db": d / "inputs.duckdb"}


def test_csv_parquet_and_duckdb_table_agree(copies) -> None:
    csv = overall_via_cli("--base", str(EXAMPLES / "base.csv"), "--exp",
                          str(EXAMPLES / "exp.csv"), "--weights", str(EXAMPLES / "weights.csv"))
    d = copies["dir"]
    pq = overall_via_cli("--base", str(d / "base.parquet"), "--exp", str(d / "exp.parquet"),
                         "--weights", str(d / "weights.parquet"))
    db = overall_via_cli("--db", str(copies["db"]), "--base", "base", "--exp", "exp",
                         "--weights", "weights")
    assert csv.keys() == pq.keys() == db.keys()
    for key in csv:
        assert math.isclose(csv[key], pq[key], rel_tol=1e-12), key
        assert math.isclose(csv[key], db[key], rel_tol=1e-12), key


def test_example_data_matches_the_definitions() -> None:
    """The example data through the API equals the brute-force definitions."""
    def read(name: str, value: str) -> dict:
        rows = duckdb.connect().execute(
            f"SELECT item_id, {value} FROM read_csv('{EXAMPLES / name}.csv', "
            "types = {'item_id': 'VARCHAR'})").fetchall()
        return dict(rows)

    base, exp = read("base", "cluster_id"), read("exp", "cluster_id")
    weight = read("weights", "weight")
    got = abcde.impact(base, exp, weight).overall
    expected = impact_overall(base, exp, weight)
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-12), key


def test_database_is_not_modified(copies) -> None:
    before = copies["db"].stat().st_mtime_ns
    overall_via_cli("--db", str(copies["db"]), "--base", "base", "--exp", "exp")
    assert copies["db"].stat().st_mtime_ns == before
    con = duckdb.connect(str(copies["db"]), read_only=True)
    tables = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
    assert tables == {"base", "exp", "weights"}


def test_csv_ids_keep_leading_zeros(tmp_path: Path) -> None:
    """'007' and '7' are different items: CSV ids are read as text, never as numbers."""
    (tmp_path / "b.csv").write_text("item_id,cluster_id\n007,1\n7,1\n")
    (tmp_path / "e.csv").write_text("item_id,cluster_id\n007,1\n7,2\n")
    o = overall_via_cli("--base", str(tmp_path / "b.csv"), "--exp", str(tmp_path / "e.csv"))
    assert o["items"] == 2 and o["affected_items"] == 2
