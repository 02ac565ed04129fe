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
