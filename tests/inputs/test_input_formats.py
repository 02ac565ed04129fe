"""The same inputs from CSV, Parquet, a DuckDB database table and Python mappings give
the same numbers (and CSV ids keep their leading zeros)."""

from __future__ import annotations

import csv
import gzip
import json
import math
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from duck import duck
from reference import impact_overall

import abcde
from abcde.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


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


def test_ids_beyond_bigint(tmp_path: Path) -> None:
    """UBIGINT/HUGEINT ids (64-bit hashes) at and above 2^63, also beside BIGINT ids of
    another input and as cluster ids: compared exactly (as text), so the metrics are
    those of the same clusterings with small ids."""
    big = 2**63
    b = tmp_path / "b.parquet"
    w = tmp_path / "w.parquet"
    db = tmp_path / "e.duckdb"
    con = duckdb.connect(str(db))  # Parquet has no 128-bit integers: exp is a table
    con.execute(f"COPY (SELECT * FROM (VALUES ({big}::UBIGINT, {2**64 - 1}::UBIGINT), "
                f"({big + 1}::UBIGINT, {2**64 - 1}::UBIGINT), (5::UBIGINT, 7::UBIGINT)) "
                f"t(item_id, cluster_id)) TO '{b}' (FORMAT PARQUET)")
    con.execute(f"CREATE TABLE exp AS SELECT * FROM (VALUES ({big}::HUGEINT, 1), "
                f"({big + 1}::HUGEINT, 2), (5::HUGEINT, 2)) t(item_id, cluster_id)")
    con.execute(f"COPY (SELECT * FROM (VALUES (5::BIGINT, 2.0)) t(item_id, weight)) "
                f"TO '{w}' (FORMAT PARQUET)")
    con.close()
    got = overall_via_cli("--db", str(db), "--base", str(b), "--exp", "exp",
                          "--weights", str(w), "--missing-weight", "1")
    # the same clusterings with small ids: Base {x, y}{z}, Exp {x}{y, z}; z weighs 2
    expected = impact_overall({"x": 1, "y": 1, "z": 2}, {"x": 1, "y": 2, "z": 2},
                              {"x": 1.0, "y": 1.0, "z": 2.0})
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-12), key


@pytest.mark.parametrize("compression", ["gz", "zst"])
def test_compressed_csv(tmp_path: Path, compression: str) -> None:
    """x.csv.gz and x.csv.zst are CSV files (DuckDB decompresses them): the same numbers
    as the plain files, to rounding (DuckDB sums in parallel)."""
    paths = {}
    for name in ("base", "exp", "weights"):
        source = EXAMPLES / f"{name}.csv"
        path = tmp_path / f"{name}.csv.{compression}"
        if compression == "gz":
            path.write_bytes(gzip.compress(source.read_bytes()))
        else:  # zstd by DuckDB's own writer: no zstd command needed
            duckdb.connect().execute(
                f"COPY (SELECT * FROM read_csv('{source}', all_varchar = true)) "
                f"TO '{path}' (FORMAT csv, HEADER, COMPRESSION zstd)")
        paths[name] = str(path)
    got = overall_via_cli("--base", paths["base"], "--exp", paths["exp"],
                          "--weights", paths["weights"])
    plain = overall_via_cli("--base", str(EXAMPLES / "base.csv"),
                            "--exp", str(EXAMPLES / "exp.csv"),
                            "--weights", str(EXAMPLES / "weights.csv"))
    assert got.keys() == plain.keys()
    for key, value in plain.items():
        assert math.isclose(got[key], value, rel_tol=1e-12), key


