"""`abcde explore` on samples a user has damaged (edited in a spreadsheet, cut, typed
over), on a wrong --db, a directory or a bad --group-by: each is exit 2 naming the file,
the column, example rows and what to do; never a wrong number or an internal error."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from abcde.cli import main
from abcde.errors import InputError
from abcde.explorer.groups import explore

Rows = list[dict[str, str]]


@pytest.fixture(scope="module")
def sample_csv(item_sample: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's sample as a CSV of a user's own (no manifest: checked, not trusted)."""
    out = tmp_path_factory.mktemp("explore_csv") / "items.csv"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * FROM read_parquet('{item_sample}')) TO '{out}' (HEADER)")
    con.close()
    return out


def read_rows(path: Path) -> Rows:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, rows: Rows, manifest_from: Path | None = None) -> Path:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if manifest_from is not None:
        shutil.copy(f"{manifest_from}.manifest.json", f"{path}.manifest.json")
    return path


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["explore", *args])
    return res.exit_code, res.output


def set_value(column: str, value: str, row: int = 4) -> Callable[[Rows], Rows]:
    def edit(rows: Rows) -> Rows:
        rows[row][column] = value
        return rows
    return edit


def drop_column(column: str) -> Callable[[Rows], Rows]:
    return lambda rows: [{k: v for k, v in r.items() if k != column} for r in rows]


def repeat_item(rows: Rows) -> Rows:
    rows[5]["item_id"] = rows[4]["item_id"]
    return rows


# (edit, column named, words of the message); the edited row is data row 5 = line 6
DAMAGE = {
    "nan weight": (set_value("importance_weight", "NaN"), "importance_weight", ["NaN"]),
    "negative weight": (set_value("importance_weight", "-0.5"), "importance_weight",
                        ["negative"]),
    "infinite weight": (set_value("importance_weight", "inf"), "importance_weight",
                        ["infinite"]),
    "empty weight": (set_value("importance_weight", ""), "importance_weight", ["empty"]),
    "edited weight": (set_value("importance_weight", "0.0123"), "importance_weight",
                      ["do not fit", "draw_count"]),
    "draw_count word": (set_value("draw_count", "abc"), "draw_count", ["not numbers", "'abc'"]),
    "draw_count zero": (set_value("draw_count", "0"), "draw_count", ["whole numbers >= 1"]),
    "draw_count fraction": (set_value("draw_count", "1.5"), "draw_count",
                            ["whole numbers >= 1"]),
    "edited draw_count": (set_value("draw_count", "40"), "importance_weight", ["do not fit"]),
    "empty draw_count": (set_value("draw_count", ""), "draw_count", ["empty"]),
    "first_draw word": (set_value("first_draw", "x"), "first_draw", ["not numbers"]),
    "metric word": (set_value("merge_rate", "n/a"), "merge_rate", ["not numbers"]),
    "metric above 1": (set_value("jaccard_distance", "1.7"), "jaccard_distance", ["(0, 1]"]),
    "metric negative": (set_value("split_rate", "-0.1"), "split_rate", ["[0, 1]"]),
    "metric empty": (set_value("jaccard_index", ""), "jaccard_index", ["empty"]),
    "distances disagree": (set_value("split_distance", "0.99"), "split_distance",
                           ["merge_distance"]),
    "empty item id": (set_value("item_id", ""), "item_id", ["no item id"]),
    "item twice": (repeat_item, "item_id", ["more than one row", "line 6", "line 7"]),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_a_damaged_sample_is_refused_naming_column_and_row(sample_csv: Path, tmp_path: Path,
                                                           case: str) -> None:
    edit, column, words = DAMAGE[case]
    rows = read_rows(sample_csv)
    item = rows[4]["item_id"]
    bad = write_rows(tmp_path / "edited.csv", edit(rows))
    code, out = run(str(bad), "--group-by", "provenance")
    assert code == 2, out
    assert "bug" not in out and "internal" not in out, out
    assert "edited.csv" in out and f"column {column!r}" in out, out
    assert "line 6" in out, out  # header = line 1, data row 5
    if case != "empty item id":
        assert repr(item) in out, out
    assert "sample-items" in out, out  # what to do
    for w in words:
        assert w in out, (w, out)
    with pytest.raises(InputError):
        explore(bad, "provenance")


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".csv.zst"])
def test_an_unclosed_quote_is_told_by_its_line(sample_csv: Path, tmp_path: Path,
                                               suffix: str) -> None:
    """A quote opened and never closed (a spreadsheet's edit) makes DuckDB read every line
    as one value: the file, the line and the reason are told, of a compressed file too
    (DuckDB decompresses it; the line is the decompressed text's)."""
    lines = sample_csv.read_text().splitlines(keepends=True)
    provenance = read_rows(sample_csv)[8]["provenance"]
    lines[9] = lines[9].replace(f",{provenance},", f',"{provenance},', 1)  # line 10
    assert lines[9].count('"') == 1
    text = tmp_path / "quote.csv"
    text.write_text("".join(lines))
    bad = tmp_path / f"quote{suffix}"
    if suffix != ".csv":  # the same bytes compressed, by DuckDB (no zstd command needed)
        con = duckdb.connect()
        con.execute(f"COPY (SELECT content FROM read_text('{text}')) TO '{bad}' (FORMAT csv, "
                    f"HEADER false, QUOTE '', ESCAPE '', COMPRESSION "
                    f"{'gzip' if suffix.endswith('gz') else 'zstd'})")
        con.close()
    code, out = run(str(bad))
    assert code == 2, out
    assert f"cannot parse {bad}: line 10: a quoted value is never closed" in out, out


