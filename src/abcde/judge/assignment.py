"""Which pairs a judge sees, in which order (docs/method.md §12.3).

- **Order**: the stream's, in blocks of STREAM_BLOCK pairs (pair ids number the pairs
  in order of first draw), shuffled within a block by sha256(sample_id, judge, pair_id)
  — so the pairs judged are nearly a prefix of the stream, what the confidence
  sequences of ``abcde estimate --sequential`` need (docs/method.md §8.14); stable for
  a judge on a sample (a restart resumes in order), different between judges within a
  block (two judges at once rarely meet on a pair).
- **Overlap** ``F``: the round(F·n) pairs with the smallest sha256(sample_id, "overlap",
  pair_id) go to every judge, nested for growing F; agreement is measured on them.
- **The rest** needs one verdict from anyone: a pair another judge answered is not
  given (a judge's own verdicts stay listed for review).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field


def _key(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()


STREAM_BLOCK = 20
"""Pairs of the stream shuffled together for each judge: at most this many pairs of the
stream wait for a verdict behind the last judged one (one judge)."""


def judge_order(sample_id: str, judge: str, pair_ids: Sequence[str]) -> list[str]:
    """The judge's order: blocks of the stream, each a stable shuffle.

    >>> judge_order("s", "ana", ["1", "2", "3"]) == judge_order("s", "ana", ["3", "1", "2"])
    True
    >>> max(map(int, judge_order("s", "ana", [str(k) for k in range(1, 41)])[:20]))
    20
    """
    return sorted(pair_ids, key=lambda p: (
        (int(p) - 1) // STREAM_BLOCK if p.isdigit() else 0, _key(sample_id, judge, p)))


def overlap_pairs(sample_id: str, pair_ids: Sequence[str], share: float) -> frozenset[str]:
    """The pairs every judge sees.

    >>> ids = [str(k) for k in range(10)]
    >>> len(overlap_pairs("s", ids, 0.3)), overlap_pairs("s", ids, 0.3) <= overlap_pairs(
    ...     "s", ids, 0.5)
    (3, True)
    """
    ranked = sorted(pair_ids, key=lambda p: _key(sample_id, "overlap", p))
    return frozenset(ranked[:round(share * len(pair_ids))])


@dataclass
class Assignment:
    """One judge's view of the round: the order, the overlap and, given who answered
    what, the pairs listed for the judge and those still needed."""

    sample_id: str
    judge: str
    pair_ids: Sequence[str]
    overlap: float = 0.0
    order: list[str] = field(init=False)
    shared: frozenset[str] = field(init=False)
    position: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.order = judge_order(self.sample_id, self.judge, self.pair_ids)
        self.shared = overlap_pairs(self.sample_id, self.pair_ids, self.overlap)
        self.position = {p: k for k, p in enumerate(self.order)}

    def listed(self, pair: str, mine: Set[str], others: Set[str]) -> bool:
        """An overlap pair, one this judge answered, or one nobody else answered."""
        return pair in self.shared or pair in mine or pair not in others

    def needed(self, pair: str, mine: Set[str], others: Set[str]) -> bool:
        return pair not in mine and (pair in self.shared or pair not in others)

    def listing(self, mine: Set[str], others: Set[str]) -> list[str]:
        return [p for p in self.order if self.listed(p, mine, others)]

    def next_needed(self, mine: Set[str], others: Set[str], after: str | None = None
                    ) -> str | None:
        """The first needed pair after ``after`` in the order, wrapping around."""
        start = self.position[after] + 1 if after in self.position else 0
        n = len(self.order)
        return next((self.order[(start + k) % n] for k in range(n)
                     if self.needed(self.order[(start + k) % n], mine, others)), None)

    def neighbour(self, pair: str, step: int, mine: Set[str], others: Set[str]
                  ) -> str | None:
        """The listed pair before (step −1) or after (+1) ``pair``."""
        k = self.position[pair] + step
        while 0 <= k < len(self.order):
            if self.listed(self.order[k], mine, others):
                return self.order[k]
            k += step
        return None

    def progress(self, mine: Mapping[str, str], others: Set[str]) -> dict[str, int]:
        """Counts of the judge's and the round's pairs; nothing per class, so that the
        judge does not learn how the clusterings treat the pairs."""
        answered_here = set(mine)
        listed = self.listing(answered_here, others)
        left = sum(self.needed(p, answered_here, others) for p in listed)
        answered = answered_here | others
        return {"assigned": len(listed), "judged": len(listed) - left, "left": left,
                "round_pairs": len(self.order),
                "round_judged": sum(p in answered for p in self.order)}
