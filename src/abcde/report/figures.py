"""The report's sections and plots, built from the JSON documents of the commands
(docs/method.md §13.1).

Every number a plot shows is a number of the command's JSON output, taken as it is;
each plot is a plotly figure kept as its JSON (``data`` and ``layout``), so the page and
the tests read the same numbers. What the plots add is how to read them honestly:

- a value is shown in its own unit: rates, shares and their differences in percent,
  counts as counts, kappa and UIR as plain numbers;
- an estimate flagged not conclusive is drawn grey and open, labelled so, its reason in
  the hover — never like a trustworthy one;
- an axis runs from 0 — for scores near 1 (precision, coverage) from the values to 1,
  as their distances to 1 are what differ — unless that hides the differences (their
  spread under a tenth of the axis): it is then zoomed around them, never narrower than a
  tenth of their distance to 0 (or 1), so it magnifies a difference at most ten times.
  An axis that does not start at 0 says so on the plot and in the caption, its values
  are labelled, and bars become dots (a bar cut short by the axis would lie about its
  length). Magnitudes (contributions, losses, half-widths) are never zoomed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from abcde.errors import InputError
from abcde.quality.metrics import METRIC_KEYS, METRICS
from abcde.text import fmt, key_label

# Base grey-blue, Exp orange, good green, bad red, exact black, not conclusive grey
BASE, EXP = "#4c78a8", "#f58518"
GOOD, BAD, EXACT, UNKNOWN, FLAGGED = "#54a24b", "#e45756", "#222222", "#bab0ac", "#8c8c8c"
SPLIT, MERGE = "#72b7b2", "#b279a2"
COLOURS = [BASE, EXP, GOOD, BAD, SPLIT, MERGE, "#9d755d", "#ff9da6"]
PERCENT, PLAIN = "percent", "plain"
#: axis formats (d3): percent with as many decimals as the ticks need, never "800μ"
FORMATS = {PERCENT: ("~%", ".3~%"), PLAIN: ("~r", ".4~r")}
ZOOM = 0.1  # a difference shown on an axis from 0 must span this share of it
LABEL_CHARS = 40  # the longest category label (a URL would squash the bars)
MAX_BARS = 40  # the most bars a ranking draws (the largest first)
UNKNOWN_RANGE = "if unknowns all equiv / not"  # docs/method.md §8.11
ZOOMED = (" The axis is zoomed around the values (it does not start at 0): they differ by "
          "less than a tenth of their scale.")
NOT_CONCLUSIVE = "not conclusive"
_SOURCE = re.compile(r"^[^()]* \((.*)\)$")  # "base (path)": the path


@dataclass
class Figure:

    id: str
    title: str
    caption: str
    figure: dict[str, Any]
    wide: bool = False


@dataclass
class Table:

    title: str
    headers: list[str]
    rows: list[list[str]]


@dataclass
class Section:
    """A part of the report; ``inputs``: role → what it was computed from."""

    id: str
    title: str
    intro: str
    source: str
    inputs: dict[str, str] = field(default_factory=dict)
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def recorded(self) -> list[tuple[str, str]]:
        """The inputs as the page names them; inputs not recorded are said so."""
        shown = [(k, v if k in ("weights", "pairs") else _SOURCE.sub(r"\1", v))
                 for k, v in self.inputs.items() if v]
        if all(k == "pairs" for k, _ in shown):
            shown.insert(0, ("inputs", "not recorded in this document"))
        return shown


def require_plotly() -> None:
    _plotly()


def _plotly() -> Any:
    try:
        import plotly.graph_objects as go
    except ImportError:
        raise InputError("abcde report needs plotly, which is not installed",
                         hint="pip install 'abcde-eval[report]'") from None
    return go


def _figure(go: Any, *data: Any) -> Any:
    """A figure without a template (plotly copies a template into each figure, half a
    report's time); `_json` adds it as JSON."""
    return go.Figure(data=list(data), layout={"template": {}})


@cache
def _template_json() -> str:
    import plotly.graph_objects as go
    import plotly.io as pio

    figure = json.loads(pio.to_json(go.Figure(layout={"template": "plotly_white"})))
    return json.dumps(figure["layout"]["template"])


def _json(fig: Any) -> dict[str, Any]:
    import plotly.io as pio

    out = json.loads(pio.to_json(fig, validate=True, pretty=False))
    out.setdefault("layout", {})["template"] = json.loads(_template_json())
    return out


def _layout(fig: Any, *, height: int = 360, **kwargs: Any) -> None:
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 36, "b": 10},
                      font={"family": "system-ui, sans-serif", "size": 12},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
                      modebar={"orientation": "v"}, **kwargs)
    # counts and plain numbers in full ("800μ" is plotly's default for 0.0008)
    fig.update_yaxes(automargin=True, tickformat=",~r")
    fig.update_xaxes(automargin=True, tickformat=",~r")


