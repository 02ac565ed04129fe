"""`abcde estimate` / `abcde.quality.estimate.estimate`: judgement files, truth and callable
judges on real samples from `sample_pairs`, checked against the estimators run
directly on the same draws (`estimate_from_draws`) and against brute-force exact values;
the manifest checks of `estimate_from_draws`."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from duck import duck
from reference import quality_exact
from toy_draws import GOOD, TOY_MANIFEST, draw_rows

from abcde.cli import main
from abcde.errors import InputError
from abcde.quality.estimate import estimate, estimate_from_draws, verdict_counts
from abcde.sample_files.manifest import sample_id
from abcde.sampling.pairs import sample_pairs

BASE = {i: i // 4 for i in range(40)}  # clusters of 4
EXP = {i: (i // 8 if i < 20 else i // 4 + 100) for i in range(40)}  # merges in the first half
EXP.update({38: 500, 39: 501})  # and two splits
TRUTH = {i: i // 8 for i in range(40)}
WEIGHT = {i: 1.0 + (i % 5) for i in range(40)}
TRUTH_MISSING = {i: c for i, c in TRUTH.items() if i % 10}  # some items unknown


def _rows(d: dict) -> list[dict]:
    return [{"item_id": k, "cluster_id": v} for k, v in d.items()]


@pytest.fixture(scope="module", params=["mixture", "abcde", "jaccard"])
def sample_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp(request.param)
    sample_pairs(BASE, EXP, WEIGHT, population=request.param, budget=60,
                 seed=5, out=out)
    return out


def _questions(sample_dir: Path) -> list[dict]:
    """The questions file's rows; every questions file carries the sample's id (added
    here from the manifest where the sampler does not write it yet)."""
    with (sample_dir / "questions.csv").open() as f:
        rows = list(csv.DictReader(f))
    sid = sample_id(json.loads((sample_dir / "manifest.json").read_text()))
    return [{**r, "sample_id": r.get("sample_id") or sid} for r in rows]


def _write(path: Path, rows: list[dict]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def _judged(sample_dir: Path, truth: dict) -> list[dict]:
    out = []
    for q in _questions(sample_dir):
        a, b = int(q["item_1"]), int(q["item_2"])
        v = "" if a not in truth or b not in truth else (
            "equivalent" if truth[a] == truth[b] else "not_equivalent")
        out.append({**q, "verdict": v})
    return out


def test_truth_file_callable_and_judgement_file_agree(sample_dir: Path, tmp_path: Path) -> None:
    """Three ways to give the same verdicts give identical estimates, equal to the
    estimators run by hand on draws.csv."""
    truth_path = _write(tmp_path / "truth.csv", _rows(TRUTH_MISSING))
    judged = _write(tmp_path / "judged.csv", _judged(sample_dir, TRUTH_MISSING))
    by_truth = estimate(sample_dir, truth=truth_path)
    by_file = estimate(sample_dir, judgements=judged)
    by_judge = estimate(sample_dir, judge=lambda i, j: None if i not in TRUTH_MISSING or
                        j not in TRUTH_MISSING else TRUTH_MISSING[i] == TRUTH_MISSING[j])
    manifest = json.loads((sample_dir / "manifest.json").read_text())
    with (sample_dir / "draws.csv").open() as f:
        draws = list(csv.DictReader(f))
    for r in draws:
        r["label"], r["draw_count"] = float(r["label"]), int(r["draw_count"])
        r["u_over_w"] = float(r["u_over_w"])
    verdicts = {q["pair_id"]: q["verdict"] or "unknown" for q in _judged(sample_dir,
                                                                         TRUTH_MISSING)}
    direct = estimate_from_draws(draws, verdicts, manifest)
    for key in ("delta_precision", "good_split_rate", "bad_merge_rate"):
        assert by_truth[key] == by_file[key] == by_judge[key]
        assert by_truth[key]["estimate"] == pytest.approx(direct[key]["estimate"])
        assert by_truth[key]["se"] == pytest.approx(direct[key]["se"])
    assert by_truth["judgements"]["unknown"] > 0
    assert by_truth["impact"]["split_rate"] == manifest["metrics"]["split_rate"]


def test_a_truth_dataframe_reads_a_missing_cluster_as_no_truth_cluster(
        sample_dir: Path, tmp_path: Path) -> None:
    """A truth DataFrame whose unlabelled items have a NaN (float column) or pd.NA
    (Int64) cluster judges their pairs unknown, as a truth file's NULL and an absent
    item do: the verdicts of a judgement file written by hand from TRUTH_MISSING. NaN
    used to make them 'not_equivalent' (NaN != NaN) and pd.NA raised a TypeError. An
    item in two clusters is refused, as in a truth file, not overwritten."""
    import pandas as pd

    judged = _write(tmp_path / "judged.csv", _judged(sample_dir, TRUTH_MISSING))
    by_file = estimate(sample_dir, judgements=judged)
    clusters = [TRUTH_MISSING.get(i, float("nan")) for i in TRUTH]
    frame = pd.DataFrame({"item_id": list(TRUTH), "cluster_id": clusters})
    assert frame["cluster_id"].dtype == float
    for truth in (frame, frame.astype({"cluster_id": "Int64"}),
                  dict(zip(frame["item_id"], frame["cluster_id"], strict=True))):
        by_frame = estimate(sample_dir, truth=truth)
        assert by_frame["judgements"] == by_file["judgements"]
        assert by_frame["delta_precision"] == by_file["delta_precision"]
    twice = pd.concat([frame, pd.DataFrame({"item_id": [1], "cluster_id": [3.0]})])
    with pytest.raises(InputError, match="item in two clusters"):
        estimate(sample_dir, truth=twice)


def test_judgements_and_truth_as_tables(sample_dir: Path, tmp_path: Path) -> None:
    """The filled questions as a DataFrame (its blank verdicts pd.NA) or an Arrow table
    give the verdicts of the same rows in a file: a DataFrame raised an AttributeError
    (iterating it gives its column names). A truth Arrow table judges as the mapping; a
    truth or judgements of another type is an InputError saying what to pass, not a
    TypeError about paths."""
    import pandas as pd
    import pyarrow as pa

    rows = _judged(sample_dir, TRUTH_MISSING)
    by_file = estimate(sample_dir, judgements=_write(tmp_path / "judged.csv", rows))
    frame = pd.DataFrame(rows).astype({"pair_id": int})
    frame["verdict"] = frame["verdict"].replace("", None).astype("string")
    assert frame["verdict"].isna().any()
    by_truth = estimate(sample_dir, truth=TRUTH_MISSING)
    truth_table = pa.table({"item_id": list(TRUTH_MISSING),
                            "cluster_id": list(TRUTH_MISSING.values())})
    for kwargs, expected in (({"judgements": frame}, by_file),
                             ({"judgements": pa.Table.from_pandas(frame)}, by_file),
                             ({"truth": truth_table}, by_truth)):
        got = estimate(sample_dir, **kwargs)
        assert got["judgements"] == expected["judgements"]
        assert got["delta_precision"] == expected["delta_precision"]
    assert by_file["judgements"]["unknown"] > 0
    for kwargs, message in (({"truth": pd.Series(TRUTH)}, "truth must be a mapping"),
                            ({"truth": [1, 2]}, "truth must be a mapping"),
                            ({"judgements": 5}, "judgements must be"),
                            ({"judgements": [("1", "equivalent")]}, "judgements must be")):
        with pytest.raises(InputError, match=message):
            estimate(sample_dir, **kwargs)


def test_a_table_with_a_repeated_column_name_is_refused(sample_dir: Path) -> None:
    """An Arrow table of judgements with two `verdict` columns read the last one only
    (to_pydict keeps one value per name) and estimated from it without a word; it is
    refused naming the column, as a DataFrame's repeated names are."""
    import pandas as pd
    import pyarrow as pa

    rows = _judged(sample_dir, TRUTH)
    ids = [str(r["pair_id"]) for r in rows]
    verdicts = [r["verdict"] for r in rows]
    table = pa.Table.from_arrays([pa.array(ids), pa.array(verdicts),
                                  pa.array(["unknown"] * len(ids))],
                                 names=["pair_id", "verdict", "verdict"])
    frame = pd.DataFrame({"pair_id": ids, "v": verdicts, "w": verdicts})
    frame.columns = ["pair_id", "verdict", "verdict"]
    for judgements in (table, frame):
        with pytest.raises(InputError, match="'verdict' are repeated"):
            estimate(sample_dir, judgements=judgements)


