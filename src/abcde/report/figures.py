"""The report's sections: what each command's JSON document shows, drawn by
:mod:`abcde.report.plots` (docs/method.md §13.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from abcde.quality.metrics import METRIC_KEYS, METRICS
from abcde.report import plots as plot
from abcde.report.plots import Section, Table
from abcde.text import key_label

# --------------------------------------------------------------------------- #
# Impact
# --------------------------------------------------------------------------- #

def impact_section(doc: Mapping[str, Any], source: str = "impact") -> Section:
    """The impact run (ABCDE §4, §4.1; Jaccard decomposition §4–5)."""
    go = plot.plotly()
    o = doc["overall"]
    s = Section("impact", "Impact: how Exp differs from Base",
                "Exact impact metrics over the items in both clusterings (ABCDE §4).",
                source, dict(doc.get("inputs") or {}))
    counts = ("items", "weight", "affected_items", "affected_weight")
    s.tables.append(Table("Overall", ["metric", "value"], [
        [k, plot.amount(o[k]) if k in counts else plot.show(o[k])] for k in (
            *counts, "split_rate", "merge_rate", "jaccard_distance", "split_distance",
            "merge_distance", "jaccard_index", "affected_jaccard_index",
            "unaffected_jaccard_index") if k in o]))

    fig = plot.figure(go)
    for key, colour in (("split_distance", plot.SPLIT), ("merge_distance", plot.MERGE)):
        fig.add_bar(name=plot.impact_label(key), x=[o[key]], y=["JaccardDistance"],
                    orientation="h", marker_color=colour, text=[plot.show(o[key])],
                    textposition="inside")
    fig.add_scatter(name=f"JaccardDistance {plot.show(o['jaccard_distance'])}",
                    x=[o["jaccard_distance"]], y=["JaccardDistance"], mode="markers",
                    marker={"symbol": "line-ns", "size": 30, "color": plot.EXACT,
                            "line": {"width": 3, "color": plot.EXACT}})
    plot.layout(fig, height=200, barmode="stack")
    plot.value_axis(fig, "x", [o["jaccard_distance"]], title="share of the weighted items",
                    zoom=False)
    s.add("impact-split-merge",
          "JaccardDistance = SplitDistance + MergeDistance",
          "The overall JaccardDistance (the tick) and its split and merge "
          "parts (Jaccard decomposition §4).", fig, wide=True)

    top, more = plot.first_bars(doc["top_clusters"], "clusters")
    if top:
        plot.ranking(go, s, "impact-top-clusters", "Most affected clusters",
                     "Base and Exp clusters ranked by their contribution "
                     "weight(C)·JaccardDistance(C)/W (ABCDE §4.1)." + more, top,
                     [f"{r.get('side', '')} {r['cluster_id']}" for r in top], "contribution",
                     "contribution to JaccardDistance(T)",
                     "%{customdata[4]}: contribution %{x}<br>items %{customdata[0]}<br>"
                     "JaccardDistance %{customdata[1]:.3~%} (split %{customdata[2]:.3~%}, "
                     "merge %{customdata[3]:.3~%})",
                     ("items", "jaccard_distance", "split_distance", "merge_distance"), plot.EXP,
                     split_by="side")

    for k, entry in enumerate(doc["slices"]):
        cols = entry["slice_by"]
        rows, more = plot.first_bars(sorted(entry["rows"], key=lambda r: -r["contribution"]),
                                     "slices")
        plot.ranking(go, s, f"impact-slices-{k}", f"Contribution by {', '.join(cols)}",
                     "Slices sorted by contribution to the overall JaccardDistance (ABCDE "
                     "§4.1.1)." + more, rows,
                     [" · ".join(key_label(r[c]) for c in cols) for r in rows], "contribution",
                     "contribution to JaccardDistance(T)",
                     "%{customdata[2]}: contribution %{x}<br>items %{customdata[0]}<br>"
                     "JaccardDistance %{customdata[1]:.3~%}", ("items", "jaccard_distance"),
                     plot.EXP)

    sizes = doc.get("size_distribution") or {}
    if sizes:
        fig = plot.figure(go)
        for side, colour in (("base", plot.BASE), ("exp", plot.EXP)):
            rows = sizes.get(side) or []
            fig.add_scatter(name=side.capitalize(), x=[r["size"] for r in rows],
                            y=[r["clusters"] for r in rows], mode="markers",
                            marker={"color": colour, "size": 7, "opacity": 0.8},
                            hovertemplate="size %{x}: %{y} clusters<extra>" + side
                            + "</extra>")
        plot.layout(fig, xaxis_title="cluster size (items)", yaxis_title="clusters")
        plot.log_axes(fig)
        s.add("impact-sizes", "Cluster sizes, Base vs Exp",
              "How many clusters have each size (log–log), over the items "
              "in both clusterings.", fig)
    return s


# --------------------------------------------------------------------------- #
# A judged sample
# --------------------------------------------------------------------------- #

def estimate_section(doc: Mapping[str, Any], source: str = "sample",
                     inputs: Mapping[str, str] | None = None) -> Section:
    """A judged sample (ABCDE §5, §5.7–5.8; docs/method.md §8, §12.4); ``inputs``: the
    manifest's, when the document lacks them."""
    go = plot.plotly()
    impact = doc.get("impact") or {}
    s = Section("estimate", "Judged sample: is Exp better?", doc["verdict"], source,
                {**(doc.get("inputs") or inputs or {}), "pairs": pair_population(doc)})
    s.notes += [f"warning: {w}" for w in doc.get("warnings") or []]

    dp = doc["delta_precision"]
    fig, zoomed = plot.forest(go, [("ΔPrecision", dp, None)], scores=False)
    s.add("estimate-delta-precision", "ΔPrecision",
          f"Estimate with its {plot.show(dp['confidence'])} interval "
          f"({dp.get('interval')}); above 0: Exp is more precise "
          "(ABCDE §5.3)." + zoomed, fig)
    alone = (doc.get("humans_alone") or {}).get("delta_precision")
    if alone:  # a model judge's worth: its interval beside the humans' own (§8.15)
        fig, zoomed = plot.forest(go, [("humans alone", alone, None),
                                       ("with the model", dp, None)], scores=False)
        s.add("estimate-model", "ΔPrecision: the humans alone and with the model",
              "The humans' verdicts alone, and combined with the model judge's "
              "(prediction-powered, docs/method.md §8.15)." + zoomed, fig)

    groups: dict[str, list[str]] = {}
    for key in METRIC_KEYS:
        if METRICS[key].decomposes and key in doc:
            groups.setdefault(METRICS[key].decomposes, []).append(key)
    for target, keys in groups.items():
        if all((doc[k] or {}).get("estimate") is None for k in keys):
            continue
        label = plot.impact_label(target)
        fig, zoomed = plot.forest(go, [(label, None, impact.get(target)),
                                  *((METRICS[k].label, doc[k], None) for k in keys)])
        s.add(f"estimate-{target}", f"{label} decomposed",
              f"The exact {label} (diamond) and the estimated good and bad "
              "parts that add up to it, with intervals."
              + zoomed, fig)
    by_reason: dict[str, list[str]] = {}
    for k, why in (doc.get("unavailable") or {}).items():
        by_reason.setdefault(str(why), []).append(METRICS[k].label if k in METRICS else k)
    s.notes += [f"not available from this sample: {', '.join(labels)} — {why}"
                for why, labels in by_reason.items()]

    # the heaviest: a weight is known exactly, a ranking by the estimate favours the noisiest
    slices, more = plot.first_bars(doc.get("slices") or [], "slices (by item weight)", by="weight")
    labels = [" · ".join(key_label(v) for v in e["slice"].values()) for e in slices]
    for key, title, caption in (
            ("delta_precision", "ΔPrecision per slice",
             "ΔPrecision within each slice, with intervals."),
            ("contribution", "Contribution of each slice to ΔPrecision",
             "Each slice's share of the overall ΔPrecision, with intervals "
             "(docs/method.md §8.8).")):
        if slices:
            fig, zoomed = plot.forest(go, [(lab, e[key], None) for lab, e in
                                      zip(labels, slices, strict=True)], scores=False)
            s.add(f"estimate-slices-{key}", title, caption + more
                  + zoomed, fig)

    classes = doc["sample"].get("classes") or {}
    if classes and all("equivalent_pairs" in t for t in classes.values()):
        fig = plot.figure(go)
        for key, name, colour in (("equivalent_pairs", "equivalent", plot.GOOD),
                                  ("not_equivalent_pairs", "not equivalent", plot.BAD),
                                  ("unknown_pairs", "unknown", plot.UNKNOWN)):
            fig.add_bar(name=name, x=[plot.plain(c) for c in classes],
                        y=[t[key] for t in classes.values()], marker_color=colour)
        plot.layout(fig, barmode="stack", yaxis_title="pairs")
        s.add("estimate-verdicts", "Verdicts per pair class",
              "Unique pairs of each class by verdict (self pairs are "
              "equivalent by definition).", fig)
    judging = doc.get("judging") or {}
    if len(judging.get("judges") or {}) > 1:
        _agreement(go, s, judging, judging.get("agreement") or {})
    return s


