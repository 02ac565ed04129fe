"""`abcde evaluate` and `abcde uir` end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main

EXAMPLES = Path(__file__).parent.parent / "examples"

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
    doc = json.loads(res.output)
    assert doc["uir"]["A"]["B"] == pytest.approx(0.2)
    assert doc["uir"]["B"]["A"] == pytest.approx(-0.2)  # antisymmetry
    (pair,) = doc["pairs"]
    assert (pair["a_ge_b"], pair["b_ge_a"], pair["ties"], pair["biased"]) == (6, 4, 2, 2)
    assert doc["reference_systems"]["B"]["reference"] == "A"
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
    assert doc["uir"]["new"]["old"] == 1.0 and doc["uir"]["old"]["new"] == -1.0
    assert doc["improves"]["new"] == ["old"]


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
    doc = json.loads(res.output)
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
