"""The report's sections and plots, built from the JSON documents of the commands.

Every number a plot shows is a number of the command's JSON output, taken as it is:
nothing is recomputed here (tests/report checks it). Each plot is a plotly figure kept as
its JSON form (a dict of ``data`` and ``layout``), so the page and the tests read the
same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from abcde.errors import InputError
from abcde.quality.metrics import METRIC_KEYS, METRICS
from abcde.text import fmt, key_label

# Colours: Base grey-blue, Exp orange, good green, bad red, exact impact black.
BASE, EXP = "#4c78a8", "#f58518"
GOOD, BAD, EXACT, UNKNOWN = "#54a24b", "#e45756", "#222222", "#bab0ac"
SPLIT, MERGE = "#72b7b2", "#b279a2"

IMPACT_LABELS = {"split_rate": "SplitRate", "merge_rate": "MergeRate",
                 "jaccard_distance": "JaccardDistance", "split_distance": "SplitDistance",
                 "merge_distance": "MergeDistance", "jaccard_index": "JaccardIndex",
                 "affected_jaccard_index": "AffectedJaccardIndex",
                 "unaffected_jaccard_index": "UnaffectedJaccardIndex"}


@dataclass
class Figure:
    """One plot: an element id, a title, a caption and the plotly figure as JSON."""

    id: str
    title: str
    caption: str
    figure: dict[str, Any]
    wide: bool = False


@dataclass
class Table:
    """A small table: column headers and rows of cells (already formatted)."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Section:
    """A part of the report (impact, judged sample, evaluation, simulation)."""

    id: str
    title: str
    intro: str
    source: str
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def require_plotly() -> None:
    """Refuse (InputError) when plotly is missing: commands asked for `--format html`
    call it before any work, so that they never write `--out` and then fail."""
    _plotly()


def _plotly() -> Any:
    try:
        import plotly.graph_objects as go
    except ImportError:
        raise InputError("abcde report needs plotly, which is not installed",
                         hint="pip install 'abcde[report]'") from None
    return go


#: The plotly template of every figure. Figures are built with an empty template and get
#: this one as JSON in `_json`: plotly validates and deep-copies a template each time a
#: figure is made or given one, about half the time of a report of a few figures.
TEMPLATE = "plotly_white"


def _figure(go: Any, *data: Any) -> Any:
    """A new plotly figure of traces `data`, without a template (see TEMPLATE)."""
    return go.Figure(data=list(data), layout={"template": {}})


@cache
def _template_json() -> str:
    """TEMPLATE as JSON, as a figure given it carries it in layout.template."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    figure = json.loads(pio.to_json(go.Figure(layout={"template": TEMPLATE}), pretty=False))
    return json.dumps(figure["layout"]["template"])


def _json(fig: Any) -> dict[str, Any]:
    """The figure as plain JSON data (what Plotly.newPlot takes), with TEMPLATE."""
    import json

    import plotly.io as pio

    out = json.loads(pio.to_json(fig, validate=True, pretty=False))
    out.setdefault("layout", {})["template"] = json.loads(_template_json())
    return out


def _layout(fig: Any, *, height: int = 360, **kwargs: Any) -> None:
    fig.update_layout(height=height,
                      margin={"l": 10, "r": 10, "t": 36, "b": 10},
                      font={"family": "system-ui, sans-serif", "size": 12},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
                      modebar={"orientation": "v"}, **kwargs)
    fig.update_yaxes(automargin=True)
    fig.update_xaxes(automargin=True)


def _log_axes(fig: Any, x: bool = True, y: bool = True) -> None:
    """Logarithmic axes whose every tick reads as its value. By default plotly labels
    the ticks between powers of ten with their first digit only, in small type ("4" for
    40 clusters, "8" for 0.8), which reads as the wrong number; written in full, all
    nine ticks of a decade run into one another, so an axis spanning a decade or more
    gets 1, 2, 5, 10, 20, 50… So does an axis of one value, which plotly widens by a
    decade each side; a narrower span keeps plotly's own ticks (5, 5.5, 6…)."""
    for on, axis, update in ((x, "x", fig.update_xaxes), (y, "y", fig.update_yaxes)):
        if not on:
            continue
        values = [v for t in fig.data for v in (getattr(t, axis) or ())
                  if isinstance(v, int | float) and v > 0]
        wide = bool(values) and (max(values) >= 10 * min(values) or len(set(values)) == 1)
        update(type="log", tickformat="~g", **({"dtick": "D2"} if wide else {}))


