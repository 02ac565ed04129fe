"""Small hand-made draw rows for the unit tests of the quality estimators: columns
pair_id, item_i, item_j, pair_class, label, draw_count (docs/method.md §7.6)."""

from __future__ import annotations


def draw_rows(*rows: tuple) -> dict[str, list]:
    """Rows (pair_id, item_i, item_j, pair_class, label, draw_count) as columns."""
    names = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count")
    return {n: [r[c] for r in rows] for c, n in enumerate(names)}


ABCDE_MANIFEST = {
    "population": "abcde",
    "totals": {"total": 0.5, "split": 0.2, "merge": 0.1, "stable": 0.2},
    "metrics": {"split_rate": 0.2, "merge_rate": 0.1, "weight": 10.0},
}


GOOD = [(1, "a", "a", "self", 1.0, 2), (2, "a", "b", "split", -1.0, 1)]


def many_pairs(n_split: int, n_merge: int, n_stable: int) -> dict[str, list]:
    """One self pair drawn 3 times and n pairs of each class drawn once (ids 1, 2, …)."""
    rows, pid = [(0, "s", "s", "self", 1.0, 3)], 1
    for cls, n, label in (("split", n_split, -1.0), ("merge", n_merge, 1.0),
                          ("stable", n_stable, 1.0)):
        for _ in range(n):
            rows.append((pid, f"i{pid}", f"j{pid}", cls, label, 1))
            pid += 1
    return draw_rows(*rows)

