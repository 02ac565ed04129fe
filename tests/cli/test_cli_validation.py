"""Every validation case of the impact issue through the CLI: exit code 2 and a message
naming the table, the column, example ids and what to do — never a traceback or a number."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from reference import impact_by_group, impact_overall
from structures import same

import abcde
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
    """Exit 2 with abcde's message or click's (a bad option value), no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert "error:" in result.output.lower(), result.output
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


def test_clusterings_given_positionally(good, tmp_path: Path) -> None:
    """`abcde impact base.csv exp.csv` is `--base base.csv --exp exp.csv` (the brief's
    laptop command); the samplers take the same form."""
    by_option = run("--base", good["base"], "--exp", good["exp"], "--format", "json")
    positional = run(good["base"], good["exp"], "--format", "json")
    assert positional.exit_code == 0, positional.output
    same(json.loads(positional.output)["overall"], json.loads(by_option.output)["overall"])
    assert json.loads(positional.output)["overall"]["split_rate"] == pytest.approx(
        impact_overall({1: "a", 2: "a", 3: "b"}, {1: "x", 2: "y", 3: "y"},
                       {1: 1.0, 2: 1.0, 3: 1.0})["split_rate"])
    out = tmp_path / "round"
    result = CliRunner().invoke(main, ["sample-pairs", good["base"], good["exp"],
                                       "--budget", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "questions.csv").exists()


@pytest.mark.parametrize(("args", "needle"), [
    (["{base}"], "expected two clusterings, BASE EXP; got 1"),
    (["{base}", "{exp}", "{exp}"], "expected two clusterings, BASE EXP; got 3"),
    (["{base}", "{exp}", "--base", "{base}"], "not both"),
    (["--base", "{base}"], "missing --exp"),
    ([], "missing --base and --exp"),
])
def test_clusterings_given_wrongly(good, args: list[str], needle: str) -> None:
    result = run(*(a.format(**good) for a in args))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert needle in result.output, result.output


@pytest.mark.parametrize("side", ["base", "exp"])
def test_duplicate_item_id_in_a_clustering(tmp_path: Path, good, side: str) -> None:
    bad = csv(tmp_path / "dup.csv", "item_id,cluster_id\n1,a\n2,a\n2,b\n3,b\n")
    args = {**good, side: bad}
    refused(run("--base", args["base"], "--exp", args["exp"]),
            f"table {side} (", "column 'item_id'", "more than one row", "'2' (2 rows)",
            "exactly one cluster", "Remove the duplicate rows")


def test_duplicate_item_id_in_two_clusters_is_told_apart(tmp_path: Path, good) -> None:
    """Rows of one item in different clusters are no mere duplicates to remove: the
    message says in how many clusters, and that the item must be put in one; repeated
    identical rows keep the plain hint."""
    bad = csv(tmp_path / "dup.csv", "item_id,cluster_id\n1,a\n2,a\n2,b\n3,b\n3,b\n")
    result = run("--base", bad, "--exp", good["exp"])
    refused(result, "2 item id(s) appear on more than one row", "'2' (2 rows) in 2 clusters",
            "'3' (2 rows)", "must be put in one of them")
    assert "'3' (2 rows) in" not in result.output
    same = csv(tmp_path / "same.csv", "item_id,cluster_id\n1,a\n2,a\n3,b\n3,b\n")
    result = run("--base", same, "--exp", good["exp"])
    refused(result, "'3' (2 rows)", "Remove the duplicate rows.")
    assert "clusters" not in result.output.split("examples:")[1]


def test_a_truth_item_without_a_cluster_is_told_to_be_dropped(tmp_path: Path, good) -> None:
    """evaluate: a NULL truth cluster is an unlabelled item; the hint said to give it a
    singleton cluster, which would label it (and count a run grouping it as wrong). A
    run's (or impact's) NULL cluster keeps that hint."""
    t = csv(tmp_path / "t.csv", "item_id,cluster_id\n1,a\n2,\n3,b\n")
    result = CliRunner().invoke(main, ["evaluate", "--truth", t, "--actual", good["exp"]])
    refused(result, "table truth (", "1 item(s) have a NULL cluster id", "drop the rows")
    assert "singleton" not in result.output
    result = CliRunner().invoke(main, ["evaluate", "--truth", good["base"], "--actual", t])
    refused(result, "table actual (", "a singleton cluster id of its own")


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
            "table weights (", "column 'weight'", "NULL, NaN, infinite, zero, negative or outside",
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


def test_no_common_items_shows_ids_of_both(tmp_path: Path, good) -> None:
    """Each clustering's ids are shown, and ids written as decimals (pandas' 7.0) are
    named as such: the message used to show no id at all."""
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n1.0,a\n2.0,a\n3.0,b\n")
    refused(run("--base", b, "--exp", good["exp"]), "no item id in common",
            "base (", "has e.g. '1.0', '2.0', '3.0'", "has e.g. '1', '2', '3'",
            "written as decimals (7.0)")
    e = csv(tmp_path / "e.csv", "item_id,cluster_id\nitem_1,x\nitem_2,y\n")
    result = run("--base", good["base"], "--exp", e)
    refused(result, "has e.g. 'item_1', 'item_2'")
    assert "decimals" not in result.output


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
            "1 item(s) have a NULL cluster id",
            "1 item(s) have a weight that is NULL, NaN, infinite")


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


