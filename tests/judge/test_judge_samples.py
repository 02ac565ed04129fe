"""`abcde judge` opens every pair sample `abcde sample-pairs` draws: each population
(the default, mixture, among them) and a stratified sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from abcde import sample_pairs, sample_pairs_stratified
from abcde.judge.questions import load_questions
from abcde.sampling.pairs import POPULATIONS

from .judge_support import EXAMPLES

INPUTS = [str(EXAMPLES / f) for f in ("base.csv", "exp.csv", "weights.csv")]


@pytest.mark.parametrize("population", POPULATIONS)
def test_every_population_is_judged(population: str, tmp_path: Path) -> None:
    drawn = sample_pairs(*INPUTS, population=population, budget=12, seed=3,
                         out=tmp_path / "s")
    sample = load_questions(tmp_path / "s")
    assert sample.population == population
    assert set(sample.questions) == {str(q["pair_id"]) for q in drawn.questions}


def test_a_stratified_sample_is_judged(tmp_path: Path) -> None:
    drawn = sample_pairs_stratified(*INPUTS, budget=20, seed=3, out=tmp_path / "s")
    sample = load_questions(tmp_path / "s")
    assert set(sample.questions) == {str(q["pair_id"]) for q in drawn.questions}


def test_worded_yes_no_attributes_are_shown_as_written(tmp_path: Path) -> None:
    """An attributes CSV column of yes/no (or T/F) was sniffed by DuckDB as a boolean:
    the questions, and so the judge's page, said true/false where the file says yes/no
    (Spark, which infers a boolean only from true/false, kept the words). Such a column
    is now read as text, as written; a column of true/false stays a boolean."""
    import csv
    import json

    from starlette.testclient import TestClient

    from abcde.judge.app import judge_app
    from abcde.judge.session import JudgeSession
    from abcde.server.app import allowed_hosts

    with (EXAMPLES / "attributes.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    words = {}
    for k, r in enumerate(rows):
        r.update(hd=("yes", "no", "Yes")[k % 3], flag=("T", "F")[k % 2],
                 ok=("true", "FALSE")[k % 2])
        words[r["item_id"]] = r
    attributes = tmp_path / "attributes.csv"
    with attributes.open("w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    sample_pairs(*INPUTS, attributes=str(attributes), budget=12, seed=3, out=tmp_path / "s")
    questions = [json.loads(x) for x in (tmp_path / "s" / "questions.jsonl").open()]
    for q in questions:
        for side in ("1", "2"):
            written = words[q[f"item_{side}"]]
            assert q[f"hd_{side}"] == written["hd"]
            assert q[f"flag_{side}"] == written["flag"]
            assert q[f"ok_{side}"] is (written["ok"].lower() == "true")
    session = JudgeSession(load_questions(tmp_path / "s"), "ana")
    app = judge_app(session, "t" * 43, allowed_hosts("127.0.0.1", 8123))
    c = TestClient(app, base_url="http://127.0.0.1:8123")
    q = questions[0]
    page = c.get(f"/pair/{q['pair_id']}?token={'t' * 43}").text
    for side in ("1", "2"):
        assert f'<bdi class="value">{q[f"hd_{side}"]}</bdi>' in page