def test_the_undamaged_csv_reads_as_the_parquet_sample(sample_csv: Path,
                                                       item_sample: Path) -> None:
    """The checks refuse nothing abcde wrote: a CSV and a Parquet sample, and a copy that
    keeps 15 significant digits (a spreadsheet's)."""
    want = explore(item_sample, "provenance", top=0)
    got = explore(sample_csv, "provenance", top=0)
    assert [g["provenance"] for g in got["groups"]] == [g["provenance"] for g in want["groups"]]
    for g, w in zip(got["groups"], want["groups"], strict=True):
        assert g["contribution"] == pytest.approx(w["contribution"], rel=1e-12)
        assert g["examples"] == w["examples"]
    rows = read_rows(sample_csv)
    for r in rows:
        for c in ("importance_weight", "jaccard_distance", "split_distance", "merge_distance"):
            r[c] = f"{float(r[c]):.15g}"
    rounded = write_rows(sample_csv.with_name("rounded.csv"), rows)
    got = explore(rounded, "provenance", top=0)
    assert got["groups"][0]["contribution"] == pytest.approx(
        want["groups"][0]["contribution"], rel=1e-9)


def test_what_sample_items_returns_and_dataframes_are_explored(item_sample: Path) -> None:
    """explore(abcde.sample_items(...)) raised "'ItemSample' object is not iterable", and
    a DataFrame of the rows a ValueError: the ItemSample (its rows, or its file when it
    fetched none), a pandas DataFrame and an Arrow table are explored as the file is."""
    import pandas as pd
    import pyarrow.parquet as pq

    from abcde.sampling.items import ItemSample

    want = explore(item_sample, "provenance", top=0)
    table = pq.read_table(item_sample)
    rows = table.to_pylist()
    for sample in (ItemSample(rows=rows, manifest={}),
                   ItemSample(rows=[], manifest={}, files={"sample": str(item_sample)}),
                   pd.DataFrame(rows), table):
        got = explore(sample, "provenance", top=0)
        assert [g["provenance"] for g in got["groups"]] == \
            [g["provenance"] for g in want["groups"]]
        for g, w in zip(got["groups"], want["groups"], strict=True):
            assert g["contribution"] == pytest.approx(w["contribution"], rel=1e-12)
            assert g["examples"] == w["examples"]
    # what sample_pairs returns is told as a pair sample (it raised a TypeError)
    from abcde.sampling.pairs import PairSample

    with pytest.raises(InputError, match="is a pair sample") as err:
        explore(PairSample(draws=[], questions=[], manifest={}), "provenance")
    assert "estimated (`abcde estimate DIR`)" in str(err.value)


def test_filters_not_given_as_triples_are_refused(item_sample: Path) -> None:
    """One filter given alone, or a filter of two values, failed with Python's 'not
    enough values to unpack'; each is an InputError showing the form to use, and the
    form it shows filters."""
    for filters in (("provenance", "=", "upload"), [("provenance", "upload")], "x", 3):
        with pytest.raises(InputError, match=r"filters=\[\('provenance', '=', 'upload'\)\]"):
            explore(item_sample, "provenance", filters=filters)
    got = explore(item_sample, "provenance", filters=[("provenance", "=", "upload")])
    assert [g["provenance"] for g in got["groups"]] == ["upload"]