def test_a_sample_that_is_no_pair_sample_is_refused() -> None:
    """estimate(abcde.sample_items(...)) or estimate(None) raised a TypeError about
    paths; each is an InputError saying a pair sample is wanted and what to give."""
    from abcde.sampling.items import ItemSample

    for sample, kind in ((ItemSample(rows=[], manifest={}), "an item sample"),
                         (None, "a NoneType"), ([{"pair_id": 1}], "a list")):
        with pytest.raises(InputError, match=f"must be a pair sample, not {kind}"):
            estimate(sample, truth=TRUTH)


def test_full_truth_no_unknowns_estimates_near_exact(sample_dir: Path) -> None:
    """With every verdict known the estimates are within 5 SE of the brute-force values
    (seeded; a correct estimator fails this with probability < 1e-5 per metric)."""
    out = estimate(sample_dir, truth=TRUTH)
    exact = quality_exact(BASE, EXP, WEIGHT, TRUTH)
    for key in ("delta_precision", "good_merge_rate", "bad_merge_rate"):
        m = out[key]
        assert abs(m["estimate"] - exact[key]) <= 5 * (m["se"] or 0) + 1e-12, key


def test_keyed_by_items_in_either_order_and_jsonl(sample_dir: Path, tmp_path: Path) -> None:
    rows = _judged(sample_dir, TRUTH)
    flipped = [{"item_1": r["item_2"], "item_2": r["item_1"], "verdict": r["verdict"]}
               for r in rows]
    a = estimate(sample_dir, judgements=_write(tmp_path / "f.csv", flipped))
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps({"pair_id": int(r["pair_id"]), "sample_id":
                                        r["sample_id"], "verdict": r["verdict"]}) + "\n"
                            for r in rows))
    b = estimate(sample_dir, judgements=path)
    assert a["delta_precision"] == b["delta_precision"]
    assert a["judgements"]["unknown"] == 0


