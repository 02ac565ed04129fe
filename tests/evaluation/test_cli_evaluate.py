"""`abcde evaluate` and `abcde uir` end to end through the CLI."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from reference import pointwise_by_group
from reference_yandex import yandex_metrics

from abcde.cli import main
from abcde.evaluation.uir import f_alpha

EXAMPLES = Path(__file__).parents[2] / "examples"

# UIR paper §4.2, Table 3 structure: 10 test cases; A ≥ B on 6 (cases 1–6), B ≥ A on 4
# (cases 1, 2 — ties — and 7, 8); cases 9, 10 are metric-biased. UIR(A, B) = (6 − 4)/10.
TABLE3 = {
    1: (0.50, 0.50, 0.50, 0.50), 2: (0.70, 0.70, 0.30, 0.30), 3: (0.60, 0.50, 0.60, 0.50),
    4: (0.80, 0.60, 0.40, 0.40), 5: (0.90, 0.20, 0.80, 0.10), 6: (0.40, 0.40, 0.70, 0.20),
    7: (0.20, 0.60, 0.30, 0.50), 8: (0.30, 0.30, 0.10, 0.60), 9: (0.90, 0.50, 0.20, 0.60),
    10: (0.20, 0.40, 0.80, 0.30),
}


def write_scores(path: Path, rows: list[tuple[str, object, str, float]]) -> None:
    path.write_text("system,case,metric,value\n"
                    + "".join(f"{s},{c},{m},{v}\n" for s, c, m, v in rows))


def table3_rows() -> list[tuple[str, object, str, float]]:
    rows = []
    for t, (pa, pb, ra, rb) in TABLE3.items():
        rows += [("A", t, "precision", pa), ("A", t, "recall", ra),
                 ("B", t, "precision", pb), ("B", t, "recall", rb)]
    return rows


def test_uir_command_on_table3(tmp_path: Path) -> None:
    scores = tmp_path / "scores.csv"
    write_scores(scores, table3_rows())
    res = CliRunner().invoke(main, ["uir", str(scores), "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["matrix"]["A"]["B"] == pytest.approx(0.2)
    assert doc["matrix"]["B"]["A"] == pytest.approx(-0.2)  # antisymmetry
    (pair,) = doc["pairs"]
    assert (pair["a_ge_b"], pair["b_ge_a"], pair["ties"], pair["biased"]) == (6, 4, 2, 2)
    # UIR(A, B) = 0.2 < 0.25 ([UIR] §6.3): A is B's reference, not a robust improvement
    assert doc["reference_systems"]["B"] == {"reference": "A", "uir": pytest.approx(0.2),
                                             "tied": ["A"], "robust": False}
    assert doc["improves"] == {"A": [], "B": []}  # 0.2 < 0.25: not robust
    assert set(doc["f_alpha"]["A"]) == {f"{i / 10:g}" for i in range(11)}
    text = CliRunner().invoke(main, ["uir", str(scores)])
    assert text.exit_code == 0 and "UIR(row, col)" in text.output


def test_uir_command_unanimous_is_one(tmp_path: Path) -> None:
    rows = []
    for t in range(5):
        rows += [("new", t, "precision", 0.6 + t / 100), ("new", t, "recall", 0.7),
                 ("old", t, "precision", 0.5), ("old", t, "recall", 0.6)]
    scores = tmp_path / "s.csv"
    write_scores(scores, rows)
    doc = json.loads(CliRunner().invoke(main, ["uir", str(scores), "--format", "json"]).output)
    assert doc["matrix"]["new"]["old"] == 1.0 and doc["matrix"]["old"]["new"] == -1.0
    assert doc["improves"]["new"] == ["old"]
    assert doc["reference_systems"]["old"] == {"reference": "new", "uir": 1.0, "tied": ["new"],
                                               "robust": True}


def test_uir_command_refuses_bad_scores(tmp_path: Path) -> None:
    scores = tmp_path / "bad.csv"
    write_scores(scores, [("A", 1, "precision", 0.5), ("B", 1, "precision", 0.4)])
    res = CliRunner().invoke(main, ["uir", str(scores)])
    assert res.exit_code == 2
    assert "recall" in res.output


def test_evaluate_command_two_runs_json(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"),
        "--actual", str(EXAMPLES / "base.csv"), "--actual", f"new={EXAMPLES / 'exp.csv'}",
        "--weights", str(EXAMPLES / "weights.csv"), "--attributes",
        str(EXAMPLES / "attributes.csv"), "--slice-by", "size_class",
        "--out", str(tmp_path / "out"), "--out-format", "csv", "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [r["name"] for r in doc["runs"]] == ["base", "new"]
    for run in doc["runs"]:
        assert set(run["overall"]) >= {"precision", "recall", "f1", "f1_of_overall",
                                       "accuracy", "jaccard_distance", "jaccard_index"}
        assert set(run["classic"]) == {
            "pairwise_precision", "pairwise_recall", "pairwise_f1", "adjusted_rand_index",
            "purity", "inverse_purity", "fmeasure", "homogeneity", "completeness",
            "v_measure", "nmi"}
        for kind in ("basic", "optimistic"):
            assert set(run["yandex"][kind]) == {"ecc", "bcp", "bcr", "bcf1"}
        # the truth covers 400 of 3,700 items: the rest are unlabelled, not errors
        assert run["coverage"]["items_in_both"] == 400
        assert run["coverage"]["only_in_actual"]["items"] == 3300
        assert Path(run["files"]["yandex_themes"]).exists()
    (cmp_,) = doc["comparisons"]
    assert (cmp_["baseline"], cmp_["experiment"]) == ("base", "new")
    assert cmp_["deltas"]["overall"]["recall"] == pytest.approx(
        doc["runs"][1]["overall"]["recall"] - doc["runs"][0]["overall"]["recall"])
    assert -1 <= cmp_["uir"]["value"] <= 1
    assert doc["uir"]["matrix"]["new"]["base"] == pytest.approx(cmp_["uir"]["value"])
    text = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
        str(EXAMPLES / "base.csv"), "--uir-cases", "none"])
    assert text.exit_code == 0 and "Yandex" in text.output


def test_evaluate_and_uir_report_one_matrix_under_one_key(tmp_path: Path) -> None:
    """One UIR matrix: `abcde uir` over the per-truth-cluster scores that `abcde evaluate`
    writes under --out reports, under the same key `matrix`, the matrix, reference
    systems, robust improvements and F_α sweep that `abcde evaluate` reports."""
    runs = {"base": "base.csv", "exp": "exp.csv", "ideal": "ideal.csv"}
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"),
        *[a for n, f in runs.items() for a in ("--actual", f"{n}={EXAMPLES / f}")],
        "--weights", str(EXAMPLES / "weights.csv"), "--out", str(tmp_path / "out"),
        "--out-format", "csv", "--format", "json"])
    assert res.exit_code == 0, res.output
    evaluated = json.loads(res.stdout)["uir"]
    rows = []
    for name in runs:
        with (tmp_path / "out" / name / "truth_clusters.csv").open(newline="") as fh:
            for r in csv.DictReader(fh):
                rows += [(name, r["cluster_id"], m, float(r[m])) for m in ("precision", "recall")]
    scores = tmp_path / "scores.csv"
    write_scores(scores, rows)
    res = CliRunner().invoke(main, ["uir", str(scores), "--format", "json"])
    assert res.exit_code == 0, res.output
    reported = json.loads(res.stdout)
    assert "uir" not in reported and "matrix" in reported
    assert reported["matrix"] == evaluated["matrix"]
    assert set(evaluated["matrix"]["exp"]) == set(runs)
    assert reported["improves"] == evaluated["improves"]
    # one shape: `robust` too
    assert reported["reference_systems"] == evaluated["reference_systems"]
    assert list(reported["f_alpha"]) == list(evaluated["f_alpha"])
    for name, sweep in evaluated["f_alpha"].items():
        assert reported["f_alpha"][name] == pytest.approx(sweep, rel=1e-12)


def read_csv(path: Path, column: str = "cluster_id") -> dict[str, str]:
    with path.open(newline="") as fh:
        return {row["item_id"]: row[column] for row in csv.DictReader(fh)}


def test_uir_command_refuses_unreadable_files_with_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["uir", str(tmp_path / "missing.csv")])
    assert res.exit_code == 2 and "no such file" in res.output
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"\x00\x01\x02 not text \x00\x00\x00\x00\xff")
    res = runner.invoke(main, ["uir", str(latin)])
    assert res.exit_code == 2 and "latin.csv is not a text file" in res.output
    extra = tmp_path / "extra.csv"
    write_scores(extra, table3_rows())
    extra.write_text(extra.read_text() + "A,11,precision,0.5,0.6\n")
    res = runner.invoke(main, ["uir", str(extra)])
    assert res.exit_code == 2 and "more fields than the 4 of the header" in res.output
    bom = tmp_path / "bom.csv"
    write_scores(bom, table3_rows())
    bom.write_bytes(bom.read_text().encode("utf-8-sig"))
    res = runner.invoke(main, ["uir", str(bom), "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["matrix"]["A"]["B"] == pytest.approx(0.2)


def test_uir_command_names_the_score_file_once(tmp_path: Path) -> None:
    """'table x.csv: score file x.csv: no such file', 'table one.csv: UIR compares
    systems; one.csv scores only …': the file was named twice; a message that does not
    name it still gets it in front."""
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    one = tmp_path / "one.csv"
    one.write_text("system,case,metric,value\nA,1,p,0.5\n")
    gap = tmp_path / "gap.csv"
    gap.write_text("system,case,metric,value\nA,1,p,0.5\nB,2,p,0.5\n")
    for path, needle in ((tmp_path / "missing.csv", "no such file"),
                         (empty, "empty file"), (one, "scores only ['A']"),
                         (gap, "has no score for case '2'")):
        res = CliRunner().invoke(main, ["uir", str(path), "--metrics", "p"])
        assert res.exit_code == 2 and needle in res.output, res.output
        assert res.output.count(str(path)) == 1, res.output


def test_uir_command_sweeps_the_selected_metrics(tmp_path: Path) -> None:
    """--metrics bcp,bcr: rows of other metrics (here precision, recall of only one
    system) are ignored, and F_α combines bcp (weighted by α) and bcr."""
    rows = [("A", "t1", "precision", 0.5), ("A", "t1", "recall", 0.5),
            ("B", "t1", "precision", 0.1), ("A", "t1", "note", "n/a")]
    scores = {"A": {"t1": (0.5, 0.5), "t2": (0.5, 0.5)},
              "B": {"t1": (0.3, 0.9), "t2": (0.6, 0.6)}}
    rows += [(s, t, m, v) for s, per in scores.items() for t, pr in per.items()
             for m, v in zip(("bcp", "bcr"), pr, strict=True)]
    path = tmp_path / "s.csv"
    write_scores(path, rows)
    res = CliRunner().invoke(main, ["uir", str(path), "--metrics", "bcp,bcr", "--format",
                                    "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    # t1 biased (B better recall, worse precision), t2 B ≥ A on both: (0 − 1)/2
    assert doc["matrix"]["B"]["A"] == 0.5
    assert doc["f_alpha_metrics"] == ["bcp", "bcr"]
    f = {a: sum(f_alpha(p, r, a) for p, r in scores["B"].values()) / 2 for a in (0, 0.3, 1)}
    assert f[0] == pytest.approx(0.75) and f[1] == pytest.approx(0.45)  # mean bcr, mean bcp
    for a, v in f.items():
        assert doc["f_alpha"]["B"][f"{a:g}"] == pytest.approx(v)
    res = CliRunner().invoke(main, ["uir", str(path), "--metrics", "bcp", "--format", "json"])
    doc = json.loads(res.stdout)
    assert doc["f_alpha"] is None and "two metrics" in doc["f_alpha_note"]
    text = CliRunner().invoke(main, ["uir", str(path), "--metrics", "bcp,bcr"]).output
    assert "parametric UIR" in text and "Robust improvements" in text
    assert "B improves A" in text and "B: no system improves it" in text
    assert "alpha weighs bcp" in text
    # the JSON says the same: UIR(A, B) = −0.5, so B has no reference (it named A)
    doc = json.loads(CliRunner().invoke(main, ["uir", str(path), "--metrics", "bcp,bcr",
                                               "--format", "json"]).output)
    assert doc["reference_systems"]["B"] == {"reference": None, "uir": -0.5, "tied": ["A"],
                                             "robust": False}
    assert doc["reference_systems"]["A"]["reference"] == "B"


def test_evaluate_reading_counts_ties_on_the_example() -> None:
    """examples/: exp ≥ base on precision and recall in every truth cluster, most of them
    ties (brute force of the pointwise definitions per truth cluster): UIR is small, yet
    the reading must not call the gain weight-dependent, and must use the run names."""
    truth = read_csv(EXAMPLES / "truth.csv")
    weight = {i: float(w) for i, w in read_csv(EXAMPLES / "weights.csv", "weight").items()}
    cases = {name: pointwise_by_group(truth, read_csv(EXAMPLES / f"{name}.csv"), weight,
                                      truth)
             for name in ("base", "exp")}
    ge = {n: 0 for n in cases}
    ties = biased = 0
    for t, e in cases["exp"].items():
        b = cases["base"][t]
        eq = {m: math.isclose(e[m], b[m], rel_tol=1e-9) for m in ("precision", "recall")}
        e_ge = all(eq[m] or e[m] > b[m] for m in eq)
        b_ge = all(eq[m] or b[m] > e[m] for m in eq)
        ge["exp"] += e_ge
        ge["base"] += b_ge
        ties += e_ge and b_ge
        biased += not (e_ge or b_ge)
    assert ties > 100 and biased == 0 and ge["exp"] == len(cases["exp"])
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
        str(EXAMPLES / "base.csv"), "--actual", str(EXAMPLES / "exp.csv"), "--weights",
        str(EXAMPLES / "weights.csv"), "--format", "json"])
    assert res.exit_code == 0, res.output
    u = json.loads(res.stdout)["comparisons"][0]["uir"]
    assert (u["experiment_ge_baseline"], u["baseline_ge_experiment"], u["ties"],
            u["biased"]) == (ge["exp"], ge["base"], ties, biased)
    assert u["value"] == pytest.approx((ge["exp"] - ge["base"]) / len(cases["exp"]))
    assert u["value"] < 0.25
    assert "weighted" not in u["reading"] and "every weighting" in u["reading"]
    assert "exp is better or equal" in u["reading"] and " A " not in u["reading"]


def test_evaluate_table_has_slices_sweep_parametric_and_themes(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
        str(EXAMPLES / "base.csv"), "--actual", str(EXAMPLES / "exp.csv"), "--weights",
        str(EXAMPLES / "weights.csv"), "--attributes", str(EXAMPLES / "attributes.csv"),
        "--slice-by", "size_class", "--top", "3"])
    assert res.exit_code == 0, res.output
    out = res.output
    for part in ("base: slices by size_class", "exp: slices by size_class", "singleton",
                 "Mean F_alpha over test cases", "a=0.5", "parametric UIR",
                 "Yandex themes with the lowest ECC", "Robust improvements",
                 "exp: no system improves it"):
        assert part in out, part
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
        str(EXAMPLES / "base.csv"), "--actual", str(EXAMPLES / "exp.csv"), "--weights",
        str(EXAMPLES / "weights.csv"), "--format", "json"])
    refs = json.loads(res.stdout)["uir"]["reference_systems"]
    # as the text: nothing improves exp (its reference was "base", UIR over it < 0)
    assert refs["exp"]["reference"] is None and refs["exp"]["uir"] <= 0, refs
    assert refs["exp"]["tied"] == ["base"] and refs["base"]["reference"] == "exp", refs


def test_evaluate_worst_yandex_themes_match_the_reference(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
        str(EXAMPLES / "base.csv"), "--top", "5", "--uir-cases", "none", "--format", "json"])
    assert res.exit_code == 0, res.output
    worst = json.loads(res.stdout)["runs"][0]["yandex"]["worst_themes"]
    truth, actual = read_csv(EXAMPLES / "truth.csv"), read_csv(EXAMPLES / "base.csv")
    basic = yandex_metrics(truth, actual, optimistic=False)["themes"]
    optimistic = yandex_metrics(truth, actual, optimistic=True)["themes"]
    want = sorted(t["ecc"] for t in basic.values() if t["ecc"] < 1)[:5]
    assert [w["ecc_basic"] for w in worst] == pytest.approx(want)
    for w in worst:
        g = str(w["cluster_id"])
        assert w["bcf1_basic"] == pytest.approx(basic[g]["bcf1"])
        assert w["bcf1_optimistic"] == pytest.approx(optimistic[g]["bcf1"])
        assert w["bcr"] == pytest.approx(basic[g]["bcr"])


def test_evaluate_refuses_run_names_that_escape_out(tmp_path: Path) -> None:
    out = tmp_path / "a" / "out"
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
        f"../esc={EXAMPLES / 'base.csv'}", "--out", str(out)])
    assert res.exit_code == 2 and "path separator" in res.output
    assert not (tmp_path / "a" / "esc").exists() and not out.exists()


@pytest.mark.parametrize("names", [("A", "a"), ("caf\u00e9", "CAFE\u0301")])
def test_evaluate_refuses_run_names_that_differ_only_in_case_with_out(
        tmp_path: Path, names: tuple[str, str]) -> None:
    """`A` and `a` (or é composed and decomposed) were written to out/A and out/a: one
    directory on macOS and Windows, where one run's files replaced the other's. Without
    --out they stay two runs."""
    out = tmp_path / "out"
    args = ["evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--uir-cases", "none",
            "--actual", f"{names[0]}={EXAMPLES / 'base.csv'}",
            "--actual", f"{names[1]}={EXAMPLES / 'exp.csv'}"]
    res = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert f"{names[0]!r} and {names[1]!r} differ only in case" in res.output
    assert "--actual NAME=PATH" in res.output and not out.exists()
    res = CliRunner().invoke(main, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    assert [r["name"] for r in json.loads(res.stdout)["runs"]] == list(names)


def test_evaluate_refuses_run_names_that_print_alike() -> None:
    """'café' (é) and 'café' (e + a combining accent) were two runs whose rows, UIR
    matrix and report labels could not be told apart."""
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--uir-cases", "none",
        "--actual", f"caf\u00e9={EXAMPLES / 'base.csv'}",
        "--actual", f"cafe\u0301={EXAMPLES / 'exp.csv'}"])
    assert res.exit_code == 2, res.output
    assert "run names must be unique" in res.output
    assert "different Unicode characters that print alike" in res.output


@pytest.mark.parametrize(("args", "needles"), [
    (["--uir-rel-tol", "-1"], ["'--uir-rel-tol'", "[0, 1)"]),
    (["--uir-rel-tol", "nan"], ["'--uir-rel-tol'", "[0, 1)"]),
    (["--actual", f"a={EXAMPLES / 'exp.csv'}"],
     ["run names must be unique: 'a' and 'a' are one name", "--actual NAME=PATH"]),
    (["--uir-cases", "bogus"], ["--uir-cases", "'bogus'",
                                "truth_cluster, slice:<column> or none"]),
    (["--uir-metrics", "jaccard_distance"], ["--uir-metrics", "jaccard_index"]),
])
def test_evaluate_option_mistakes_say_what_to_do(args: list[str], needles: list[str]) -> None:
    res = CliRunner().invoke(main, ["evaluate", "--truth", str(EXAMPLES / "truth.csv"),
                                    "--actual", f"a={EXAMPLES / 'base.csv'}", *args])
    assert res.exit_code == 2, res.output
    for needle in needles:
        assert needle in res.output, res.output


@pytest.mark.parametrize(("args", "needle"), [
    (["--rel-tol", "-1"], "'--rel-tol'"), (["--rel-tol", "1"], "'--rel-tol'"),
    (["--tol", "-0.1"], "'--tol'"), (["--tol", "inf"], "'--tol'"),
])
def test_uir_tolerances_are_refused_as_options(tmp_path: Path, args: list[str],
                                               needle: str) -> None:
    """They were refused as a problem of the scores table ("table s.csv: tol must …")."""
    scores = tmp_path / "s.csv"
    write_scores(scores, table3_rows())
    res = CliRunner().invoke(main, ["uir", str(scores), *args])
    assert res.exit_code == 2, res.output
    assert needle in res.output and "s.csv" not in res.output, res.output


def test_evaluate_out_names_slice_files_apart_and_safely(tmp_path: Path) -> None:
    """`--out` used to name a slicing's file slices_<columns joined by _> as given: a column
    `a/b` made a path into a missing directory (exit 1, DuckDB's IO error), and the
    slicings (a, b) and a_b wrote one file, the second over the first. They are named as
    `impact --out` names them, and each slicing's JSON entry says its file."""
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\nd,2\ne,3\n")
    actual = tmp_path / "run.csv"
    actual.write_text("item_id,cluster_id\na,x\nb,y\nc,y\nd,y\ne,z\n")
    attrs = tmp_path / "attrs.csv"
    attrs.write_text("item_id,a/b,a,b,a_b\na,x,1,2,u\nb,y,1,2,u\nc,x,2,2,v\nd,y,1,3,v\n"
                     "e,x,1,2,u\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(truth), "--actual", str(actual), "--attributes",
        str(attrs), "--slice-by", "a/b", "--slice-by", "a,b", "--slice-by", "a_b",
        "--uir-cases", "none", "--out", str(out), "--out-format", "csv", "--format", "json"])
    assert res.exit_code == 0, res.output
    (run,) = json.loads(res.stdout)["runs"]
    files = sorted(p.name for p in (out / "run").iterdir() if p.name.startswith("slices_"))
    assert files == ["slices_a_b.csv", "slices_a_b_2.csv", "slices_a_b_3.csv"]
    for entry in run["slices"]:
        rows = read_csv_rows(Path(entry["file"]))
        assert [list(r)[:len(entry["slice_by"])] for r in rows[:1]] == [entry["slice_by"]]
        assert len(rows) == len(entry["rows"])


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_text_says_why_there_is_no_parametric_uir(tmp_path: Path) -> None:
    """With one test case there is no covariance to fit: the JSON said why, the table
    left the parametric UIR out without a word (in both commands)."""
    scores = tmp_path / "s.csv"
    write_scores(scores, [("A", 1, "precision", 0.5), ("A", 1, "recall", 0.4),
                          ("B", 1, "precision", 0.6), ("B", 1, "recall", 0.6)])
    res = CliRunner().invoke(main, ["uir", str(scores)])
    assert res.exit_code == 0, res.output
    assert ("UIR(A, B) = -1.000 over 1 cases, no parametric UIR (need more than 1 test "
            "case(s) to fit a covariance, got 1): ") in res.output
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\n")
    (tmp_path / "r1.csv").write_text("item_id,cluster_id\na,x\nb,y\n")
    (tmp_path / "r2.csv").write_text("item_id,cluster_id\na,x\nb,x\n")
    res = CliRunner().invoke(main, ["evaluate", "--truth", str(truth), "--actual",
                                    str(tmp_path / "r1.csv"), "--actual",
                                    str(tmp_path / "r2.csv")])
    assert res.exit_code == 0, res.output
    assert ("UIR(r2, r1) = +1.000 over 1 cases (truth_cluster), no parametric UIR (need "
            "more than 1 test case(s) to fit a covariance, got 1): ") in res.output