def _log_axes(fig: Any, x: bool = True, y: bool = True) -> None:
    """Logarithmic axes whose every tick reads as its value (plotly labels 40 "4"): 1, 2,
    5, 10… on an axis spanning a decade or more, or of one value."""
    for on, axis, update in ((x, "x", fig.update_xaxes), (y, "y", fig.update_yaxes)):
        values = [v for t in fig.data for v in (getattr(t, axis) or ())
                  if isinstance(v, int | float) and v > 0]
        wide = bool(values) and (max(values) >= 10 * min(values) or len(set(values)) == 1)
        if on:
            update(type="log", tickformat="~g", **({"dtick": "D2"} if wide else {}))


def value_range(values: Sequence[float], anchors: Sequence[float] = (0.0,),
                zoom: bool = True) -> tuple[list[float], bool]:
    """The range of a value axis, and whether it is zoomed (module docstring).

    >>> value_range([0.963, 0.978], (0.0, 1.0))[1], value_range([0.2, 0.9])
    (False, ([0.0, 0.972], False))
    >>> value_range([0.50, 0.51])[1], value_range([0.50, 0.51], zoom=False)[1]
    (True, False)
    """
    vals = [v for v in values if v is not None and math.isfinite(v)] or [0.0]
    spread = max(vals) - min(vals)
    for anchor in anchors:  # 0 first: an axis from 1 only where one from 0 hides them
        lo, hi = min(*vals, anchor), max(*vals, anchor)
        if hi == lo:  # every value at the anchor
            return ([anchor - 1.0, anchor] if anchor > 0 else [anchor, anchor + 1.0]), False
        if not zoom or spread >= ZOOM * (hi - lo) or len(set(vals)) == 1:
            pad = 0.08 * (hi - lo)  # room for the markers beyond the values
            edge = 0.02 * (hi - lo) if anchor else 0.0  # and for one at 1 (bars start at 0)
            return [lo - pad if lo < anchor else lo - edge,
                    hi + pad if hi > anchor else hi + edge], False
    far = min(max(abs(v - a) for v in vals) for a in anchors)  # to the nearer anchor
    width = max(spread / 0.6, ZOOM * far)
    start = (min(vals) + max(vals) - width) / 2
    if min(anchors) <= min(vals) and max(vals) <= max(anchors):  # within them (markers
        # aside)
        start = min(max(start, min(anchors) - 0.05 * width),
                    max(anchors) + 0.05 * width - width)
    return [start, start + width], True


def _axis(fig: Any, axis: str, values: Sequence[float], unit: str = PERCENT, *,
          title: str = "", scores: bool = False, zoom: bool = True) -> str:
    """Format one value axis by `value_range` (`scores`: anchored at 0 or 1); the
    caption's sentence when it does not start at 0, which the plot also says."""
    rng, zoomed = value_range(values, (0.0, 1.0) if scores else (0.0,), zoom)
    tick, hover = FORMATS[unit]
    getattr(fig, f"update_{axis}axes")(range=rng, tickformat=tick, hoverformat=hover,
                                       title_text=title, zeroline=True)
    if rng[0] <= 0 <= rng[1]:
        return ""
    fig.add_annotation(text=("zoomed: " if zoomed else "") + f"the axis starts at "
                       f"{show(rng[0], unit)}, not 0", xref="paper", yref="paper", x=0, y=0,
                       xanchor="left", yanchor="bottom", showarrow=False,
                       font={"color": BAD}, bgcolor="rgba(255,255,255,0.85)")
    return ZOOMED if zoomed else (f" The axis runs to {show(1.0, unit)} and does not "
                                  "start at 0: what differs is the distance to it.")


def show(value: float | None, unit: str = PERCENT) -> str:
    """A value as a label says it, to 3 significant digits, more where those would round
    it to a bound it is not at.

    >>> show(0.963), show(0.99996), show(-2e-7), show(0.5, PLAIN)
    ('96.3%', '99.996%', '-2e-05%', '0.5')
    """
    if value is None:
        return "-"
    x, bound = (100 * value, 100) if unit == PERCENT else (value, 1)
    for digits in range(3, 7):
        text = f"{x:.{digits}g}"
        if float(text) == x or abs(float(text)) not in (0, bound):
            break
    return text + ("%" if unit == PERCENT else "")