def _error(sample_dir: Path, path: Path) -> str:
    with pytest.raises(InputError) as err:
        estimate(sample_dir, judgements=path)
    return str(err.value)


def test_judgement_file_errors(sample_dir: Path, tmp_path: Path) -> None:
    rows = _judged(sample_dir, TRUTH)
    bad_word = [dict(r) for r in rows]
    bad_word[2]["verdict"] = "maybe"
    msg = _error(sample_dir, _write(tmp_path / "a.csv", bad_word))
    assert "maybe" in msg and "line 4" in msg  # header is line 1

    foreign = [*rows, {**rows[0], "pair_id": "99999", "item_1": "1000", "item_2": "1001"}]
    msg = _error(sample_dir, _write(tmp_path / "b.csv", foreign))
    assert "not in the sample" in msg and "99999" in msg

    flip = "not_equivalent" if rows[0]["verdict"] == "equivalent" else "equivalent"
    contradiction = [*rows, {**rows[0], "verdict": flip}]
    msg = _error(sample_dir, _write(tmp_path / "c.csv", contradiction))
    assert "contradictory" in msg and f"pair {rows[0]['pair_id']}" in msg

    # the same pair numbers with other items: judged for another sample
    other = [{**r, "item_1": rows[(k + 1) % len(rows)]["item_1"],
              "item_2": rows[(k + 1) % len(rows)]["item_2"]} for k, r in enumerate(rows)]
    msg = _error(sample_dir, _write(tmp_path / "d.csv", other))
    assert "another sample" in msg

    # one mistyped pair id among rows that agree with the sample: a typo, said as such
    typo = [dict(r) for r in rows]
    typo[3]["pair_id"] = rows[4]["pair_id"]
    msg = _error(sample_dir, _write(tmp_path / "typo.csv", typo))
    assert "mistyped" in msg and f"pair_id {rows[4]['pair_id']} with" in msg, msg
    assert "another sample" not in msg, msg

    tagged = [{**r, "sample_id": "0123456789ab"} for r in rows]
    msg = _error(sample_dir, _write(tmp_path / "e.csv", tagged))
    assert "another sample" in msg and "0123456789ab" in msg

    msg = _error(sample_dir, _write(tmp_path / "f.csv", [{"pair_id": 1, "answer": "yes"}]))
    assert "needs columns" in msg

    unknown_then_known = [{**rows[0], "verdict": "unknown"}, *rows]
    estimate(sample_dir, judgements=_write(tmp_path / "g.csv", unknown_then_known))


def test_self_pair_judged_not_equivalent_is_an_error(sample_dir: Path, tmp_path: Path) -> None:
    rows = _judged(sample_dir, TRUTH)
    path = _write(tmp_path / "s.csv", [*rows, {**rows[0], "item_1": "3", "item_2": "3",
                                               "pair_id": "", "verdict": "no"}])
    assert "self pair" in _error(sample_dir, path)


def test_cli_table_json_and_exit_code(sample_dir: Path, tmp_path: Path) -> None:
    truth = _write(tmp_path / "truth.csv", _rows(TRUTH))
    runner = CliRunner()
    res = runner.invoke(main, ["estimate", str(sample_dir), "--truth", str(truth)])
    assert res.exit_code == 0, res.output
    assert "ΔPrecision" in res.output and "GoodMergeRate" in res.output
    assert "95% CI" in res.output
    # the table names the level asked for, in the verdict and the column header
    res = runner.invoke(main, ["estimate", str(sample_dir), "--truth", str(truth),
                               "--confidence", "0.9"])
    assert res.exit_code == 0, res.output
    assert "95% CI" not in res.output and res.output.count("90% CI") >= 2, res.output
    # a level near 1 is not printed as a 100% interval
    res = runner.invoke(main, ["estimate", str(sample_dir), "--truth", str(truth),
                               "--confidence", "0.999999999"])
    assert res.exit_code == 0, res.output
    assert "100% CI" not in res.output and res.output.count("99.9999999% CI") >= 2, res.output
    res = runner.invoke(main, ["estimate", str(sample_dir), "--truth", str(truth),
                               "--format", "json"])
    doc = json.loads(res.output)
    assert {"delta_precision", "verdict", "impact", "sample_id"} <= set(doc)
    bad = _write(tmp_path / "bad.csv", [{"pair_id": 1, "verdict": "perhaps"}])
    res = runner.invoke(main, ["estimate", str(sample_dir), "--judgements", str(bad)])
    assert res.exit_code == 2 and "perhaps" in res.output
    # the level is checked by abcde.estimate and named as the option was typed
    for level in ("1.5", "0"):
        res = runner.invoke(main, ["estimate", str(sample_dir), "--truth", str(truth),
                                   "--confidence", level])
        assert res.exit_code == 2 and "--confidence" in res.output, res.output


