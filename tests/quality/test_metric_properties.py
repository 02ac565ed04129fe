"""Common properties of every quality metric of the metric table (scikit-learn style: one
test module over a registry of metrics), on both populations where the metric is
defined, on random small samples with random verdicts (hypothesis):

- its interval lies within the metric's bounds (``Metric.bounds`` × multiplier; for
  ΔPrecision's Wald interval, which is not bounded, the estimate lies between its
  limits and, on the abcde population where |l| = 1, within ±multiplier);
- a class total of 0 (the population has none of the metric's pairs) gives an exact 0:
  estimate 0, SE 0, interval of kind "exact";
- a class drawn but never judged gives "undefined": estimate None, and the note says
  why (docs/method.md §8.3).

The registry is :data:`abcde.quality.metrics.METRICS`; it is checked against the table of
docs/method.md §8.4, which a reader of the method sees.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toy_draws import CLASS_TOTAL, judged_draws, without_classes

from abcde.quality.estimate import estimate_from_draws
from abcde.quality.metrics import METRIC_KEYS, METRICS, Metric, metric_keys
from abcde.quality.sample import CLASSES, POPULATIONS

CASES = [(key, population) for key in METRICS for population in METRICS[key].populations]
PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def classes_of(metric: Metric) -> set[str]:
    """The pair classes a metric averages over (a sum: its parts')."""
    if metric.parts:
        return set().union(*(classes_of(METRICS[p]) for p in metric.parts))
    return {CLASSES[c] for c in metric.classes}


def test_the_registry_is_the_table_of_the_method_page() -> None:
    """Every row of docs/method.md §8.4 (metric, population, classes, value, multiplier)
    is a row of METRICS, in the same order, and nothing else is."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "method.md").read_text()
    section = text[text.index("### 8.4 The 13 metrics"):text.index("### 8.5")]
    rows = [[cell.strip().strip("`") for cell in line.strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| `")]
    assert [r[0] for r in rows] == list(METRIC_KEYS)
    values = {"equivalent": "v", "not_equivalent": "1 − v", "label": "l_ij·v"}
    names = {frozenset(CLASSES): "all", frozenset({"split"}): "split",
             frozenset({"merge"}): "merge", frozenset({"self", "stable"}): "self + stable"}
    for key, population, classes, value, _multiplier, _source in rows:
        metric = METRICS[key]
        assert population == ("both" if metric.populations == POPULATIONS else "jaccard")
        if metric.parts:  # "good split + good merge distance"
            parts = " + ".join(" ".join(p.split("_")[:2]) for p in metric.parts)
            assert (classes, value) == ("—", f"{parts} distance"), key
            continue
        assert classes == names[frozenset(classes_of(metric))], key
        assert value == values[metric.indicator or ""], key


@pytest.mark.parametrize(("key", "population"), CASES)
@PROPERTY
@given(data=st.data())
def test_interval_lies_within_the_bounds(key: str, population: str, data: Any) -> None:
    draws, verdicts, manifest = data.draw(judged_draws(population))
    metric = METRICS[key]
    est = estimate_from_draws(draws, verdicts, manifest)[key]
    if est["estimate"] is None:
        assert est["note"], "an undefined estimate says why"
        return
    assert est["se"] is None or est["se"] >= 0
    if est["ci_low"] is None:
        return
    tol = 1e-12 * max(1.0, abs(est["multiplier"]))
    assert est["ci_low"] - tol <= est["estimate"] <= est["ci_high"] + tol
    if metric.bounds is not None:
        low, high = (b * est["multiplier"] for b in metric.bounds)
        assert low - tol <= est["ci_low"] and est["ci_high"] <= high + tol, est
    elif population == "abcde":  # ΔPrecision: a mean of ±1·v times Σu
        assert abs(est["estimate"]) <= est["multiplier"] + tol


@pytest.mark.parametrize(("key", "population"), CASES)
@PROPERTY
@given(data=st.data())
def test_a_zero_class_total_gives_an_exact_zero(key: str, population: str, data: Any) -> None:
    draws, verdicts, manifest = data.draw(judged_draws(population))
    draws, manifest = without_classes(draws, manifest, classes_of(METRICS[key]))
    est = estimate_from_draws(draws, verdicts, manifest)[key]
    assert (est["estimate"], est["se"]) == (0.0, 0.0), est
    assert (est["ci_low"], est["ci_high"], est["interval"]) == (0.0, 0.0, "exact")
    assert est["note"].startswith("exactly 0")


@pytest.mark.parametrize(("key", "population"), CASES)
@PROPERTY
@given(data=st.data())
def test_a_class_drawn_but_never_judged_is_undefined(
    key: str, population: str, data: Any
) -> None:
    draws, verdicts, manifest = data.draw(judged_draws(population))
    judgeable = sorted(classes_of(METRICS[key]) - {"self"})
    cls = data.draw(st.sampled_from(judgeable))
    if cls not in draws["pair_class"]:  # draw one pair of it
        pid = max(draws["pair_id"], default=0) + 1
        label = {"split": -1.0, "merge": 1.0, "stable": 1.0}[cls]
        for name, value in zip(draws, (pid, "x", "y", cls, label, 2), strict=True):
            draws[name].append(value)
    silent = data.draw(st.sampled_from(["unknown", None]))  # None: no verdict at all
    for pid, c in zip(draws["pair_id"], draws["pair_class"], strict=True):
        if c == cls:
            verdicts.pop(pid, None)
            if silent:
                verdicts[pid] = silent
    assert manifest["totals"][CLASS_TOTAL[cls]] > 0
    est = estimate_from_draws(draws, verdicts, manifest)[key]
    assert est["estimate"] is None and est["se"] is None and est["ci_low"] is None
    assert re.search(rf"undefined: .*\b{cls}\b.* pairs were drawn but none has a verdict",
                     est["note"]), est["note"]


def test_every_metric_has_a_case() -> None:
    """The property tests cover all 13 metrics, the rates and ΔPrecision on both
    populations, and the bounds are those of the interval kind."""
    assert {key for key, _ in CASES} == set(METRIC_KEYS) and len(METRIC_KEYS) == 13
    assert len(CASES) == len(metric_keys("abcde")) + len(metric_keys("jaccard")) == 18
    for metric in METRICS.values():
        assert (metric.bounds is None) == (metric.indicator == "label")
        assert all(math.isfinite(b) for b in metric.bounds or ())