def num(value: Any, digits: int = 4) -> str:
    """A number for a table: integers with separators, floats to `digits` significant
    digits, None as '-'."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def amount(value: Any) -> str:
    """A count or a weight for a table, in one format whatever its size or type: with
    separators, a float weight to two decimals as the text tables of `abcde impact`
    show it ("3,700", "6,180.00"). `num` wrote the float weight 6180.0 as "6180" beside
    the count "3,700", and a weight of a million or more as "1e+06"; so does
    `abcde.text.fmt` from 1e12 on, hence no cap here. Weights below 1 (and NaN or
    infinity) keep `fmt`'s 4 significant digits."""
    if isinstance(value, float) and math.isfinite(value) and (value == 0 or abs(value) >= 1):
        return f"{value:,.2f}"
    return fmt(value)


#: The longest category label a bar or forest plot shows: a longer one (a URL, a long
#: attribute value) would take the plot's whole width for its axis and squash the bars.
LABEL_CHARS = 40


#: The most bars a ranking plot draws (the largest first): a slicing by a column of
#: thousands of values, or `--top 1000`, made one plot tens of thousands of pixels tall.
MAX_BARS = 40
UNKNOWN_RANGE = "if unknowns all equiv / not"
"""The forest plots' trace of the sensitivity range of unknown verdicts (docs/method.md
§8.11)."""


def _shown(rows: Sequence[Any], what: str) -> tuple[list[Any], str]:
    """The first MAX_BARS rows, and a sentence saying so when some are left out."""
    if len(rows) <= MAX_BARS:
        return list(rows), ""
    return list(rows[:MAX_BARS]), (f" The {MAX_BARS} largest of {len(rows):,} {what} are "
                                   "shown; the JSON holds them all.")