# --- the audit of the impact command's inputs (issue 2) --------------------------------

AUDIT_BASE = {"a": 1, "b": 1, "c": 2, "d": 2, "e": 3}  # {a,b}{c,d}{e}
AUDIT_EXP = {"a": 1, "b": 2, "c": 2, "d": 2, "e": 3}  # {a}{b,c,d}{e}


def test_weight_col_named_by_the_user_must_exist(good) -> None:
    """An explicit --weight-col that no input has is a typo, not 'no weights'."""
    refused(run("--base", good["base"], "--exp", good["exp"], "--weight-col", "views"),
            "--weight-col names column 'views'", "neither clustering has", "base (",
            "exp (", "--weights")
    with pytest.raises(abcde.InputError, match="views"):
        abcde.impact(good["base"], good["exp"], weight_col="views")


@pytest.mark.parametrize("value", ["1e308", "5e-324", "1.5e100", "9e-101"])
def test_weights_outside_the_accepted_range(tmp_path: Path, good, value: str) -> None:
    """Only ratios of weights matter; a weight outside [1e-100, 1e100] would overflow a
    sum to inf or lose digits as a subnormal, so it is refused with its id."""
    w = csv(tmp_path / "w.csv", f"item_id,weight\n1,1\n2,{value}\n3,2\n")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w),
            "table weights (", "column 'weight'", "outside [1e-100, 1e100]",
            "examples: '2'", "rescale")
    b = csv(tmp_path / "b.csv", f"item_id,cluster_id,weight\n1,a,1\n2,a,{value}\n3,b,1\n")
    refused(run("--base", b, "--exp", good["exp"], "--format", "json"), "table base (",
            "outside [1e-100, 1e100]", "examples: '2'")


def test_weights_at_the_ends_of_the_range_give_the_definitions() -> None:
    """Weights of 1e100 beside 1e-100: every metric equals the brute-force definition
    and JaccardDistance = SplitDistance + MergeDistance."""
    weight = {"a": 1e100, "b": 1e-100, "c": 1.0, "d": 1e50, "e": 1e-100}
    got = abcde.impact(AUDIT_BASE, AUDIT_EXP, weight).overall
    expected = impact_overall(AUDIT_BASE, AUDIT_EXP, weight)
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-12, abs_tol=1e-300), key
    assert math.isclose(got["jaccard_distance"],
                        got["split_distance"] + got["merge_distance"], rel_tol=1e-12)


def test_missing_weight_outside_the_range(tmp_path: Path, good) -> None:
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w,
                "--missing-weight", "1e-300"), "--missing-weight", "[1e-100, 1e100]")


