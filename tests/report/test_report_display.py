"""How the report's figures read (issue: displays that mislead), asserted from the built
figure JSON: estimates flagged not conclusive are drawn apart and labelled, every value
axis is in its metric's unit, axis ranges neither hide nor inflate a difference, and
every section names its inputs — a page of results of different populations says so."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcde.report.build import report_html
from abcde.report.plots import ZOOM, value_range

from .report_support import figures, text_of, trace

pytest.importorskip("plotly")


def load(docs: dict[str, Path], name: str) -> dict[str, Any]:
    return json.loads(docs[name].read_text())


@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=8),
       st.sampled_from([(0.0,), (0.0, 1.0)]), st.booleans())
def test_the_axis_rule_shows_each_difference_and_magnifies_at_most_tenfold(
        values: list[float], anchors: tuple[float, ...], zoom: bool) -> None:
    """Every value is on the axis. Unzoomed, it runs from an anchor (0, or 1 for scores)
    and the values' spread is at least a tenth of it, or `zoom` is off; zoomed, it is
    wider than the spread by 1/0.6 and at least a tenth of the values' distance to the
    anchor (a difference looks at most ten times its size), within the anchors."""
    (lo, hi), zoomed = value_range(values, anchors, zoom)
    assert lo <= min(values) and max(values) <= hi and lo < hi
    spread = max(values) - min(values)
    near = [a for a in anchors if lo <= a <= hi]
    if not zoomed:
        assert near
        assert not zoom or len(set(values)) == 1 or any(
            spread >= ZOOM * (max(*values, a) - min(*values, a)) * (1 - 1e-9) for a in near)
    else:
        assert zoom
        width = hi - lo
        assert all(spread < ZOOM * (max(*values, a) - min(*values, a)) for a in anchors)
        far = min(max(abs(v - a) for v in values) for a in anchors)
        assert width >= ZOOM * far * (1 - 1e-9) and width >= spread / 0.6 * (1 - 1e-9)
        if min(anchors) <= min(values) and max(values) <= max(anchors):
            assert min(anchors) - 0.05 * width - 1e-12 <= lo
            assert hi <= max(anchors) + 0.05 * width + 1e-12


def _unit_axes(fig: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The axes of a figure that carry numbers (not categories, not a heatmap's)."""
    if any(t["type"] == "heatmap" for t in fig["data"]):
        return {}
    return {f"{a}axis": fig["layout"].get(f"{a}axis", {}) for a in "xy"
            if any(isinstance(v, int | float) for t in fig["data"] for v in t.get(a, []))}


def test_every_value_axis_is_in_its_unit(docs: dict[str, Path], tmp_path: Path) -> None:
    """No axis is left to plotly's default ticks, which print 0.0008 as "800μ": rates
    and shares tick in percent, counts and log axes as numbers, kappa and the classic
    scores plainly."""
    page = report_html(impact=docs["impact"], sample=docs["sample"],
                       evaluate=docs["evaluate"], simulate=docs["simulate"])
    percent, plain, logs = set(), set(), set()
    for fig_id, fig in figures(page).items():
        for name, axis in _unit_axes(fig).items():
            where = f"{fig_id}.{name}"
            if axis.get("type") == "log":
                assert axis["tickformat"] == "~g", where
                logs.add(where)
            else:  # counts in full (",~r"), as α
                {"~%": percent, "~r": plain, ",~r": plain}[axis["tickformat"]].add(where)
    assert {"estimate-delta-precision.xaxis", "impact-split-merge.xaxis",
            "evaluate-runs.yaxis", "simulate-coverage.yaxis", "simulate-delta_precision.yaxis",
            "impact-top-clusters.xaxis", "evaluate-f-alpha.yaxis"} <= percent
    assert {"evaluate-classic.yaxis", "simulate-bias.yaxis", "estimate-verdicts.yaxis",
            "estimate-judges.yaxis"} <= plain
    assert {"impact-sizes.xaxis", "simulate-coverage.xaxis"} <= logs


