"""Every validation case of the impact issue through the CLI: exit code 2 and a message
naming the table, the column, example ids and what to do — never a traceback or a number."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from abcde.cli import main


def parquet(path: Path, sql: str) -> str:
    """Write the rows of a DuckDB query to a Parquet file."""
    duckdb.connect().execute(f"COPY ({sql}) TO '{path}' (FORMAT PARQUET)")
    return str(path)


def csv(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def run(*args: str):
    return CliRunner().invoke(main, ["impact", *args])


def refused(result, *needles: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert result.output.startswith("error:"), result.output
    for needle in needles:
        assert needle in result.output, f"{needle!r} not in:\n{result.output}"


GOOD_BASE = "item_id,cluster_id\n1,a\n2,a\n3,b\n"
GOOD_EXP = "item_id,cluster_id\n1,x\n2,y\n3,y\n"


@pytest.fixture
def good(tmp_path: Path) -> dict[str, str]:
    return {"base": csv(tmp_path / "base.csv", GOOD_BASE),
            "exp": csv(tmp_path / "exp.csv", GOOD_EXP)}


def test_good_input_passes(good) -> None:
    result = run("--base", good["base"], "--exp", good["exp"], "--format", "json")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("side", ["base", "exp"])
def test_duplicate_item_id_in_a_clustering(tmp_path: Path, good, side: str) -> None:
    bad = csv(tmp_path / "dup.csv", "item_id,cluster_id\n1,a\n2,a\n2,b\n3,b\n")
    args = {**good, side: bad}
    refused(run("--base", args["base"], "--exp", args["exp"]),
            f"table {side} (", "column 'item_id'", "more than one row", "'2' (2 rows)",
            "exactly one cluster", "Remove the duplicate rows")


def test_duplicate_item_id_only_in_one_clustering(tmp_path: Path, good) -> None:
    """An item outside T repeated on its side is refused too (it is still a bad input)."""
    bad = csv(tmp_path / "dup.csv", GOOD_BASE + "9,c\n9,d\n")
    refused(run("--base", bad, "--exp", good["exp"]), "table base (", "'9' (2 rows)")


def test_duplicate_item_id_in_weights(tmp_path: Path, good) -> None:
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n2,2\n3,3\n3,4\n")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w),
            "table weights (", "'3' (2 rows)", "one weight per item")


def test_null_item_id(tmp_path: Path, good) -> None:
    b = parquet(tmp_path / "b.parquet",
                "SELECT * FROM (VALUES ('1', 'a'), (NULL, 'a'), ('2', 'a'), ('3', 'b'))"
                " t(item_id, cluster_id)")
    e = parquet(tmp_path / "e.parquet",
                "SELECT * FROM (VALUES ('1', 'x'), ('2', 'y'), ('3', 'y')) t(item_id, cluster_id)")
    refused(run("--base", b, "--exp", e), "table base (", "column 'item_id'",
            "1 row(s) have a NULL item id")


def test_null_cluster_id(tmp_path: Path, good) -> None:
    e = parquet(tmp_path / "e.parquet",
                "SELECT * FROM (VALUES ('1', 'x'), ('2', NULL), ('3', 'y')) t(item_id, cluster_id)")
    b = parquet(tmp_path / "b.parquet",
                "SELECT * FROM (VALUES ('1', 'a'), ('2', 'a'), ('3', 'b')) t(item_id, cluster_id)")
    refused(run("--base", b, "--exp", e), "table exp (", "column 'cluster_id'",
            "NULL cluster id", "examples: '2'")


@pytest.mark.parametrize("value", ["NULL", "0.0", "-1.5", "'NaN'::DOUBLE",
                                   "'Infinity'::DOUBLE", "'-Infinity'::DOUBLE"])
def test_bad_weight(tmp_path: Path, good, value: str) -> None:
    w = parquet(tmp_path / "w.parquet",
                f"SELECT * FROM (VALUES ('1', 1.0), ('2', {value}), ('3', 2.0)) t(item_id, weight)")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w),
            "table weights (", "column 'weight'", "NULL, NaN, infinite, zero or negative",
            "examples: '2'", "finite numbers > 0")


def test_bad_weight_of_an_item_in_no_clustering_is_not_used(tmp_path: Path, good) -> None:
    """Only weights that meet an item are checked: a NaN weight of an item neither
    clustering holds is an unused row, not an error, and the metrics are those of the
    used weights (brute force: Base {1,2}{3}, Exp {1}{2,3}, weights 1, 2, 3)."""
    w = parquet(tmp_path / "w.parquet",
                "SELECT * FROM (VALUES ('1', 1.0), ('2', 2.0), ('3', 3.0), ('9', 'NaN'::DOUBLE))"
                " t(item_id, weight)")
    result = run("--base", good["base"], "--exp", good["exp"], "--weights", w,
                 "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["coverage"]["unused_weights"] == {"rows": 1, "examples": ["9"]}
    # SplitRate(i) = W(b(i) minus c(i)) / W(b(i)): item 1: 2/3, item 2: 1/3, item 3: 0
    expected = (1 * 2 / 3 + 2 * 1 / 3 + 3 * 0) / 6
    assert out["overall"]["split_rate"] == pytest.approx(expected, rel=1e-12)


def test_bad_weight_of_an_item_in_one_clustering(tmp_path: Path, good) -> None:
    """An item outside T still meets the weights table, so its weight is checked."""
    b = csv(tmp_path / "b.csv", GOOD_BASE + "9,c\n")
    w = parquet(tmp_path / "w.parquet",
                "SELECT * FROM (VALUES ('1', 1.0), ('2', 2.0), ('3', 3.0), ('9', -1.0))"
                " t(item_id, weight)")
    refused(run("--base", b, "--exp", good["exp"], "--weights", w),
            "table weights (", "column 'weight'", "examples: '9'")


def test_bad_weight_in_a_clustering_column(tmp_path: Path, good) -> None:
    b = csv(tmp_path / "b.csv", "item_id,cluster_id,weight\n1,a,1\n2,a,-3\n3,b,1\n")
    refused(run("--base", b, "--exp", good["exp"]), "table base (", "column 'weight'",
            "examples: '2'")


def test_weight_column_that_is_not_numeric(tmp_path: Path, good) -> None:
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,heavy\n2,light\n3,light\n")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w),
            "table weights (", "column 'weight'", "must be numbers")


def test_no_common_items(tmp_path: Path, good) -> None:
    e = csv(tmp_path / "e.csv", "item_id,cluster_id\n7,x\n8,y\n")
    refused(run("--base", good["base"], "--exp", e), "no item id in common", "--item-col")


def test_item_ids_of_different_types(tmp_path: Path) -> None:
    b = parquet(tmp_path / "b.parquet",
                "SELECT * FROM (VALUES (1, 'a'), (2, 'a')) t(item_id, cluster_id)")
    e = parquet(tmp_path / "e.parquet",
                "SELECT * FROM (VALUES ('1', 'x'), ('2', 'y')) t(item_id, cluster_id)")
    refused(run("--base", b, "--exp", e), "different types", "integer", "string",
            "column 'item_id'")


def test_item_ids_that_are_floats(tmp_path: Path) -> None:
    b = parquet(tmp_path / "b.parquet",
                "SELECT * FROM (VALUES (1.5, 'a'), (2.5, 'a')) t(item_id, cluster_id)")
    refused(run("--base", b, "--exp", b), "integers or strings", "column 'item_id'")


def test_missing_column(tmp_path: Path, good) -> None:
    b = csv(tmp_path / "b.csv", "item,cluster\n1,a\n")
    refused(run("--base", b, "--exp", good["exp"]), "table base (", "no column 'item_id'",
            "'item', 'cluster'", "--item-col")


def test_configured_column_names(tmp_path: Path) -> None:
    b = csv(tmp_path / "b.csv", "item,cluster,importance\n1,a,1\n2,a,2\n3,b,3\n")
    e = csv(tmp_path / "e.csv", "item,cluster,importance\n1,x,1\n3,x,3\n2,y,2\n")
    result = run("--base", b, "--exp", e, "--item-col", "item", "--cluster-col", "cluster",
                 "--weight-col", "importance", "--format", "json")
    assert result.exit_code == 0, result.output
    overall = json.loads(result.output)["overall"]
    # Figure 2 of the pointwise paper: JD = 3/8, precision = 1 − MergeRate = 3/4
    assert math.isclose(overall["jaccard_distance"], 3 / 8, rel_tol=1e-12)
    assert math.isclose(overall["merge_rate"], 1 / 4, rel_tol=1e-12)


def test_empty_input(tmp_path: Path, good) -> None:
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n")
    refused(run("--base", b, "--exp", good["exp"]), "table base (", "is empty")


def test_weights_table_lacking_items(tmp_path: Path, good) -> None:
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w),
            "table weights (", "lacks 2 item(s)", "examples: '2', '3'", "--missing-weight 1")
    result = run("--base", good["base"], "--exp", good["exp"], "--weights", w,
                 "--missing-weight", "1", "--format", "json")
    assert result.exit_code == 0, result.output


def test_unreadable_files(tmp_path: Path, good) -> None:
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"this is not parquet at all")
    refused(run("--base", str(junk), "--exp", good["exp"]), "table base (", "cannot read")
    refused(run("--base", str(tmp_path / "missing.csv"), "--exp", good["exp"]),
            "does not exist")
    refused(run("--base", str(tmp_path), "--exp", good["exp"]), "directory")
    refused(run("--base", "not_a_table", "--exp", good["exp"]), "not_a_table")


def test_several_problems_are_reported_together(tmp_path: Path) -> None:
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n1,a\n2,a\n3,\n")
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,0\n2,1\n3,1\n")
    refused(run("--base", b, "--exp", b, "--weights", w), "problems with the input",
            "1 item(s) have a NULL cluster id", "1 weight(s) are NULL, NaN, infinite")


def test_attributes_without_slices_report_true_coverage(tmp_path: Path, good) -> None:
    """--attributes without --slice-by still matches the attributes to the items: only
    item 3 lacks a row, and the row of item 8 matches no item."""
    a = csv(tmp_path / "a.csv", "item_id,color\n1,red\n2,blue\n8,red\n")
    result = run("--base", good["base"], "--exp", good["exp"], "--attributes", a,
                 "--format", "json")
    assert result.exit_code == 0, result.output
    cov = json.loads(result.output)["coverage"]
    assert cov["without_attributes"] == {"items": 1, "examples": ["3"]}
    assert cov["unused_attributes"] == {"rows": 1, "examples": ["8"]}


def test_missing_weights_counted_per_item_not_per_cell(tmp_path: Path) -> None:
    """Three items of one cell lack a weight: the message counts items (3), not cells."""
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n1,a\n2,a\n3,a\n4,a\n")
    e = csv(tmp_path / "e.csv", "item_id,cluster_id\n1,x\n2,x\n3,x\n4,x\n")
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,2.5\n")
    refused(run("--base", b, "--exp", e, "--weights", w), "table weights (",
            "lacks 3 item(s)", "examples: '2', '3', '4'")


def test_coverage_weights_of_items_in_one_clustering(tmp_path: Path, good) -> None:
    """Items outside T: their weight when the weights table has one, else counted as
    without weight; weights rows of items in no clustering are unused rows."""
    b = csv(tmp_path / "b.csv", GOOD_BASE + "8,c\n9,c\n")
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n2,2\n3,3\n8,4.5\n7,1\n")
    result = run("--base", b, "--exp", good["exp"], "--weights", w, "--format", "json")
    assert result.exit_code == 0, result.output
    cov = json.loads(result.output)["coverage"]
    assert cov["only_in_base"] == {"items": 2, "weight": 4.5, "examples": ["8", "9"],
                                   "items_without_weight": 1}
    assert cov["unused_weights"] == {"rows": 1, "examples": ["7"]}
    assert cov["weight_in_both"] == 6.0
