"""Issue 12 through the CLI: nothing lost, no internal errors. Every case of the issue:
the exit code, a message naming the input (and what to do), earlier outputs intact byte
for byte, and never "internal error" or a traceback."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from duck import duck
from reference import impact_overall

from abcde.cli import main
from abcde.quality.estimate import estimate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def refused(result, *needles: str, code: int = 2) -> None:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output
    for needle in needles:
        assert needle in result.output, f"{needle!r} not in:\n{result.output}"


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*"))}


def no_leftovers(parent: Path) -> None:
    assert [p.name for p in parent.rglob("*") if ".tmp-" in p.name] == []


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """400 items, Base and Exp random clusterings that share some structure, lognormal
    weights and one attribute; CSV files."""
    d = tmp_path_factory.mktemp("world")
    rng = np.random.default_rng(12)
    n = 400
    base = {f"i{k}": f"b{int(rng.integers(0, 40))}" for k in range(n)}
    exp = {i: (c if rng.random() < 0.6 else f"e{int(rng.integers(0, 30))}")
           for i, c in base.items()}
    files = {}
    for name, rows, header in (
            ("base", base.items(), "item_id,cluster_id"),
            ("exp", exp.items(), "item_id,cluster_id"),
            ("weights", ((i, f"{float(np.exp(rng.normal())):.6g}") for i in base),
             "item_id,weight"),
            ("attributes", ((i, ["red", "blue", "green"][k % 3])
                            for k, i in enumerate(base)), "item_id,color")):
        path = d / f"{name}.csv"
        path.write_text(header + "\n" + "".join(f"{a},{b}\n" for a, b in rows))
        files[name] = str(path)
    return files


def pairs_args(world: dict[str, str], out: Path, budget: int, *extra: str) -> list[str]:
    return ["sample-pairs", "--base", world["base"], "--exp", world["exp"], "--weights",
            world["weights"], "--budget", str(budget), "--seed", "3", "--out", str(out),
            *extra]


def judge_questions(sample: Path, dest: Path | None = None) -> Path:
    """Fill the verdict column of a sample's questions.csv (in place, or into dest):
    equivalent for even pair ids, not_equivalent for odd ones."""
    with (sample / "questions.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["verdict"] = "equivalent" if int(r["pair_id"]) % 2 == 0 else "not_equivalent"
    dest = dest or sample / "questions.csv"
    with dest.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return dest


@pytest.fixture
def judged(world: dict[str, str], tmp_path: Path) -> Path:
    out = tmp_path / "round1"
    result = run(*pairs_args(world, out, 60))
    assert result.exit_code == 0, result.output
    judge_questions(out)
    (out / "notes.txt").write_text("the team's notes")
    return out


# --------------------------------------------------------------------------- #
# 1. Data loss: --overwrite replaces only after success
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(("change", "needle"), [
    (["--budget", "10000000"], "fewer than the budget 10,000,000"),
    (["--base", "/no/such/base.csv"], "does not exist"),
    (["--slice-by", "no_such_column", "--attributes", "{attributes}"], "no_such_column"),
    (["--weights", "{attributes}"], "table weights"),
])
def test_overwrite_that_fails_keeps_the_judged_sample(world, judged: Path, change: list[str],
                                                      needle: str) -> None:
    """A typo or a too large budget with --overwrite used to delete the judged sample
    before the new run was checked."""
    before = snapshot(judged)
    args = pairs_args(world, judged, 60, "--overwrite")
    extra = [c.format(**world) for c in change]
    result = run(*args, *extra)
    refused(result, needle)
    assert snapshot(judged) == before
    no_leftovers(judged.parent)


def test_overwrite_replaces_the_sample_once_complete(world, judged: Path) -> None:
    """Without --overwrite the judged sample is refused, the message counting its
    verdicts; with it the new sample replaces every sample file and keeps the others."""
    before = snapshot(judged)
    result = run(*pairs_args(world, judged, 80))
    refused(result, "already holds a sample", "60 verdict(s)", "--overwrite",
            "once the new sample is complete")
    assert snapshot(judged) == before
    result = run(*pairs_args(world, judged, 80, "--overwrite"))
    assert result.exit_code == 0, result.output
    manifest = json.loads((judged / "manifest.json").read_text())
    assert manifest["budget"] == 80
    assert (judged / "notes.txt").read_text() == "the team's notes"
    with (judged / "questions.csv").open() as f:
        assert {r["verdict"] for r in csv.DictReader(f)} == {""}
    no_leftovers(judged.parent)


@pytest.mark.parametrize("where", ["abcde.sample_files.pairs.write_manifest",
                                   "abcde.engines.duckdb.DuckDBEngine.write",
                                   "abcde.outputs._carry"])
def test_ctrl_c_while_the_files_are_written(world, judged: Path, where: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C between the files of a sample (or while the old directory's other files
    are carried over): exit 130, "interrupted", the judged sample untouched."""
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(where, interrupt)
    before = snapshot(judged)
    result = run(*pairs_args(world, judged, 80, "--overwrite"))
    assert result.exit_code == 130 and "interrupted" in result.output, result.output
    assert snapshot(judged) == before
    no_leftovers(judged.parent)