def amount(value: Any) -> str:
    """A count or a weight as `abcde impact`'s tables write it."""
    if isinstance(value, float) and math.isfinite(value) and (value == 0 or abs(value) >= 1):
        return f"{value:,.2f}"
    return fmt(value)


def impact_label(key: str) -> str:
    """An impact metric's name as the paper writes it: split_rate → SplitRate."""
    return "".join(w.capitalize() for w in key.split("_"))


def plain(text: str) -> str:
    """Text for a plot label or hover as it is: plotly reads labels as a little HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def axis_labels(labels: Sequence[str], width: int = LABEL_CHARS) -> list[str]:
    """Category labels of at most `width` characters ("start…end"), made distinct (plotly
    draws equal categories on one another), `plain`."""
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


def _shown(rows: Sequence[Any], what: str, by: str | None = None) -> tuple[list[Any], str]:
    """The first MAX_BARS rows (with `by`: the MAX_BARS of most `by`, in their order), and
    a sentence saying so when some are left out."""
    if len(rows) <= MAX_BARS:
        return list(rows), ""
    order = sorted(range(len(rows)), key=lambda k: -(rows[k].get(by) or 0.0) if by else k)
    return [rows[k] for k in sorted(order[:MAX_BARS])], (
        f" The {MAX_BARS} {'heaviest' if by else 'largest'} of {len(rows):,} {what} are "
        "shown; the JSON holds them all.")


def _heatmap(go: Any, names: Sequence[str], z: Sequence[Sequence[float | None]],
             text: str, hover: str) -> Any:
    """A matrix of names by names on a diverging scale from −1 to 1."""
    shown = [plain(n) for n in names]
    return _figure(go, go.Heatmap(x=shown, y=shown, z=z, zmin=-1, zmax=1, colorscale="RdBu",
                                  texttemplate=text, hovertemplate=hover + "<extra></extra>"))


def _ranking(go: Any, s: Section, fig_id: str, title: str, caption: str,
             rows: Sequence[Mapping[str, Any]], names: Sequence[str], value: str,
             axis_title: str, hover: str, extra: Sequence[str], colour: str,
             split_by: str | None = None) -> None:
    """Horizontal bars from 0, in the rows' order (traces by `split_by`)."""
    labels = axis_labels(names)
    fig = _figure(go)
    groups = sorted({r.get(split_by) for r in rows}, key=str) if split_by else [None]
    for group in groups:
        part = [(lab, n, r) for lab, n, r in zip(labels, names, rows, strict=True)
                if split_by is None or r.get(split_by) == group]
        fig.add_bar(name=str(group).capitalize() if split_by else value, orientation="h",
                    y=[lab for lab, _, _ in part], x=[r[value] for _, _, r in part],
                    marker_color=(BASE, EXP)[groups.index(group) % 2] if split_by
                    else colour,
                    customdata=[[*(r[k] for k in extra), plain(n)] for _, n, r in part],
                    hovertemplate=hover + "<extra></extra>")
    _layout(fig, height=120 + 24 * len(rows), showlegend=split_by is not None)
    _axis(fig, "x", [r[value] for r in rows], title=axis_title, zoom=False)
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], type="category")
    s.figures.append(Figure(fig_id, title, caption, _json(fig)))


# --------------------------------------------------------------------------- #
# Impact
# --------------------------------------------------------------------------- #