def test_nan_slice_value_in_json(tmp_path: Path) -> None:
    """A float slice column holding NaN: JSON says "NaN" (a string; a NULL value stays
    null), and the slices' numbers are those of the definitions."""
    base = parquet(tmp_path / "b.parquet", "SELECT * FROM (VALUES ('a', 1), ('b', 1), "
                   "('c', 2), ('d', 2), ('e', 3)) t(item_id, cluster_id)")
    exp = parquet(tmp_path / "e.parquet", "SELECT * FROM (VALUES ('a', 1), ('b', 2), "
                  "('c', 2), ('d', 2), ('e', 3)) t(item_id, cluster_id)")
    attrs = parquet(tmp_path / "a.parquet", "SELECT * FROM (VALUES ('a', 'NaN'::DOUBLE), "
                    "('b', 1.5), ('c', 'NaN'::DOUBLE), ('d', NULL), ('e', 2.0)) t(item_id, x)")
    result = run("--base", base, "--exp", exp, "--attributes", attrs, "--slice-by", "x",
                 "--format", "json")
    assert result.exit_code == 0, result.output
    rows = {r["x"]: r for r in json.loads(result.output)["slices"][0]["rows"]}
    assert set(rows) == {"NaN", 1.5, None, 2.0}
    slice_of = {"a": "NaN", "b": 1.5, "c": "NaN", "d": None, "e": 2.0}
    expected = impact_by_group(AUDIT_BASE, AUDIT_EXP, dict.fromkeys(AUDIT_BASE, 1.0),
                               slice_of)
    for key, row in expected.items():
        for metric, value in row.items():
            assert math.isclose(rows[key][metric], value, rel_tol=1e-12), (key, metric)


def test_float_ids_are_named_with_their_own_type(tmp_path: Path) -> None:
    b = parquet(tmp_path / "b.parquet",
                "SELECT * FROM (VALUES (1, 'a'), (2, 'a')) t(item_id, cluster_id)")
    e = parquet(tmp_path / "e.parquet",
                "SELECT * FROM (VALUES (1.0, 'x'), (2.0, 'y')) t(item_id, cluster_id)")
    result = run("--base", b, "--exp", e)
    refused(result, "table exp (", "DECIMAL(2,1)", "integers or strings")
    assert "INTEGER" not in result.output


@pytest.mark.parametrize(("column", "sql_type", "extra"), [
    ("item_id", "[item_id]", ()), ("cluster_id", "{'k': cluster_id}", ()),
    ("weight", "[1.0]", ()), ("s", "[1, 2]", ("--slice-by", "s"))])
def test_nested_columns_are_refused(tmp_path: Path, column: str, sql_type: str,
                                    extra: tuple[str, ...]) -> None:
    """A list or struct is not an id, a weight or a slice value (exit 2, not a cast
    error)."""
    cols = {"item_id": "item_id", "cluster_id": "cluster_id", "weight": "1.0 AS weight",
            "s": "1 AS s"}
    cols[column] = f"{sql_type} AS {column}"
    select = ", ".join(cols.values())
    data = "SELECT * FROM (VALUES ('a', 'x'), ('b', 'y')) t(item_id, cluster_id)"
    f = parquet(tmp_path / "f.parquet", f"SELECT {select} FROM ({data})")
    plain = parquet(tmp_path / "p.parquet", data)
    attrs = ("--attributes", f) if extra else ()
    base = plain if extra else f
    refused(run("--base", base, "--exp", plain, *attrs, *extra), f"column '{column}'",
            "[]" if sql_type.startswith("[") else "STRUCT", "single values")


def test_bad_value_past_the_sniffed_rows(tmp_path: Path, good) -> None:
    """DuckDB types a CSV column from its first rows; a bad value further down names the
    table, the line, the column and the value (exit 2, not a raw conversion error)."""
    n = 30_000
    ids = "".join(f"{i},c{i % 100}\n" for i in range(n))
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n" + ids)
    w = csv(tmp_path / "w.csv",
            "item_id,weight\n" + "".join(f"{i},1\n" for i in range(n - 1)) + f"{n - 1},abc\n")
    refused(run("--base", b, "--exp", b, "--weights", w), "table weights (",
            "column 'weight'", f"line {n + 1}", "'abc'", "DOUBLE")
    a = csv(tmp_path / "a.csv",
            "item_id,s\n" + "".join(f"{i},{i}\n" for i in range(n - 1)) + f"{n - 1},x\n")
    refused(run("--base", b, "--exp", b, "--attributes", a, "--slice-by", "s"),
            "table attributes (", "column 's'", f"line {n + 1}", "'x'")