def test_a_sample_edited_beside_its_manifest_is_refused(item_sample: Path,
                                                       tmp_path: Path) -> None:
    """A file of `abcde sample-items` is trusted through the digest its manifest holds:
    rows deleted (every row still valid, the estimates short of their share), or another
    sample's manifest beside it, are refused in one sentence naming the file."""
    cut = tmp_path / "cut.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * FROM read_parquet('{item_sample}') WHERE first_draw % 2 = 0)"
                f" TO '{cut}'")
    con.close()
    shutil.copy(f"{item_sample}.manifest.json", f"{cut}.manifest.json")
    code, out = run(str(cut))
    assert code == 2 and f"{cut} is not as `abcde sample-items` wrote it" in out, out
    renamed = tmp_path / "round1.parquet"  # a file renamed with its manifest is the same
    shutil.copy(item_sample, renamed)
    shutil.copy(f"{item_sample}.manifest.json", f"{renamed}.manifest.json")
    assert explore(renamed, "provenance") == explore(item_sample, "provenance")


@pytest.mark.parametrize("column", ["importance_weight", "first_draw", "item_id"])
def test_a_sample_without_a_column_is_refused(sample_csv: Path, tmp_path: Path,
                                              column: str) -> None:
    bad = write_rows(tmp_path / "lacking.csv", drop_column(column)(read_rows(sample_csv)))
    code, out = run(str(bad), "--group-by", "provenance")
    assert code == 2 and "lacks the column" in out and column in out, out
    assert "sample-items" in out, out


def test_a_parquet_sample_with_text_in_a_number_column(item_sample: Path,
                                                       tmp_path: Path) -> None:
    bad = tmp_path / "text.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * REPLACE (CASE WHEN first_draw = 3 THEN 'many' ELSE "
                f"CAST(draw_count AS VARCHAR) END AS draw_count) FROM "
                f"read_parquet('{item_sample}')) TO '{bad}'")
    con.close()
    code, out = run(str(bad))
    assert code == 2 and "'draw_count'" in out and "'many'" in out and "row " in out, out


@pytest.mark.parametrize(("make", "words"), [
    (lambda p: p.mkdir(), ["is a directory"]),
    (lambda p: p.write_text("hello"), ["cannot tell the format", ".parquet"]),
    (lambda p: None, ["is not a file"]),
])
def test_a_sample_that_is_no_file_says_what_to_give(tmp_path: Path, make: Callable[[Path], None],
                                                    words: list[str]) -> None:
    target = tmp_path / "adir"
    make(target)
    code, out = run(str(target))
    assert code == 2 and all(w in out for w in words), out


@pytest.fixture(scope="module")
def sample_db(item_sample: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("explore_db") / "round.duckdb"
    con = duckdb.connect(str(db))
    con.execute(f"CREATE TABLE item_sample AS SELECT * FROM read_parquet('{item_sample}')")
    con.close()
    return db


def test_a_table_of_db_is_explored(sample_db: Path, item_sample: Path) -> None:
    got = explore("item_sample", "provenance", db=sample_db)
    want = explore(item_sample, "provenance")
    assert [g["examples"] for g in got["groups"]] == [g["examples"] for g in want["groups"]]


@pytest.mark.parametrize(("sample", "db", "words"), [
    ("nosuch", None, ["no file or table named 'nosuch'", "--db"]),
    ("main.", None, ["not a table name", "item_sample"]),
    ("item_sample", "csv", ["is a CSV file, not a DuckDB database", "--db takes"]),
    ("item_sample", "text", ["not a DuckDB database file", "--db takes"]),
])
def test_db_mistakes_are_exit_2(sample_db: Path, sample_csv: Path, tmp_path: Path,
                                sample: str, db: str | None, words: list[str]) -> None:
    path = {None: sample_db, "csv": sample_csv, "text": tmp_path / "notes"}[db]
    if db == "text":
        path.write_text("not a database\n")
    code, out = run(sample, "--db", str(path))
    assert code == 2 and all(w in out for w in words), out
    assert "internal" not in out, out


def test_a_db_another_process_writes_is_exit_2(sample_db: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked.duckdb"
    shutil.copy(sample_db, locked)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); time.sleep(60)", str(locked)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        time.sleep(0.2)
        code, out = run("item_sample", "--db", str(locked))
    finally:
        holder.kill()
        holder.wait()
    assert code == 2 and "another process has it open for writing" in out, out
    assert "Close the other program" in out, out


@pytest.mark.parametrize(("group_by", "words"), [
    ("provenance,", ["--group-by 'provenance,'", "empty column"]),
    (",provenance", ["empty column"]),
    ("provenance,,size_class", ["empty column"]),
    ("provenance,provenance", ["'provenance' more than once"]),
    ("items", ["--group-by 'items'", "a column of that name"]),
    ("nosuch", ["no column 'nosuch'"]),
])
def test_bad_group_by_is_exit_2(item_sample: Path, group_by: str, words: list[str]) -> None:
    code, out = run(str(item_sample), "--group-by", group_by)
    assert code == 2 and all(w in out for w in words), out


def test_groups_of_nan_values_get_their_examples(item_sample: Path, tmp_path: Path) -> None:
    """A group value that is NaN (or a BLOB) was written into the examples' SQL, which
    failed; each group's examples are its most drawn items, counted here apart."""
    odd = tmp_path / "odd.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT *, CASE WHEN first_draw % 2 = 0 THEN 'NaN'::DOUBLE ELSE 1.5 "
                f"END AS score, CAST(CAST(first_draw % 2 AS VARCHAR) AS BLOB) AS tag FROM "
                f"read_parquet('{item_sample}')) TO '{odd}'")
    rows = con.execute(f"SELECT item_id, draw_count, first_draw FROM read_parquet('{odd}')"
                       " WHERE first_draw % 2 = 0 ORDER BY draw_count DESC, first_draw "
                       "LIMIT 2").fetchall()
    con.close()
    for column in ("score", "tag"):
        got = explore(odd, column, examples=2, top=0)
        assert len(got["groups"]) == 2
        # NaN as JSON holds it; the BLOB as DuckDB writes it (it was 0.0: float(b"0"))
        (nan,) = [g for g in got["groups"] if g[column] in ("NaN", "0")]
        assert nan["examples"] == [r[0] for r in rows]