def impact_section(doc: Mapping[str, Any], source: str = "impact") -> Section:
    """The impact run (ABCDE §4, §4.1; Jaccard decomposition §4–5)."""
    go = _plotly()
    o = doc["overall"]
    s = Section("impact", "Impact: how Exp differs from Base",
                "Exact impact metrics over the items in both clusterings (ABCDE §4).",
                source, dict(doc.get("inputs") or {}))
    counts = ("items", "weight", "affected_items", "affected_weight")
    s.tables.append(Table("Overall", ["metric", "value"], [
        [k, amount(o[k]) if k in counts else show(o[k])] for k in (
            *counts, "split_rate", "merge_rate", "jaccard_distance", "split_distance",
            "merge_distance", "jaccard_index", "affected_jaccard_index",
            "unaffected_jaccard_index") if k in o]))

    fig = _figure(go)
    for key, colour in (("split_distance", SPLIT), ("merge_distance", MERGE)):
        fig.add_bar(name=impact_label(key), x=[o[key]], y=["JaccardDistance"],
                    orientation="h", marker_color=colour, text=[show(o[key])],
                    textposition="inside")
    fig.add_scatter(name=f"JaccardDistance {show(o['jaccard_distance'])}",
                    x=[o["jaccard_distance"]], y=["JaccardDistance"], mode="markers",
                    marker={"symbol": "line-ns", "size": 30, "color": EXACT,
                            "line": {"width": 3, "color": EXACT}})
    _layout(fig, height=200, barmode="stack")
    _axis(fig, "x", [o["jaccard_distance"]], title="share of the weighted items", zoom=False)
    s.figures.append(Figure("impact-split-merge",
                            "JaccardDistance = SplitDistance + MergeDistance",
                            "The overall JaccardDistance (the tick) and its split and merge "
                            "parts (Jaccard decomposition §4).", _json(fig), wide=True))

    top, more = _shown(doc["top_clusters"], "clusters")
    if top:
        _ranking(go, s, "impact-top-clusters", "Most affected clusters",
                 "Base and Exp clusters ranked by their contribution "
                 "weight(C)·JaccardDistance(C)/W (ABCDE §4.1)." + more, top,
                 [f"{r.get('side', '')} {r['cluster_id']}" for r in top], "contribution",
                 "contribution to JaccardDistance(T)",
                 "%{customdata[4]}: contribution %{x}<br>items %{customdata[0]}<br>"
                 "JaccardDistance %{customdata[1]:.3~%} (split %{customdata[2]:.3~%}, "
                 "merge %{customdata[3]:.3~%})",
                 ("items", "jaccard_distance", "split_distance", "merge_distance"), EXP,
                 split_by="side")

    for k, entry in enumerate(doc["slices"]):
        cols = entry["slice_by"]
        rows, more = _shown(sorted(entry["rows"], key=lambda r: -r["contribution"]),
                            "slices")
        _ranking(go, s, f"impact-slices-{k}", f"Contribution by {', '.join(cols)}",
                 "Slices sorted by contribution to the overall JaccardDistance (ABCDE "
                 "§4.1.1)." + more, rows,
                 [" · ".join(key_label(r[c]) for c in cols) for r in rows], "contribution",
                 "contribution to JaccardDistance(T)",
                 "%{customdata[2]}: contribution %{x}<br>items %{customdata[0]}<br>"
                 "JaccardDistance %{customdata[1]:.3~%}", ("items", "jaccard_distance"), EXP)

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
    return s


# --------------------------------------------------------------------------- #
# A judged sample
# --------------------------------------------------------------------------- #

def _segments(rows: Sequence[tuple[str, float, float]]) -> dict[str, list[Any]]:
    """x and y of one line per row, from its first to its second value."""
    return {"x": [v for _, a, b in rows for v in (a, b, None)],
            "y": [v for lab, _, _ in rows for v in (lab, lab, None)]}