def test_a_source_without_any_known_verdict_is_refused(sample_dir: Path,
                                                       tmp_path: Path) -> None:
    """An unfilled questions.csv, a file of unknowns, a header without rows, a truth
    keyed by other ids and a judge that never knows used to print every metric's bounds
    [0, T] as a "95% CI" with exit 0; each is refused (exit 2), naming the source,
    example pairs and what to do."""
    questions = sample_dir / "questions.csv"
    rows = _questions(sample_dir)
    n = len(rows)
    unknown = _write(tmp_path / "unknown.csv", [{**r, "verdict": "unknown"} for r in rows])
    header = tmp_path / "header.csv"
    header.write_text("pair_id,item_1,item_2,sample_id,verdict\n")
    runner = CliRunner()
    for path, why in ((questions, f"{n} marked unknown or left blank, 0 with no row"),
                      (unknown, f"{n} marked unknown or left blank, 0 with no row"),
                      (header, f"0 marked unknown or left blank, {n} with no row")):
        res = runner.invoke(main, ["estimate", str(sample_dir), "--judgements", str(path)])
        assert res.exit_code == 2, res.output
        assert f"no known verdict for any of the sample's {n} pairs from {path} ({why})" \
            in res.output, res.output
        assert f"pair {rows[0]['pair_id']} (" in res.output, res.output
        assert "Fill the verdict column" in res.output and "Traceback" not in res.output
    other_ids = _write(tmp_path / "truth.csv", [{"item_id": f"x{i}", "cluster_id": c}
                                                for i, c in TRUTH.items()])
    res = runner.invoke(main, ["estimate", str(sample_dir), "--truth", str(other_ids)])
    assert res.exit_code == 2 and "holds both items of none of the pairs" in res.output
    assert "--item-col" in res.output
    with pytest.raises(InputError, match=r"the judge \(it answered unknown for every pair\)"):
        estimate(sample_dir, judge=lambda i, j: None)
    # one known verdict is enough to estimate (its intervals say how little it is)
    one = [{**r, "verdict": "unknown"} for r in rows]
    one[0]["verdict"] = "equivalent"
    assert estimate(sample_dir, judgements=_write(tmp_path / "one.csv", one))[
        "judgements"]["equivalent"] == 1


def test_pairs_without_a_row_in_the_judgement_file_are_reported(sample_dir: Path,
                                                                 tmp_path: Path) -> None:
    """A judge who skipped rows (or a file cut short) used to show only as more
    "unknown" verdicts; the table and the JSON say how many pairs had no row and which."""
    rows = _judged(sample_dir, TRUTH)
    kept = [r for k, r in enumerate(rows) if k % 7]  # every seventh row dropped
    dropped = [r["pair_id"] for k, r in enumerate(rows) if not k % 7]
    path = _write(tmp_path / "partial.csv", kept)
    note = (f"{len(dropped)} of the sample's {len(rows)} pairs have no row in {path} and "
            f"count as unknown (pair ids {', '.join(dropped[:5])}, …)")
    res = CliRunner().invoke(main, ["estimate", str(sample_dir), "--judgements", str(path)])
    assert res.exit_code == 0, res.output
    assert f"note: {note}" in res.output, res.output
    assert estimate(sample_dir, judgements=path)["notes"] == [note]
    # every pair has a row (some unknown): nothing to report
    blank = [{**r, "verdict": "unknown"} if not k % 7 else r for k, r in enumerate(rows)]
    assert "notes" not in estimate(sample_dir, judgements=_write(tmp_path / "all.csv", blank))


def test_ids_written_as_decimals(sample_dir: Path, tmp_path: Path) -> None:
    """pandas writes an int column holding a blank as floats (17 -> 17.0). Such rows
    were refused as "the file belongs to another sample"; a pair_id 17.0 is pair 17 (pair
    ids are integers), and integer item ids written so are named for what they are."""
    rows = _judged(sample_dir, TRUTH)
    want = estimate(sample_dir, judgements=_write(tmp_path / "plain.csv", rows))
    floats = _write(tmp_path / "floats.csv", [{**r, "pair_id": f"{r['pair_id']}.0"}
                                              for r in rows])
    assert estimate(sample_dir, judgements=floats)["delta_precision"] == \
        want["delta_precision"]
    # zero-padded pair ids ("007", a spreadsheet's number format) are those pairs too:
    # they were refused as pairs not in the sample
    padded = _write(tmp_path / "padded.csv", [{**r, "pair_id": f"{int(r['pair_id']):03d}"}
                                              for r in rows])
    assert estimate(sample_dir, judgements=padded)["delta_precision"] == \
        want["delta_precision"]
    # item ids written so name no item of the sample: refused (they match no pair), never
    # read as another sample's
    items = _write(tmp_path / "items.csv", [{**r, "item_1": f"{r['item_1']}.0"}
                                            for r in rows])
    msg = _error(sample_dir, items)
    assert f"line 2: pair_id {rows[0]['pair_id']} with items {rows[0]['item_1']}.0" in msg, msg
    assert "another sample" in msg or "not in the sample" in msg, msg


