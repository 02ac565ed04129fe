"""The cluster-size distributions of `abcde impact` (what `abcde report` plots log–log)
against a count by hand of the clusterings' sizes over the items in both."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from strategies import clusterings

import abcde


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusterings(min_items=1, max_items=15, extra_items=True))
def test_size_distribution_counts_clusters_by_size(case) -> None:
    result = abcde.impact(case.base, case.exp, case.weight)
    common = set(case.base) & set(case.exp)
    for side, labels in (("base", case.base), ("exp", case.exp)):
        members: dict = {}
        for item in common:
            members.setdefault(labels[item], []).append(item)
        by_size = Counter(len(m) for m in members.values())
        weight = Counter()
        for m in members.values():
            weight[len(m)] += sum(case.weight[i] for i in m)
        rows = result.to_dict()["size_distribution"][side]
        assert [r["size"] for r in rows] == sorted(by_size)
        for r in rows:
            assert r["clusters"] == by_size[r["size"]]
            assert r["items"] == r["size"] * r["clusters"]
            assert abs(r["weight"] - weight[r["size"]]) <= 1e-9 * max(1.0, weight[r["size"]])