def _agreement(go: Any, s: Section, judging: Mapping[str, Any],
               agreement: Mapping[str, Any]) -> None:
    judges = judging["judges"]
    fig = plot.figure(go)
    fig.add_bar(x=[plot.plain(j) for j in judges], y=list(judges.values()), marker_color=plot.BASE,
                name="verdicts")
    plot.layout(fig, height=260, yaxis_title="pairs judged", showlegend=False)
    s.add("estimate-judges", "Verdicts per judge",
          f"{judging['pairs']:,} pairs judged; "
          f"{judging['contested_pairs']:,} contested, resolved by "
          f"majority. {judging.get('note', '')}", fig)
    pairwise = agreement.get("pairwise") or []
    if not pairwise:
        return
    names = sorted({j for p in pairwise for j in p["judges"]})
    z: list[list[float | None]] = [[None] * len(names) for _ in names]
    for p in pairwise:
        a, b = (names.index(j) for j in p["judges"])
        z[a][b] = z[b][a] = p["cohen_kappa"]
    fig = plot.heatmap(go, names, z, "%{z:.2f}", "%{y} vs %{x}: Cohen's kappa %{z:.3f}")
    plot.layout(fig, height=120 + 40 * len(names))
    kind = {"cohen": "Cohen's", "fleiss": "Fleiss'"}.get(agreement.get("kappa_kind") or "", "")
    raw = agreement.get("raw_agreement")
    s.add(
        "estimate-agreement", "Agreement between judges",
        f"On {agreement.get('pairs', 0):,} pairs with two or more judges: raw agreement "
        f"{plot.show(raw)}, {kind} kappa {plot.show(agreement.get('kappa'), plot.PLAIN)}. "
        "Cells: Cohen's kappa "
        "of each two judges.", fig)