def test_pair_id_keyed_file_needs_its_sample_id(sample_dir: Path, tmp_path: Path) -> None:
    """Pair ids are numbered per sample, so a file keyed by pair_id alone must carry the
    sample_id of its questions file. Another sample's `pair_id,verdict` file used to be
    applied to the wrong pairs with exit 0; now it is refused (exit 2), and so is one
    with another sample's id. Item-keyed files need no sample_id."""
    manifest = json.loads((sample_dir / "manifest.json").read_text())
    other_dir = tmp_path / "other"
    sample_pairs(BASE, EXP, WEIGHT, population=manifest["population"], budget=60, seed=6,
                 out=other_dir)
    other = _judged(other_dir, TRUTH)
    assert other[0]["sample_id"] != sample_id(manifest)
    bare = _write(tmp_path / "bare.csv", [{"pair_id": r["pair_id"], "verdict": r["verdict"]}
                                          for r in other])
    msg = _error(sample_dir, bare)
    assert "pair_id alone" in msg and "sample_id" in msg and "numbered per sample" in msg
    assert sample_id(manifest) in msg  # tells the id to use
    res = CliRunner().invoke(main, ["estimate", str(sample_dir), "--judgements", str(bare)])
    assert res.exit_code == 2 and "sample_id" in res.output
    tagged = _write(tmp_path / "tagged.csv", [{"pair_id": r["pair_id"], "sample_id":
                                               r["sample_id"], "verdict": r["verdict"]}
                                              for r in other])
    assert "another sample" in _error(sample_dir, tagged)
    # the sample's own questions file, keyed by pair_id + sample_id only: end to end
    mine = _judged(sample_dir, TRUTH)
    own = _write(tmp_path / "own.csv", [{"pair_id": r["pair_id"], "sample_id": r["sample_id"],
                                         "verdict": r["verdict"]} for r in mine])
    res = CliRunner().invoke(main, ["estimate", str(sample_dir), "--judgements", str(own),
                                    "--format", "json"])
    assert res.exit_code == 0, res.output
    by_truth = estimate(sample_dir, truth=TRUTH)
    assert json.loads(res.output)["delta_precision"] == by_truth["delta_precision"]
    # keyed by item ids, no sample_id: checked against the sample's pairs, accepted
    items = _write(tmp_path / "items.csv", [{"item_1": r["item_1"], "item_2": r["item_2"],
                                             "verdict": r["verdict"]} for r in mine])
    assert estimate(sample_dir, judgements=items)["delta_precision"] == \
        by_truth["delta_precision"]


def test_header_with_spaces_and_byte_order_mark(sample_dir: Path, tmp_path: Path) -> None:
    """`pair_id, sample_id, verdict` (spaces after the commas) and an Excel BOM used to
    make every verdict unknown with exit 0; both now read like a plain header."""
    rows = _judged(sample_dir, TRUTH)
    want = estimate(sample_dir, truth=TRUTH)
    body = "".join(f"{r['pair_id']}, {r['sample_id']}, {r['verdict']}\n" for r in rows)
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("pair_id, sample_id, verdict\n" + body)
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + ("pair_id,sample_id,verdict\n" + body).encode())
    bom_jsonl = tmp_path / "bom.jsonl"
    bom_jsonl.write_bytes(b"\xef\xbb\xbf" + "".join(
        json.dumps({" pair_id": r["pair_id"], "sample_id": r["sample_id"],
                    "verdict": r["verdict"]}) + "\n" for r in rows).encode())
    for path in (spaced, bom, bom_jsonl):
        got = estimate(sample_dir, judgements=path)
        assert got["judgements"]["unknown"] == 0, path.name
        assert got["delta_precision"] == want["delta_precision"], path.name


@pytest.mark.parametrize(
    ("manifest", "match"),
    [
        ({k: v for k, v in TOY_MANIFEST.items() if k != "design"}, "earlier abcde"),
        ({**TOY_MANIFEST, "design": {"version": 1}}, "earlier abcde"),
    ],
)
def test_bad_manifest_is_refused(manifest: dict, match: str) -> None:
    with pytest.raises(InputError, match=match):
        estimate_from_draws(draw_rows(*GOOD), {2: "equivalent"}, manifest)