def test_non_numeric_weights_show_the_values(tmp_path: Path, good) -> None:
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n2,abc\n3,NULL\n")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w),
            "table weights (", "column 'weight'", "2 value(s) are not numbers",
            "'2': 'abc'", "'3': 'NULL'", "plain numbers", "--missing-weight")


def test_weights_with_a_decimal_comma_say_so(tmp_path: Path, good) -> None:
    """A European spreadsheet's export (';', 0,75) was told only 'write weights as plain
    numbers (e.g. 1.5)', which they look like to the one who wrote them."""
    w = csv(tmp_path / "w.csv", "item_id;weight\n1;0,75\n2;1.234,5\n3;2\n")
    result = run("--base", good["base"], "--exp", good["exp"], "--weights", w)
    refused(result, "table weights (", "column 'weight'", "2 value(s) are not numbers",
            "'1': '0,75'", "is written with a decimal comma", "with a decimal point",
            "--missing-weight")
    assert "plain numbers" not in result.output


def test_empty_files(tmp_path: Path, good) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    refused(run("--base", str(empty), "--exp", good["exp"]), "table base (",
            "is empty (0 bytes)")
    w = csv(tmp_path / "w.csv", "item_id,weight\n")
    refused(run("--base", good["base"], "--exp", good["exp"], "--weights", w),
            "table weights (", "is empty")
    a = csv(tmp_path / "a.csv", "item_id,color\n")
    for extra in (("--slice-by", "color"), ()):
        refused(run("--base", good["base"], "--exp", good["exp"], "--attributes", a, *extra),
                "table attributes (", "is empty")


@pytest.mark.parametrize(("text", "needles"), [
    (b"item_id,cluster_id\n1,a\n2,a,5,6\n3,\"b\n", ("line 3", "more fields than the 2")),
    (b"item_id,cluster_id\n1,a\n2\n3,b\n", ("line 3", "1 field(s) where the header has 2")),
    (b"item_id,cluster_id\n1,a\n\xff\xfe,a\n3,b\n", ("line 3", "not valid UTF-8")),
    # an unclosed quote among good lines: was read with no quoting, "b an id
    (b"item_id,cluster_id\na,1\n\"b,1\nc,2\nd,2\n", ("line 3", "never closed")),
    (b"item_id,cluster_id\na,1\nb,1\n\"c,2\n", ("line 4", "never closed")),
    (b"item_id,cluster_id\n\"a,x\",1\nb,1\n\"c,2\nd,3\n", ("line 4", "never closed")),
    (b"item_id,cluster_id\n" + b"".join(b"i%d,c%d\n" % (k, k % 9) for k in range(30000))
     + b"\"j,1\n" + b"k,2\n" * 10, ("line 30002", "never closed")),  # past the sniffed rows
])
def test_malformed_csv(tmp_path: Path, good, text: bytes, needles: tuple[str, ...]) -> None:
    """A malformed CSV is reported as such, with its line (not as a missing column)."""
    bad = tmp_path / "bad.csv"
    bad.write_bytes(text)
    result = run("--base", str(bad), "--exp", good["exp"])
    refused(result, "table base (", "cannot parse", str(bad), *needles)
    assert "no column" not in result.output


def test_a_utf16_csv_is_told_to_be_converted_from_utf16(tmp_path: Path, good) -> None:
    """Excel's "Unicode text" (UTF-16 with a byte-order mark): the hint used to say to
    convert from Windows-1252, which garbles such a file; a Windows-1252 file keeps
    that hint."""
    u16 = tmp_path / "u16.csv"
    u16.write_bytes(GOOD_BASE.replace(",", "\t").encode("utf-16"))
    result = run("--base", str(u16), "--exp", good["exp"])
    refused(result, "not valid UTF-8", "The file is UTF-16", "iconv -f UTF-16 -t UTF-8")
    assert "WINDOWS-1252" not in result.output
    cp = tmp_path / "cp.csv"
    cp.write_bytes("item_id,cluster_id\n1,caf\u00e9\n2,a\n3,b\n".encode("cp1252"))
    result = run("--base", str(cp), "--exp", good["exp"])
    refused(result, "not valid UTF-8", "iconv -f WINDOWS-1252")
    assert "UTF-16" not in result.output