def test_example_ideal_clustering_holds_the_truth() -> None:
    """examples/ideal.csv (the rehearsal oracle) clusters every item of Base, and each
    cluster of the human-made truth.csv is one whole ideal cluster (examples/README.md)."""
    def clusters(name: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        with (EXAMPLES / f"{name}.csv").open() as f:
            for row in csv.DictReader(f):
                out.setdefault(row["cluster_id"], set()).add(row["item_id"])
        return out

    ideal = clusters("ideal")
    ideal_items = set().union(*ideal.values())
    assert ideal_items == set().union(*clusters("base").values())
    ideal_sets = {frozenset(c) for c in ideal.values()}
    truth = clusters("truth")
    assert len(truth) > 100 and all(frozenset(c) in ideal_sets for c in truth.values())


QUOTE_HINT = ("The file seems to quote values with ' (single quotes): abcde reads CSV quoted "
              "with \" (RFC 4180), so a ' is part of the value and a delimiter inside '...' "
              "splits it. Quote with \" (export the file again with double quotes), or give "
              "the input as Parquet.")


@pytest.mark.parametrize(("text", "first"), [
    # quoted with ' throughout: a cluster id holding the delimiter splits in two
    ("'item_id','cluster_id'\n'a','c1'\n'b','c, 2'\n'c','c1'\n",
     "cannot parse {bad}: line 3: more fields than the 2 of the header"),
    # only the value that needs quoting, quoted with '
    ("item_id,cluster_id\na,c1\nb,'c, 2'\nc,c1\n",
     "cannot parse {bad}: line 3: more fields than the 2 of the header"),
    # nothing splits, but the header's names keep their quotes
    ("'item_id','cluster_id'\n'a','c1'\n'b','c2'\n'c','c1'\n",
     "no column 'item_id' (item ids); its columns are \"'item_id'\", \"'cluster_id'\""),
])
def test_a_csv_quoted_with_single_quotes_says_so(tmp_path: Path, text: str,
                                                 first: str) -> None:
    bad = tmp_path / "base.csv"
    bad.write_text(text)
    result = CliRunner().invoke(main, ["impact", str(bad), str(EXAMPLES / "exp.csv")])
    assert result.exit_code == 2, result.output
    assert first.format(bad=bad) in result.output
    assert result.output.rstrip().endswith(QUOTE_HINT), result.output
    assert "Traceback" not in result.output


def test_a_line_of_more_fields_without_single_quotes_keeps_the_general_hint(
        tmp_path: Path) -> None:
    """An apostrophe inside a value (O'Brien) is not a field opening with ': no word of
    single quotes."""
    bad = tmp_path / "base.csv"
    bad.write_text("item_id,cluster_id\na,c1\nb,O'Brien, Pat\nc,c1\n")
    result = CliRunner().invoke(main, ["impact", str(bad), str(EXAMPLES / "exp.csv")])
    assert result.exit_code == 2
    assert "line 3: more fields than the 2 of the header" in result.output
    assert "Every line needs as many fields as the header" in result.output
    assert "single quotes" not in result.output


def test_a_judgement_file_quoted_with_single_quotes_says_so(tmp_path: Path) -> None:
    """The judgement and score files are read by DuckDB as the inputs are
    (abcde.inputs.records): the same words."""
    from abcde.errors import InputError
    from abcde.inputs.records import read_records

    path = tmp_path / "j.csv"
    path.write_text("'pair_id','verdict'\n'1','equivalent'\n'2','not, sure'\n")
    with pytest.raises(InputError) as err:
        read_records(path, what="judgement file")
    assert str(err.value).startswith(
        f"judgement file {path}, line 3: more fields than the 2 of the header")
    assert err.value.hint == QUOTE_HINT
    path.write_text("pair_id,verdict\n1,equivalent\n2,O'Brien, Pat\n")
    with pytest.raises(InputError) as err:
        read_records(path, what="judgement file")
    assert "single quotes" not in str(err.value)


def test_parquet_decimal_and_uuid_ids(tmp_path: Path) -> None:
    """A Parquet DECIMAL(20,0) id (an unsigned 64-bit key) is an integer id compared as
    text, a DECIMAL(10,0) one an integer id like a BIGINT, and a UUID one an id of text
    that matches the same UUIDs as text: each was refused as 'ids must be integers or
    strings'. Base {x, y}, Exp {x}, {y}: both items affected (by hand)."""
    u1, u2 = "0b5e8a8e-2f6b-4a53-9d1c-3c9f2f0e1a01", "7f000000-0000-4000-8000-00000000000b"
    cases = {"dec20": (f"{2**64 - 1}::DECIMAL(20,0)", "7::DECIMAL(20,0)", "DECIMAL(20,0)"),
             "dec10": ("8::DECIMAL(10,0)", "7::DECIMAL(10,0)", "BIGINT"),
             "uuid": (f"'{u1}'::UUID", f"'{u2}'::UUID", "VARCHAR")}
    for name, (x, y, exp_type) in cases.items():
        base, exp = tmp_path / f"{name}_b.parquet", tmp_path / f"{name}_e.parquet"
        duck(f"COPY (SELECT * FROM (VALUES ({x}, 1), ({y}, 1)) t(item_id, cluster_id)) "
             f"TO '{base}'")
        ex, ey = (f"'{u1}'", f"'{u2}'") if name == "uuid" else (x, y)
        duck(f"COPY (SELECT CAST(item_id AS {exp_type}) AS item_id, cluster_id FROM "
             f"(VALUES ({ex}, 1), ({ey}, 2)) t(item_id, cluster_id)) TO '{exp}'")
        result = abcde.impact(str(base), str(exp))
        assert (result.overall["items"], result.overall["affected_items"]) == (2, 2), name
