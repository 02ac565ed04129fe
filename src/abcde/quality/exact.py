"""Exact quality metrics against a truth clustering, in SQL (docs/method.md §8.12).

When a ground truth plays the judge (rehearsals, `abcde simulate`, the statistical tests),
every quality metric has an exact value: the truth decides i ≡ j for every pair, so the
pair sums of ABCDE §5.3–5.5 and the Jaccard decomposition §4–6 can be evaluated
without sampling. They are computed per triple cell (Base cluster, Exp cluster, truth
cluster) — all items of a triple cell see the same split, merge and stable sets and the
same truth — never pair by pair (`sql_templates/quality/exact.sql`).

The values exist only when the truth covers T: an item of T that the truth lacks (or
whose truth cluster is NULL) has no verdict with any partner, and no exact value can be
invented for it. Then the result says so (`available` False, with the reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from abcde.engines import Engine
from abcde.inputs.session import Inputs, Session
from abcde.results import plain_row
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

TRUTH_VALUE_COLUMN = "value"  # the attribute column of a truth given as {item: cluster}


@dataclass(frozen=True)
class ExactQuality:
    """Exact quality metrics, or why there are none.

    ``values`` maps every metric key of the estimators (docs/method.md §8.4) to its exact
    value when ``available``; ``uncovered_items`` counts the items of T without a truth
    cluster (then ``available`` is False and ``reason`` says why).
    """

    available: bool
    values: dict[str, float] = field(default_factory=dict)
    uncovered_items: int = 0
    uncovered_weight: float = 0.0
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"available": self.available, "values": dict(self.values),
                "uncovered_items": self.uncovered_items,
                "uncovered_weight": self.uncovered_weight, "reason": self.reason}


def truth_column(truth: object, cluster_col: str) -> str:
    """The attribute column that holds the truth cluster.

    Parameters
    ----------
    truth : object
        The truth as given: a mapping {item: cluster}, a table, a DataFrame or a file.
    cluster_col : str
        The cluster column of a truth table.

    Returns
    -------
    str
        ``value`` for a mapping (how a mapping is read as attributes), else ``cluster_col``.

    References
    ----------
    docs/method.md §1.1 (attributes), §8.12.
    """
    return TRUTH_VALUE_COLUMN if isinstance(truth, Mapping) else cluster_col


def add_exact_step(pipeline: Pipeline, truth_cells: str, truth_alias: str) -> str:
    """Add the step `exact_quality` (quality/exact.sql).

    Parameters
    ----------
    pipeline : Pipeline
        A pipeline with `cell_metrics` and the triple cells.
    truth_cells : str
        The step of the triple cells (cells.sql grouped by the truth attribute).
    truth_alias : str
        The SQL alias of the truth attribute (s_0, …).

    Returns
    -------
    str
        The step's name.

    References
    ----------
    docs/method.md §8.12.
    """
    return pipeline.add("exact_quality", render(
        "quality/exact.sql", truth_cells=truth_cells, truth=truth_alias,
        metrics=EXACT_METRICS))


def read_exact(engine: Engine, pipeline: Pipeline, checked: Mapping[str, Any]) -> ExactQuality:
    """Run `exact_quality` and name why the values are unavailable, if they are.

    Parameters
    ----------
    engine : Engine
        Where the pipeline runs.
    pipeline : Pipeline
        With the step of :func:`add_exact_step`.
    checked : mapping
        :func:`abcde.inputs.checks.validate`'s report (items without a truth row).

    Returns
    -------
    ExactQuality

    References
    ----------
    docs/method.md §8.12.
    """
    row = plain_row(pipeline.fetch(engine, "exact_quality")[0])
    uncovered = int(row["uncovered_items"] or 0)
    without_row = int(checked.get("without_attributes", 0) or 0)
    uncovered = max(uncovered, without_row)
    if uncovered:
        reason = (f"the truth does not cover T: {uncovered:,} item(s) of both clusterings "
                  "have no truth cluster, so their pairs have no verdict and the quality "
                  "metrics no exact value (docs/method.md §8.12)")
        return ExactQuality(False, {}, uncovered, float(row["uncovered_weight"] or 0.0),
                            reason)
    values = {k: float(row[k] or 0.0) for k in EXACT_METRICS}
    values["good_distance"] = values["good_split_distance"] + values["good_merge_distance"]
    values["bad_distance"] = values["bad_split_distance"] + values["bad_merge_distance"]
    return ExactQuality(True, values)


def exact_quality(base: object, exp: object, weights: object | None = None, *,
                  truth: object, **inputs: Any) -> ExactQuality:
    """Exact quality metrics of Exp vs Base with `truth` as the judge (docs/method.md §8.12).

    Parameters
    ----------
    base, exp, weights
        As for `abcde.impact`.
    truth
        The ground-truth clustering: a CSV/Parquet path or table with `item_col` and
        `cluster_col`, a DataFrame, or a mapping {item: cluster}. It is read as an
        attributes table, so an item repeated in it is refused.
    **inputs
        The column names and the engine, as for `abcde.impact`.

    Returns
    -------
    ExactQuality
        The thirteen metrics of docs/method.md §8.4, or why they are unavailable (the
        truth does not cover T).

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals,
    §5.3–5.5 (eq. 29, 35, 41–49). van Staden, S. (2024). Decomposing the Jaccard
    Distance and the Jaccard Index in ABCDE, §4–6 (eq. 5–12, 41–42, 56–59).
    """
    column = truth_column(truth, inputs.get("cluster_col", "cluster_id"))
    with Session.of(base, exp, weights, attributes=truth, slice_by=[column],
                    **inputs).using() as (eng, opened):
        return exact_from_inputs(eng, opened, column)


def exact_from_inputs(engine: Engine, inputs: Inputs, column: str,
                      prefix: str = "abcde_exact_") -> ExactQuality:
    """:func:`exact_quality` on inputs already opened with the truth as their attributes.

    Parameters
    ----------
    engine : Engine
        Where the SQL runs.
    inputs : Inputs
        Base, Exp, weights, and the truth as the attributes table.
    column : str
        The truth's attribute column (:func:`truth_column`).
    prefix : str
        Prefix of the work tables.

    Returns
    -------
    ExactQuality

    References
    ----------
    docs/method.md §8.12.
    """
    from abcde.cells import add_cell_steps, add_item_steps, build_cell_rows

    pipeline = Pipeline(prefix=prefix, schema=engine.work_schema)
    add_item_steps(pipeline, inputs)
    checked = build_cell_rows(engine, pipeline, inputs)
    (truth_cells,) = add_cell_steps(pipeline, inputs, [[column]])
    pipeline.run(engine, "cells", "cell_metrics")
    add_exact_step(pipeline, truth_cells, inputs.attribute(column).alias)
    return read_exact(engine, pipeline, checked)