def test_a_sample_directory_of_an_earlier_design_is_refused(sample_dir: Path,
                                                            tmp_path: Path) -> None:
    """`abcde estimate` on a sample written before the mixture design (no `design` in its
    manifest) exits 2 with the reason and what to do (docs/method.md §8.1)."""
    old = tmp_path / "old"
    old.mkdir()
    manifest = json.loads((sample_dir / "manifest.json").read_text())
    del manifest["design"], manifest["format"]
    (old / "manifest.json").write_text(json.dumps(manifest))
    (old / "draws.csv").write_text((sample_dir / "draws.csv").read_text())
    truth = _write(tmp_path / "truth.csv", _rows(TRUTH))
    res = CliRunner().invoke(main, ["estimate", str(old), "--truth", str(truth)])
    assert res.exit_code == 2
    assert "earlier abcde" in res.output and "item_1,item_2" in res.output


def test_verdict_counts_are_per_sample_pair(sample_dir: Path, tmp_path: Path) -> None:
    """The counts the summary prints are one per unordered pair of the sample: a pair
    left blank is unknown, however many rows the file has (counted here from the
    questions file, independently of the estimate)."""
    rows = _judged(sample_dir, TRUTH)
    pairs = {r["pair_id"] for r in rows}
    half = [r for k, r in enumerate(rows) if k % 2 == 0]
    out = estimate(sample_dir, judgements=_write(tmp_path / "half.csv", half))
    given = {r["pair_id"]: r["verdict"] for r in half}
    assert out["judgements"] == {
        "equivalent": sum(v == "equivalent" for v in given.values()),
        "not_equivalent": sum(v == "not_equivalent" for v in given.values()),
        "unknown": len(pairs) - len(given)}
    assert sum(out["judgements"].values()) == len(pairs) == out["sample"]["pairs"]


def test_verdict_counts_ignore_pairs_outside_the_sample() -> None:
    """A verdict map (e.g. carried over from a longer sample) may hold pairs this sample
    lacks; ids compare as text."""
    counts = verdict_counts(["1", "1", "2", 3], {1: "equivalent", "3": "not_equivalent",
                                                 "9": "equivalent"})
    assert counts == {"equivalent": 1, "not_equivalent": 1, "unknown": 1}


def test_the_slice_table_flags_what_is_not_conclusive(tmp_path: Path) -> None:
    """A small sliced sample of the example data: every slice row of the table shows the
    interval of the JSON's per-slice ΔPrecision and '!' exactly when that estimate is not
    conclusive, and a line names those slices (they printed an SE alone, unmarked)."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    sample_pairs(str(examples / "base.csv"), str(examples / "exp.csv"),
                 str(examples / "weights.csv"), attributes=str(examples / "attributes.csv"),
                 slice_by="provenance", budget=50, seed=7, out=tmp_path / "s")
    args = ["estimate", str(tmp_path / "s"), "--truth", str(examples / "ideal.csv")]
    doc = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).output)
    text = CliRunner().invoke(main, args).output
    weak = []
    for r in doc["slices"]:
        name = f"provenance={r['slice']['provenance']}"
        dp = r["delta_precision"]
        row = next(line for line in text.splitlines() if line.startswith(name + " "))
        assert f"[{100 * dp['ci_low']:+.3f}%, {100 * dp['ci_high']:+.3f}%]" in row, row
        assert (f" {dp['n_eff']:.0f}! " in row) == bool(dp["not_conclusive"]), row
        if dp["not_conclusive"]:
            weak.append(name)
    assert weak, "a budget of 50 over four slices leaves some slice thin"
    assert "not conclusive ('!') — judge more of their pairs, or stratify:" in text
    for r in doc["slices"]:
        name = f"provenance={r['slice']['provenance']}"
        assert (f"  {name}: " in text) == (name in weak), name


def test_a_slice_not_conclusive_by_its_heaviest_part_says_why(tmp_path: Path) -> None:
    """A slice can be not conclusive with an n_eff well above 10, when the part weighing
    most in it rests on a few draws (docs/method.md §8.11); its '!' stood beside e.g. 45
    under a legend saying 'n_eff below 10', and the reason, in the JSON only, was never
    printed: the table names each such slice with its reason."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    sample_pairs(str(examples / "base.csv"), str(examples / "exp.csv"),
                 str(examples / "weights.csv"), attributes=str(examples / "attributes.csv"),
                 slice_by="provenance", budget=1000, seed=7, out=tmp_path / "s")
    args = ["estimate", str(tmp_path / "s"), "--truth", str(examples / "ideal.csv")]
    doc = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).output)
    text = CliRunner().invoke(main, args).output
    by_part = [r for r in doc["slices"] if r["delta_precision"]["not_conclusive"]
               and r["delta_precision"]["n_eff"] >= 10]
    assert by_part, "this sample has a slice flagged by a part, not by its own n_eff"
    for r in by_part:
        why = r["delta_precision"]["not_conclusive"]
        assert f"  provenance={r['slice']['provenance']}: {why}" in text.splitlines()
    assert "n_eff below 10, the metric's or that of the part weighing most in it" in text