def test_sample_items_overwrite_that_fails_keeps_the_sample(world, tmp_path: Path) -> None:
    out = tmp_path / "items.parquet"
    args = ["sample-items", "--base", world["base"], "--exp", world["exp"], "--size", "20",
            "--out", str(out)]
    assert run(*args).exit_code == 0
    before = snapshot(tmp_path)
    refused(run(*args[:-2], "--out", str(out), "--overwrite", "--weights",
                world["attributes"]), "weights")
    assert snapshot(tmp_path) == before
    manifest = json.loads((tmp_path / "items.parquet.manifest.json").read_text())
    assert manifest["digests"]["items.parquet"]["rows"] == duck(
        f"SELECT COUNT(*) FROM read_parquet('{out}')")[0][0]


def test_impact_and_evaluate_out_that_fails_keep_earlier_files(world, tmp_path: Path) -> None:
    out = tmp_path / "impact"
    ok = ["impact", "--base", world["base"], "--exp", world["exp"], "--out", str(out)]
    assert run(*ok).exit_code == 0
    (out / "mine.txt").write_text("kept")
    before = snapshot(out)
    refused(run(*ok, "--weights", world["attributes"]), "weights")
    assert snapshot(out) == before
    assert run(*ok, "--out-format", "csv").exit_code == 0
    # the earlier run's Parquet files are replaced by this run's CSV files; mine.txt stays
    assert set(snapshot(out)) == {"base_clusters.csv", "exp_clusters.csv", "mine.txt",
                                  ".abcde-impact-files"}
    ev = tmp_path / "eval"
    args = ["evaluate", "--truth", world["base"], "--actual", f"run={world['exp']}",
            "--out", str(ev)]
    assert run(*args).exit_code == 0
    before = snapshot(ev)
    refused(run(*args, "--weights", world["attributes"]), "weights")
    assert snapshot(ev) == before
    no_leftovers(tmp_path)


def test_impact_out_replaces_the_earlier_run_whole(world, tmp_path: Path) -> None:
    """A second `impact --out DIR` with other slicings: the first run's slices_* files go
    (the directory held both runs), in the one atomic replace; files abcde would not
    write by that name stay, and a failed run changes nothing."""
    out = tmp_path / "impact"
    attrs = tmp_path / "attrs.csv"  # a second column to slice by
    rows = Path(world["attributes"]).read_text().splitlines()
    attrs.write_text("\n".join([rows[0] + ",color2"]
                               + [f"{r},{r[-1]}" for r in rows[1:]]) + "\n")
    result = run("impact", world["base"], world["exp"], "--attributes", attrs, "--out", out,
                 "--slice-by", "color", "--slice-by", "color,color2")
    assert result.exit_code == 0, result.output
    assert set(snapshot(out)) == {"base_clusters.parquet", "exp_clusters.parquet",
                                  "slices_color.parquet", "slices_color_color2.parquet",
                                  ".abcde-impact-files"}
    # the user's own files, some named like abcde's outputs (slices_mine.csv): abcde
    # replaces the files its index lists, not every name it could have written
    mine = {"notes.txt": b"mine", "slices.txt": b"mine", "slices_color.parquet.bak": b"mine",
            "data.csv": b"a,b\n", "slices_mine.csv": b"mine", "exp_clusters.csv": b"mine"}
    for name, data in mine.items():
        (out / name).write_bytes(data)
    (out / "slices_dir.csv").mkdir()  # a directory is never an abcde output file
    second = ["impact", world["base"], world["exp"], "--attributes", attrs, "--out", out,
              "--slice-by", "color2", "--out-format", "csv"]
    before = snapshot(out)
    refused(run(*second, "--weights", world["attributes"]), "weights")
    assert snapshot(out) == before
    result = run(*second)
    assert result.exit_code == 0, result.output
    after = snapshot(out)
    assert set(after) == {"base_clusters.csv", "exp_clusters.csv", "slices_color2.csv",
                          "slices_dir.csv", ".abcde-impact-files", *mine}
    # exp_clusters.csv is the new run's now (it wrote that name); every other file stays
    assert all(after[name] == data for name, data in mine.items() if name != "exp_clusters.csv")
    assert after["exp_clusters.csv"].startswith(b"cluster_id,")
    assert after["slices_color2.csv"].startswith(b"color2,items,")
    assert sorted(after[".abcde-impact-files"].decode().split()) == [
        "base_clusters.csv", "exp_clusters.csv", "slices_color2.csv"]
    no_leftovers(tmp_path)


def test_impact_out_without_an_index_replaces_by_name(world, tmp_path: Path) -> None:
    """A directory an abcde without the index wrote, or whose index is gone: every file
    named like an output is the earlier run's (the only evidence left). An index naming
    other files (edited by hand) cannot reach them."""
    out = tmp_path / "impact"
    out.mkdir()
    for name in ("base_clusters.csv", "slices_old.parquet", "notes.txt"):
        (out / name).write_bytes(b"old")
    result = run("impact", world["base"], world["exp"], "--out", out)
    assert result.exit_code == 0, result.output
    assert set(snapshot(out)) == {"base_clusters.parquet", "exp_clusters.parquet",
                                  "notes.txt", ".abcde-impact-files"}
    (out / ".abcde-impact-files").write_text("notes.txt\n../x\nbase_clusters.parquet\n")
    (tmp_path / "x").write_bytes(b"outside")
    (out / "slices_keep.csv").write_bytes(b"mine")
    result = run("impact", world["base"], world["exp"], "--out", out, "--out-format", "csv")
    assert result.exit_code == 0, result.output
    assert set(snapshot(out)) == {"base_clusters.csv", "exp_clusters.csv", "notes.txt",
                                  "exp_clusters.parquet", "slices_keep.csv",
                                  ".abcde-impact-files"}
    assert (tmp_path / "x").read_bytes() == b"outside"


