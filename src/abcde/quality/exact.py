"""Exact quality metrics against a truth clustering, in SQL (docs/method.md §8.12).

With a ground truth as the judge (rehearsals, ``abcde simulate``, the statistical tests)
every quality metric has an exact value: the pair sums of ABCDE §5.3–5.5 and the Jaccard
decomposition §4–6, computed per triple cell (Base, Exp and truth cluster), never pair
by pair (``sql_templates/quality/exact.sql``). They exist only when the truth covers T:
an item without a truth cluster has no verdict with any partner, and then the result
says so instead of inventing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from abcde.inputs.session import Session
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render

EXACT_METRICS = (
    "delta_precision",
    "good_split_rate", "bad_split_rate", "good_merge_rate", "bad_merge_rate",
    "good_split_distance", "bad_split_distance", "good_merge_distance",
    "bad_merge_distance", "affected_good_index", "affected_bad_index",
)
"""The metrics exact.sql sums; good_distance and bad_distance are their sums (Jaccard
decomposition eq. 21–22)."""


@dataclass(frozen=True)
class ExactQuality:
    """Every metric's exact value when ``available``; else ``reason`` says why, with the
    items of T (and their weight) that have no truth cluster."""

    available: bool
    values: dict[str, float] = field(default_factory=dict)
    uncovered_items: int = 0
    uncovered_weight: float = 0.0
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def exact_quality(base: object, exp: object, weights: object | None = None, *,
                  truth: object, **inputs: Any) -> ExactQuality:
    """The 13 quality metrics of docs/method.md §8.4 of Exp vs Base with ``truth`` (item
    → cluster, read as an attributes table) as the judge, or why they are unavailable
    (docs/method.md §8.12; ABCDE §5.3–5.5; Jaccard decomposition §4–6)."""
    from abcde.cells import add_cell_steps, add_item_steps, build_cell_rows

    # a truth given as {item: cluster} is read as attributes with the column "value"
    column = "value" if isinstance(truth, Mapping) else inputs.get("cluster_col", "cluster_id")
    with Session.of(base, exp, weights, attributes=truth, slice_by=[column],
                    **inputs).using() as (engine, opened):
        pipeline = Pipeline(prefix="abcde_exact_", schema=engine.work_schema)
        add_item_steps(pipeline, opened)
        checked = build_cell_rows(engine, pipeline, opened)
        (truth_cells,) = add_cell_steps(pipeline, opened, [[column]])
        pipeline.run(engine, "cells", "cell_metrics")
        pipeline.add("exact_quality", render(
            "quality/exact.sql", truth_cells=truth_cells,
            truth=opened.attribute(column).alias, metrics=EXACT_METRICS))
        row = pipeline.fetch(engine, "exact_quality")[0]
    uncovered = max(int(row["uncovered_items"] or 0),
                    int(checked.get("without_attributes", 0) or 0))
    if uncovered:
        return ExactQuality(False, {}, uncovered, float(row["uncovered_weight"] or 0.0),
                            f"the truth does not cover T: {uncovered:,} item(s) of both "
                            "clusterings have no truth cluster, so their pairs have no "
                            "verdict and the quality metrics no exact value (docs/method.md "
                            "§8.12)")
    values = {k: float(row[k] or 0.0) for k in EXACT_METRICS}
    values["good_distance"] = values["good_split_distance"] + values["good_merge_distance"]
    values["bad_distance"] = values["bad_split_distance"] + values["bad_merge_distance"]
    return ExactQuality(True, values)