def _forest(go: Any, rows: Sequence[tuple[str, Mapping[str, Any] | None, float | None]],
            *, scores: bool = True) -> tuple[Any, str]:
    """A forest plot: per row an estimate and its interval (grey, open when not
    conclusive), its unknowns' range (docs/method.md §8.11), and where given the exact
    metric (a diamond); and its caption's marks."""
    fig = _figure(go)
    full = [r[0] for r in rows]
    labels = axis_labels(full)
    known = [(lab, name, e) for lab, name, (_, e, _) in zip(labels, full, rows, strict=True)
             if e is not None and e.get("estimate") is not None]
    ends = {"symbol": "line-ns", "size": 12, "line": {"width": 2}}  # room at the ends
    values: list[float] = []
    for flagged in (False, True):
        part = [k for k in known if bool(k[2].get("not_conclusive")) == flagged]
        colour, suffix = (FLAGGED, f" ({NOT_CONCLUSIVE})") if flagged else (BASE, "")
        if not part:
            continue
        fig.add_scatter(name="interval" + suffix, mode="lines+markers", hoverinfo="skip",
                        line={"color": colour, "width": 3, "dash": "dot" if flagged else
                              "solid"}, marker={**ends, "color": colour,
                                                "line": {"width": 2, "color": colour}},
                        **_segments([(lab, e["ci_low"], e["ci_high"]) for lab, _, e in part]))
        fig.add_scatter(name="estimate" + suffix, x=[e["estimate"] for _, _, e in part],
                        y=[lab for lab, _, _ in part], mode="markers+text",
                        text=[NOT_CONCLUSIVE if flagged else "" for _ in part],
                        textposition="top center", textfont={"color": FLAGGED},
                        marker={"color": colour, "size": 10, "line": {"width": 2},
                                "symbol": "circle-open" if flagged else "circle"},
                        customdata=[[e["ci_low"], e["ci_high"], e["se"], plain(name),
                                     plain(str(e.get("not_conclusive") or ""))]
                                    for _, name, e in part],
                        hovertemplate="%{customdata[3]}: %{x} [%{customdata[0]:.3~%}, "
                        "%{customdata[1]:.3~%}], SE %{customdata[2]:.3~%}"
                        + ("<br>not conclusive: %{customdata[4]}" if flagged else "")
                        + "<extra></extra>")
        values += [v for _, _, e in part for v in (e["ci_low"], e["ci_high"])]
    ranged = [(lab, name, e["unknown_range"]) for lab, name, e in known
              if e.get("unknown_range")]
    if ranged:
        fig.add_scatter(name=UNKNOWN_RANGE, mode="lines+markers",
                        line={"color": UNKNOWN, "width": 2, "dash": "dot"},
                        marker={**ends, "size": 10, "color": UNKNOWN,
                                "line": {"width": 2, "color": UNKNOWN}},
                        customdata=[[r["unknown_pairs"], plain(name)] for _, name, r in ranged
                                    for _ in range(3)],
                        hovertemplate="%{customdata[1]} if its %{customdata[0]} unknown pairs "
                        "were all equivalent / all not equivalent: %{x}<extra></extra>",
                        **_segments([(lab, r["all_equivalent"], r["all_not_equivalent"])
                                     for lab, _, r in ranged]))
        values += [v for _, _, r in ranged for v in (r["all_equivalent"],
                                                     r["all_not_equivalent"])]
    exact = [(lab, name, v) for lab, name, (_, _, v) in zip(labels, full, rows, strict=True)
             if v is not None]
    if exact:
        fig.add_scatter(name="exact impact metric", x=[v for _, _, v in exact],
                        y=[lab for lab, _, _ in exact], mode="markers",
                        marker={"color": EXACT, "symbol": "diamond", "size": 10},
                        customdata=[[plain(name)] for _, name, _ in exact],
                        hovertemplate="%{customdata[0]}: %{x} (exact)<extra></extra>")
        values += [v for _, _, v in exact]
    _layout(fig, height=120 + 30 * len(rows))
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], type="category")
    zoomed = _axis(fig, "x", values, scores=scores)
    if not scores:  # a difference: above 0 is better
        fig.add_vline(x=0, line={"color": "#888", "dash": "dot"})
    entries = [e for _, _, e in known]
    return fig, "".join((
        " Grey, open, dotted: not conclusive (the reason in the hover): read its interval "
        "as unreliable." if any(e.get("not_conclusive") for e in entries) else "",
        " Dotted, grey: the estimate if the unknown pairs were all equivalent / all not "
        "equivalent; the interval assumes they are missing at random (docs/method.md "
        "§8.11)." if ranged else "", zoomed))