def test_dbt_project_is_replaced_whole(tmp_path: Path) -> None:
    """A slicing and the weights removed: their models go too (a stale model would fail
    the next `dbt build`); the team's profiles.yml and dbt's target/ stay. A directory
    holding a dbt project abcde did not write is refused unless --overwrite."""
    out = tmp_path / "proj"
    full = ["dbt", "--dialect", "duckdb", "--base", "s.base", "--exp", "s.exp", "--weights",
            "s.w", "--attributes", "s.a", "--slice-by", "color", "--out", str(out)]
    assert run(*full).exit_code == 0
    assert (out / "models" / "abcde_slices_0.sql").exists()
    (out / "profiles.yml").write_text("abcde: {}")
    (out / "target").mkdir()
    (out / "target" / "run.json").write_text("{}")
    result = run("dbt", "--dialect", "duckdb", "--base", "s.base", "--exp", "s.exp",
                 "--out", str(out))
    assert result.exit_code == 0, result.output
    models = {p.name for p in (out / "models").iterdir()}
    assert "abcde_slices_0.sql" not in models and "abcde_weights_in.sql" not in models
    assert not any("weights" in m or "slices" in m for m in models), models
    listed = json.loads((out / ".abcde-dbt.json").read_text())["files"]
    # the team's files (profiles.yml at the top, dbt's target/) are not the package's
    assert sorted(listed) == sorted(str(p.relative_to(out)) for p in out.rglob("*")
                                    if p.is_file() and str(p.relative_to(out)) not in (
                                        ".abcde-dbt.json", "profiles.yml", "target/run.json"))
    assert (out / "profiles.yml").read_text() == "abcde: {}"
    assert (out / "target" / "run.json").exists()

    theirs = tmp_path / "theirs"
    (theirs / "models").mkdir(parents=True)
    (theirs / "dbt_project.yml").write_text("name: theirs")
    (theirs / "models" / "m.sql").write_text("select 1")
    before = snapshot(theirs)
    args = ["dbt", "--dialect", "duckdb", "--base", "s.base", "--exp", "s.exp", "--out",
            str(theirs)]
    refused(run(*args), "did not write", "--overwrite", "dbt_project.yml")
    assert snapshot(theirs) == before
    assert run(*args, "--overwrite").exit_code == 0
    assert not (theirs / "models" / "m.sql").exists()
    assert 'name: "abcde"' in (theirs / "dbt_project.yml").read_text()

    # any other directory abcde did not write: refused unless empty or --overwrite
    other = tmp_path / "repo"
    other.mkdir()
    assert run(*args[:-1], str(other)).exit_code == 0  # empty: fine
    other = tmp_path / "repo2"
    other.mkdir()
    (other / "profiles.yml").write_text("abcde: {}")
    before = snapshot(other)
    refused(run(*args[:-1], str(other)), str(other), "not empty", "profiles.yml",
            "--overwrite")
    assert snapshot(other) == before
    assert run(*args[:-1], str(other), "--overwrite").exit_code == 0
    assert (other / "profiles.yml").read_text() == "abcde: {}"
    assert run(*args[:-1], str(other)).exit_code == 0  # abcde's now (marker)


# --------------------------------------------------------------------------- #
# 3. estimate checks the files it reads against the manifest
# --------------------------------------------------------------------------- #


@pytest.fixture
def sample_copy(judged: Path, tmp_path: Path):
    def copy(name: str = "copy") -> Path:
        dest = tmp_path / name
        shutil.copytree(judged, dest)
        return dest
    return copy


def estimate_args(sample: Path, judgements: Path) -> list[str]:
    return ["estimate", str(sample), "--judgements", str(judgements), "--format", "json"]


NOT_AS_WRITTEN = "is not as `abcde sample-pairs` wrote it"


