"""Hypothesis strategies for pairs of clusterings of weighted items.

``clusterings()`` draws a ``ClusteringCase``: ``base`` and ``exp`` (``dict[item, cluster]``),
``weight`` (``dict[item, float | int]``), optional ``attributes`` (1-2 categorical columns,
values may be None) and an optional ``truth`` clustering.  Partitions are drawn so that
the interesting corner cases come up often: all singletons, everything in one cluster,
Exp identical to Base, Exp a small perturbation of Base.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from hypothesis import strategies as st

ATTRIBUTE_VALUES = {
    "color": ["red", "green", "blue", None],
    "size": ["s", "m", "l", None],
}


@dataclass
class ClusteringCase:
    base: dict[Hashable, Hashable]
    exp: dict[Hashable, Hashable]
    weight: dict[Hashable, float]
    attributes: dict[Hashable, dict[str, object]] | None = None
    truth: dict[Hashable, Hashable] | None = None
    only_base: list = field(default_factory=list)  # items present only in base
    only_exp: list = field(default_factory=list)  # items present only in exp

    @property
    def items(self) -> list:
        """Items common to both clusterings, in base order."""
        return [i for i in self.base if i in self.exp]


@st.composite
def partitions(draw, n: int, max_clusters: int | None = None) -> list[int]:
    """A cluster label for each of n positions: random, all singletons or all together."""
    if n == 0:
        return []
    kind = draw(st.sampled_from(["random", "random", "random", "singletons", "one"]))
    if kind == "singletons":
        return list(range(n))
    if kind == "one":
        return [0] * n
    k = draw(st.integers(min(2, n), max(min(2, n), max_clusters or n)))
    return draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))


@st.composite
def _relabel(draw, labels: list[int], offset: int) -> list[int]:
    """Rename clusters (a random injective map) so equal partitions need not share ids."""
    distinct = sorted(set(labels))
    perm = draw(st.permutations(distinct))
    mapping = {old: offset + new for old, new in zip(distinct, perm, strict=True)}
    return [mapping[x] for x in labels]


def same_partition(a: list, b: list) -> bool:
    """Do two label lists describe the same partition of positions?"""
    n = len(a)
    return all((a[i] == a[j]) == (b[i] == b[j]) for i in range(n) for j in range(n))


def _force_change(labels: list[int], pos: int) -> list[int]:
    """Move the item at ``pos`` so that the partition surely changes (needs n ≥ 2)."""
    out = list(labels)
    if out.count(out[pos]) > 1:
        out[pos] = max(out) + 1  # split it off into a new singleton
    else:
        out[pos] = out[(pos + 1) % len(out)]  # merge the singleton into a neighbour
    return out


@st.composite
def _second_partition(
    draw, first: list[int], max_clusters: int | None, identical: bool | None = None
) -> list[int]:
    """Exp given Base: independent, identical, or Base with a few items moved.

    identical=True forces the same partition; identical=False forces a different one
    (when there are at least 2 items).
    """
    n = len(first)
    if identical:
        return list(first)
    kinds = ["independent", "independent", "independent", "perturbed", "perturbed"]
    if identical is None:
        kinds.append("identical")
    kind = draw(st.sampled_from(kinds))
    out = draw(_second_partition_of_kind(first, max_clusters, kind))
    if identical is False and n >= 2 and same_partition(first, out):
        out = _force_change(out, draw(st.integers(0, n - 1)))
    return out


@st.composite
def _second_partition_of_kind(
    draw, first: list[int], max_clusters: int | None, kind: str
) -> list[int]:
    n = len(first)
    if kind == "independent":
        return draw(partitions(n, max_clusters))
    if kind == "identical" or n == 0:
        return list(first)
    out = list(first)
    fresh = max(first) + 1
    moves = draw(st.integers(1, max(1, n // 3)))
    for _ in range(moves):
        pos = draw(st.integers(0, n - 1))
        choices = [c for c in sorted(set(out)) if c != out[pos]]
        out[pos] = draw(st.sampled_from([*choices, fresh]))
        fresh += 1
    return out


def weights_strategy(
    integer: bool = False, min_weight: float = 0.001, max_weight: float = 1000.0
) -> st.SearchStrategy:
    """A single positive, finite item weight."""
    if integer:
        return st.integers(max(1, int(min_weight)), max(1, int(max_weight)))
    return st.floats(
        min_value=min_weight, max_value=max_weight, allow_nan=False, allow_infinity=False
    )


@st.composite
def clusterings(
    draw,
    min_items: int = 1,
    max_items: int = 12,
    weights: bool | str = True,
    min_weight: float = 0.001,
    max_weight: float = 1000.0,
    attributes: bool = False,
    truth: bool = False,
    string_ids: bool = False,
    max_clusters: int | None = None,
    extra_items: bool = False,
    identical: bool | None = None,
) -> ClusteringCase:
    """Draw a ``ClusteringCase`` over ``min_items..max_items`` common items.

    weights: True → floats in [min_weight, max_weight]; "int" → integers in that range;
             False → every weight is 1.0.
    attributes: add 1-2 categorical columns per item (values may be None).
    truth: add a truth clustering of the same items (random, or equal to base/exp).
    string_ids: item ids are strings ("i0", "i1", ...) instead of ints.
    max_clusters: cap on the number of distinct clusters in random partitions.
    extra_items: also add a few items present only in base or only in exp.
    identical: None → Exp may or may not equal Base (both happen often);
               True → Exp is Base with renamed clusters; False → Exp differs from Base
               (whenever there are at least 2 common items).
    """
    n = draw(st.integers(min_items, max_items))
    ids: list = [f"i{k}" for k in range(n)] if string_ids else list(range(n))

    base_labels = draw(partitions(n, max_clusters))
    exp_labels = draw(_second_partition(base_labels, max_clusters, identical))
    base = dict(zip(ids, draw(_relabel(base_labels, 0)), strict=True))
    exp = dict(zip(ids, draw(_relabel(exp_labels, 1000)), strict=True))

    only_base: list = []
    only_exp: list = []
    if extra_items:
        n_b = draw(st.integers(0, 2))
        n_e = draw(st.integers(0, 2))
        only_base = [f"b{k}" if string_ids else 10_000 + k for k in range(n_b)]
        only_exp = [f"e{k}" if string_ids else 20_000 + k for k in range(n_e)]
        for i in only_base:
            base[i] = draw(st.sampled_from([*sorted(set(base.values())), 999]))
        for i in only_exp:
            exp[i] = draw(st.sampled_from([*sorted(set(exp.values())), 1999]))

    all_ids = ids + only_base + only_exp
    if weights is False:
        weight = {i: 1.0 for i in all_ids}
    else:
        w = weights_strategy(weights == "int", min_weight, max_weight)
        weight = {i: draw(w) for i in all_ids}

    attrs = None
    if attributes:
        columns = draw(st.sampled_from([["color"], ["size"], ["color", "size"]]))
        attrs = {
            i: {c: draw(st.sampled_from(ATTRIBUTE_VALUES[c])) for c in columns} for i in all_ids
        }

    truth_map = None
    if truth:
        kind = draw(st.sampled_from(["random", "random", "base", "exp"]))
        if kind == "base":
            truth_map = {i: base[i] for i in ids}
        elif kind == "exp":
            truth_map = {i: exp[i] for i in ids}
        else:
            truth_map = dict(zip(ids, draw(partitions(n, max_clusters)), strict=True))

    return ClusteringCase(base, exp, weight, attrs, truth_map, only_base, only_exp)