def plain(text: str) -> str:
    """Text for a plot label or hover, shown as it is: plotly reads its labels as a
    little HTML (<b>, <i>, <br>, <a href>, entities), so a value "<i>" vanished,
    "a&amp;b" showed as "a&b" and "<a href=…>" became a link out of the page."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def axis_labels(labels: Sequence[str], width: int = LABEL_CHARS) -> list[str]:
    """Category labels for a plot's axis, in the order given: each at most `width`
    characters, a longer one kept as its start and end around "…" (values often differ
    at the end: ids, numbered names), and all distinct — plotly draws the bars of two
    equal categories on one another, so a repeated label (two values that shorten alike,
    or a value shown like NULL) gets " (2)", " (3)"… The full text goes in the hover;
    both are `plain`."""
    out: list[str] = []
    seen: set[str] = set()
    for label in labels:
        if len(label) > width:
            head = (width - 1) // 2
            label = f"{label[:head]}…{label[len(label) - (width - 1 - head):]}"
        shown, k = label, 1
        while shown in seen:
            k += 1
            shown = f"{label} ({k})"
        seen.add(shown)
        out.append(plain(shown))
    return out


#: The keys each command's JSON document has (the ones its section reads first), to
#: tell which command wrote a document given to the wrong option
_DOCUMENT_KEYS = {"impact": ("overall", "top_clusters", "slices"),
                  "estimate": ("delta_precision", "sample", "verdict"),
                  "evaluate": ("runs",),
                  "simulate": ("metrics", "budgets", "replications")}


def _need(doc: Mapping[str, Any], keys: Sequence[str], what: str, source: str) -> None:
    missing = [k for k in keys if k not in doc]
    if missing:
        hint = (f"Give the output of `abcde {what} … --format json` (run it again if this "
                "file was cut short or edited).")
        # e.g. an estimate's JSON given to --impact: name the option it belongs to
        other = next((cmd for cmd, have in _DOCUMENT_KEYS.items()
                      if cmd != what and all(k in doc for k in have)), None)
        if other is not None:
            hint = (f"It is the JSON output of `abcde {other}`: give it to --{other} "
                    f"(and to --{what} the output of `abcde {what} … --format json`).")
        raise InputError(f"{source} is not the JSON output of `abcde {what}`: it has no "
                         f"{', '.join(missing)}", hint=hint)


# --------------------------------------------------------------------------- #
# Impact
# --------------------------------------------------------------------------- #

def impact_section(doc: Mapping[str, Any], source: str = "impact") -> Section:
    """The impact run: overall numbers, the JaccardDistance split, the most affected
    clusters, per-slice contributions and the cluster-size distributions.

    Parameters
    ----------
    doc : mapping
        The JSON document of ``abcde impact --format json``
        (:meth:`abcde.impact.run.ImpactResult.to_dict`).
    source : str
        Where it came from (shown, and named in errors).

    Returns
    -------
    Section

    References
    ----------
    ABCDE §4, §4.1 (contributions); Jaccard decomposition §4–5; docs/method.md §3.
    """
    go = _plotly()
    _need(doc, ("overall", "top_clusters", "slices"), "impact", source)
    o = doc["overall"]
    s = Section("impact", "Impact: how Exp differs from Base",
                "Exact impact metrics over the items in both clusterings (ABCDE §4).",
                source)
    s.tables.append(Table("Overall", ["metric", "value"], [
        [k, amount(o.get(k)) if k in ("items", "weight", "affected_items",
                                      "affected_weight") else num(o.get(k))] for k in (
            "items", "weight", "affected_items", "affected_weight", "split_rate",
            "merge_rate", "jaccard_distance", "split_distance", "merge_distance",
            "jaccard_index", "affected_jaccard_index", "unaffected_jaccard_index")
        if k in o]))

    fig = _figure(go)
    for key, colour in (("split_distance", SPLIT), ("merge_distance", MERGE)):
        fig.add_bar(name=IMPACT_LABELS[key], x=[o[key]], y=["JaccardDistance"],
                    orientation="h", marker_color=colour,
                    text=[num(o[key])], textposition="inside")
    fig.add_scatter(name=f"JaccardDistance {num(o['jaccard_distance'])}",
                    x=[o["jaccard_distance"]], y=["JaccardDistance"], mode="markers",
                    marker={"symbol": "line-ns", "size": 30, "color": EXACT,
                            "line": {"width": 3, "color": EXACT}})
    _layout(fig, height=200, barmode="stack", xaxis_title="share of the weighted items")
    s.figures.append(Figure("impact-split-merge",
                            "JaccardDistance = SplitDistance + MergeDistance",
                            "The overall JaccardDistance (the tick) and its split and merge "
                            "parts (Jaccard decomposition §4).", _json(fig), wide=True))

    top, more = _shown(doc["top_clusters"], "clusters")
    if top:
        full = [f"{r.get('side', '')} {r['cluster_id']}" for r in top]
        labels = axis_labels(full)
        fig = _figure(go)
        for side, colour in (("base", BASE), ("exp", EXP)):
            rows = [(lab, name, r) for lab, name, r in zip(labels, full, top, strict=True)
                    if r.get("side") == side]
            if not rows:
                continue
            fig.add_bar(name=side.capitalize(), orientation="h",
                        y=[lab for lab, _, _ in rows],
                        x=[r["contribution"] for _, _, r in rows], marker_color=colour,
                        customdata=[[r["items"], r["jaccard_distance"], r["split_distance"],
                                     r["merge_distance"], plain(name)] for _, name, r in rows],
                        hovertemplate="%{customdata[4]}: contribution %{x:.4g}<br>items "
                        "%{customdata[0]}"
                        "<br>JaccardDistance %{customdata[1]:.4g} (split %{customdata[2]:.4g}"
                        ", merge %{customdata[3]:.4g})<extra></extra>")
        _layout(fig, height=120 + 24 * len(top), xaxis_title="contribution to "
                "JaccardDistance(T)")
        fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], type="category")
        s.figures.append(Figure("impact-top-clusters", "Most affected clusters",
                                "Base and Exp clusters ranked by their contribution "
                                "weight(C)·JaccardDistance(C)/W (ABCDE §4.1)." + more,
                                _json(fig)))

    for k, entry in enumerate(doc["slices"]):
        cols = entry["slice_by"]
        rows, more = _shown(sorted(entry["rows"], key=lambda r: -r["contribution"]),
                            "slices")
        full = [" · ".join(key_label(r[c]) for c in cols) for r in rows]
        labels = axis_labels(full)
        fig = _figure(go)
        fig.add_bar(orientation="h", y=labels, x=[r["contribution"] for r in rows],
                    marker_color=EXP, name="contribution",
                    customdata=[[r["items"], r["jaccard_distance"], plain(name)]
                                for r, name in zip(rows, full, strict=True)],
                    hovertemplate="%{customdata[2]}: contribution %{x:.4g}<br>items "
                    "%{customdata[0]}"
                    "<br>JaccardDistance %{customdata[1]:.4g}<extra></extra>")
        _layout(fig, height=120 + 24 * len(rows), xaxis_title="contribution to "
                "JaccardDistance(T)", showlegend=False)
        fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], type="category")
        s.figures.append(Figure(f"impact-slices-{k}", f"Contribution by {', '.join(cols)}",
                                "Slices sorted by contribution to the overall "
                                "JaccardDistance (ABCDE §4.1.1)." + more, _json(fig)))

    sizes = doc.get("size_distribution") or {}
    if sizes:
        fig = _figure(go)
        for side, colour in (("base", BASE), ("exp", EXP)):
            rows = sizes.get(side) or []
            fig.add_scatter(name=side.capitalize(), x=[r["size"] for r in rows],
                            y=[r["clusters"] for r in rows], mode="markers",
                            marker={"color": colour, "size": 7, "opacity": 0.8},
                            hovertemplate="size %{x}: %{y} clusters<extra>" + side
                            + "</extra>")
        _layout(fig, xaxis_title="cluster size (items)", yaxis_title="clusters")
        _log_axes(fig)
        s.figures.append(Figure("impact-sizes", "Cluster sizes, Base vs Exp",
                                "How many clusters have each size (log–log), over the items "
                                "in both clusterings.", _json(fig)))
    else:
        s.notes.append("No cluster-size distribution in this impact output (made by an "
                       "older abcde): rerun `abcde impact … --format json`.")
    return s


# --------------------------------------------------------------------------- #
# A judged sample
# --------------------------------------------------------------------------- #

def _forest(go: Any, rows: Sequence[tuple[str, Mapping[str, Any] | None, float | None]],
            *, zero: bool = False) -> Any:
    """A forest plot: per row an estimate with its interval and, where given, the exact
    impact metric it decomposes (a black diamond)."""
    fig = _figure(go)
    full = [r[0] for r in rows]
    labels = axis_labels(full)
    known = [(lab, name, e) for lab, name, (_, e, _) in zip(labels, full, rows, strict=True)
             if e is not None and e.get("estimate") is not None]
    xs: list[float | None] = []
    ys: list[str | None] = []
    for lab, _, e in known:
        xs += [e["ci_low"], e["ci_high"], None]
        ys += [lab, lab, None]
    # end ticks as markers: the axis's autorange then leaves room around them
    fig.add_scatter(name="interval", x=xs, y=ys, mode="lines+markers",
                    line={"color": BASE, "width": 3}, hoverinfo="skip",
                    marker={"symbol": "line-ns", "size": 12, "color": BASE,
                            "line": {"width": 2, "color": BASE}})
    fig.add_scatter(name="estimate", x=[e["estimate"] for _, _, e in known],
                    y=[lab for lab, _, _ in known], mode="markers",
                    marker={"color": BASE, "size": 9},
                    customdata=[[e["ci_low"], e["ci_high"], e["se"], plain(name)]
                                for _, name, e in known],
                    hovertemplate="%{customdata[3]}: %{x:.4g} [%{customdata[0]:.4g}, "
                    "%{customdata[1]:.4g}], SE %{customdata[2]:.3g}<extra></extra>")
    # where the unknown verdicts could take the estimate (docs/method.md §8.11): a thin
    # dotted line from the all-equivalent to the all-not-equivalent estimate
    ranged = [(lab, name, e["unknown_range"]) for lab, name, e in known
              if e.get("unknown_range")]
    if ranged:
        rx: list[float | None] = []
        ry: list[str | None] = []
        for lab, _, r in ranged:
            rx += [r["all_equivalent"], r["all_not_equivalent"], None]
            ry += [lab, lab, None]
        fig.add_scatter(name=UNKNOWN_RANGE, x=rx, y=ry, mode="lines+markers",
                        line={"color": UNKNOWN, "width": 2, "dash": "dot"},
                        marker={"symbol": "line-ns", "size": 10, "color": UNKNOWN,
                                "line": {"width": 2, "color": UNKNOWN}},
                        customdata=[[r["unknown_pairs"], plain(name)] for _, name, r in ranged
                                    for _ in range(3)],
                        hovertemplate="%{customdata[1]} if its %{customdata[0]} unknown pairs "
                        "were all equivalent / all not equivalent: %{x:.4g}<extra></extra>")
    exact = [(lab, name, v) for lab, name, (_, _, v) in zip(labels, full, rows, strict=True)
             if v is not None]
    if exact:
        fig.add_scatter(name="exact impact metric", x=[v for _, _, v in exact],
                        y=[lab for lab, _, _ in exact], mode="markers",
                        marker={"color": EXACT, "symbol": "diamond", "size": 10},
                        customdata=[[plain(name)] for _, name, _ in exact],
                        hovertemplate="%{customdata[0]}: %{x:.4g} (exact)<extra></extra>")
    _layout(fig, height=110 + 30 * len(rows))
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], type="category")
    if zero:
        fig.add_vline(x=0, line={"color": "#888", "dash": "dot"})
    return fig


def _heaviest(slices: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], str]:
    """At most MAX_BARS slices of an estimate, in the JSON's order, and a sentence saying
    so when some are left out: a sample sliced by a column of hundreds of values drew
    forest plots thousands of pixels tall. The heaviest slices (item weight) are kept,
    those that weigh most in the overall ΔPrecision: a weight is known exactly, while a
    ranking by the estimated contribution would favour the noisiest estimates."""
    if len(slices) <= MAX_BARS:
        return list(slices), ""
    # ties (and a slice without a weight, from an older abcde: last) keep the JSON's order
    order = sorted(range(len(slices)), key=lambda k: -(slices[k].get("weight") or 0.0))
    keep = sorted(order[:MAX_BARS])
    return [slices[k] for k in keep], (f" The {MAX_BARS} heaviest of {len(slices):,} slices "
                                       "(by item weight) are shown; the JSON holds them "
                                       "all.")


def _range_caption(entries: Sequence[Mapping[str, Any] | None]) -> str:
    """The caption's sentence on the dotted ranges, when a plotted estimate has one."""
    if not any(e and e.get("estimate") is not None and e.get("unknown_range")
               for e in entries):
        return ""
    return (" Dotted, grey: the estimate if the unknown pairs were all equivalent / all not "
            "equivalent; the interval assumes they are missing at random (docs/method.md "
            "§8.11).")