def estimate_section(doc: Mapping[str, Any], source: str = "sample",
                     inputs: Mapping[str, str] | None = None) -> Section:
    """A judged sample (ABCDE §5, §5.7–5.8; docs/method.md §8, §12.4); ``inputs``: the
    manifest's, when the document lacks them."""
    go = _plotly()
    impact = doc.get("impact") or {}
    s = Section("estimate", "Judged sample: is Exp better?", doc["verdict"], source,
                {**(doc.get("inputs") or inputs or {}), "pairs": pair_population(doc)})
    s.notes += [f"warning: {w}" for w in doc.get("warnings") or []]

    dp = doc["delta_precision"]
    fig, zoomed = _forest(go, [("ΔPrecision", dp, None)], scores=False)
    s.figures.append(Figure("estimate-delta-precision", "ΔPrecision",
                            f"Estimate with its {show(dp['confidence'])} interval "
                            f"({dp.get('interval')}); above 0: Exp is more precise "
                            "(ABCDE §5.3)." + zoomed, _json(fig)))

    groups: dict[str, list[str]] = {}
    for key in METRIC_KEYS:
        if METRICS[key].decomposes and key in doc:
            groups.setdefault(METRICS[key].decomposes, []).append(key)
    for target, keys in groups.items():
        if all((doc[k] or {}).get("estimate") is None for k in keys):
            continue
        label = impact_label(target)
        fig, zoomed = _forest(go, [(label, None, impact.get(target)),
                                   *((METRICS[k].label, doc[k], None) for k in keys)])
        s.figures.append(Figure(f"estimate-{target}", f"{label} decomposed",
                                f"The exact {label} (diamond) and the estimated good and bad "
                                "parts that add up to it, with intervals."
                                + zoomed, _json(fig)))
    by_reason: dict[str, list[str]] = {}
    for k, why in (doc.get("unavailable") or {}).items():
        by_reason.setdefault(str(why), []).append(METRICS[k].label if k in METRICS else k)
    s.notes += [f"not available from this sample: {', '.join(labels)} — {why}"
                for why, labels in by_reason.items()]

    # the heaviest: a weight is known exactly, a ranking by the estimate favours the noisiest
    slices, more = _shown(doc.get("slices") or [], "slices (by item weight)", by="weight")
    labels = [" · ".join(key_label(v) for v in e["slice"].values()) for e in slices]
    for key, title, caption in (
            ("delta_precision", "ΔPrecision per slice",
             "ΔPrecision within each slice, with intervals."),
            ("contribution", "Contribution of each slice to ΔPrecision",
             "Each slice's share of the overall ΔPrecision, with intervals "
             "(docs/method.md §8.8).")):
        if slices:
            fig, zoomed = _forest(go, [(lab, e[key], None) for lab, e in
                                       zip(labels, slices, strict=True)], scores=False)
            s.figures.append(Figure(f"estimate-slices-{key}", title, caption + more
                                    + zoomed, _json(fig)))

    classes = doc["sample"].get("classes") or {}
    if classes and all("equivalent_pairs" in t for t in classes.values()):
        fig = _figure(go)
        for key, name, colour in (("equivalent_pairs", "equivalent", GOOD),
                                  ("not_equivalent_pairs", "not equivalent", BAD),
                                  ("unknown_pairs", "unknown", UNKNOWN)):
            fig.add_bar(name=name, x=[plain(c) for c in classes],
                        y=[t[key] for t in classes.values()], marker_color=colour)
        _layout(fig, barmode="stack", yaxis_title="pairs")
        s.figures.append(Figure("estimate-verdicts", "Verdicts per pair class",
                                "Unique pairs of each class by verdict (self pairs are "
                                "equivalent by definition).", _json(fig)))
    judging = doc.get("judging") or {}
    if len(judging.get("judges") or {}) > 1:
        _agreement(go, s, judging, judging.get("agreement") or {})
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
    if not pairwise:
        return
    names = sorted({j for p in pairwise for j in p["judges"]})
    z: list[list[float | None]] = [[None] * len(names) for _ in names]
    for p in pairwise:
        a, b = (names.index(j) for j in p["judges"])
        z[a][b] = z[b][a] = p["cohen_kappa"]
    fig = _heatmap(go, names, z, "%{z:.2f}", "%{y} vs %{x}: Cohen's kappa %{z:.3f}")
    _layout(fig, height=120 + 40 * len(names))
    kind = {"cohen": "Cohen's", "fleiss": "Fleiss'"}.get(agreement.get("kappa_kind") or "", "")
    raw = agreement.get("raw_agreement")
    s.figures.append(Figure(
        "estimate-agreement", "Agreement between judges",
        f"On {agreement.get('pairs', 0):,} pairs with two or more judges: raw agreement "
        f"{show(raw)}, {kind} kappa {show(agreement.get('kappa'), PLAIN)}. Cells: Cohen's kappa "
        "of each two judges.", _json(fig)))


# --------------------------------------------------------------------------- #
# Evaluation
# --------------------------------------------------------------------------- #

RUN_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy", "jaccard_index")


def _compared(go: Any, series: Sequence[tuple[str, Sequence[str], Sequence[Any]]],
              unit: str, axis_title: str = "") -> tuple[Any, str]:
    """Runs side by side: bars from 0, or labelled dots where the axis does not start at 0."""
    values = [v for _, _, ys in series for v in ys if isinstance(v, int | float)]
    rng = value_range(values, (0.0, 1.0))[0]
    dots = not rng[0] <= 0 <= rng[1]  # a bar cut short by the axis would lie
    fig = _figure(go)
    for k, (name, xs, ys) in enumerate(series):
        style = {"name": plain(name), "x": list(xs), "y": list(ys),
                 "marker_color": COLOURS[k % len(COLOURS)],
                 "text": [show(v, unit) if isinstance(v, int | float) else "" for v in ys]}
        if dots:
            fig.add_scatter(mode="markers+text", textposition="middle right",
                            marker={"size": 11, "symbol": "diamond"}, **style)
        else:
            fig.add_bar(textposition="outside", **style)
    _layout(fig, barmode="group", scattermode="group")
    return fig, _axis(fig, "y", values, unit, title=axis_title, scores=True)