@pytest.mark.parametrize(("encoding", "name"), [("utf-16-le", "UTF-16LE"),
                                              ("utf-16-be", "UTF-16BE")])
def test_a_utf16_csv_without_a_byte_order_mark_says_so(tmp_path: Path, good, encoding: str,
                                                       name: str) -> None:
    """UTF-16 without a byte-order mark used to be read as UTF-8 with zero bytes: 'line 5:
    1 field(s) where the header has 2' (little-endian: the zero byte after the last line
    break), a missing column '\\x00i\\x00t…' (big-endian) or a sniffer error (CRLF)."""
    cases = (("w.csv", "item_id,weight\n1,1\n2,1\n3,1\n", "weights"),
             ("crlf.csv", GOOD_BASE.replace("\n", "\r\n"), "base"),
             ("tab.csv", GOOD_BASE.replace(",", "\t"), "base"))
    for file, text, role in cases:
        path = tmp_path / file
        path.write_bytes(text.encode(encoding))
        args = ("--base", str(path), "--exp", good["exp"]) if role == "base" else (
            "--base", good["base"], "--exp", good["exp"], "--weights", str(path))
        result = run(*args)
        refused(result, f"table {role} ({path})", f"{name} text without a byte-order mark",
                f"iconv -f {name} -t UTF-8")
        assert "field(s)" not in result.output and "no column" not in result.output


def test_a_column_named_twice_in_a_csv_header_is_refused(tmp_path: Path, good) -> None:
    """An export of a join names cluster_id twice (or Cluster_ID beside it): DuckDB
    renames the second, and the first was used without a word."""
    for header in ("item_id,cluster_id,cluster_id", "item_id;cluster_id;Cluster_ID "):
        delim = ";" if ";" in header else ","
        b = csv(tmp_path / "b.csv", header + "\n" + "".join(
            delim.join([str(i), c, x]) + "\n" for i, c, x in ((1, "a", "x"), (2, "a", "y"),
                                                                (3, "b", "y"))))
        refused(run("--base", b, "--exp", good["exp"]), "table base (", "column 'cluster_id'",
                "names column 'cluster_id' 2 times (fields 2, 3", "Rename or drop")
    # a repeated column abcde does not read is no concern
    b = csv(tmp_path / "b2.csv", "item_id,cluster_id,note,note\n1,a,,\n2,a,,\n3,b,,\n")
    assert run("--base", b, "--exp", good["exp"]).exit_code == 0


def test_a_column_named_in_another_case_is_pointed_out(tmp_path: Path, good) -> None:
    """ITEM_ID for item_id: the message listed the columns; it now says that the one
    there differs only in case (names match exactly)."""
    e = csv(tmp_path / "e.csv", GOOD_EXP.replace("item_id", "ITEM_ID"))
    refused(run("--base", good["base"], "--exp", e), "table exp (", "no column 'item_id'",
            "It has 'ITEM_ID', which differs in case or spaces")


def test_items_of_one_clustering_without_a_weight_are_not_said_to_weigh_0(
        tmp_path: Path, good) -> None:
    """An item only Exp holds, which the weights table lacks, has no weight: the text
    printed "(weight 0.00)" as if it weighed 0; the JSON counts it apart."""
    e = csv(tmp_path / "e.csv", GOOD_EXP + "4,z\n5,z\n")
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n2,1\n3,2\n5,3\n")
    result = run("--base", good["base"], "--exp", e, "--weights", w)
    assert result.exit_code == 0, result.output
    assert "only in exp: 2 items (weight 3.00, 1 of them without a weight)" in result.output
    doc = json.loads(run("--base", good["base"], "--exp", e, "--weights", w, "--format",
                         "json").output)
    assert doc["coverage"]["only_in_exp"]["items_without_weight"] == 1


