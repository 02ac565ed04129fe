"""Small hand-made draw rows for the unit tests of the quality estimators: columns
pair_id, item_i, item_j, pair_class, label, draw_count (docs/method.md §7.6)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


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


# --------------------------------------------------------------------------- #
# Random small judged samples (hypothesis)
# --------------------------------------------------------------------------- #

CLASS_TOTAL = {"self": "stable", "split": "split", "merge": "merge", "stable": "stable"}
"""The manifest total (docs/method.md §6.4) that holds the pairs of each class."""


def _label(draw: Any, population: str, cls: str) -> float:
    """A label the population allows (docs/method.md §6.2–6.3): abcde −1 (split), +1
    (merge), ±1 (stable, self); jaccard −b ≤ −1 (split), a ≥ 1 (merge), a − b."""
    if population == "abcde":
        return {"split": -1.0, "merge": 1.0}.get(cls) or draw(st.sampled_from([-1.0, 1.0]))
    size = st.floats(1.0, 6.0, allow_nan=False)
    if cls == "split":
        return -draw(size)
    if cls == "merge":
        return draw(size)
    return draw(size) - draw(size)


@st.composite
def judged_draws(draw: Any, population: str) -> tuple[dict[str, list], dict[int, str], dict]:
    """Draw rows, verdicts and a consistent manifest of a small random sample.

    Up to 3 self pairs and up to 14 non-self pairs of random classes, each drawn 1–4
    times, some also as (j, i); verdicts equivalent / not_equivalent / unknown or none
    at all (which counts as unknown). The class totals are positive and random; on the
    jaccard population the manifest carries the exact rates SplitRate(T), MergeRate(T)
    the rates multiply by.
    """
    rows: list[tuple] = []
    verdicts: dict[int, str] = {}
    pid = 0
    for k in range(draw(st.integers(0, 3))):
        pid += 1
        rows.append((pid, f"s{k}", f"s{k}", "self", _label(draw, population, "self"),
                     draw(st.integers(1, 4))))
    for _ in range(draw(st.integers(0, 14))):
        pid += 1
        cls = draw(st.sampled_from(["split", "merge", "stable"]))
        i, j = f"i{pid}", f"j{pid}"
        rows.append((pid, i, j, cls, _label(draw, population, cls), draw(st.integers(1, 4))))
        if draw(st.booleans()):
            rows.append((pid, j, i, cls, _label(draw, population, cls),
                         draw(st.integers(1, 3))))
        verdict = draw(st.sampled_from(["equivalent", "not_equivalent", "unknown", None]))
        if verdict is not None:
            verdicts[pid] = verdict
    weight = st.floats(0.01, 2.0, allow_nan=False)
    totals = {"split": draw(weight), "merge": draw(weight), "stable": draw(weight)}
    totals["total"] = totals["split"] + totals["merge"] + totals["stable"]
    manifest: dict[str, Any] = {"population": population, "totals": totals}
    if population == "jaccard":
        manifest["metrics"] = {"split_rate": draw(weight), "merge_rate": draw(weight)}
    return draw_rows(*rows), verdicts, manifest


def without_classes(
    draws: dict[str, list], manifest: dict, classes: set[str]
) -> tuple[dict[str, list], dict]:
    """The sample without the rows of ``classes``, and a manifest whose totals of those
    classes are 0 (the population has no such pairs)."""
    keep = [k for k, c in enumerate(draws["pair_class"]) if c not in classes]
    rows = {name: [column[k] for k in keep] for name, column in draws.items()}
    totals = dict(manifest["totals"])
    for cls in classes:
        totals[CLASS_TOTAL[cls]] = 0.0
    totals["total"] = totals["split"] + totals["merge"] + totals["stable"]
    if totals["stable"] == 0:  # self pairs are counted in the stable total
        keep = [k for k, c in enumerate(rows["pair_class"]) if c != "self"]
        rows = {name: [column[k] for k in keep] for name, column in rows.items()}
    return rows, {**manifest, "totals": totals}
