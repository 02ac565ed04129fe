"""`abcde report`: the numbers in the plots are the numbers of the commands' JSON output,
each read back from the page's figures and compared with the JSON (docs/method.md §13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from abcde.quality.metrics import METRICS

from .conftest import cli
from .report_support import figures, trace

pytest.importorskip("plotly")


@pytest.fixture(scope="module")
def page(docs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page") / "r.html"
    cli("report", "--impact", str(docs["impact"]), "--sample", str(docs["sample"]),
        "--evaluate", str(docs["evaluate"]), "--simulate", str(docs["simulate"]),
        "--out", str(out))
    return out


def load(docs: dict[str, Path], name: str) -> dict[str, Any]:
    return json.loads(docs[name].read_text())


def test_impact_numbers(page: Path, docs: dict[str, Path]) -> None:
    doc = load(docs, "impact")
    figs = figures(page)
    o = doc["overall"]
    split = figs["impact-split-merge"]
    assert trace(split, "SplitDistance")["x"] == [o["split_distance"]]
    assert trace(split, "MergeDistance")["x"] == [o["merge_distance"]]
    assert [t["x"] for t in split["data"] if t["name"].startswith("JaccardDistance")] == \
        [[o["jaccard_distance"]]]

    top = figs["impact-top-clusters"]
    for side in ("base", "exp"):
        rows = [r for r in doc["top_clusters"] if r["side"] == side]
        bars = trace(top, side.capitalize())
        assert bars["x"] == [r["contribution"] for r in rows]
        assert bars["y"] == [f"{side} {r['cluster_id']}" for r in rows]
    assert len(doc["top_clusters"]) == 10

    for k, entry in enumerate(doc["slices"]):
        bars = figs[f"impact-slices-{k}"]["data"][0]
        assert bars["x"] == [r["contribution"] for r in entry["rows"]]
        assert bars["y"] == [str(r[entry["slice_by"][0]]) for r in entry["rows"]]
        assert bars["x"] == sorted(bars["x"], reverse=True)  # sorted bars

    sizes = figs["impact-sizes"]
    for side in ("base", "exp"):
        points = trace(sizes, side.capitalize())
        assert points["x"] == [r["size"] for r in doc["size_distribution"][side]]
        assert points["y"] == [r["clusters"] for r in doc["size_distribution"][side]]
    assert sizes["layout"]["xaxis"]["type"] == sizes["layout"]["yaxis"]["type"] == "log"


def test_estimate_numbers(page: Path, docs: dict[str, Path]) -> None:
    """The sample was estimated by the report itself (--sample DIR): its numbers must be
    those of `abcde estimate DIR --format json`; each exact impact metric beside them is
    the impact run's."""
    doc = load(docs, "estimate")
    impact = load(docs, "impact")["overall"]
    figs = figures(page)
    checked = flagged = 0
    for key, metric in METRICS.items():
        e = doc[key]
        if e.get("estimate") is None:
            continue
        fig_id = ("estimate-delta-precision" if key == "delta_precision"
                  else f"estimate-{metric.decomposes}")
        fig = figs[fig_id]
        # a metric flagged not conclusive is drawn apart (grey, open, labelled)
        suffix = " (not conclusive)" if e.get("not_conclusive") else ""
        points = trace(fig, "estimate" + suffix)
        k = points["y"].index(metric.label)
        assert points["x"][k] == e["estimate"]
        # the interval and SE, the full label for the hover, the reason of the flag
        reason = (e.get("not_conclusive") or "").replace("<", "&lt;")  # as plotly shows it
        assert points["customdata"][k] == [e["ci_low"], e["ci_high"], e["se"], metric.label,
                                           reason]
        other = [t for t in fig["data"] if t["name"] == "estimate" + (
            "" if suffix else " (not conclusive)")]
        assert not other or metric.label not in other[0]["y"]
        lines = trace(fig, "interval" + suffix)
        j = lines["y"].index(metric.label)
        assert lines["x"][j:j + 2] == [e["ci_low"], e["ci_high"]]
        flagged += bool(suffix)
        if metric.decomposes:
            exact = trace(fig, "exact impact metric")
            assert exact["x"] == [doc["impact"][metric.decomposes]]
            assert exact["x"][0] == pytest.approx(impact[metric.decomposes], rel=1e-12)
        checked += 1
    assert checked == 13  # ΔPrecision and the 12 parts of the jaccard population
    assert 0 < flagged < checked  # both kinds on this page

    for key in ("delta_precision", "contribution"):
        fig = figs[f"estimate-slices-{key}"]
        for suffix, flag in (("", False), (" (not conclusive)", True)):
            rows = [s for s in doc["slices"] if bool(s[key].get("not_conclusive")) == flag]
            if rows:
                points = trace(fig, "estimate" + suffix)
                assert points["x"] == [s[key]["estimate"] for s in rows]
                assert points["y"] == [s["slice"]["provenance"] for s in rows]

    verdicts = figs["estimate-verdicts"]
    classes = doc["sample"]["classes"]
    for name, key in (("equivalent", "equivalent_pairs"),
                      ("not equivalent", "not_equivalent_pairs"),
                      ("unknown", "unknown_pairs")):
        bars = trace(verdicts, name)
        assert bars["x"] == list(classes)
        assert bars["y"] == [classes[c][key] for c in classes]
    assert sum(trace(verdicts, "not equivalent")["y"]) > 0

    judging = doc["judging"]
    assert trace(figs["estimate-judges"], "verdicts")["y"] == list(judging["judges"].values())
    heat = figs["estimate-agreement"]["data"][0]
    pw = judging["agreement"]["pairwise"][0]
    assert heat["x"] == ["ana", "bo"]
    assert heat["z"] == [[None, pw["cohen_kappa"]], [pw["cohen_kappa"], None]]
    assert 0 < pw["cohen_kappa"] < 1