def test_nan_and_infinite_slice_values_are_cases_of_their_own(tmp_path: Path) -> None:
    """A NaN or infinite slice value became null, like NULL: the JSON could not tell the
    slices apart and `--uir-cases slice:f` merged them into one case (here 2 cases
    instead of 4, UIR 1.0 instead of 0.75). They are 'NaN' and 'Infinity', as in impact."""
    from duck import duck

    truth, attrs = tmp_path / "truth.csv", tmp_path / "attrs.parquet"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\nd,2\ne,3\n")
    (tmp_path / "r1.csv").write_text("item_id,cluster_id\na,x\nb,y\nc,y\nd,y\ne,z\nf,z\n")
    (tmp_path / "r2.csv").write_text("item_id,cluster_id\na,x\nb,x\nc,x\nd,x\ne,x\n")
    duck(f"COPY (SELECT * FROM (VALUES ('a', 'nan'::DOUBLE), ('b', 'nan'::DOUBLE), "
         f"('c', 1.5), ('d', NULL), ('e', 'inf'::DOUBLE)) t(item_id, f)) TO '{attrs}'")
    res = CliRunner().invoke(main, [
        "evaluate", "--truth", str(truth), "--actual", str(tmp_path / "r1.csv"),
        "--actual", str(tmp_path / "r2.csv"), "--attributes", str(attrs),
        "--uir-cases", "slice:f", "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    values = {r["f"]: r["items"] for r in doc["runs"][0]["slices"][0]["rows"]}
    assert values == {"NaN": 2, 1.5: 1, None: 1, "Infinity": 1}
    # per case (P, R), r1 vs r2: {a, b} (2/3, 1/2) vs (2/5, 1) metric-biased; c, d and e
    # better or equal on both in r1
    assert (doc["uir"]["n_cases"], doc["uir"]["cases_excluded"]) == (4, 0)
    assert doc["uir"]["matrix"]["r1"]["r2"] == 0.75


def test_evaluate_reports_the_total_weight_given_missing_weight(tmp_path: Path) -> None:
    """3 of 6 items lack a weights row and get --missing-weight 7: 21 in all, in the JSON
    and in the table."""
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\nd,2\ne,3\nf,3\n")
    actual = tmp_path / "run1.csv"
    actual.write_text("item_id,cluster_id\na,1\nb,1\nc,1\nd,2\ne,3\nf,4\n")
    weights = tmp_path / "w.csv"
    weights.write_text("item_id,weight\na,1\nb,2\nc,3\n")
    args = ["evaluate", "--truth", str(truth), "--actual", str(actual), "--weights",
            str(weights), "--missing-weight", "7"]
    res = CliRunner().invoke(main, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    cov = json.loads(res.stdout)["runs"][0]["coverage"]
    assert cov["given_missing_weight"] == {"items": 3, "weight": 21.0, "missing_weight": 7.0}
    assert cov["weight_in_both"] == 1 + 2 + 3 + 21
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "run1: items without a weights row, given --missing-weight 7: 3 (weight 21.00)" \
        in text.output


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_evaluate_out_writes_theme_counts_as_integers(tmp_path: Path, fmt: str) -> None:
    """yandex_themes' `items` and `clustered_items` are whole numbers of items: integer
    columns in the file, as in the JSON. Theme g1 = {a, b, c}, of which the run holds a, b;
    g2 = {d} is held."""
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\na,g1\nb,g1\nc,g1\nd,g2\n")
    actual = tmp_path / "run1.csv"
    actual.write_text("item_id,cluster_id\na,1\nb,2\nd,2\nx,2\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["evaluate", "--truth", str(truth), "--actual", str(actual),
                                    "--out", str(out), "--out-format", fmt, "--format", "json"])
    assert res.exit_code == 0, res.output
    path = out / "run1" / f"yandex_themes.{fmt}"
    con = duckdb.connect()
    try:
        read = "read_parquet" if fmt == "parquet" else "read_csv_auto"
        rel = con.sql(f"SELECT cluster_id, items, clustered_items, actual_clusters "
                      f"FROM {read}('{path}') ORDER BY cluster_id")
        types = dict(zip(rel.columns, map(str, rel.types), strict=True))
        rows = rel.fetchall()
    finally:
        con.close()
    assert {types[c] for c in ("items", "clustered_items", "actual_clusters")} == {"BIGINT"}
    assert rows == [("g1", 3, 2, 2), ("g2", 1, 1, 1)]
    if fmt == "csv":
        with path.open(newline="") as f:
            raw = [(r["items"], r["clustered_items"]) for r in csv.DictReader(f)]
        assert sorted(raw) == [("1", "1"), ("3", "2")]


def test_uir_names_the_systems_case_and_metric_of_scores_whose_difference_overflows(
        tmp_path: Path) -> None:
    """Scores within a float's range whose difference is not (A 1e308, B -1e308 on case
    7's precision): UIR itself is fine, the parametric UIR says which metric (not an
    array index)."""
    rows = [r if (r[0], r[1], r[2]) != ("A", 7, "precision") else ("A", 7, "precision", 1e308)
            for r in table3_rows()]
    rows = [r if (r[0], r[1], r[2]) != ("B", 7, "precision") else ("B", 7, "precision", -1e308)
            for r in rows]
    scores = tmp_path / "scores.csv"
    write_scores(scores, rows)
    res = CliRunner().invoke(main, ["uir", str(scores), "--format", "json"])
    assert res.exit_code == 0, res.output
    (pair,) = json.loads(res.stdout)["pairs"]
    assert pair["parametric_uir"] is None
    assert "metric 'precision'" in pair["parametric_error"]


@pytest.mark.parametrize(("cases", "few"), [(2, True), (5, True), (6, False)])
def test_uir_text_warns_when_the_cases_are_too_few(tmp_path: Path, cases: int,
                                                   few: bool) -> None:
    """`abcde uir` over 2 test cases used to print "robust" three times (reading,
    reference system, robust improvements) for one win and one tie; it now says the
    cases are too few (docs/method.md §9.5), while the JSON keeps the paper's rule."""
    rows = []
    for t in range(cases):
        # new wins every case but the last, a tie: UIR (cases - 1) / cases >= 0.25
        rows += [("new", t, "precision", 0.6 if t < cases - 1 else 0.5),
                 ("new", t, "recall", 0.7),
                 ("old", t, "precision", 0.5), ("old", t, "recall", 0.7)]
    scores = tmp_path / "s.csv"
    write_scores(scores, rows)
    text = CliRunner().invoke(main, ["uir", str(scores)])
    assert text.exit_code == 0, text.output
    doc = json.loads(CliRunner().invoke(main, ["uir", str(scores), "--format",
                                               "json"]).output)
    assert doc["improves"]["new"] == ["old"]
    assert doc["reference_systems"]["old"]["robust"] is True
    if few:
        assert "too few to call it robust" in text.output
        assert f"robust by the rule of thumb, but over only {cases} case(s)" in text.output
        assert "too few for any of these to be robust" in text.output
    else:
        assert "too few" not in text.output and "rule of thumb, but" not in text.output
        assert "robust improvement of new over old" in text.output