def evaluate_section(doc: Mapping[str, Any], source: str = "evaluate") -> Section:
    """An evaluation (ABCDE §3; Amigó et al. 2011; docs/method.md §9–10)."""
    go = _plotly()
    runs = doc["runs"]
    inputs = dict(doc.get("inputs") or {})
    actual = inputs.pop("actual", None) or {}
    inputs.update({f"run {name}": label for name, label in actual.items()})
    s = Section("evaluate", "Evaluation against the ground truth",
                f"{len(runs)} run{'s' if len(runs) != 1 else ''} evaluated on the items of "
                "the truth.", source, inputs)
    fig, zoomed = _compared(go, [(r["name"], keys, [r["overall"][m] for m in keys])
                                 for r in runs for keys in
                                 [[m for m in RUN_METRICS if m in r["overall"]]]],
                            PERCENT, "weighted mean over items")
    s.figures.append(Figure("evaluate-runs", "The runs side by side",
                            "Pointwise metrics of each run, weighted over the truth's items "
                            "(ABCDE §3)." + zoomed, _json(fig), wide=True))
    classic = [r for r in runs if r.get("classic")]
    if classic:
        keys = list(classic[0]["classic"])
        fig, zoomed = _compared(go, [(r["name"], keys, [r["classic"].get(m) for m in keys])
                                     for r in classic], PLAIN)
        s.figures.append(Figure("evaluate-classic", "Classic metrics",
                                "Unweighted pairwise, purity and information-theoretic "
                                "metrics." + zoomed, _json(fig), wide=True))

    for run in runs:
        for key, what in (("worst_truth_clusters", "truth"),
                          ("worst_actual_clusters", "actual")):
            rows, more = _shown(run.get(key) or [], "clusters")
            if rows:
                _ranking(go, s, f"evaluate-{run['name']}-{key}",
                         f"{run['name']}: worst {what} clusters",
                         f"The {what} clusters that cost {run['name']} most." + more, rows,
                         [str(r["cluster_id"]) for r in rows], "loss",
                         "loss (share of the weighted items)",
                         "cluster %{customdata[3]}: loss %{x}<br>items %{customdata[0]}<br>"
                         "precision %{customdata[1]:.3~%}, recall %{customdata[2]:.3~%}",
                         ("items", "precision", "recall"), BAD)

    uir = doc.get("uir") or {}
    matrix = uir.get("matrix") or {}
    if matrix:
        names = list(matrix)
        fig = _heatmap(go, names, [[matrix[r].get(c) for c in names] for r in names],
                       "%{z:.3f}", "UIR(%{y} over %{x}) = %{z:.4f}")
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
                            marker_color=COLOURS[k % len(COLOURS)])
        m = uir.get("f_alpha_metrics") or ["", ""]
        _layout(fig, xaxis_title=f"α (weight of {m[0]})")
        zoomed = _axis(fig, "y", [v for c in sweep.values() for v in c.values()],
                       title="F_α", scores=True)
        s.figures.append(Figure("evaluate-f-alpha", "F_α sweep",
                                f"F_α of {' and '.join(m)} as α goes from 0 to 1: a system "
                                "above the others at every α is better for every weighting."
                                + (f" {uir['f_alpha_note']}" if uir.get("f_alpha_note")
                                   else "") + zoomed, _json(fig)))
    return s


# --------------------------------------------------------------------------- #
# Simulation
# --------------------------------------------------------------------------- #

def _marked(per_budget: Mapping[str, Any], budgets: Sequence[str], rounds: int,
            labelled: bool = True) -> dict[str, Any]:
    """Marks of a simulated metric: open where some rounds were not conclusive, with how
    many (beside the point where `labelled`, else in the hover)."""
    flags = [int(per_budget[b].get("not_conclusive") or 0) for b in budgets]
    text = [f"{f} of {rounds} {NOT_CONCLUSIVE}" if f else "" for f in flags]
    return {"marker": {"symbol": ["circle-open" if f else "circle" for f in flags],
                       "size": [12 if f else 8 for f in flags], "line": {"width": 2}},
            "mode": "lines+markers+text" if labelled else "lines+markers",
            "text": text, "textposition": "middle right",
            "textfont": {"color": FLAGGED, "size": 10},
            "hovertemplate": "budget %{x}: %{y} %{text}<extra>%{fullData.name}</extra>"}


