"""`abcde judge` on a pair sample made by the warehouse scripts and exported into a
directory (docs/warehouse.md, steps 3–6): the script runs on DuckDB, its tables are
exported as Parquet, CSV or a Snowflake unload (upper-case names), the pairs are judged
through the app, and `abcde estimate DIR` then gives what the same verdicts give to the
same sample drawn by `abcde sample-pairs` and judged as a filled questions.csv — an
independent route (other draws file, other verdict reader). The exported files are
never written."""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

import abcde
from abcde.cli import main
from abcde.judge.app import PageOptions, judge_app
from abcde.judge.questions import load_questions
from abcde.judge.session import JudgeSession
from abcde.server.app import allowed_hosts
from abcde.server.run import new_token

from .judge_support import EXAMPLES, Server, start_server, truth_verdict
from .test_judge_browser import judge_by_truth, page_pair

TABLES = ("pair_manifest", "pair_sample", "pair_slices", "pair_questions")
BUDGET, SEED = 40, 5


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pair-sample script of the examples run on a private DuckDB database (the
    warehouse); its tables are left there."""
    from abcde.warehouse.sampling import sample_pairs_pipeline
    from abcde.warehouse.scripts import ScriptSpec

    db = tmp_path_factory.mktemp("warehouse") / "wh.duckdb"
    with duckdb.connect(str(db)) as con:
        for role in ("base", "exp", "weights", "attributes"):
            types = "{'item_id': 'VARCHAR'" + (", 'cluster_id': 'VARCHAR'}" if role in
                                               ("base", "exp") else "}")
            con.execute(f"CREATE TABLE in_{role} AS SELECT * FROM read_csv("
                        f"'{EXAMPLES / (role + '.csv')}', header = true, types = {types})")
        spec = ScriptSpec(base="in_base", exp="in_exp", weights="in_weights",
                          attributes="in_attributes", slicings=(("provenance",),),
                          prefix="wh_")
        pipeline, _, _ = sample_pairs_pipeline(spec, "mixture", BUDGET, SEED)
        for _, sql in pipeline.statements("duckdb"):
            con.execute(sql)
    return db


def export(db: Path, out: Path, how: str) -> Path:
    """The tables exported into `out` as the user would: `parquet`, `csv`, `parts` (a
    directory of part files per table, as Spark writes) or `snowflake` (Parquet with every
    column name in upper case, as COPY INTO unloads)."""
    out.mkdir()
    with duckdb.connect(str(db), read_only=True) as con:
        for table in TABLES:
            names = [r[0] for r in con.execute(f"DESCRIBE wh_{table}").fetchall()]
            cols = ", ".join(f'"{c}" AS "{c.upper() if how == "snowflake" else c}"'
                             for c in names)
            fmt = "csv" if how == "csv" else "parquet"
            options = f"FORMAT {fmt}" + (", PER_THREAD_OUTPUT" if how == "parts" else "")
            con.execute(f"COPY (SELECT {cols} FROM wh_{table}) TO "
                        f"'{out / (table + '.' + fmt)}' ({options})")
    return out


def digests(directory: Path) -> dict[str, str]:
    """Every exported file (part files too) and its sha256."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*"))
            if p.is_file() and p.name != "verdicts.jsonl"}


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same sample drawn by `abcde sample-pairs` (same inputs, design, budget, seed)."""
    out = tmp_path_factory.mktemp("local") / "sample"
    abcde.sample_pairs(str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
                       str(EXAMPLES / "weights.csv"),
                       attributes=str(EXAMPLES / "attributes.csv"), budget=BUDGET,
                       seed=SEED, slice_by="provenance", out=out)
    return out


def estimate_of(args: list[str]) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["estimate", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def assert_same_estimate(got: dict[str, Any], want: dict[str, Any]) -> None:
    metrics = [k for k, v in want.items() if isinstance(v, dict) and "estimate" in v]
    assert "delta_precision" in metrics and len(metrics) > 5
    for k in metrics:
        for part in ("estimate", "se"):
            a, b = got[k][part], want[k][part]
            assert (a is None and b is None) or math.isclose(a, b, rel_tol=1e-9,
                                                             abs_tol=1e-15), (k, part)
    by_slice = {json.dumps(s["slice"], sort_keys=True): s for s in got["slices"]}
    assert len(by_slice) == len(want["slices"]) > 1
    for s in want["slices"]:
        g = by_slice[json.dumps(s["slice"], sort_keys=True)]
        assert g["draws"] == s["draws"]
        assert math.isclose(g["contribution"]["estimate"], s["contribution"]["estimate"],
                            rel_tol=1e-9, abs_tol=1e-15)


def csv_route(local: Path, verdicts: dict[tuple[str, str], str], tmp_path: Path
              ) -> dict[str, Any]:
    """The estimate of the `abcde sample-pairs` sample with these verdicts (keyed by the
    two item ids) written into its questions.csv, passed with --judgements."""
    with (local / "questions.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert {(r["item_1"], r["item_2"]) for r in rows} == set(verdicts)
    judged = tmp_path / "judged.csv"
    with judged.open("w", newline="") as f:
        w = csv.DictWriter(f, list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({**r, "verdict": verdicts[(r["item_1"], r["item_2"])]})
    return estimate_of([str(local), "--judgements", str(judged)])


@pytest.mark.parametrize("how", ["parquet", "csv", "parts", "snowflake"])
def test_an_exported_warehouse_sample_is_judged_and_estimated(
        how: str, warehouse: Path, local: Path, tmp_path: Path) -> None:
    """`abcde judge` refused an exported sample ("does not serve it"); users filled the
    verdict column by hand. It now serves it: every pair judged through the app (one
    answered unknown, one changed, one undone and given again), the verdicts in
    DIR/verdicts.jsonl, the exported files untouched, and `abcde estimate DIR` equal to
    the CSV route with the same verdicts."""
    out = export(warehouse, tmp_path / "sample", how)
    before = digests(out)
    with duckdb.connect() as con:  # the pairs as exported, read apart from abcde
        suffix = "csv" if how == "csv" else "parquet"
        where = out / f"pair_questions.{suffix}" / ("*.parquet" if how == "parts" else "")
        q = con.execute(f"SELECT * FROM '{str(where).rstrip('/')}'")
        names = [d[0].lower() for d in q.description]
        exported = {str(r["pair_id"]): (str(r["item_1"]), str(r["item_2"]))
                    for r in (dict(zip(names, row, strict=True)) for row in q.fetchall())}
    assert len(exported) == BUDGET
    sample = load_questions(out)
    assert sample.exported and set(sample.questions) == set(exported)
    assert "provenance" in sample.attributes  # Snowflake's PROVENANCE_1 read as provenance_1
    token = new_token()
    session = JudgeSession(sample, "ana")
    c = TestClient(judge_app(session, token, allowed_hosts("127.0.0.1", 8123),
                             PageOptions(show_estimates=True)),
                   base_url="http://127.0.0.1:8123", follow_redirects=False)
    given: dict[str, str] = {}
    undone = False
    location = c.get(f"/?token={token}").headers["location"]
    while "/pair/" in location:
        pid = location.split("/pair/")[1].split("?")[0]
        page = c.get(location)
        assert page.status_code == 200
        a, b = exported[pid]
        assert a in page.text and b in page.text
        verdict = "unknown" if not given else truth_verdict(a, b)
        if len(given) == 1:  # first the wrong verdict, then the right one
            c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "unknown"})
        r = c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": verdict})
        assert r.status_code == 303
        given[pid] = verdict
        location = r.headers["location"]
        if len(given) == 3 and not undone:  # undo the third and give it again
            undone = True
            r = c.post(f"/undo?token={token}", data={})
            assert r.headers["location"] == f"/pair/{pid}?token={token}"
            location = r.headers["location"]
            del given[pid]
    assert "/done" in location and len(given) == BUDGET
    done = c.get(location).text
    assert f"abcde estimate {out}" in done
    # --show-estimates reads the exported sample too: ΔPrecision as the estimate has it
    panel = done[done.index('id="estimates"'):]
    # no error paragraph: the note, the sequence's legend, and the unknown range's legend
    # (one pair is unknown)
    assert '<p class="muted">Note' in panel and panel.count('<p class="muted">') == (
        1 + panel.count('<p class="muted">Sequence:')
        + panel.count('<p class="muted">If unknowns all equiv / not'))
    shown = re.search(r'<th scope="row">ΔPrecision</th><td>([^<]*)</td>', panel)
    assert shown is not None and shown.group(1).strip()
    assert digests(out) == before  # the export is only read
    got = estimate_of([str(out)])
    assert got["judging"]["pairs"] == BUDGET and got["judging"]["retractions"] == 1
    assert shown.group(1).strip() == f"{100 * got['delta_precision']['estimate']:+.2f}%"
    want = csv_route(local, {exported[p]: v for p, v in given.items()}, tmp_path)
    assert_same_estimate(got, want)


def test_judge_says_what_an_export_lacks_and_what_it_holds(
        warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An export without pair_questions is refused naming the table to export; one whose
    verdict column was partly filled by hand is served, saying that those verdicts are
    not read; the start line counts the pairs. Nothing is written but verdicts.jsonl."""
    monkeypatch.setattr("abcde.server.run.serve", lambda app, sock, **kw: sock.close())
    out = export(warehouse, tmp_path / "sample", "csv")
    questions = (out / "pair_questions.csv").read_text()
    (out / "pair_questions.csv").unlink()
    run = CliRunner().invoke(main, ["judge", str(out), "--judge", "ana"])
    assert run.exit_code == 2, run.output
    assert (f"{out} holds a warehouse sample without its questions: no pair_questions."
            "parquet or .csv") in run.output
    assert "Export the script's pair_questions table into the directory too" in run.output
    assert "Traceback" not in run.output
    header, *lines = questions.splitlines()
    assert header.split(",")[-2:] == ["verdict", "input_valid"]
    filled = [line.rsplit(",", 2)[0] + ",equivalent," + line.rsplit(",", 1)[1]
              if k < 3 else line for k, line in enumerate(lines)]
    (out / "pair_questions.csv").write_text("\n".join([header, *filled]) + "\n")
    before = digests(out)
    run = CliRunner().invoke(main, ["judge", str(out), "--judge", "ana"])
    assert run.exit_code == 0, run.output
    assert f"'ana': 0 of {BUDGET} pairs judged" in run.output
    assert (f"{out / 'pair_questions.csv'} has 3 verdict(s) filled in by hand, which abcde "
            "judge does not read") in run.output
    assert digests(out) == before and not (out / "verdicts.jsonl").exists()
    shutil.rmtree(out)