def test_too_many_unknowns_flag_every_metric_in_the_json(sample_dir: Path,
                                                         tmp_path: Path) -> None:
    """More than 20% unknown verdicts: the verdict draws no conclusion, and so does every
    estimated metric's own `not_conclusive` in the JSON (a reader of one metric used to
    see null there); at 20% or fewer, only the n_eff rule flags a metric."""
    from abcde.quality.wording import MAX_UNKNOWN_SHARE

    rows = _judged(sample_dir, TRUTH)
    n = len(rows)

    def doc_with(unknown: int) -> dict:
        blank = [{**r, "verdict": "unknown"} if k < unknown else r
                 for k, r in enumerate(rows)]
        return estimate(sample_dir, judgements=_write(tmp_path / f"u{unknown}.csv", blank))

    few = int(MAX_UNKNOWN_SHARE * n)  # at most the share: no sample-wide warning
    many = few + 1
    base = doc_with(few)
    assert not any(w.startswith("unknown verdicts:") for w in base["warnings"])
    doc = doc_with(many)
    assert any(w.startswith("unknown verdicts:") for w in doc["warnings"])
    assert "not conclusive" in doc["verdict"]
    estimated = [k for k, m in doc.items() if isinstance(m, dict) and "not_conclusive" in m
                 and m["estimate"] is not None and m["interval"] != "exact"]
    assert "delta_precision" in estimated
    for k in estimated:
        why = doc[k]["not_conclusive"]
        assert why, k
        if not base[k]["not_conclusive"]:
            assert why.startswith(f"{many} of {n} pairs have no verdict"), (k, why)
    for m in base.values():  # without the warning the n_eff rule alone decides
        if isinstance(m, dict) and m.get("not_conclusive"):
            assert "have no verdict" not in m["not_conclusive"]