def test_draws_missing_or_cut_short_are_refused(judged: Path, sample_copy) -> None:
    """The issue's case: draws.parquet missing, or cut short, estimated from a fraction
    of the pairs with exit 0. It is what `abcde estimate` reads, checked against the
    manifest's digest; draws.csv is for people and never read."""
    s = sample_copy()
    (s / "draws.parquet").unlink()
    refused(run(*estimate_args(s, judged / "questions.csv")), "draws.parquet",
            NOT_AS_WRITTEN, "missing")
    s = sample_copy("parquet")
    data = (s / "draws.parquet").read_bytes()
    (s / "draws.parquet").write_bytes(data[: len(data) // 2])
    refused(run(*estimate_args(s, judged / "questions.csv")), "draws.parquet",
            NOT_AS_WRITTEN)
    s = sample_copy("people")
    (s / "draws.csv").write_text("edited in a spreadsheet\n")
    result = run(*estimate_args(s, judged / "questions.csv"))
    want = run(*estimate_args(judged, judged / "questions.csv"))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == json.loads(want.output)


def test_draws_of_another_sample_are_refused(world, judged: Path, sample_copy,
                                             tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert run(*pairs_args(world, other, 60, "--population", "jaccard")).exit_code == 0
    s = sample_copy()
    shutil.copy(other / "draws.parquet", s / "draws.parquet")
    refused(run(*estimate_args(s, judged / "questions.csv")), "draws.parquet",
            NOT_AS_WRITTEN)


def test_damaged_or_old_manifest_is_refused(judged: Path, sample_copy) -> None:
    """A manifest cut short, edited, or of an abcde before manifests were sealed (no
    format version): refused naming it, with what to do."""
    s = sample_copy()
    text = (s / "manifest.json").read_text()
    (s / "manifest.json").write_text(text[: len(text) // 2])
    refused(run(*estimate_args(s, judged / "questions.csv")), "manifest.json",
            NOT_AS_WRITTEN, "cut short", "Run `abcde sample-pairs` again")
    s = sample_copy("old")
    manifest = json.loads((s / "manifest.json").read_text())
    del manifest["format"]
    (s / "manifest.json").write_text(json.dumps(manifest))
    refused(run(*estimate_args(s, judged / "questions.csv")), "manifest.json",
            NOT_AS_WRITTEN, "earlier abcde")


def test_a_stale_draws_file_beside_an_empty_sample_is_not_read(world, tmp_path: Path,
                                                              judged: Path) -> None:
    """An empty sample (Base = Exp) has no draws.parquet: one left there from another
    sample is no file of this one, and not read."""
    empty = tmp_path / "empty"
    result = run("sample-pairs", "--base", world["base"], "--exp", world["base"],
                 "--budget", "1", "--out", str(empty))
    assert result.exit_code == 0, result.output
    want = run("estimate", str(empty), "--truth", world["base"], "--format", "json")
    shutil.copy(judged / "draws.parquet", empty / "draws.parquet")
    got = run("estimate", str(empty), "--truth", world["base"], "--format", "json")
    assert got.exit_code == 0 and got.output == want.output, got.output


# --------------------------------------------------------------------------- #
# 4. Verdicts carry over to a larger budget of the same stream
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("stratified", [False, True])
def test_verdicts_of_the_smaller_sample_carry_over(world, tmp_path: Path,
                                                   stratified: bool) -> None:
    """Budgets B and 2B with the same seed: the first sample's judged questions.csv is
    accepted by the second, its verdicts count for the pairs they share (all of them),
    the report says how many carried over, and the estimate equals the one from the
    same verdicts keyed by item ids alone (an independent path: no sample_id)."""
    extra = ["--population", "jaccard", *(["--strata-allocation", "0.5"] if stratified
                                          else [])]
    small, large = tmp_path / "b60", tmp_path / "b120"
    assert run(*pairs_args(world, small, 60, *extra)).exit_code == 0
    assert run(*pairs_args(world, large, 120, *extra)).exit_code == 0
    judged = judge_questions(small, tmp_path / "judged.csv")
    with judged.open() as f:
        rows = list(csv.DictReader(f))
    with (large / "questions.csv").open() as f:
        large_pairs = {frozenset((r["item_1"], r["item_2"])) for r in csv.DictReader(f)}
    assert {frozenset((r["item_1"], r["item_2"])) for r in rows} <= large_pairs

    result = run("estimate", str(large), "--judgements", str(judged), "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    small_id = json.loads((small / "manifest.json").read_text())["sample_id"]
    assert doc["carried_over"] == [{"sample_id": small_id, "rows": 60, "verdicts": 60,
                                    "unknown": 0, "not_in_sample": 0}]
    table = run("estimate", str(large), "--judgements", str(judged))
    assert f"60 verdicts carried over from sample {small_id}" in table.output

    by_items = tmp_path / "by_items.csv"
    by_items.write_text("item_1,item_2,verdict\n" + "".join(
        f"{r['item_1']},{r['item_2']},{r['verdict']}\n" for r in rows))
    want = estimate(large, judgements=by_items)
    for key in ("delta_precision", "good_split_distance", "bad_merge_distance"):
        assert doc[key] == json.loads(json.dumps(want[key])), key

    # the other way round: the larger sample's verdicts, for the pairs the smaller has
    judge_questions(large, tmp_path / "judged_large.csv")
    back = run("estimate", str(small), "--judgements", str(tmp_path / "judged_large.csv"),
               "--format", "json")
    assert back.exit_code == 0, back.output
    [c] = json.loads(back.output)["carried_over"]
    assert c["verdicts"] == 60 and c["not_in_sample"] == 60


def test_verdicts_of_another_stream_are_still_refused(world, tmp_path: Path,
                                                      judged: Path) -> None:
    other = tmp_path / "seed4"
    assert run(*pairs_args(world, other, 60)[:-4], "--seed", "4", "--out",
               str(other)).exit_code == 0
    refused(run("estimate", str(other), "--judgements", str(judged / "questions.csv")),
            "judged for another sample", "one stream")
    # pair_id alone cannot carry over: pair ids are numbered per sample
    larger = tmp_path / "larger"
    assert run(*pairs_args(world, larger, 90)).exit_code == 0
    with (judged / "questions.csv").open() as f:
        rows = list(csv.DictReader(f))
    bare = tmp_path / "bare.csv"
    bare.write_text("pair_id,sample_id,verdict\n" + "".join(
        f"{r['pair_id']},{r['sample_id']},{r['verdict']}\n" for r in rows))
    refused(run("estimate", str(larger), "--judgements", str(bare)), "pair_id alone",
            "item ids")


def test_several_judgement_files_are_merged(world, tmp_path: Path, judged: Path) -> None:
    larger = tmp_path / "larger"
    assert run(*pairs_args(world, larger, 90)).exit_code == 0
    new = judge_questions(larger, tmp_path / "new.csv")
    result = run("estimate", str(larger), "--judgements", str(judged / "questions.csv"),
                 "--judgements", str(new), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["judgements"]["unknown"] == 0
    flipped = tmp_path / "flipped.csv"
    flipped.write_text(new.read_text().replace(",equivalent", ",EQUIV").replace(
        ",not_equivalent", ",equivalent").replace(",EQUIV", ",not_equivalent"))
    refused(run("estimate", str(larger), "--judgements", str(new), "--judgements",
                str(flipped)), "contradictory", "new.csv", "flipped.csv")


# --------------------------------------------------------------------------- #
# Judgement files as spreadsheets save them
# --------------------------------------------------------------------------- #


def _rewrite(src: Path, dest: Path, encoding: str, delimiter: str = ",",
             bom: bytes = b"") -> Path:
    with src.open(newline="") as f:
        rows = list(csv.reader(f))
    rows = [[*r, "note"] if k == 0 else [*r, "café ñ"] for k, r in enumerate(rows)]
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    dest.write_bytes(bom + buf.getvalue().encode(encoding))
    return dest


@pytest.mark.parametrize(("encoding", "delimiter", "bom"), [
    ("cp1252", ",", b""), ("latin-1", ";", b""), ("utf-16", "\t", b""),
    ("utf-16-le", ",", b""), ("utf-8", ";", b"\xef\xbb\xbf"), ("utf-16-be", "|", b""),
])
def test_judgements_saved_by_excel_are_read(judged: Path, tmp_path: Path, encoding: str,
                                            delimiter: str, bom: bytes) -> None:
    """cp1252/Latin-1, UTF-16 ("Unicode text"), ';'-separated (European Excel): the same
    verdicts, the same estimate as the UTF-8 file."""
    want = run(*estimate_args(judged, judged / "questions.csv"))
    path = _rewrite(judged / "questions.csv", tmp_path / "excel.csv", encoding, delimiter,
                    bom)
    got = run(*estimate_args(judged, path))
    assert got.exit_code == 0, got.output
    assert json.loads(got.output)["delta_precision"] == json.loads(
        want.output)["delta_precision"]


def test_ids_mangled_by_a_spreadsheet_are_named(judged: Path, tmp_path: Path) -> None:
    text = (judged / "questions.csv").read_text().splitlines()
    first = text[1].split(",")
    first[1] = "9.00719925474102E+15"
    path = tmp_path / "mangled.csv"
    path.write_text("\n".join([text[0], ",".join(first), *text[2:]]) + "\n")
    refused(run(*estimate_args(judged, path)), "scientific notation",
            "9.00719925474102E+15", "line 2", "Text")
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    refused(run(*estimate_args(judged, path)), "workbook", "CSV UTF-8")


def test_ids_stripped_of_leading_zeros_are_named(world, tmp_path: Path) -> None:
    """Zero-padded numeric ids (00017) become numbers in a spreadsheet (17): the rows keep
    their pair_id and sample_id, so they used to be refused as "belongs to another
    sample" alone; the message names the rows, a spreadsheet's rewriting among the causes
    and how to keep the ids as text."""
    padded = {}
    for name in ("base", "exp", "weights"):
        text = Path(world[name]).read_text()
        dest = tmp_path / f"{name}.csv"
        dest.write_text(re.sub(r"^i(\d+),", lambda m: f"{int(m[1]):05d},", text,
                               flags=re.MULTILINE))
        padded[name] = str(dest)
    sample = tmp_path / "sample"
    assert run(*pairs_args(padded, sample, 40)).exit_code == 0
    judge_questions(sample)
    stripped = tmp_path / "stripped.csv"
    with (sample / "questions.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["item_1"], r["item_2"] = str(int(r["item_1"])), str(int(r["item_2"]))
    with stripped.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    assert run(*estimate_args(sample, sample / "questions.csv")).exit_code == 0
    refused(run(*estimate_args(sample, stripped)), "00017 as 17", "line 2",
            f"with items {int(rows[0]['item_1'])}, ", "Text")


# --------------------------------------------------------------------------- #
# Ordinary mistakes: exit 2 with a message, never "internal error"
# --------------------------------------------------------------------------- #


def test_a_full_disk_is_said_plainly(world, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """No space left (a full disk, a quota): exit 2 naming the file, the earlier output
    left as it was, no temporary file; it was an "internal error" (exit 1)."""
    impact = tmp_path / "impact.json"
    result = run("impact", world["base"], world["exp"], "--format", "json")
    assert result.exit_code == 0, result.output
    impact.write_text(result.output)
    out = tmp_path / "report.html"
    args = ["report", "--impact", str(impact), "--out", str(out)]
    assert run(*args).exit_code == 0
    before = out.read_bytes()

    def full(self: Path, *a: object, **k: object) -> int:
        raise OSError(28, "No space left on device", str(self))

    with monkeypatch.context() as m:
        m.setattr(Path, "write_text", full)
        result = run(*args)
    refused(result, f"no space left on the device writing {out} (", "Free some space",
            "earlier outputs were left as they were")
    assert out.read_bytes() == before
    no_leftovers(tmp_path)
    # stdout on a full device (/dev/full): said once, and the interpreter's last flush
    # does not add "Exception ignored" on top
    with open("/dev/full", "w") as stdout:
        proc = subprocess.run([sys.executable, "-m", "abcde", "impact", world["base"],
                               world["exp"]], stdout=stdout, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: no space left on the device"), proc.stderr
    assert "Exception" not in proc.stderr and "Traceback" not in proc.stderr


def test_a_full_temporary_directory_says_how_to_move_it(
        world, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of the system's temporary directory that cannot be written (PostgreSQL's
    inputs are staged there as CSV; a small /tmp is common) names the directory and
    TMPDIR, which moves it; an output elsewhere does not."""
    import tempfile

    staged = Path(tempfile.gettempdir()) / "abcde_pg_copy_x" / "rows.csv"

    def full(self: Path, *a: object, **k: object) -> int:
        raise OSError(28, "No space left on device", str(staged))

    impact = tmp_path / "impact.json"
    impact.write_text(run("impact", world["base"], world["exp"], "--format", "json").output)
    with monkeypatch.context() as m:
        m.setattr(Path, "write_text", full)
        result = run("report", "--impact", str(impact), "--out", str(tmp_path / "r.html"))
    refused(result, f"writing {staged}", f"temporary files go to {tempfile.gettempdir()}: "
            "set TMPDIR to a directory with room")


@pytest.mark.parametrize("command", ["sample-pairs", "sample-items", "evaluate", "sql",
                                     "dbt", "impact"])
def test_unwritable_out_is_refused_before_the_work(world, command: str) -> None:
    """/proc/x cannot be created: refused at once — before the inputs are even read (the
    inputs named here do not exist, and the message is about --out)."""
    missing = "/no/such/input.csv"
    args = {
        "sample-pairs": ["sample-pairs", missing, missing, "--budget", "5", "--out",
                         "/proc/x"],
        "sample-items": ["sample-items", missing, missing, "--out", "/proc/x.parquet"],
        "evaluate": ["evaluate", "--truth", missing, "--actual", missing, "--out", "/proc/x"],
        "sql": ["sql", "impact", "--dialect", "duckdb", "--base", "b", "--exp", "e",
                "--out", "/proc/x"],
        "dbt": ["dbt", "--dialect", "duckdb", "--base", "b", "--exp", "e", "--out",
                "/proc/x"],
        "impact": ["impact", missing, missing, "--out", "/proc/x"],
    }[command]
    refused(run(*args), "cannot write --out /proc/x")


@pytest.mark.parametrize(("option", "value", "needle"), [
    ("--budgets", "0", "--budgets"), ("--budgets", "10,-1", "--budgets"),
    ("--budgets", ",", "--budgets"), ("--unknown-share", "1", "--unknown-share"),
    ("--unknown-share", "1.5", "--unknown-share"), ("--unknown-share", "nan", "--unknown-share"),
    ("--unknown-share", "-0.1", "--unknown-share"), ("--seed", "-1", "--seed"),
    ("--strata-allocation", "2", "--strata-allocation"),
])
def test_simulate_options(world, option: str, value: str, needle: str) -> None:
    refused(run("simulate", world["base"], world["exp"], "--truth", world["base"],
                "--budgets", "10", "--replications", "1", option, value), needle)


@pytest.mark.parametrize("name", ["", ".", "s.", ".t", "a..b", " ", "a.b.c.d"])
def test_sql_table_names(name: str) -> None:
    for command in (["sql", "impact"], ["dbt", "--out", "/tmp/never-written"]):
        result = run(*command, "--dialect", "duckdb", "--base", name, "--exp", "e")
        refused(result, "--base")
    assert not Path("/tmp/never-written").exists()


def test_bigquery_column_with_a_dot_is_refused() -> None:
    refused(run("sql", "impact", "--dialect", "bigquery", "--schema", "p.d", "--base", "p.d.b",
                "--exp", "p.d.e", "--item-col", "a.b"), "--item-col", "BigQuery", "'.'")
    result = run("sql", "impact", "--dialect", "duckdb", "--base", "b", "--exp", "e",
                 "--item-col", "a.b")
    assert result.exit_code == 0 and '"a.b"' in result.output


def test_quote_in_a_dbt_source_name_is_escaped(tmp_path: Path) -> None:
    """dbt's quoting does not escape a quote inside a name: the part is written escaped,
    as `abcde sql` writes it, with dbt's quoting off (the build: tests/warehouse/
    test_dbt.py::test_dbt_build_with_a_quote_in_a_table_name)."""
    result = run("dbt", "--dialect", "postgres", "--base", 's."we"ird', "--exp", "s.e",
                 "--out", str(tmp_path / "p"))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "p" / "models" / "schema.yml").read_text()
    assert "identifier: false" in text  # the name is a var of the package: its default
    project = (tmp_path / "p" / "dbt_project.yml").read_text()
    assert 'abcde_base_identifier: "\\"\\"\\"we\\"\\"ird\\""' in project
    script = run("sql", "impact", "--dialect", "postgres", "--base", 's."we"ird', "--exp",
                 "s.e")
    assert '"s"."""we""ird"' in script.output


@pytest.mark.parametrize("value", ["", ",", "color,", " "])
def test_empty_slice_by_is_refused(world, value: str) -> None:
    for command in (["impact", world["base"], world["exp"]],
                    ["sql", "impact", "--dialect", "duckdb", "--base", "b", "--exp", "e",
                     "--attributes", "a"]):
        attrs = [] if command[0] == "sql" else ["--attributes", world["attributes"]]
        refused(run(*command, *attrs, "--slice-by", value), "--slice-by", "empty column")


@pytest.mark.parametrize("value", ["color,color", "color, color", "a_b,a_b"])
def test_repeated_slice_column_is_refused(world, value: str, tmp_path: Path) -> None:
    """A column named twice in one slicing made two output columns of one name."""
    name = value.split(",")[0]
    for command in (["impact", world["base"], world["exp"], "--out", tmp_path / "o"],
                    pairs_args(world, tmp_path / "s", 50),
                    ["sql", "impact", "--dialect", "duckdb", "--base", "b", "--exp", "e",
                     "--attributes", "a"]):
        attrs = [] if command[0] == "sql" else ["--attributes", world["attributes"]]
        refused(run(*command, *attrs, "--slice-by", value), "--slice-by",
                f"{name!r} more than once")
    assert not (tmp_path / "o").exists() and not (tmp_path / "s").exists()


@pytest.mark.parametrize(("first", "second", "shown"),
                         [("color", "color", "'color' is given more than once"),
                          ("color,size", "size, color", "(as 'color,size')")])
def test_repeated_slicing_is_refused(world, first: str, second: str, shown: str,
                                     tmp_path: Path) -> None:
    """The same slicing twice wrote slices_color and slices_color_2, one content under
    two names; in another column order it is still the same rows."""
    for command in (["impact", world["base"], world["exp"], "--out", tmp_path / "o"],
                    pairs_args(world, tmp_path / "s", 50),
                    ["sql", "impact", "--dialect", "duckdb", "--base", "b", "--exp", "e",
                     "--attributes", "a"]):
        attrs = [] if command[0] == "sql" else ["--attributes", world["attributes"]]
        refused(run(*command, *attrs, "--slice-by", first, "--slice-by", second),
                "--slice-by", shown, "Give each slicing once")
    assert not (tmp_path / "o").exists() and not (tmp_path / "s").exists()
    two = tmp_path / "two.csv"
    lines = Path(world["attributes"]).read_text().splitlines()
    two.write_text("\n".join([lines[0] + ",size"] + [f"{x},{k % 2}"
                                                    for k, x in enumerate(lines[1:])]) + "\n")
    ok = run("impact", world["base"], world["exp"], "--attributes", two, "--out",
             tmp_path / "o", "--slice-by", "color", "--slice-by", "color,size")
    assert ok.exit_code == 0, ok.output
    assert {p.name for p in (tmp_path / "o").glob("slices_*")} == {
        "slices_color.parquet", "slices_color_size.parquet"}


def test_coverage_examples_are_quoted(tmp_path: Path) -> None:
    """'a' and 'a ' look different in the report."""
    (tmp_path / "b.csv").write_text('item_id,cluster_id\n1,x\n2,x\n"a ",y\n')
    (tmp_path / "e.csv").write_text("item_id,cluster_id\n1,x\n2,z\na,y\n")
    result = run("impact", tmp_path / "b.csv", tmp_path / "e.csv")
    assert result.exit_code == 0, result.output
    assert "e.g. 'a '" in result.output and "e.g. 'a'" in result.output


def test_corrupt_parquet_pages_are_named(tmp_path: Path) -> None:
    """A Parquet file whose footer reads but whose data pages are damaged fails only
    when a query reaches them: exit 2 naming the file, no SQL."""
    good = tmp_path / "good.parquet"
    duck(f"COPY (SELECT 'i' || i AS item_id, 'c' || (i % 50) AS cluster_id FROM "
                   f"range(20000) t(i)) TO '{good}' (FORMAT PARQUET)")
    data = bytearray(good.read_bytes())
    for k in range(200, len(data) // 2, 3):
        data[k] ^= 0xFF
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(data))
    result = run("impact", bad, good)
    refused(result, "bad.parquet", "table base")
    assert "SELECT" not in result.output and "CREATE" not in result.output


def test_damaged_parquet_page_header_is_named(tmp_path: Path) -> None:
    """DuckDB's message for a damaged page header ("TProtocolException: Invalid data")
    names no file: the Parquet inputs are probed and the damaged one is named (found by
    tests/cli/test_cli_fuzz.py)."""
    (tmp_path / "b.csv").write_text("item_id,cluster_id\ni0,c0\n")
    (tmp_path / "e.csv").write_text("item_id,cluster_id\ni0,c1\n")
    weights = tmp_path / "w.parquet"
    duck(f"COPY (SELECT 'i0' AS item_id, 1.0::DOUBLE AS weight) TO '{weights}' "
                   "(FORMAT PARQUET)")
    data = bytearray(weights.read_bytes())
    data[len(data) // 8] ^= 1
    weights.write_bytes(bytes(data))
    result = run("impact", tmp_path / "b.csv", tmp_path / "e.csv", "--weights", weights)
    refused(result, "w.parquet", "table weights", "damaged")
    assert "SELECT" not in result.output and "CREATE" not in result.output


def test_out_of_memory_advises_abcde_options(tmp_path: Path) -> None:
    big = tmp_path / "big.parquet"
    duck(f"COPY (SELECT i AS item_id, i // 7 AS cluster_id FROM range(2000000) "
                   f"t(i)) TO '{big}' (FORMAT PARQUET)")
    result = run("impact", big, big, "--memory-limit", "20MB", "--threads", "2")
    refused(result, "out of memory", "--memory-limit", "--threads")
    assert "SELECT" not in result.output and "SET threads" not in result.output


# --------------------------------------------------------------------------- #
# Ctrl-C and a closed pipe, in a real process
# --------------------------------------------------------------------------- #


def abcde_process(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "abcde", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kwargs)


def test_ctrl_c_during_a_query(tmp_path: Path) -> None:
    """SIGINT while DuckDB runs a query: "interrupted", exit 130, no traceback, and
    nothing of --out."""
    big = tmp_path / "big.parquet"
    duck(f"COPY (SELECT i AS item_id, i // 7 AS cluster_id, i % 11 AS c2 FROM "
                   f"range(4000000) t(i)) TO '{big}' (FORMAT PARQUET)")
    proc = abcde_process("-v", "impact", str(big), str(big), "--cluster-col", "c2", "--out",
                         str(tmp_path / "out"))
    first = proc.stderr.readline()  # -v: the inputs' counts are done, the pass runs
    assert first.startswith(b"abcde: query input_counts"), first
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err.decode())
    assert err.decode().strip().endswith("interrupted"), err.decode()
    assert "Traceback" not in err.decode()
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["big.parquet"]


def test_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`abcde ... | head`: the reader has gone; no traceback, no "internal error"."""
    proc = abcde_process("sql", "impact", "--dialect", "duckdb", "--base", "b", "--exp", "e")
    proc.stdout.close()  # the reader goes away before abcde writes
    _, err = proc.communicate(timeout=120)
    assert err.decode() == "" and proc.returncode == 141, (proc.returncode, err.decode())


def test_overall_still_equals_brute_force(world) -> None:
    """The refusals above changed nothing for good input."""
    result = run("impact", world["base"], world["exp"], "--weights", world["weights"],
                 "--format", "json")
    doc = json.loads(result.output)

    def read(name: str, value: type = str) -> dict:
        with open(world[name]) as f:
            return {r[0]: value(r[1]) for r in list(csv.reader(f))[1:]}

    want = impact_overall(read("base"), read("exp"), read("weights", float))
    for k, v in want.items():
        assert doc["overall"][k] == pytest.approx(v, rel=1e-12, abs=1e-15), k


def test_out_is_never_an_input(world, tmp_path: Path) -> None:
    """--out naming an input file (or a directory holding one under a name the output
    writes) is refused, --overwrite or not: the input used to be replaced by the output."""
    base = tmp_path / "base.csv"
    shutil.copy(world["base"], base)
    before = snapshot(tmp_path)
    for extra in ((), ("--overwrite",)):
        refused(run("sample-items", base, world["exp"], "--size", "5", "--out", base, *extra),
                f"--out {base} is an input of this run")
    doc = tmp_path / "impact.json"
    result = run("impact", world["base"], world["exp"], "--format", "json")
    doc.write_text(result.output)
    before = snapshot(tmp_path)
    refused(run("report", "--impact", doc, "--out", doc), "is an input of this run")
    # an impact run with its Base clustering where --out writes base_clusters.parquet
    duck(f"COPY (SELECT * FROM read_csv('{world['base']}')) TO "
         f"'{tmp_path / 'base_clusters.parquet'}'")
    before = snapshot(tmp_path)
    for fmt in ("parquet", "csv"):  # csv: the file is an earlier output's name, dropped
        refused(run("impact", tmp_path / "base_clusters.parquet", world["exp"], "--out",
                    tmp_path, "--out-format", fmt),
                "base_clusters.parquet is an input of this run")
    assert snapshot(tmp_path) == before
    no_leftovers(tmp_path)


def test_report_out_is_never_a_file_of_its_sample(judged: Path) -> None:
    """`report --sample DIR --out DIR/draws.parquet` wrote the page over the draws it had
    just read, and the sample could no longer be estimated."""
    before = snapshot(judged)
    for name in ("draws.parquet", "manifest.json"):
        refused(run("report", "--sample", judged, "--judgements", judged / "questions.csv",
                    "--out", judged / name), "is an input of this run")
    assert snapshot(judged) == before
    no_leftovers(judged)