# --------------------------------------------------------------------------- #
# Evaluation
# --------------------------------------------------------------------------- #

RUN_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy", "jaccard_index")


def evaluate_section(doc: Mapping[str, Any], source: str = "evaluate") -> Section:
    """An evaluation (ABCDE §3; Amigó et al. 2011; docs/method.md §9–10)."""
    go = plot.plotly()
    runs = doc["runs"]
    inputs = dict(doc.get("inputs") or {})
    actual = inputs.pop("actual", None) or {}
    inputs.update({f"run {name}": label for name, label in actual.items()})
    s = Section("evaluate", "Evaluation against the ground truth",
                f"{len(runs)} run{'s' if len(runs) != 1 else ''} evaluated on the items of "
                "the truth.", source, inputs)
    fig, zoomed = plot.compared(go, [(r["name"], keys, [r["overall"][m] for m in keys])
                                for r in runs for keys in
                                [[m for m in RUN_METRICS if m in r["overall"]]]],
                           plot.PERCENT, "weighted mean over items")
    s.add("evaluate-runs", "The runs side by side",
          "Pointwise metrics of each run, weighted over the truth's items "
          "(ABCDE §3)." + zoomed, fig, wide=True)
    classic = [r for r in runs if r.get("classic")]
    if classic:
        keys = list(classic[0]["classic"])
        fig, zoomed = plot.compared(go, [(r["name"], keys, [r["classic"].get(m) for m in keys])
                                    for r in classic], plot.PLAIN)
        s.add("evaluate-classic", "Classic metrics",
              "Unweighted pairwise, purity and information-theoretic "
              "metrics." + zoomed, fig, wide=True)

    for run in runs:
        for key, what in (("worst_truth_clusters", "truth"),
                          ("worst_actual_clusters", "actual")):
            rows, more = plot.first_bars(run.get(key) or [], "clusters")
            if rows:
                plot.ranking(go, s, f"evaluate-{run['name']}-{key}",
                             f"{run['name']}: worst {what} clusters",
                             f"The {what} clusters that cost {run['name']} most." + more, rows,
                             [str(r["cluster_id"]) for r in rows], "loss",
                             "loss (share of the weighted items)",
                             "cluster %{customdata[3]}: loss %{x}<br>items %{customdata[0]}<br>"
                             "precision %{customdata[1]:.3~%}, recall %{customdata[2]:.3~%}",
                             ("items", "precision", "recall"), plot.BAD)

    uir = doc.get("uir") or {}
    matrix = uir.get("matrix") or {}
    if matrix:
        names = list(matrix)
        fig = plot.heatmap(go, names, [[matrix[r].get(c) for c in names] for r in names],
                           "%{z:.3f}", "UIR(%{y} over %{x}) = %{z:.4f}")
        plot.layout(fig, height=140 + 50 * len(names), xaxis_title="reference system",
                    yaxis_title="system")
        fig.update_layout(yaxis={"autorange": "reversed"})
        s.add("evaluate-uir", "UIR matrix",
              f"Unanimous Improvement Ratio of the row over the column on "
              f"{uir.get('n_cases', 0):,} test cases ({uir.get('cases')}), "
              f"metrics {', '.join(uir.get('metrics') or [])}; |UIR| ≥ "
              f"{uir.get('threshold')} is a robust improvement "
              "(Amigó et al. 2011).", fig)
    sweep = uir.get("f_alpha") or {}
    if sweep:
        fig = plot.figure(go)
        for k, (name, curve) in enumerate(sweep.items()):
            fig.add_scatter(name=plot.plain(name), x=[float(a) for a in curve],
                            y=list(curve.values()), mode="lines+markers",
                            marker_color=plot.COLOURS[k % len(plot.COLOURS)])
        m = uir.get("f_alpha_metrics") or ["", ""]
        plot.layout(fig, xaxis_title=f"α (weight of {m[0]})")
        zoomed = plot.value_axis(fig, "y", [v for c in sweep.values() for v in c.values()],
                                 title="F_α", scores=True)
        s.add("evaluate-f-alpha", "F_α sweep",
              f"F_α of {' and '.join(m)} as α goes from 0 to 1: a system "
              "above the others at every α is better for every weighting."
              + (f" {uir['f_alpha_note']}" if uir.get("f_alpha_note")
                 else "") + zoomed, fig)
    return s