def simulate_section(doc: Mapping[str, Any], source: str = "simulate") -> Section:
    """A simulation (ABCDE §5.8, App. A; docs/method.md §8.9): half-widths against the
    budget beside z·sd of the estimates; with exact values, coverage and bias in SEs."""
    from abcde.quality.simulation import FLAG_COVERAGE

    go = _plotly()
    rounds = doc["replications"]
    s = Section("simulate", "Sizing a round: interval width against the budget",
                f"{rounds} simulated rounds per budget on the {doc.get('population')} "
                "population, judged by the ground truth.", source,
                {**(doc.get("inputs") or {}), "pairs": pair_population(doc)})
    coverage, bias = _figure(go), _figure(go)
    flagged_any = False
    for key, per_budget in doc["metrics"].items():
        label = METRICS[key].label if key in METRICS else key
        measured = [b for b in per_budget if per_budget[b].get("coverage") is not None]
        flagged_any |= any(per_budget[b].get("not_conclusive") for b in per_budget)
        if measured:
            coverage.add_scatter(name=label, x=[int(b) for b in measured],
                                 y=[per_budget[b]["coverage"] for b in measured],
                                 **_marked(per_budget, measured, rounds, labelled=False))
        # a bias within rounding of the exact value is none, whatever its SE says
        scored = [b for b, c in per_budget.items() if c.get("bias") is not None
                  and c.get("bias_se") and abs(c["bias"]) > 1e-9 * abs(c.get("exact") or 1)]
        if scored:
            bias.add_scatter(name=label, x=[int(b) for b in scored],
                             y=[per_budget[b]["bias"] / per_budget[b]["bias_se"]
                                for b in scored],
                             **{**_marked(per_budget, scored, rounds, labelled=False),
                                "mode": "markers"})
        budgets = [b for b in per_budget if per_budget[b].get("half_width") is not None]
        if not budgets:
            continue
        fig = _figure(go)
        fig.add_scatter(name="mean half-width of the intervals", x=[int(b) for b in budgets],
                        y=[per_budget[b]["half_width"] for b in budgets],
                        marker_color=BASE, **_marked(per_budget, budgets, rounds))
        fig.add_scatter(name="half-width needed (z·sd of the estimates)",
                        x=[int(b) for b in budgets],
                        y=[per_budget[b]["spread_half_width"] for b in budgets],
                        mode="lines+markers", marker_color=BAD, line={"dash": "dash"})
        _layout(fig, height=280, xaxis_title="budget (pairs)")
        _log_axes(fig, y=False)
        zoomed = _axis(fig, "y", [per_budget[b][k] for b in budgets
                                  for k in ("half_width", "spread_half_width")],
                       title="half-width", zoom=False)
        s.figures.append(Figure(f"simulate-{key}", label,
                                "Where the blue line lies well below the red one the "
                                "intervals cover less than they say." + zoomed,
                                _json(fig)))
    marks = (" Open markers: budgets where some rounds' estimates were not conclusive "
             "(how many, in the hover)." if flagged_any else "")
    if coverage.data:
        flag_below = doc.get("flag_coverage", FLAG_COVERAGE)  # by the intervals' level
        coverage.add_hline(y=flag_below, line_dash="dash", line_color=BAD,
                           annotation_text=f"flagged below {show(flag_below)}")
        _layout(coverage, height=360, xaxis_title="budget (pairs)")
        _log_axes(coverage, y=False)
        zoomed = _axis(coverage, "y", [flag_below, *(v for t in coverage.data for v in t.y)],
                       title="share of intervals holding the exact value", scores=True)
        s.figures.insert(0, Figure("simulate-coverage", "Coverage of the intervals",
                                   "Per metric and budget, the share of the simulated "
                                   "rounds whose interval held the exact value." + marks
                                   + zoomed, _json(coverage)))
    if bias.data:
        for y in (-3, 3):
            bias.add_hline(y=y, line_dash="dot", line_color=BAD)
        _layout(bias, height=360, xaxis_title="budget (pairs)")
        _log_axes(bias, y=False)
        _axis(bias, "y", [-3.5, 3.5, *(v for t in bias.data for v in t.y)], PLAIN,
              title="(mean estimate − exact) / SE", zoom=False)
        s.figures.insert(1 if coverage.data else 0,
                         Figure("simulate-bias", "Bias in standard errors",
                                "Mean estimate − exact value over its standard error "
                                "(sd/√rounds); beyond ±3 the bias is real." + marks,
                                _json(bias)))
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