def estimate_section(doc: Mapping[str, Any], source: str = "sample") -> Section:
    """A judged sample: every quality metric with its interval beside the exact impact
    metric it decomposes, ΔPrecision per slice with its contribution, verdict counts per
    pair class and the judges' agreement.

    Parameters
    ----------
    doc : mapping
        The JSON document of ``abcde estimate --format json``
        (:func:`abcde.quality.estimate.estimate`).
    source : str
        Where it came from.

    Returns
    -------
    Section

    References
    ----------
    ABCDE §5, §5.7–5.8; Jaccard decomposition §4.3–8; docs/method.md §8, §12.4.
    """
    go = _plotly()
    _need(doc, ("delta_precision", "sample", "verdict"), "estimate", source)
    impact = doc.get("impact") or {}
    s = Section("estimate", "Judged sample: is Exp better?", doc["verdict"], source)
    s.notes += [f"warning: {w}" for w in doc.get("warnings") or []]

    dp = doc["delta_precision"]
    fig = _forest(go, [("ΔPrecision", dp, None)], zero=True)
    s.figures.append(Figure("estimate-delta-precision", "ΔPrecision",
                            f"Estimate with its {num(100 * dp['confidence'], 3)}% interval "
                            f"({dp.get('interval')}); above 0: Exp is more precise "
                            "(ABCDE §5.3)." + _range_caption([dp]), _json(fig)))

    groups: dict[str, list[str]] = {}
    for key in METRIC_KEYS:
        target = METRICS[key].decomposes
        if target and key in doc:
            groups.setdefault(target, []).append(key)
    for target, keys in groups.items():
        if all((doc[k] or {}).get("estimate") is None for k in keys):
            continue
        label = IMPACT_LABELS.get(target, target)
        rows = [(label, None, impact.get(target))]
        rows += [(METRICS[k].label, doc[k], None) for k in keys]
        fig = _forest(go, rows)
        fig.update_xaxes(rangemode="tozero")
        s.figures.append(Figure(f"estimate-{target}", f"{label} decomposed",
                                f"The exact {label} (diamond) and the estimated good and bad "
                                "parts that add up to it, with intervals."
                                + _range_caption([doc[k] for k in keys]), _json(fig)))
    unavailable = doc.get("unavailable") or {}
    by_reason: dict[str, list[str]] = {}
    for k, why in unavailable.items():
        by_reason.setdefault(str(why), []).append(METRICS[k].label if k in METRICS else k)
    for why, labels in by_reason.items():
        s.notes.append(f"not available from this sample: {', '.join(labels)} — {why}")

    slices, more = _heaviest(doc.get("slices") or [])
    if slices:
        labels = [" · ".join(key_label(v) for v in e["slice"].values()) for e in slices]
        for key, title, caption in (
                ("delta_precision", "ΔPrecision per slice",
                 "ΔPrecision within each slice, with intervals."),
                ("contribution", "Contribution of each slice to ΔPrecision",
                 "Each slice's share of the overall ΔPrecision, with intervals "
                 "(docs/method.md §8.8).")):
            fig = _forest(go, [(lab, e[key], None) for lab, e in
                               zip(labels, slices, strict=True)], zero=True)
            s.figures.append(Figure(f"estimate-slices-{key}", title, caption + more,
                                    _json(fig)))

    classes = doc["sample"].get("classes") or {}
    if classes and all("equivalent_pairs" in t for t in classes.values()):
        names = list(classes)
        fig = _figure(go)
        for key, name, colour in (("equivalent_pairs", "equivalent", GOOD),
                                  ("not_equivalent_pairs", "not equivalent", BAD),
                                  ("unknown_pairs", "unknown", UNKNOWN)):
            fig.add_bar(name=name, x=[plain(c) for c in names],
                        y=[classes[c][key] for c in names],
                        marker_color=colour)
        _layout(fig, barmode="stack", yaxis_title="pairs")
        s.figures.append(Figure("estimate-verdicts", "Verdicts per pair class",
                                "Unique pairs of each class by verdict (self pairs are "
                                "equivalent by definition).", _json(fig)))
    judging = doc.get("judging") or {}
    agreement = judging.get("agreement") or {}
    if len(judging.get("judges") or {}) > 1:
        _agreement(go, s, judging, agreement)
    return s