@pytest.mark.parametrize(("where", "value"), [("weight > 'abc'", "'abc'"),
                                            ("first_draw = 'x1' AND weight > 0", "'x1'")])
def test_a_where_value_not_of_the_columns_type_is_exit_2(item_sample: Path, where: str,
                                                        value: str) -> None:
    code, out = run(str(item_sample), "--where", where)
    assert code == 2, out
    assert f"--where {where!r} cannot be applied to the sample" in out and value in out


def test_a_pair_sample_is_told_as_one(tmp_path: Path) -> None:
    """The directory of `abcde sample-pairs`, or one of its files, is called a pair
    sample and pointed at the item sample, judge and estimate: it was refused as an
    edited item sample ("Draw the sample again rather than editing it")."""
    from abcde.sampling.pairs import sample_pairs

    examples = Path(__file__).resolve().parents[2] / "examples"
    out = tmp_path / "round1"
    sample_pairs(str(examples / "base.csv"), str(examples / "exp.csv"),
                 str(examples / "weights.csv"), budget=20, seed=1, out=str(out))
    for given in (out, out / "draws.parquet", out / "draws.csv", out / "questions.csv"):
        code, said = run(str(given))
        assert code == 2, said
        assert "pair sample of `abcde sample-pairs`" in said, said
        assert "abcde sample-items --out FILE" in said and "abcde estimate DIR" in said
        assert "editing" not in said, said


def test_explore_leaves_nothing_in_the_temp_directory(item_sample: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each explore (a command, and every request of the explorer's page) borrowed a
    DuckDB connection for its checks and made a private spill directory for it that
    nobody removed: one empty abcde_duckdb_* directory left in the temp directory per
    call. An engine that owns its connection still makes one and removes it on close."""
    import tempfile

    from abcde.engines.duckdb import DuckDBEngine

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    explore(item_sample, "provenance", top=0)
    assert list(tmp_path.iterdir()) == []
    engine = DuckDBEngine()
    assert engine.temp_dir is not None and engine.temp_dir.parent == tmp_path
    spill = engine.con.execute("SELECT current_setting('temp_directory')").fetchone()[0]
    assert Path(spill) == engine.temp_dir
    engine.close()
    assert list(tmp_path.iterdir()) == []


def test_an_engine_interrupted_while_opening_leaves_no_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (or SIGTERM, raised the same way) while DuckDB opens its connection — the
    engine's spill directory was made just before — left the directory behind (one
    possible cause of two empty abcde_duckdb_* directories seen after a test run)."""
    import tempfile

    import duckdb

    from abcde.engines.duckdb import DuckDBEngine

    def interrupted(*a: object, **k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(duckdb, "connect", interrupted)
    with pytest.raises(KeyboardInterrupt):
        DuckDBEngine()
    assert list(tmp_path.iterdir()) == []
