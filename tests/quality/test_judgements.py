"""Verdicts (docs/method.md §8.1): one normaliser, the same spellings in judgement files,
from callable judges and in the draws-level estimator."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from toy_draws import TOY_MANIFEST, draw_rows

from abcde.errors import InputError
from abcde.quality.estimate import estimate_from_draws
from abcde.quality.judgements import (
    SYNONYMS,
    SamplePairs,
    judge_pairs,
    normalise_verdict,
    parse_verdict,
    read_judgements,
    rows_from_records,
)

QUALITY = Path(__file__).resolve().parents[2] / "src" / "abcde" / "quality"

# every spelling accepted anywhere before the two normalisers became one (the
# estimators': words, bools, None/NaN; the judgement files': those and the synonyms)
SPELLINGS = [
    *((word, verdict) for word, verdict in SYNONYMS.items()),
    ("Not equivalent", "not_equivalent"),
    ("NOT-EQUIVALENT", "not_equivalent"),
    (" Equivalent ", "equivalent"),
    ("Can't tell", "unknown"),
    (True, "equivalent"),
    (False, "not_equivalent"),
    (np.True_, "equivalent"),
    (np.False_, "not_equivalent"),
    (1, "equivalent"),
    (0, "not_equivalent"),
    (None, "unknown"),
    (math.nan, "unknown"),
    (np.float64("nan"), "unknown"),
]


@pytest.mark.parametrize(("value", "expected"), SPELLINGS)
def test_every_spelling_means_the_same_everywhere(value: object, expected: str) -> None:
    """The normaliser, a judgement file's rows, a callable judge and the draws-level
    estimator agree on every spelling."""
    assert normalise_verdict(value) == parse_verdict(value) == expected
    (row,) = rows_from_records([(2, {"pair_id": "7", "verdict": value, "sample_id": "s"})],
                               {"pair_id", "verdict", "sample_id"}, "file")
    assert row.verdict == expected
    pairs = SamplePairs.from_draws([{"pair_id": 7, "item_i": "a", "item_j": "b",
                                     "pair_class": "split"}])
    assert judge_pairs(lambda i, j: value, pairs) == {"7": expected}
    draws = draw_rows((1, "a", "c", "stable", 1.0, 2), (2, "a", "b", "split", -1.0, 3),
                      (3, "c", "d", "split", -1.0, 1))
    assert estimate_from_draws(draws, {2: value, 3: "equivalent"}, TOY_MANIFEST) == \
        estimate_from_draws(draws, {2: expected, 3: "equivalent"}, TOY_MANIFEST)


@pytest.mark.parametrize("value", ["maybe", "1.5", 2, 1.0, "equivalent!"])
def test_anything_else_is_refused_everywhere(value: object) -> None:
    assert normalise_verdict(value) is None
    with pytest.raises(InputError, match="verdict must be one of"):
        parse_verdict(value)
    with pytest.raises(InputError, match="unknown verdict word"):
        rows_from_records([(2, {"pair_id": "7", "verdict": value})], {"pair_id", "verdict"},
                          "file")
    draws = draw_rows((1, "a", "c", "stable", 1.0, 2), (2, "a", "b", "split", -1.0, 3))
    with pytest.raises(InputError, match="verdict must be one of"):
        estimate_from_draws(draws, {2: value}, TOY_MANIFEST)


def test_true_and_one_keep_their_own_meaning_in_a_column() -> None:
    """Distinct raw values are parsed once per column; True and 1.0 are equal keys of a
    dict but not the same spelling (1.0 is no verdict), whatever comes first."""
    draws = draw_rows((1, "a", "c", "stable", 1.0, 2), (2, "a", "b", "split", -1.0, 3),
                      (3, "c", "d", "split", -1.0, 1))
    with pytest.raises(InputError, match=r"got 1\.0"):
        estimate_from_draws(draws, {"pair_id": [2, 3], "verdict": [True, 1.0]},
                            TOY_MANIFEST)


def test_there_is_one_verdict_normaliser() -> None:
    """No module of abcde.quality but judgements.py defines a verdict normaliser or
    spells the word rule (lower case, spaces and hyphens to underscores) itself."""
    for path in sorted(QUALITY.glob("*.py")):
        if path.name == "judgements.py":
            continue
        text = path.read_text()
        names = {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
        assert not {n for n in names if "normalise" in n and "verdict" in n}, path.name
        assert '.replace("-", "_")' not in text, path.name


def test_a_gzip_compressed_judgement_file_reads_as_its_text(tmp_path: Path) -> None:
    """x.csv.gz and x.jsonl.gz: refused as 'expected .csv or .jsonl' before."""
    import gzip

    text = "pair_id,sample_id,verdict\n1,s1,yes\n2,s1,different\n"
    plain = tmp_path / "j.csv"
    plain.write_text(text)
    packed = tmp_path / "j.csv.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    lines = tmp_path / "j.jsonl.gz"
    lines.write_bytes(gzip.compress(b'{"pair_id": 1, "sample_id": "s1", "verdict": "yes"}\n'
                                    b'{"pair_id": 2, "sample_id": "s1", "verdict": "no"}\n'))
    expected = [(r.pair_id, r.verdict) for r in read_judgements(plain)]
    assert expected == [("1", "equivalent"), ("2", "not_equivalent")]
    for path in (packed, lines):
        assert [(r.pair_id, r.verdict) for r in read_judgements(path)] == expected