def _agreement(go: Any, s: Section, judging: Mapping[str, Any],
               agreement: Mapping[str, Any]) -> None:
    judges = judging["judges"]
    fig = _figure(go)
    fig.add_bar(x=[plain(j) for j in judges], y=list(judges.values()), marker_color=BASE,
                name="verdicts")
    _layout(fig, height=260, yaxis_title="pairs judged", showlegend=False)
    s.figures.append(Figure("estimate-judges", "Verdicts per judge",
                            f"{judging['pairs']:,} pairs judged; "
                            f"{judging['contested_pairs']:,} contested, resolved by "
                            f"majority. {judging.get('note', '')}", _json(fig)))
    pairwise = agreement.get("pairwise") or []
    if pairwise:
        names = sorted({j for p in pairwise for j in p["judges"]})
        z: list[list[float | None]] = [[None] * len(names) for _ in names]
        for p in pairwise:
            a, b = (names.index(j) for j in p["judges"])
            z[a][b] = z[b][a] = p["cohen_kappa"]
        shown = [plain(j) for j in names]
        fig = _figure(go, go.Heatmap(x=shown, y=shown, z=z, zmin=-1, zmax=1,
                                   colorscale="RdBu", texttemplate="%{z:.2f}",
                                   hovertemplate="%{y} vs %{x}: Cohen's kappa %{z:.3f}"
                                   "<extra></extra>"))
        _layout(fig, height=120 + 40 * len(names))
        kind = {"cohen": "Cohen's", "fleiss": "Fleiss'"}.get(agreement.get("kappa_kind")
                                                            or "", "")
        raw = agreement.get("raw_agreement")
        s.figures.append(Figure(
            "estimate-agreement", "Agreement between judges",
            f"On {agreement.get('pairs', 0):,} pairs with two or more judges: raw "
            f"agreement {num(None if raw is None else 100 * raw, 3)}%, {kind} kappa "
            f"{num(agreement.get('kappa'), 3)}. Cells: Cohen's kappa of each two judges.",
            _json(fig)))


