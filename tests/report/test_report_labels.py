"""`abcde report` on a data engineer's own values: long slice values and cluster ids,
values that print alike (a text '(none)' beside NULL). Each bar keeps its own category:
plotly draws the bars of two equal labels on one another, and a 200-character label
takes the plot's whole width (docs/method.md §13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abcde import impact
from abcde.report.build import report_html
from abcde.text import NULL_KEY

from .report_support import figures, trace

pytest.importorskip("plotly")

#: the longest label shown: 40 characters, and " (2)" when two shorten alike
SHORT = 44
LONG = "https://example.com/catalogue/" + "a-very-long-path-segment/" * 8


def _doc() -> dict[str, Any]:
    """Six items in two Base clusters, split apart in Exp; the attribute `source` holds
    two long values that differ only at their end, the text '(none)' and NULL."""
    base = {k: f"{LONG}cluster-{k // 3}" for k in range(6)}
    exp = {k: f"{LONG}cluster-{k}" for k in range(6)}
    source = [f"{LONG}1", f"{LONG}2", NULL_KEY, None, NULL_KEY, None]
    attributes = {k: {"source": v} for k, v in enumerate(source)}
    return impact(base, exp, attributes=attributes, slice_by="source").to_dict()


def _bars(fig: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """(category, x, full text of the hover) of every bar of every trace."""
    return [(y, x, data[-1]) for t in fig["data"]
            for y, x, data in zip(t["y"], t["x"], t["customdata"], strict=True)]


def test_long_and_alike_values_get_short_distinct_labels_and_full_hover() -> None:
    doc = _doc()
    figs = figures(report_html(impact=doc))

    slices = figs["impact-slices-0"]
    bars = _bars(slices)
    rows = doc["slices"][0]["rows"]
    assert len(rows) == 4
    assert [x for _, x, _ in bars] == [r["contribution"] for r in rows]
    assert [full for _, _, full in bars] == [
        NULL_KEY if r["source"] is None else r["source"] for r in rows]
    labels = [y for y, _, _ in bars]
    assert len(set(labels)) == len(labels) == 4, labels
    assert all(len(y) <= SHORT for y in labels), labels
    assert {y[-1] for y in labels if y.startswith("https")} == {"1", "2"}  # their ends
    assert slices["layout"]["yaxis"]["categoryarray"] == labels[::-1]

    top = figs["impact-top-clusters"]
    shown = _bars(top)
    assert sorted(full for _, _, full in shown) == sorted(
        f"{r['side']} {r['cluster_id']}" for r in doc["top_clusters"])
    labels = [y for y, _, _ in shown]
    assert len(set(labels)) == len(labels) == len(doc["top_clusters"])
    assert all(len(y) <= SHORT for y in labels), labels


def test_a_slicing_of_many_values_plots_its_largest_contributions() -> None:
    """A slicing by a column of 120 values (and --top 200) draws the 40 largest bars,
    the JSON's numbers, and says that the others are left out; a plot of every one was
    tens of thousands of pixels tall."""
    base = {k: k // 4 for k in range(480)}
    exp = {k: (k + 1) // 3 for k in range(480)}
    attributes = {k: {"shop": f"shop {k % 120}"} for k in range(480)}
    doc = impact(base, exp, attributes=attributes, slice_by="shop", top=200).to_dict()
    rows = doc["slices"][0]["rows"]
    assert len(rows) == 120 and len(doc["top_clusters"]) == 200
    html = report_html(impact=doc)
    figs = figures(html)

    bars = _bars(figs["impact-slices-0"])
    largest = sorted(rows, key=lambda r: -r["contribution"])[:40]
    assert [(full, x) for _, x, full in bars] == [(r["shop"], r["contribution"])
                                                  for r in largest]
    assert "The 40 largest of 120 slices are shown" in html

    shown = _bars(figs["impact-top-clusters"])
    assert sorted(x for _, x, _ in shown) == sorted(
        r["contribution"] for r in doc["top_clusters"][:40])
    assert "The 40 largest of 200 clusters are shown" in html


def test_a_log_axis_of_one_value_ticks_1_2_5() -> None:
    """Every cluster of one size, in both clusterings: plotly widens a log axis of one
    value by a decade each side, and its nine ticks a decade, written in full, ran into
    one another (0.40.50.60.70.80.91); such an axis ticks 1, 2, 5, 10…"""
    same = {k: k // 3 for k in range(6)}
    layout = figures(report_html(impact=impact(same, same).to_dict()))["impact-sizes"]["layout"]
    for axis in ("xaxis", "yaxis"):
        assert (layout[axis]["type"], layout[axis]["tickformat"],
                layout[axis].get("dtick")) == ("log", "~g", "D2")


def test_an_estimate_of_many_slices_plots_its_heaviest(docs: dict[str, Path]) -> None:
    """A judged sample sliced by a column of 100 values: each per-slice forest plot draws
    the 40 heaviest slices (item weight), in the JSON's order with the JSON's numbers,
    and says that the others are left out; a plot of every slice was thousands of pixels
    tall."""
    doc = json.loads(docs["estimate"].read_text())
    model = doc["slices"][0]
    weights = [(k * 37) % 100 for k in range(100)]  # every weight 0–99 once, shuffled
    doc["slices"] = [{**model, "slice": {"shop": f"shop {k}"}, "weight": float(w),
                      "delta_precision": {**model["delta_precision"], "estimate": k / 1000,
                                          "not_conclusive": None},
                      "contribution": {**model["contribution"], "estimate": -k / 1000,
                                       "not_conclusive": None}}
                     for k, w in enumerate(weights)]
    html = report_html(estimate=doc)
    figs = figures(html)
    heaviest = [k for k, w in enumerate(weights) if w >= 60]
    assert len(heaviest) == 40
    for key, sign in (("delta_precision", 1), ("contribution", -1)):
        points = trace(figs[f"estimate-slices-{key}"], "estimate")
        assert points["y"] == [f"shop {k}" for k in heaviest]
        assert points["x"] == [sign * k / 1000 for k in heaviest]
    assert html.count("The 40 heaviest of 100 slices (by item weight) are shown") == 2


@pytest.mark.parametrize(("weights", "weight", "affected"), [
    ({k: 1.5 for k in range(4000)}, "6,000.00", "4,500.00"),
    ({k: 1e9 for k in range(4000)}, "4,000,000,000,000.00", "3,000,000,000,000.00"),
    (None, "4,000.00", "3,000.00"),
])
def test_the_overall_table_writes_counts_and_weights_alike(
        weights: dict[int, float] | None, weight: str, affected: str) -> None:
    """Counts and weights in one format, as `abcde impact`'s text tables write them: the
    float weight 6180.0 was "6180" beside the count "3,700", and a weight of a million or
    more "1e+06" or "1e+12"."""
    from abcde.report.figures import impact_section

    base = {k: k // 4 for k in range(4000)}
    exp = {k: (k // 4) if k < 1000 else k // 2 for k in range(4000)}
    doc = impact(base, exp, weights).to_dict()
    assert (doc["overall"]["items"], doc["overall"]["affected_items"]) == (4000, 3000)
    [overall] = impact_section(doc).tables
    values = dict(overall.rows)
    assert [values[k] for k in ("items", "weight", "affected_items", "affected_weight")] \
        == ["4,000", weight, "3,000", affected]