def test_a_named_pipe_is_refused_as_such(tmp_path: Path, good) -> None:
    """A named pipe (or `<(command)`, /dev/fd/N) was "empty (0 bytes)", or to be named
    .csv; it is not a regular file. Refused before it is opened: no writer is needed."""
    import os

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    result = run("--base", str(fifo), "--exp", good["exp"])
    refused(result, "table base (", "is not a regular file (a pipe or a device)",
            "Write the data to a CSV or Parquet file")
    assert "empty" not in result.output


def test_database_file_problems(tmp_path: Path, good) -> None:
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(b"\x00not a database" * 400)
    args = ("--base", "base", "--exp", "exp")
    refused(run("--db", str(garbage), *args), "cannot open database file",
            "not a DuckDB database")
    refused(run("--db", good["base"], *args), "is a CSV file, not a DuckDB database")
    refused(run("--db", str(tmp_path), *args), "is a directory")
    refused(run("--db", str(tmp_path / "none.duckdb"), *args), "does not exist")


def test_workspace_file_problems(tmp_path: Path, good) -> None:
    """--workspace names a DuckDB file abcde may create: what it cannot be is said plainly."""
    args = ("--base", good["base"], "--exp", good["exp"], "--workspace")
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(b"\x00not a database" * 400)
    refused(run(*args, str(garbage)), "cannot open workspace", "not a DuckDB database file")
    refused(run(*args, good["base"]), "is a CSV file, not a DuckDB database")
    refused(run(*args, str(tmp_path)), "is a directory")
    refused(run(*args, str(tmp_path / "none" / "w.duckdb")),
            f"directory {tmp_path / 'none'} does not exist")
    assert not (tmp_path / "none").exists()


def test_locked_database_file(tmp_path: Path) -> None:
    """Another process writing the database holds DuckDB's lock."""
    db = tmp_path / "locked.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
         "con.execute('CREATE TABLE base AS SELECT 1 AS item_id, 1 AS cluster_id'); "
         "print('ready', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        refused(run("--db", str(db), "--base", "base", "--exp", "base"),
                "cannot open database file", "another process")
    finally:
        holder.communicate("")


def test_with_db_a_name_is_a_table(tmp_path: Path, monkeypatch) -> None:
    """A directory named like a table in the working directory does not shadow it."""
    db = tmp_path / "t.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE base AS SELECT * FROM (VALUES ('1', 'a'), ('2', 'a'), "
                "('3', 'b')) t(item_id, cluster_id)")
    con.execute("CREATE TABLE exp AS SELECT * FROM (VALUES ('1', 'x'), ('2', 'y'), "
                "('3', 'y')) t(item_id, cluster_id)")
    con.close()
    (tmp_path / "exp").mkdir()
    (tmp_path / "base").write_text("not a table")
    monkeypatch.chdir(tmp_path)
    result = run("--db", "t.duckdb", "--base", "base", "--exp", "exp", "--format", "json")
    assert result.exit_code == 0, result.output
    # Base {1,2}{3}, Exp {1}{2,3}: JaccardDistance per item 1/2, 2/3, 1/2
    assert math.isclose(json.loads(result.output)["overall"]["jaccard_distance"],
                        (1 / 2 + 2 / 3 + 1 / 2) / 3, rel_tol=1e-12)