def test_an_exported_sample_judged_in_the_browser(
        warehouse: Path, local: Path, tmp_path: Path, servers: list[Server],
        browser_factory: Any) -> None:
    """The real server on an exported Parquet sample, judged by keyboard in headless
    Chromium as the ideal clustering says, to the done page; `abcde estimate DIR` then
    equals the CSV route with the ideal clustering's verdicts."""
    out = export(warehouse, tmp_path / "sample", "parquet")
    before = digests(out)
    server = start_server(out, "--judge", "ana")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    first = page_pair(d)
    assert first is not None
    given = judge_by_truth(d, out, BUDGET + 1)
    assert len(given) == BUDGET and page_pair(d) is None
    assert f"abcde estimate {out}" in d.page_source
    server.stop()
    assert digests(out) == before
    items = {q.pair_id: (str(q.item_1), str(q.item_2))
             for q in load_questions(out).questions.values()}
    got = estimate_of([str(out)])
    want = csv_route(local, {items[p]: truth_verdict(*items[p]) for p, _ in given}, tmp_path)
    assert_same_estimate(got, want)


def test_a_new_export_over_the_judged_one_stops_the_server(
        warehouse: Path, tmp_path: Path) -> None:
    """The round exported again into the directory (its pair_manifest replaced) while
    a server judges the old questions: as for `sample-pairs --overwrite`, every request
    answers 409 and nothing more is recorded."""
    out = export(warehouse, tmp_path / "sample", "parquet")
    token = new_token()
    session = JudgeSession(load_questions(out), "ana")
    c = TestClient(judge_app(session, token, allowed_hosts("127.0.0.1", 8123), PageOptions()),
                   base_url="http://127.0.0.1:8123", follow_redirects=False)
    pid = session.assignment.order[0]
    c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "unknown"})
    again = export(warehouse, tmp_path / "again", "parquet")
    (again / "pair_manifest.parquet").replace(out / "pair_manifest.parquet")
    before = (out / "verdicts.jsonl").read_bytes()
    r = c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})
    assert r.status_code == 409
    assert "its pair_manifest.parquet was replaced or removed" in r.text
    assert (out / "verdicts.jsonl").read_bytes() == before