def _evaluate_with(doc: dict[str, Any], values: dict[str, float]) -> dict[str, Any]:
    """The evaluation with each run's metrics set to `values` (run name -> value)."""
    out = copy.deepcopy(doc)
    for run in out["runs"]:
        run["overall"] = {**run["overall"], **{m: values[run["name"]] for m in
                                                ("precision", "recall", "f1")}}
        run["overall"] = {k: v for k, v in run["overall"].items()
                          if k in ("items", "weight", "precision", "recall", "f1")}
    return out


def test_close_runs_are_drawn_to_one_and_labelled_far_ones_from_zero(
        docs: dict[str, Path]) -> None:
    """0.963 against 0.978 on bars from 0 to 1 looks equal: the scores' axis runs from
    them to 100%, where their distances (3.7% and 2.2% to go) differ plainly; it says on
    the plot that it does not start at 0, and the bars become labelled dots. 0.5 against
    0.9 stays bars from 0; 0.50 against 0.51 is zoomed, at most tenfold."""
    doc = load(docs, "evaluate")
    fig = figures(report_html(evaluate=_evaluate_with(doc, {"base": 0.963, "exp": 0.978})
                              ))["evaluate-runs"]
    lo, hi = fig["layout"]["yaxis"]["range"]
    assert 0.9 < lo < 0.963 and 1 < hi < 1.01  # room above for a dot at 100%
    assert (0.978 - 0.963) / (hi - lo) >= 0.3
    assert {t["type"] for t in fig["data"]} == {"scatter"}
    assert trace(fig, "base")["text"] == ["96.3%"] * 3
    assert trace(fig, "exp")["text"] == ["97.8%"] * 3
    [note] = fig["layout"]["annotations"]
    assert note["text"] == f"the axis starts at {100 * lo:.3g}%, not 0"

    fig = figures(report_html(evaluate=_evaluate_with(doc, {"base": 0.5, "exp": 0.9})
                              ))["evaluate-runs"]
    assert fig["layout"]["yaxis"]["range"][0] == 0
    assert {t["type"] for t in fig["data"]} == {"bar"}
    assert "annotations" not in fig["layout"]

    page = report_html(evaluate=_evaluate_with(doc, {"base": 0.50, "exp": 0.51}))
    fig = figures(page)["evaluate-runs"]
    lo, hi = fig["layout"]["yaxis"]["range"]
    assert 0 < lo < 0.5 and hi > 0.51 and hi - lo >= ZOOM * 0.5 * (1 - 1e-9)  # to 1: 0.5
    assert fig["layout"]["annotations"][0]["text"].startswith("zoomed: the axis starts at")
    assert "The axis is zoomed around the values" in page


def test_a_one_budget_simulation_is_not_zoomed_into_a_small_gap(
        docs: dict[str, Path]) -> None:
    """One budget: plotly's autorange put two half-widths 12% apart (or 0.5% apart) at
    the bottom and the top of the plot. Half-widths are magnitudes: their axis starts at
    0 whatever their gap, and says nothing of a zoom."""
    doc = load(docs, "simulate")
    one = copy.deepcopy(doc)
    one["budgets"] = [40]
    for needed in (0.0215, 0.0190):
        one["metrics"] = {k: {"40": {**v["40"], "half_width": 0.0189,
                                     "spread_half_width": needed}}
                          for k, v in doc["metrics"].items()}
        fig = figures(report_html(simulate=one))["simulate-delta_precision"]
        lo, hi = fig["layout"]["yaxis"]["range"]
        assert lo == 0 and needed < hi < needed * 1.1
        assert "annotations" not in fig["layout"]