def test_out_file_names_are_unique_and_safe(tmp_path: Path, good) -> None:
    """Slicings by (a, b), by a_b and by a/b would all be slices_a_b: each gets its own
    file, named in `files` and in its slice entry, holding its own columns."""
    a = csv(tmp_path / "a.csv", 'item_id,a,b,a_b,a/b\n1,x,1,p,u\n2,x,2,q,v\n3,y,2,p,u\n')
    out = tmp_path / "out"
    result = run("--base", good["base"], "--exp", good["exp"], "--attributes", a,
                 "--slice-by", "a,b", "--slice-by", "a_b", "--slice-by", "a/b",
                 "--out", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    paths = [s["file"] for s in doc["slices"]]
    assert len(set(paths)) == 3 and set(paths) <= set(doc["files"].values())
    assert {p.name for p in out.iterdir()} == {
        ".abcde-impact-files", "base_clusters.parquet", "exp_clusters.parquet",
        "slices_a_b.parquet", "slices_a_b_2.parquet", "slices_a_b_3.parquet"}
    for s in doc["slices"]:
        cols = [r[0] for r in duckdb.connect().execute(
            f"DESCRIBE SELECT * FROM read_parquet('{s['file']}')").fetchall()]
        assert cols[:len(s["slice_by"])] == s["slice_by"]


def test_out_under_a_file_is_refused_before_the_work(tmp_path: Path, good) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    refused(run("--base", good["base"], "--exp", good["exp"], "--out",
                str(afile / "sub")), "cannot write --out", "is a file")


def test_top_zero_says_not_listed(good) -> None:
    result = run("--base", good["base"], "--exp", good["exp"], "--top", "0")
    assert result.exit_code == 0, result.output
    assert "(not listed: --top 0)" in result.output
    assert "identical" not in result.output


def test_same_column_for_two_roles(good) -> None:
    refused(run("--base", good["base"], "--exp", good["exp"], "--cluster-col", "item_id"),
            "--item-col and --cluster-col both name column 'item_id'")


def test_parquet_integer_ids_and_csv_weights_hint(tmp_path: Path, good) -> None:
    b = parquet(tmp_path / "b.parquet",
                "SELECT * FROM (VALUES (1, 'a'), (2, 'a'), (3, 'b')) t(item_id, cluster_id)")
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n2,1\n3,1\n")
    refused(run("--base", b, "--exp", b, "--weights", w), "different types",
            "CSV ids are read as text", "weights (")


def test_duplicates_message_counts_every_repeated_id(tmp_path: Path, good) -> None:
    rows = "".join(f"{i},c\n{i},d\n" for i in range(12))
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n" + rows)
    result = run("--base", b, "--exp", good["exp"])
    refused(result, "12 item id(s) appear on more than one row", "'0' (2 rows)")


def test_missing_weight_needs_a_weights_table(good) -> None:
    refused(run("--base", good["base"], "--exp", good["exp"], "--missing-weight", "1"),
            "--missing-weight", "no weights table")


def test_coverage_counts_items_given_the_missing_weight(tmp_path: Path, good) -> None:
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,2\n")
    result = run("--base", good["base"], "--exp", good["exp"], "--weights", w,
                 "--missing-weight", "0.5", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    # `weight` is the total of the 2 defaulted items (2 × 0.5), like the other entries'
    assert doc["coverage"]["given_missing_weight"] == {"items": 2, "weight": 1.0,
                                                       "missing_weight": 0.5}
    assert doc["overall"]["weight"] == 2.0 + 2 * 0.5
    text = run("--base", good["base"], "--exp", good["exp"], "--weights", w,
               "--missing-weight", "0.5")
    assert text.exit_code == 0, text.output
    assert "given --missing-weight 0.5: 2 (weight 1.00)" in text.output


@pytest.mark.parametrize(("option", "value"), [("--memory-limit", "abc"),
                                               ("--threads", "-3"), ("--threads", "0")])
def test_bad_duckdb_resources(good, option: str, value: str) -> None:
    refused(run("--base", good["base"], "--exp", good["exp"], option, value), option)


def test_api_mapping_with_mixed_id_types() -> None:
    """1 and '1' are different ids in Python: refused, not merged into one."""
    with pytest.raises(abcde.InputError, match="mixed"):
        abcde.impact({1: "a", "1": "a", "b": "c"}, {1: "a", "1": "b", "b": "c"})
    with pytest.raises(abcde.InputError, match="mixed"):
        abcde.impact({"a": 1, "b": "1"}, {"a": 1, "b": 1})
    with pytest.raises(abcde.InputError, match="64 bits"):
        abcde.impact({2**63: 1, 1: 1}, {2**63: 1, 1: 2})


def test_weight_range_holds_for_every_command() -> None:
    """Evaluation and sampling reuse the same validation, hence the same range."""
    weight = {"a": 1e300, "b": 1.0, "c": 1.0, "d": 1.0, "e": 1.0}
    for command in (abcde.evaluate, abcde.sample_items):
        with pytest.raises(abcde.InputError, match=r"outside \[1e-100, 1e100\]"):
            command(AUDIT_BASE, AUDIT_EXP, weight)


def test_api_integer_weights_beyond_64_bits() -> None:
    """An int weight BIGINT cannot hold is used as a float (equal weights: the
    unweighted definitions)."""
    weight = dict.fromkeys(AUDIT_BASE, 2**70)
    got = abcde.impact(AUDIT_BASE, AUDIT_EXP, weight).overall
    expected = impact_overall(AUDIT_BASE, AUDIT_EXP, dict.fromkeys(AUDIT_BASE, 1.0))
    assert math.isclose(got["jaccard_distance"], expected["jaccard_distance"], rel_tol=1e-12)


def test_top_beyond_a_billion_is_refused(good) -> None:
    """A --top past 64 bits reached the SQL as a literal DuckDB could not convert (exit 1
    with the query); it is refused as an option (exit 2)."""
    result = run("--base", good["base"], "--exp", good["exp"], "--top",
                 "9223372036854775808")
    assert result.exit_code == 2 and "--top" in result.output, result.output
    assert "SELECT" not in result.output


def test_bad_weights_name_items_not_weights(tmp_path: Path) -> None:
    """Numeric item ids with bad weights: the examples are the items, and the message
    says so (after "weight(s) are ... zero", '0' and '10' read as the weights)."""
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n0,a\n5,a\n10,b\n")
    w = csv(tmp_path / "w.csv", "item_id,weight\n0,0\n5,1\n10,-2\n")
    result = run("--base", b, "--exp", b, "--weights", w)
    assert result.exit_code == 2
    assert (f"table weights ({w}), column 'weight': 2 item(s) have a weight that is NULL, "
            "NaN, infinite, zero, negative or outside [1e-100, 1e100]\n"
            "  examples: '0', '10'\n") in result.output, result.output


def test_an_id_column_named_otherwise_in_one_input_is_to_be_renamed(tmp_path: Path) -> None:
    """--item-col names the id column of every input: when the clusterings have it and
    the weights table calls it otherwise, the hint is to rename that table's column (a
    different --item-col would lose the clusterings' one)."""
    b = csv(tmp_path / "b.csv", "Item ID,cluster_id\n1,a\n2,a\n")
    w = csv(tmp_path / "w.csv", "item_id,weight\n1,1\n2,1\n")
    result = run("--base", b, "--exp", b, "--weights", w, "--item-col", "Item ID")
    assert result.exit_code == 2
    assert result.output == (
        f"error: table weights ({w}), column 'Item ID': no column 'Item ID' (item ids); "
        "its columns are 'item_id', 'weight'\n"
        f"  --item-col names it in every input at once, and base ({b}) and exp ({b}) have "
        f"'Item ID': rename the column of weights ({w}) to 'Item ID' too.\n")
    e = csv(tmp_path / "e.csv", "item_id,cluster_id\n1,a\n2,a\n")
    result = run("--base", e, "--exp", b)  # exp alone names it otherwise
    assert result.exit_code == 2
    assert result.output.endswith("  --item-col names it in every input at once, and base "
                                  f"({e}) has 'item_id': rename the column of exp ({b}) to "
                                  "'item_id' too.\n"), result.output


@pytest.mark.parametrize("out", [False, True])
def test_a_slice_column_named_like_a_metric_in_another_case_is_refused(
        tmp_path: Path, out: bool) -> None:
    """SQL names ignore case (DuckDB, Spark): a slice column `Contribution` beside the
    metric `contribution` in the stored slice table of --out was an internal error
    (KeyError: 'contribution'); it is refused like `contribution` itself."""
    b = csv(tmp_path / "b.csv", "item_id,cluster_id\n1,a\n2,a\n3,b\n")
    a = csv(tmp_path / "a.csv", "item_id,Contribution\n1,x\n2,y\n3,x\n")
    args = ["--base", b, "--exp", b, "--attributes", a, "--slice-by", "Contribution"]
    result = run(*args, *(["--out", str(tmp_path / "o")] if out else []))
    assert result.exit_code == 2, result.output
    assert result.output == (
        "error: table attributes: slice columns may not be named Contribution (a metric's "
        "name); SQL names ignore case: Contribution is contribution\n  Rename the column.\n")
    assert not (tmp_path / "o").exists()