# --------------------------------------------------------------------------- #
# Evaluation
# --------------------------------------------------------------------------- #

RUN_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy", "jaccard_index")


def evaluate_section(doc: Mapping[str, Any], source: str = "evaluate") -> Section:
    """An evaluation: the runs' metrics side by side, the worst clusters, the UIR matrix
    and the F_α sweep.

    Parameters
    ----------
    doc : mapping
        The JSON document of ``abcde evaluate --format json``.
    source : str
        Where it came from.

    Returns
    -------
    Section

    References
    ----------
    ABCDE §3 (pointwise metrics); Amigó et al. 2011 (UIR); docs/method.md §9–10.
    """
    go = _plotly()
    _need(doc, ("runs",), "evaluate", source)
    runs = doc["runs"]
    s = Section("evaluate", "Evaluation against the ground truth",
                f"{len(runs)} run{'s' if len(runs) != 1 else ''} evaluated on the items of "
                "the truth.", source)
    colours = [BASE, EXP, GOOD, BAD, SPLIT, MERGE, "#9d755d", "#ff9da6"]
    fig = _figure(go)
    for k, run in enumerate(runs):
        keys = [m for m in RUN_METRICS if m in run["overall"]]
        fig.add_bar(name=plain(run["name"]), x=keys, y=[run["overall"][m] for m in keys],
                    marker_color=colours[k % len(colours)])
    _layout(fig, barmode="group", yaxis_title="weighted mean over items")
    s.figures.append(Figure("evaluate-runs", "The runs side by side",
                            "Pointwise metrics of each run, weighted over the truth's items "
                            "(ABCDE §3).", _json(fig), wide=True))
    classic = [r for r in runs if r.get("classic")]
    if classic:
        keys = list(classic[0]["classic"])
        fig = _figure(go)
        for k, run in enumerate(classic):
            fig.add_bar(name=plain(run["name"]), x=keys,
                        y=[run["classic"].get(m) for m in keys],
                        marker_color=colours[k % len(colours)])
        _layout(fig, barmode="group")
        s.figures.append(Figure("evaluate-classic", "Classic metrics",
                                "Unweighted pairwise, purity and information-theoretic "
                                "metrics.", _json(fig), wide=True))

    for run in runs:
        for key, what in (("worst_truth_clusters", "truth"), ("worst_actual_clusters",
                                                              "actual")):
            rows, more = _shown(run.get(key) or [], "clusters")
            if not rows:
                continue
            full = [str(r["cluster_id"]) for r in rows]
            labels = axis_labels(full)
            fig = _figure(go)
            fig.add_bar(orientation="h", y=labels, x=[r["loss"] for r in rows],
                        marker_color=BAD, name="loss",
                        customdata=[[r["items"], r["precision"], r["recall"], plain(name)]
                                    for r, name in zip(rows, full, strict=True)],
                        hovertemplate="cluster %{customdata[3]}: loss %{x:.4g}<br>items "
                        "%{customdata[0]}"
                        "<br>precision %{customdata[1]:.3f}, recall %{customdata[2]:.3f}"
                        "<extra></extra>")
            _layout(fig, height=120 + 22 * len(rows), showlegend=False,
                    xaxis_title="loss (share of the weighted items)")
            fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], type="category")
            s.figures.append(Figure(f"evaluate-{run['name']}-{key}",
                                    f"{run['name']}: worst {what} clusters",
                                    f"The {what} clusters that cost {run['name']} most."
                                    + more, _json(fig)))

    uir = doc.get("uir") or {}
    matrix = uir.get("matrix") or {}
    if matrix:
        names = list(matrix)
        z = [[matrix[row].get(col) for col in names] for row in names]
        shown = [plain(n) for n in names]
        fig = _figure(go, go.Heatmap(x=shown, y=shown, z=z, zmin=-1, zmax=1,
                                   colorscale="RdBu", texttemplate="%{z:.3f}",
                                   hovertemplate="UIR(%{y} over %{x}) = %{z:.4f}"
                                   "<extra></extra>"))
        _layout(fig, height=140 + 50 * len(names), xaxis_title="reference system",
                yaxis_title="system")
        fig.update_yaxes(autorange="reversed")
        s.figures.append(Figure("evaluate-uir", "UIR matrix",
                                f"Unanimous Improvement Ratio of the row over the column on "
                                f"{uir.get('n_cases', 0):,} test cases ({uir.get('cases')}), "
                                f"metrics {', '.join(uir.get('metrics') or [])}; |UIR| ≥ "
                                f"{uir.get('threshold')} is a robust improvement "
                                "(Amigó et al. 2011).", _json(fig)))
    sweep = uir.get("f_alpha") or {}
    if sweep:
        fig = _figure(go)
        for k, (name, curve) in enumerate(sweep.items()):
            fig.add_scatter(name=plain(name), x=[float(a) for a in curve],
                            y=list(curve.values()), mode="lines+markers",
                            marker_color=colours[k % len(colours)])
        m = uir.get("f_alpha_metrics") or ["", ""]
        _layout(fig, xaxis_title=f"α (weight of {m[0]})", yaxis_title="F_α")
        s.figures.append(Figure("evaluate-f-alpha", "F_α sweep",
                                f"F_α of {' and '.join(m)} as α goes from 0 to 1: a system "
                                "above the others at every α is better for every weighting."
                                + (f" {uir['f_alpha_note']}" if uir.get("f_alpha_note")
                                   else ""), _json(fig)))
    return s


