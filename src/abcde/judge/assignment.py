"""Which pairs a judge sees, in which order (docs/method.md §12.3).

- **Order.** Each judge walks the questions in the order of sha256(sample_id, judge,
  pair_id): a shuffle that is stable for one judge on one sample (a restart resumes in
  the same order), mixes the pair classes whatever order the sample was written in, and
  differs between judges, so two judges working at once rarely meet on a pair.
- **Overlap.** ``--overlap F`` (0 ≤ F ≤ 1): the round(F·n) pairs with the smallest
  sha256(sample_id, "overlap", pair_id) go to every judge — the same pairs for every
  judge and every value of F nested in a larger one. Agreement is measured on them.
- **The rest** needs one verdict from anyone: a judge is not given a pair another judge
  already answered (a judge's own earlier verdicts stay visible for review).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field


def _key(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()


def judge_order(sample_id: str, judge: str, pair_ids: Sequence[str]) -> list[str]:
    """The judge's stable shuffle of the pairs.

    Parameters
    ----------
    sample_id, judge : str
        The sample and the judge.
    pair_ids : sequence of str
        The sample's pairs, in any order.

    Returns
    -------
    list of str
        The pairs by sha256(sample_id, judge, pair_id).

    References
    ----------
    docs/method.md §12.3.

    Examples
    --------
    >>> judge_order("s", "ana", ["1", "2", "3"]) == judge_order("s", "ana", ["3", "1", "2"])
    True
    """
    return sorted(pair_ids, key=lambda p: _key(sample_id, judge, p))


def overlap_pairs(sample_id: str, pair_ids: Sequence[str], share: float) -> frozenset[str]:
    """The pairs every judge sees.

    Parameters
    ----------
    sample_id : str
        The sample.
    pair_ids : sequence of str
        Its pairs.
    share : float
        ``--overlap``, in [0, 1].

    Returns
    -------
    frozenset of str
        The round(share·n) pairs with the smallest sha256(sample_id, "overlap", pair_id):
        the same for every judge, nested for growing shares.

    References
    ----------
    docs/method.md §12.3.

    Examples
    --------
    >>> ids = [str(k) for k in range(10)]
    >>> len(overlap_pairs("s", ids, 0.3)), overlap_pairs("s", ids, 0.3) <= overlap_pairs(
    ...     "s", ids, 0.5)
    (3, True)
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError("overlap share must be in [0, 1]")
    count = round(share * len(pair_ids))
    ranked = sorted(pair_ids, key=lambda p: _key(sample_id, "overlap", p))
    return frozenset(ranked[:count])


@dataclass
class Assignment:
    """One judge's view of the round: the order, the overlap, and — given who answered
    what — the pairs listed for the judge and those still needed from them."""

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
        """Shown to this judge: an overlap pair, a pair they answered, or a pair nobody
        else answered."""
        return pair in self.shared or pair in mine or pair not in others

    def needed(self, pair: str, mine: Set[str], others: Set[str]) -> bool:
        """Still waiting for this judge's verdict."""
        return pair not in mine and (pair in self.shared or pair not in others)

    def listing(self, mine: Set[str], others: Set[str]) -> list[str]:
        return [p for p in self.order if self.listed(p, mine, others)]

    def next_needed(self, mine: Set[str], others: Set[str], after: str | None = None
                    ) -> str | None:
        """The first needed pair after ``after`` in the judge's order, wrapping around
        to the start; None when nothing is left for this judge."""
        start = self.position[after] + 1 if after in self.position else 0
        n = len(self.order)
        for k in range(n):
            pair = self.order[(start + k) % n]
            if self.needed(pair, mine, others):
                return pair
        return None

    def neighbour(self, pair: str, step: int, mine: Set[str], others: Set[str]
                  ) -> str | None:
        """The listed pair before (step −1) or after (+1) ``pair`` in the order."""
        k = self.position[pair] + step
        while 0 <= k < len(self.order):
            if self.listed(self.order[k], mine, others):
                return self.order[k]
            k += step
        return None

    def progress(self, mine: Mapping[str, str], others: Set[str]) -> dict[str, int]:
        """Counts the page shows: the judge's listed pairs, how many they answered and
        how many are left; the round's pairs and how many have any verdict. Nothing per
        class: the judge must not learn how the clusterings treat the pairs."""
        answered_here = set(mine)  # once: a set per pair made every page O(n²)
        listed = self.listing(answered_here, others)
        left = sum(self.needed(p, answered_here, others) for p in listed)
        answered = set(mine) | set(others)
        return {"assigned": len(listed), "judged": len(listed) - left, "left": left,
                "round_pairs": len(self.order),
                "round_judged": sum(p in answered for p in self.order)}