def test_not_conclusive_estimates_are_drawn_apart_and_labelled(docs: dict[str, Path]) -> None:
    """Each metric `abcde estimate` flags not conclusive is grey, open and labelled in its
    forest plot, its reason in the hover data; the others are drawn as before."""
    doc = load(docs, "estimate")
    figs = figures(report_html(estimate=doc))
    flagged = [k for k, e in doc.items() if isinstance(e, dict) and e.get("not_conclusive")
               and e.get("estimate") is not None]
    assert flagged
    metric_figs = [f for k, f in figs.items() if not k.startswith("estimate-slices")]
    drawn = [t for f in metric_figs for t in f["data"]
             if t.get("name") == "estimate (not conclusive)"]
    from abcde.quality.metrics import METRICS

    labels = {y for t in drawn for y in t["y"]}
    assert labels == {METRICS[k].label for k in flagged}
    for t in drawn:
        assert t["marker"]["symbol"] == "circle-open" and t["marker"]["color"] == "#8c8c8c"
        assert set(t["text"]) == {"not conclusive"}
        assert all(c[4] for c in t["customdata"])  # the reason
    plain = {y for f in metric_figs for t in f["data"] if t.get("name") == "estimate"
             for y in t["y"]}
    assert plain and not plain & labels


def test_simulated_budgets_with_not_conclusive_rounds_are_marked(
        docs: dict[str, Path]) -> None:
    doc = load(docs, "simulate")
    figs = figures(report_html(simulate=doc))
    checked = 0
    for key, per_budget in doc["metrics"].items():
        line = trace(figs[f"simulate-{key}"], "mean half-width of the intervals")
        for b, symbol, text in zip(per_budget, line["marker"]["symbol"], line["text"],
                                   strict=True):
            count = per_budget[b]["not_conclusive"]
            assert (symbol == "circle-open") == bool(count)
            assert text == (f"{count} of {doc['replications']} not conclusive"
                            if count else "")
            checked += bool(count)
    assert checked


def test_each_section_names_its_inputs(docs: dict[str, Path]) -> None:
    page = report_html(impact=docs["impact"], sample=docs["sample"],
                       evaluate=docs["evaluate"], simulate=docs["simulate"])
    text = " ".join(text_of(page[:page.index("<script")]).split())  # not plotly.js
    impact = load(docs, "impact")["inputs"]
    assert re.search(r"base \S*examples/base\.csv · exp \S*examples/exp\.csv · weights "
                     r"from weights \(\S*examples/weights\.csv\)", text), text[:2000]
    assert impact["weights"] in text
    assert text.count("computed from") == 4
    assert "computed from inputs not recorded in this document · pairs mixture (α 0.5)" \
        in text  # the simulation does not record its files
    assert "pairs jaccard" in text  # the judged sample: its manifest's inputs
    # the same files and weights in the impact run and the sample; the simulation sized
    # a round of another pair population than the sample's
    [note] = re.findall(r'<p class="note mixed">(.*?)</p>', page, re.S)
    assert note.startswith("These results are not of one population: their pair "
                           "populations differ (Judged sample: is Exp better?: jaccard; ")


def test_a_page_of_different_populations_says_so(docs: dict[str, Path]) -> None:
    """An impact run with other weights than the judged sample's manifest, and a
    simulation of another pair population than the sample's: the page says which inputs
    differ, naming each section's."""
    impact = load(docs, "impact")
    impact["inputs"] = {**impact["inputs"], "weights": "1 for every item (no weights given)"}
    page = report_html(impact=impact, sample=docs["sample"], simulate=docs["simulate"])
    notes = re.findall(r'<p class="note mixed">(.*?)</p>', page, re.S)
    assert len(notes) == 2, notes
    assert "their weights differ (Impact: how Exp differs from Base: 1 for every item" \
        in notes[0]
    assert "their pair populations differ" in notes[1]
    assert "jaccard" in notes[1] and "mixture (α 0.5)" in notes[1]


def test_a_bias_within_rounding_is_not_plotted_in_standard_errors(
        docs: dict[str, Path]) -> None:
    """Estimates equal to the exact value but for rounding (a bias of 1e-19 over an SE
    of 2.4e-20) were plotted as a bias of -4.2 SE, beyond the ±3 lines."""
    doc = load(docs, "simulate")
    cell = doc["metrics"]["delta_precision"]["40"]
    cell.update(bias=-1e-19, bias_se=2.4e-20, exact=0.0015)
    figs = figures(report_html(simulate=doc))
    bias = trace(figs["simulate-bias"], "ΔPrecision")
    assert 40 not in bias["x"] and all(abs(y) < 1e6 for y in bias["y"])