def test_an_edited_manifest_is_refused_with_what_to_do(sample_dir: Path,
                                                       tmp_path: Path) -> None:
    """A class total edited in manifest.json breaks its seal: exit 2 naming the file and
    what to do."""
    import shutil

    copy = tmp_path / "edited"
    shutil.copytree(sample_dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    key = next(iter(manifest["classes"]))
    manifest["classes"][key]["u"] = 1.5 * manifest["classes"][key]["u"] + 1e-3
    (copy / "manifest.json").write_text(json.dumps(manifest))
    judged = _write(tmp_path / "v.csv", _judged(sample_dir, TRUTH))
    res = CliRunner().invoke(main, ["estimate", str(copy), "--judgements", str(judged)])
    assert res.exit_code == 2, res.output
    assert f"{copy / 'manifest.json'} is not as `abcde sample-pairs` wrote it" in res.output
    assert "Run `abcde sample-pairs` again" in res.output


@pytest.mark.parametrize("edit", [
    {"alpha": 0.3, "design.alpha": 0.3},                      # the design, not its lineage
    {"alpha": 0.3, "design.alpha": 0.3, "lineage.alpha": 0.3},  # and the lineage: its stream id
    {"design.alpha": 0.3},
    {"seed": 6},
    {"lineage.inputs": "0" * 16},
])
def test_an_edited_design_is_refused(sample_dir: Path, tmp_path: Path, edit: dict) -> None:
    """The estimators take the manifest's α and design at their word: an edit after the
    sample was drawn would move every interval without a word. The manifest's seal
    refuses it (exit 2)."""
    import shutil

    copy = tmp_path / "edited"
    shutil.copytree(sample_dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    if manifest["population"] != "mixture" and "alpha" in "".join(edit):
        edit = {"seed": 6}  # α is fixed by the abcde and jaccard designs (1 and 0)
    for path, value in edit.items():
        *up, last = path.split(".")
        node = manifest
        for k in up:
            node = node[k]
        node[last] = value
    (copy / "manifest.json").write_text(json.dumps(manifest))
    judged = _write(tmp_path / "v.csv", _judged(sample_dir, TRUTH))
    ok = CliRunner().invoke(main, ["estimate", str(sample_dir), "--judgements", str(judged)])
    assert ok.exit_code == 0, ok.output
    res = CliRunner().invoke(main, ["estimate", str(copy), "--judgements", str(judged)])
    assert res.exit_code == 2, res.output
    assert "manifest.json is not as `abcde sample-pairs` wrote it" in res.output


@pytest.mark.parametrize("option", ["--judgements", "--truth"])
def test_estimate_says_a_dangling_link_is_a_link(tmp_path, option: str) -> None:  # type: ignore[no-untyped-def]
    """--judgements (or --truth) naming a symbolic link to a missing target is refused as
    such (exit 2): it said "File ... does not exist", while `ls` lists the file. A
    missing file keeps click's message."""
    link = tmp_path / "verdicts.csv"
    link.symlink_to(tmp_path / "moved.csv")
    res = CliRunner().invoke(main, ["estimate", str(tmp_path), option, str(link)])
    assert res.exit_code == 2, res.output
    assert (f"Invalid value for '{option}': '{link}' is a symbolic link to a missing target "
            f"('{tmp_path / 'moved.csv'}'): link it to the file, or give the file "
            "itself.") in res.output, res.output
    res = CliRunner().invoke(main, ["estimate", str(tmp_path), option,
                                    str(tmp_path / "none.csv")])
    assert res.exit_code == 2 and "does not exist" in res.output, res.output


def test_a_truth_file_is_read_as_the_clusterings_are(tmp_path: Path) -> None:
    """Item ids written 4.0 (text ids, as in the clusterings) are those items: DuckDB's
    sniffer used to read them as the numbers 4, which matched no sampled item (every
    verdict unknown: estimate refused, simulate's judge knew nothing). A Parquet truth
    named .pq is Parquet (it was an internal error), and its NaN cluster is no truth
    cluster, as a DataFrame's is."""
    ids = {i: f"{i}.0" for i in BASE}
    out = tmp_path / "s"
    sample_pairs({ids[i]: c for i, c in BASE.items()}, {ids[i]: c for i, c in EXP.items()},
                 budget=30, seed=5, out=out)
    by_dict = estimate(out, truth={ids[i]: c for i, c in TRUTH_MISSING.items()})
    assert by_dict["judgements"]["equivalent"] > 0
    truth_csv = _write(tmp_path / "truth.csv", [{"item_id": ids[i], "cluster_id": c}
                                                for i, c in TRUTH_MISSING.items()])
    pq = tmp_path / "truth.pq"
    rows = ", ".join(f"('{ids[i]}', {float(TRUTH_MISSING.get(i, 'nan'))!r}::DOUBLE)"
                     for i in TRUTH).replace("nan", "'NaN'")
    duck(f"COPY (SELECT * FROM (VALUES {rows}) t(item_id, cluster_id)) TO '{pq}' "
         "(FORMAT PARQUET)")
    for truth in (truth_csv, pq):
        by_file = estimate(out, truth=truth)
        assert by_file["judgements"] == by_dict["judgements"]
        assert by_file["delta_precision"] == by_dict["delta_precision"]


def test_sample_pairs_warns_of_a_class_it_drew_no_pair_of(tmp_path: Path) -> None:
    """The sample of the test below (no split pair) is drawn by `abcde sample-pairs`:
    exit 0, and one warning on stderr naming the class, the metrics it leaves undefined
    and the budget its manifest needs — the very sentence `abcde estimate` prints later;
    a sample that drew every class says nothing."""
    files = [_write(tmp_path / f"{n}.csv", rows) for n, rows in (
        ("base", _rows(BASE)), ("exp", _rows(EXP)),
        ("weights", [{"item_id": k, "weight": v} for k, v in WEIGHT.items()]))]
    args = ["sample-pairs", "--base", str(files[0]), "--exp", str(files[1]), "--weights",
            str(files[2]), "--seed", "3"]
    res = CliRunner().invoke(main, [*args, "--budget", "10", "--out", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    warned = [x for x in res.stderr.splitlines() if x.startswith("warning: ")]
    assert len(warned) == 1 and warned[0].startswith("warning: no split pair was drawn"), warned
    assert "GoodSplitRate, BadSplitRate" in warned[0] and "--budget " in warned[0]
    truth = _write(tmp_path / "truth.csv", _rows(TRUTH))
    later = CliRunner().invoke(main, ["estimate", str(tmp_path / "s"), "--truth", str(truth)])
    assert f"WARNING: {warned[0].removeprefix('warning: ')}" in later.output.splitlines()
    res = CliRunner().invoke(main, [*args, "--budget", "60", "--out", str(tmp_path / "t")])
    assert res.exit_code == 0 and "warning" not in res.stderr, res.stderr


def test_a_sample_without_a_split_pair_warns_with_the_budget_it_needs(tmp_path: Path) -> None:
    """`abcde estimate` on a sample that drew no split pair (budget 10, seed 3 of this
    world) printed its split rates as undefined without a warning: it warns, naming the
    class and the budget at which the manifest's design expects 10 effective draws of
    it — a budget N with N/budget × draws × kish ≥ 10, computed here from the manifest."""
    import math

    out = tmp_path / "s"
    sample_pairs(BASE, EXP, WEIGHT, budget=10, seed=3, out=out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["pairs"]["by_class"]["split"]["pairs"] == 0
    truth = _write(tmp_path / "truth.csv", _rows(TRUTH))
    res = CliRunner().invoke(main, ["estimate", str(out), "--truth", str(truth)])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith("WARNING: no split pair"))
    assert "GoodSplitRate, BadSplitRate" in line and "undefined" in line, line
    split = manifest["classes"]["split"]
    per_pair = manifest["draws"] * min(split["kish_u"], split["kish_w"]) / manifest["budget"]
    need = int(line.split("--budget ")[1].rstrip(").").replace(",", ""))
    assert need * per_pair >= 10 - 1e-9 > (need - 1) * per_pair, (need, per_pair)
    doc = estimate(out, truth=TRUTH)
    assert any(w.startswith("no split pair was drawn") for w in doc["warnings"])
    assert math.isfinite(doc["delta_precision"]["estimate"])