def test_evaluate_numbers(page: Path, docs: dict[str, Path]) -> None:
    doc = load(docs, "evaluate")
    figs = figures(page)
    for run in doc["runs"]:
        bars = trace(figs["evaluate-runs"], run["name"])
        assert bars["y"] == [run["overall"][m] for m in bars["x"]]
        assert "precision" in bars["x"] and "recall" in bars["x"]
        worst = figs[f"evaluate-{run['name']}-worst_truth_clusters"]["data"][0]
        assert worst["x"] == [r["loss"] for r in run["worst_truth_clusters"]]
        assert worst["y"] == [str(r["cluster_id"]) for r in run["worst_truth_clusters"]]
    heat = figs["evaluate-uir"]["data"][0]
    matrix = doc["uir"]["matrix"]
    assert heat["z"] == [[matrix[r][c] for c in heat["x"]] for r in heat["y"]]
    assert heat["z"][0][1] != 0
    for name, curve in doc["uir"]["f_alpha"].items():
        line = trace(figs["evaluate-f-alpha"], name)
        assert line["x"] == [float(a) for a in curve]
        assert line["y"] == list(curve.values())


def test_simulate_numbers(page: Path, docs: dict[str, Path]) -> None:
    doc = load(docs, "simulate")
    figs = figures(page)
    n = 0
    for key, per_budget in doc["metrics"].items():
        fig = figs[f"simulate-{key}"]
        mean = trace(fig, "mean half-width of the intervals")
        need = trace(fig, "half-width needed (z·sd of the estimates)")
        assert mean["x"] == [int(b) for b in per_budget] == [40, 80]
        assert mean["y"] == [per_budget[b]["half_width"] for b in per_budget]
        assert need["y"] == [per_budget[b]["spread_half_width"] for b in per_budget]
        label = METRICS[key].label
        cov = trace(figs["simulate-coverage"], label)
        assert cov["y"] == [per_budget[b]["coverage"] for b in per_budget]
        scored = [b for b, c in per_budget.items() if c["bias_se"]  # and not rounding
                  and abs(c["bias"]) > 1e-9 * abs(c["exact"] or 1)]
        if scored:
            z = trace(figs["simulate-bias"], label)
            assert z["x"] == [int(b) for b in scored]
            assert z["y"] == pytest.approx([per_budget[b]["bias"] / per_budget[b]["bias_se"]
                                            for b in scored], rel=1e-12)
        n += 1
    assert n == 13


def test_estimate_json_file_gives_the_same_figures(page: Path, docs: dict[str, Path],
                                                  tmp_path: Path) -> None:
    """--estimate FILE (the saved JSON) and --sample DIR plot the same numbers; so does
    `abcde estimate DIR --format html`."""
    out = tmp_path / "e.html"
    cli("report", "--estimate", str(docs["estimate"]), "--out", str(out))
    from_dir = {k: v for k, v in figures(page).items() if k.startswith("estimate-")}
    assert figures(out) == from_dir
    assert figures(cli("estimate", str(docs["sample"]), "--format", "html")) == from_dir


def test_the_forest_plots_show_where_unknown_verdicts_could_take_each_estimate(
        page: Path, docs: dict[str, Path], tmp_path: Path) -> None:
    """A sample with unknown verdicts (a truth lacking every seventh item): each metric's
    row also plots its estimate if the unknown pairs were all equivalent and all not
    equivalent (docs/method.md §8.11), the numbers of the JSON."""
    import abcde

    from .conftest import ideal

    truth = {k: v for n, (k, v) in enumerate(sorted(ideal().items())) if n % 7}
    doc = abcde.estimate(str(docs["sample"]), truth=truth)
    assert doc["sample"]["unknown_pairs"] > 0
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "e.html"
    cli("report", "--estimate", str(path), "--out", str(out))
    figs = figures(out)
    checked = 0
    for key, metric in METRICS.items():
        e = doc[key]
        if e.get("estimate") is None or not e.get("unknown_range"):
            continue
        fig = figs["estimate-delta-precision" if key == "delta_precision"
                   else f"estimate-{metric.decomposes}"]
        ends = trace(fig, "if unknowns all equiv / not")
        k = ends["y"].index(metric.label)
        assert ends["x"][k:k + 2] == [e["unknown_range"]["all_equivalent"],
                                      e["unknown_range"]["all_not_equivalent"]]
        checked += 1
    assert checked >= 5
    assert "all equivalent / all not equivalent" in out.read_text()
    # the two judges' ties are unknown too: the page of --sample DIR plots them alike
    whole = load(docs, "estimate")
    plotted = [t for f in figures(page).values() for t in f["data"]
               if t.get("name") == "if unknowns all equiv / not"]
    assert bool(plotted) == bool(whole["sample"]["unknown_pairs"])