# --------------------------------------------------------------------------- #
# Simulation
# --------------------------------------------------------------------------- #

def simulate_section(doc: Mapping[str, Any], source: str = "simulate") -> Section:
    """A simulation: each metric's interval half-width against the budget, beside the
    half-width an honest interval needs (z·sd of the estimates across rounds); and, when
    the truth fixes the exact values, the coverage of the intervals and the bias in
    standard errors per budget (the numbers `abcde simulate` prints).

    Parameters
    ----------
    doc : mapping
        The JSON document of ``abcde simulate --format json``.
    source : str
        Where it came from.

    Returns
    -------
    Section

    References
    ----------
    ABCDE §5.8, App. A; docs/method.md §8.9.
    """
    from abcde.quality.simulation import FLAG_COVERAGE

    go = _plotly()
    _need(doc, ("metrics", "budgets", "replications"), "simulate", source)
    s = Section("simulate", "Sizing a round: interval width against the budget",
                f"{doc['replications']} simulated rounds per budget on the "
                f"{doc.get('population')} population, judged by the ground truth.", source)
    coverage, bias = _figure(go), _figure(go)
    for key, per_budget in doc["metrics"].items():
        label = METRICS[key].label if key in METRICS else key
        measured = [b for b in per_budget if per_budget[b].get("coverage") is not None]
        if measured:
            coverage.add_scatter(name=label, x=[int(b) for b in measured],
                                 y=[per_budget[b]["coverage"] for b in measured],
                                 mode="lines+markers")
        scored = [b for b in per_budget if per_budget[b].get("bias") is not None
                  and per_budget[b].get("bias_se")]
        if scored:
            bias.add_scatter(name=label, x=[int(b) for b in scored],
                             y=[per_budget[b]["bias"] / per_budget[b]["bias_se"]
                                for b in scored], mode="markers")
        budgets = [b for b in per_budget if per_budget[b].get("half_width") is not None]
        if not budgets:
            continue
        fig = _figure(go)
        fig.add_scatter(name="mean half-width of the intervals", x=[int(b) for b in budgets],
                        y=[per_budget[b]["half_width"] for b in budgets],
                        mode="lines+markers", marker_color=BASE)
        fig.add_scatter(name="half-width needed (z·sd of the estimates)",
                        x=[int(b) for b in budgets],
                        y=[per_budget[b]["spread_half_width"] for b in budgets],
                        mode="lines+markers", marker_color=BAD, line={"dash": "dash"})
        _layout(fig, height=280, xaxis_title="budget (pairs)", yaxis_title="half-width")
        _log_axes(fig)
        s.figures.append(Figure(f"simulate-{key}", label,
                                "Where the blue line lies well below the red one the "
                                "intervals cover less than they say.", _json(fig)))
    if coverage.data:
        flag_below = doc.get("flag_coverage", FLAG_COVERAGE)  # by the intervals' level
        coverage.add_hline(y=flag_below, line_dash="dash", line_color=BAD,
                           annotation_text=f"flagged below {flag_below:.0%}")
        _layout(coverage, height=360, xaxis_title="budget (pairs)",
                yaxis_title="share of intervals holding the exact value")
        _log_axes(coverage, y=False)
        s.figures.insert(0, Figure("simulate-coverage", "Coverage of the intervals",
                                   "Per metric and budget, the share of the simulated "
                                   "rounds whose interval held the exact value.",
                                   _json(coverage)))
    if bias.data:
        for y in (-3, 3):
            bias.add_hline(y=y, line_dash="dot", line_color=BAD)
        _layout(bias, height=360, xaxis_title="budget (pairs)",
                yaxis_title="(mean estimate − exact) / SE")
        _log_axes(bias, y=False)
        s.figures.insert(1 if coverage.data else 0,
                         Figure("simulate-bias", "Bias in standard errors",
                                "Mean estimate − exact value over its standard error "
                                "(sd/√rounds); beyond ±3 the bias is real.", _json(bias)))
    if not coverage.data:
        exact = doc.get("exact") or {}
        s.notes.append("No coverage or bias: " + (exact.get("reason") or "the truth does "
                       "not fix the exact values") + ". The half-width lines still show "
                       "whether the intervals are as wide as the estimates' spread.")
    return s