# --------------------------------------------------------------------------- #
# Simulation
# --------------------------------------------------------------------------- #

def simulate_section(doc: Mapping[str, Any], source: str = "simulate") -> Section:
    """A simulation (ABCDE §5.8, App. A; docs/method.md §8.9): half-widths against the
    budget beside z·sd of the estimates; with exact values, coverage and bias in SEs."""
    from abcde.quality.simulation import FLAG_COVERAGE

    go = plot.plotly()
    rounds = doc["replications"]
    s = Section("simulate", "Sizing a round: interval width against the budget",
                f"{rounds} simulated rounds per budget on the {doc.get('population')} "
                "population, judged by the ground truth.", source,
                {**(doc.get("inputs") or {}), "pairs": pair_population(doc)})
    coverage, bias = plot.figure(go), plot.figure(go)
    flagged_any = False
    for key, per_budget in doc["metrics"].items():
        label = METRICS[key].label if key in METRICS else key
        measured = [b for b in per_budget if per_budget[b].get("coverage") is not None]
        flagged_any |= any(per_budget[b].get("not_conclusive") for b in per_budget)
        if measured:
            coverage.add_scatter(name=label, x=[int(b) for b in measured],
                                 y=[per_budget[b]["coverage"] for b in measured],
                                 **plot.marked(per_budget, measured, rounds, labelled=False))
        # a bias within rounding of the exact value is none, whatever its SE says
        scored = [b for b, c in per_budget.items() if c.get("bias") is not None
                  and c.get("bias_se") and abs(c["bias"]) > 1e-9 * abs(c.get("exact") or 1)]
        if scored:
            bias.add_scatter(name=label, x=[int(b) for b in scored],
                             y=[per_budget[b]["bias"] / per_budget[b]["bias_se"]
                                for b in scored],
                             **{**plot.marked(per_budget, scored, rounds, labelled=False),
                                "mode": "markers"})
        budgets = [b for b in per_budget if per_budget[b].get("half_width") is not None]
        if not budgets:
            continue
        fig = plot.figure(go)
        fig.add_scatter(name="mean half-width of the intervals", x=[int(b) for b in budgets],
                        y=[per_budget[b]["half_width"] for b in budgets],
                        marker_color=plot.BASE, **plot.marked(per_budget, budgets, rounds))
        fig.add_scatter(name="half-width needed (z·sd of the estimates)",
                        x=[int(b) for b in budgets],
                        y=[per_budget[b]["spread_half_width"] for b in budgets],
                        mode="lines+markers", marker_color=plot.BAD, line={"dash": "dash"})
        plot.layout(fig, height=280, xaxis_title="budget (pairs)")
        plot.log_axes(fig, y=False)
        zoomed = plot.value_axis(fig, "y", [per_budget[b][k] for b in budgets
                                 for k in ("half_width", "spread_half_width")],
                      title="half-width", zoom=False)
        s.add(f"simulate-{key}", label,
              "Where the blue line lies well below the red one the "
              "intervals cover less than they say." + zoomed,
              fig)
    marks = (" Open markers: budgets where some rounds' estimates were not conclusive "
             "(how many, in the hover)." if flagged_any else "")
    if coverage.data:
        flag_below = doc.get("flag_coverage", FLAG_COVERAGE)  # by the intervals' level
        coverage.add_hline(y=flag_below, line_dash="dash", line_color=plot.BAD,
                           annotation_text=f"flagged below {plot.show(flag_below)}")
        plot.layout(coverage, height=360, xaxis_title="budget (pairs)")
        plot.log_axes(coverage, y=False)
        zoomed = plot.value_axis(coverage, "y",
                                 [flag_below, *(v for t in coverage.data for v in t.y)],
                            title="share of intervals holding the exact value", scores=True)
        s.add("simulate-coverage", "Coverage of the intervals",
              "Per metric and budget, the share of the simulated rounds whose interval "
              "held the exact value." + marks + zoomed, coverage, at=0)
    if bias.data:
        for y in (-3, 3):
            bias.add_hline(y=y, line_dash="dot", line_color=plot.BAD)
        plot.layout(bias, height=360, xaxis_title="budget (pairs)")
        plot.log_axes(bias, y=False)
        plot.value_axis(bias, "y", [-3.5, 3.5, *(v for t in bias.data for v in t.y)], plot.PLAIN,
                        title="(mean estimate − exact) / SE", zoom=False)
        s.add("simulate-bias", "Bias in standard errors",
              "Mean estimate − exact value over its standard error (sd/√rounds); beyond "
              "±3 the bias is real." + marks, bias, at=1 if coverage.data else 0)
    if not coverage.data:
        s.notes.append("No coverage or bias: " + ((doc.get("exact") or {}).get("reason")
                                                  or "the truth does not fix the exact "
                                                  "values") + ". The half-width lines still "
                       "show whether the intervals are as wide as the estimates' spread.")
    return s


# --------------------------------------------------------------------------- #
# The page's inputs
# --------------------------------------------------------------------------- #

#: the inputs that fix the population a result is about, as the page names them
POPULATION = {"base": "Base", "exp": "Exp", "weights": "weights",
              "pairs": "pair populations"}


def pair_population(doc: Mapping[str, Any]) -> str:
    """The pair population a judged sample or a simulation is about."""
    alpha = doc.get("alpha")
    return f"{doc.get('population')}" + (f" (α {alpha:g})" if isinstance(alpha, float)
                                           and doc.get("population") == "mixture" else "")


def mixed_inputs(sections: Sequence[Section]) -> list[str]:
    """A sentence for every input two sections record differently: the page then
    combines results of different populations."""
    out = []
    for key, name in POPULATION.items():
        given = {s.title: v for s in sections for k, v in s.recorded if k == key}
        if len(set(given.values())) > 1:
            out.append(f"These results are not of one population: their {name} differ ("
                       + "; ".join(f"{t}: {v}" for t, v in given.items()) + ").")
    return out

