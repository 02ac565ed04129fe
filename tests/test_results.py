"""The result objects of the Python API as a notebook shows them: their repr."""

from __future__ import annotations

from dataclasses import fields

from abcde.evaluation.results import EvaluateResult, RunResult
from abcde.impact.run import ImpactResult
from abcde.sampling.items import ItemSample
from abcde.sampling.pairs import PairSample


def test_repr_gives_long_lists_and_mappings_as_their_length() -> None:
    """A notebook prints the repr of a cell's last value: that of sample_items' default
    million rows (or of every UIR case of an evaluation) ran to hundreds of megabytes.
    Long lists and mappings are now their length; short ones are shown as before."""
    rows = [{"item_id": i, "weight": 1.0} for i in range(100_000)]
    manifest = {"kind": "items", "seed": 0}
    sample = ItemSample(rows=rows, manifest=manifest)
    assert repr(sample) == ("ItemSample(rows=<100,000 rows>, manifest={'kind': 'items', "
                            "'seed': 0}, files={}, renamed={})")
    pairs = PairSample(draws=rows, questions=rows[:2], manifest={}, stream=rows)
    assert repr(pairs) == (f"PairSample(draws=<100,000 rows>, questions={rows[:2]!r}, "
                           "manifest={}, files={}, stream=<100,000 rows>)")
    run = RunResult(name="a", label="actual (a.csv)", overall={"f1": 0.5}, coverage={},
                    classic={}, pair_counts={}, yandex={}, worst_truth_clusters=rows[:1],
                    worst_actual_clusters=[], slices=[{"slice_by": ["g"], "rows": rows}],
                    cases={c: {"f1": 1.0} for c in range(10_000)})
    result = EvaluateResult(inputs={}, runs=[run], comparisons=[], uir=None)
    text = repr(result)
    assert len(text) < 1000 and "cases=<10,000 entries>" in text
    assert "slices=[{'slice_by': ['g'], 'rows': <100,000 rows>}]" in text
    assert f"worst_truth_clusters={rows[:1]!r}" in text and text.startswith(
        "EvaluateResult(inputs={}, runs=[RunResult(name='a', label='actual (a.csv)', ")
    small = ImpactResult(overall={"items": 3}, coverage={}, top_base_clusters=rows[:3],
                         top_exp_clusters=[], top_clusters=[], slices=[], inputs={})
    expected = ", ".join(f"{f.name}={getattr(small, f.name)!r}" for f in fields(small))
    assert repr(small) == f"ImpactResult({expected})"
