"""Which pairs a judge sees and in which order (abcde.judge.assignment,
docs/method.md §12.3): a stable per-judge shuffle that mixes the classes, an exact and
nested overlap shared by every judge, and the rest answered once."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import pytest

from abcde.judge.assignment import Assignment, judge_order, overlap_pairs
from abcde.judge.questions import load_questions

IDS = [str(k) for k in range(1, 201)]


def test_order_is_stable_per_judge_and_differs_between_judges() -> None:
    a = judge_order("s", "ana", IDS)
    assert a == judge_order("s", "ana", list(reversed(IDS)))
    assert sorted(a) == sorted(IDS)
    assert a != judge_order("s", "bo", IDS)
    assert a != judge_order("t", "ana", IDS)
    assert a != IDS


@pytest.mark.parametrize("share", [0.0, 0.1, 0.25, 0.5, 1.0])
def test_overlap_is_exact_and_nested(share: float) -> None:
    chosen = overlap_pairs("s", IDS, share)
    assert len(chosen) == round(share * len(IDS))
    assert chosen <= overlap_pairs("s", IDS, min(1.0, share + 0.3))


def test_overlap_pairs_go_to_everyone_the_rest_once() -> None:
    ana = Assignment("s", "ana", IDS, overlap=0.2)
    bo = Assignment("s", "bo", IDS, overlap=0.2)
    assert ana.shared == bo.shared and len(ana.shared) == 40
    mine: set[str] = set()
    theirs: set[str] = set()
    # ana and bo alternate; each answers what the assignment gives them next
    while True:
        a = ana.next_needed(mine, theirs)
        if a is not None:
            mine.add(a)
        b = bo.next_needed(theirs, mine)
        if b is not None:
            theirs.add(b)
        if a is None and b is None:
            break
    assert ana.shared <= mine and ana.shared <= theirs
    rest = set(IDS) - ana.shared
    assert (mine | theirs) >= rest and not (mine & theirs & rest)
    p = ana.progress(dict.fromkeys(mine, "equivalent"), frozenset(theirs))
    assert p == {"assigned": len(mine), "judged": len(mine), "left": 0,
                 "round_pairs": 200, "round_judged": 200}


def test_next_needed_wraps_and_neighbours_skip_pairs_of_others() -> None:
    a = Assignment("s", "ana", IDS)
    first, second, third = a.order[:3]
    assert a.next_needed(set(), set()) == first
    assert a.next_needed({first}, set(), after=first) == second
    assert a.next_needed({second}, set(), after=a.order[-1]) == first  # wraps
    assert a.neighbour(first, +1, set(), {second}) == third  # bo answered the second
    assert a.neighbour(third, -1, set(), {second}) == first
    assert a.neighbour(first, -1, set(), set()) is None


def test_the_order_mixes_the_classes(base_sample: Path) -> None:
    """The judge's order of a real sample interleaves the pair classes (read here from
    the draws, which the page never shows): at least two classes, and the class changes
    between consecutive pairs often, where a class-sorted order would change it once
    or twice."""
    sample = load_questions(base_sample)
    with (base_sample / "draws.csv").open(newline="") as f:
        classes = {r["pair_id"]: r["pair_class"] for r in csv.DictReader(f)}
    order = Assignment(sample.sample_id, "ana", sample.pair_ids).order
    assert len(order) == json.loads((base_sample / "manifest.json").read_text())[
        "pairs"]["judgeable"]
    seq = [classes[p] for p in order]
    assert len(set(seq)) >= 2
    changes = sum(x != y for x, y in itertools.pairwise(seq))
    assert changes >= len(seq) // 4, seq


class CountedVerdicts(dict):
    """A judge's verdicts that count how often they are walked."""

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        type(self).walks += 1
        return super().__iter__()


def test_progress_walks_the_verdicts_once_and_counts_by_definition() -> None:
    """Every page shows the progress: with a set of the judge's verdicts made again for
    each listed pair, a round of 5000 pairs took ~0.4 s a page (quadratic). The counts
    equal a brute-force count of the definitions (method §12.3)."""
    ids = [str(k) for k in range(5000)]
    a = Assignment("s", "ana", ids, 0.1)
    mine = CountedVerdicts({p: "equivalent" for p in ids[:4000]})
    others = frozenset(ids[3000:4500])
    CountedVerdicts.walks = 0
    got = a.progress(mine, others)
    assert CountedVerdicts.walks <= 2
    shared = a.shared
    listed = [p for p in ids if p in shared or p in mine or p not in others]
    left = [p for p in listed if p not in mine and (p in shared or p not in others)]
    assert got == {"assigned": len(listed), "judged": len(listed) - len(left),
                   "left": len(left), "round_pairs": 5000,
                   "round_judged": len(set(mine) | others)}
