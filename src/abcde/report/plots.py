"""How the report draws a number: sections, figures, axes and the charts the sections
share (docs/method.md §13.1).

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
from abcde.text import fmt

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

    def add(self, fig_id: str, title: str, caption: str, fig: Any, *, wide: bool = False,
            at: int | None = None) -> None:
        """Add the plotly figure `fig` as its JSON (at position `at`, else last)."""
        entry = Figure(fig_id, title, caption, to_json(fig), wide)
        self.figures.insert(len(self.figures) if at is None else at, entry)


def require_plotly() -> None:
    plotly()


def plotly() -> Any:
    try:
        import plotly.graph_objects as go
    except ImportError:
        raise InputError("abcde report needs plotly, which is not installed",
                         hint="pip install 'abcde-eval[report]'") from None
    return go


def figure(go: Any, *data: Any) -> Any:
    """A figure without a template (plotly copies a template into each figure, half a
    report's time); `to_json` adds it as JSON."""
    return go.Figure(data=list(data), layout={"template": {}})


@cache
def _template_json() -> str:
    import plotly.graph_objects as go
    import plotly.io as pio

    doc = json.loads(pio.to_json(go.Figure(layout={"template": "plotly_white"})))
    return json.dumps(doc["layout"]["template"])


def to_json(fig: Any) -> dict[str, Any]:
    import plotly.io as pio

    out = json.loads(pio.to_json(fig, validate=True, pretty=False))
    out.setdefault("layout", {})["template"] = json.loads(_template_json())
    return out


def layout(fig: Any, *, height: int = 360, **kwargs: Any) -> None:
    """The page's layout, in one update (each update of a plotly figure is validated)."""
    # counts and plain numbers in full ("800μ" is plotly's default for 0.0008)
    axis = {"automargin": True, "tickformat": ",~r"}
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 36, "b": 10},
                      font={"family": "system-ui, sans-serif", "size": 12},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
                      modebar={"orientation": "v"}, xaxis=axis, yaxis=axis, **kwargs)


def log_axes(fig: Any, x: bool = True, y: bool = True) -> None:
    """Logarithmic axes whose every tick reads as its value (plotly labels 40 "4"): 1, 2,
    5, 10… on an axis spanning a decade or more, or of one value."""
    for on, axis in ((x, "x"), (y, "y")):
        values = [v for t in fig.data for v in (getattr(t, axis) or ())
                  if isinstance(v, int | float) and v > 0]
        wide = bool(values) and (max(values) >= 10 * min(values) or len(set(values)) == 1)
        if on:
            fig.update_layout({f"{axis}axis": {"type": "log", "tickformat": "~g",
                                              **({"dtick": "D2"} if wide else {})}})


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


def value_axis(fig: Any, axis: str, values: Sequence[float], unit: str = PERCENT, *,
               title: str = "", scores: bool = False, zoom: bool = True) -> str:
    """Format one value axis by `value_range` (`scores`: anchored at 0 or 1); the
    caption's sentence when it does not start at 0, which the plot also says."""
    rng, zoomed = value_range(values, (0.0, 1.0) if scores else (0.0,), zoom)
    tick, hover = FORMATS[unit]
    fig.update_layout({f"{axis}axis": {"range": rng, "tickformat": tick, "hoverformat": hover,
                                       "title": {"text": title}, "zeroline": True}})
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


def first_bars(rows: Sequence[Any], what: str, by: str | None = None) -> tuple[list[Any], str]:
    """The first MAX_BARS rows (with `by`: the MAX_BARS of most `by`, in their order), and
    a sentence saying so when some are left out."""
    if len(rows) <= MAX_BARS:
        return list(rows), ""
    order = sorted(range(len(rows)), key=lambda k: -(rows[k].get(by) or 0.0) if by else k)
    return [rows[k] for k in sorted(order[:MAX_BARS])], (
        f" The {MAX_BARS} {'heaviest' if by else 'largest'} of {len(rows):,} {what} are "
        "shown; the JSON holds them all.")


def heatmap(go: Any, names: Sequence[str], z: Sequence[Sequence[float | None]],
            text: str, hover: str) -> Any:
    """A matrix of names by names on a diverging scale from −1 to 1."""
    shown = [plain(n) for n in names]
    return figure(go, go.Heatmap(x=shown, y=shown, z=z, zmin=-1, zmax=1, colorscale="RdBu",
                  texttemplate=text, hovertemplate=hover + "<extra></extra>"))


def ranking(go: Any, s: Section, fig_id: str, title: str, caption: str,
            rows: Sequence[Mapping[str, Any]], names: Sequence[str], value: str,
            axis_title: str, hover: str, extra: Sequence[str], colour: str,
            split_by: str | None = None) -> None:
    """Horizontal bars from 0, in the rows' order (traces by `split_by`)."""
    labels = axis_labels(names)
    fig = figure(go)
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
    layout(fig, height=120 + 24 * len(rows), showlegend=split_by is not None)
    value_axis(fig, "x", [r[value] for r in rows], title=axis_title, zoom=False)
    fig.update_layout(yaxis={"categoryorder": "array", "categoryarray": labels[::-1],
                             "type": "category"})
    s.add(fig_id, title, caption, fig)


def _segments(rows: Sequence[tuple[str, float, float]]) -> dict[str, list[Any]]:
    """x and y of one line per row, from its first to its second value."""
    return {"x": [v for _, a, b in rows for v in (a, b, None)],
            "y": [v for lab, _, _ in rows for v in (lab, lab, None)]}


def forest(go: Any, rows: Sequence[tuple[str, Mapping[str, Any] | None, float | None]],
           *, scores: bool = True) -> tuple[Any, str]:
    """A forest plot: per row an estimate and its interval (grey, open when not
    conclusive), its unknowns' range (docs/method.md §8.11), and where given the exact
    metric (a diamond); and its caption's marks."""
    fig = figure(go)
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
    layout(fig, height=120 + 30 * len(rows))
    fig.update_layout(yaxis={"categoryorder": "array", "categoryarray": labels[::-1],
                             "type": "category"})
    zoomed = value_axis(fig, "x", values, scores=scores)
    if not scores:  # a difference: above 0 is better
        fig.add_vline(x=0, line={"color": "#888", "dash": "dot"})
    entries = [e for _, _, e in known]
    return fig, "".join((
        " Grey, open, dotted: not conclusive (the reason in the hover): read its interval "
        "as unreliable." if any(e.get("not_conclusive") for e in entries) else "",
        " Dotted, grey: the estimate if the unknown pairs were all equivalent / all not "
        "equivalent; the interval assumes they are missing at random (docs/method.md "
        "§8.11)." if ranged else "", zoomed))



def compared(go: Any, series: Sequence[tuple[str, Sequence[str], Sequence[Any]]],
             unit: str, axis_title: str = "") -> tuple[Any, str]:
    """Runs side by side: bars from 0, or labelled dots where the axis does not start at 0."""
    values = [v for _, _, ys in series for v in ys if isinstance(v, int | float)]
    rng = value_range(values, (0.0, 1.0))[0]
    dots = not rng[0] <= 0 <= rng[1]  # a bar cut short by the axis would lie
    fig = figure(go)
    for k, (name, xs, ys) in enumerate(series):
        style = {"name": plain(name), "x": list(xs), "y": list(ys),
                 "marker_color": COLOURS[k % len(COLOURS)],
                 "text": [show(v, unit) if isinstance(v, int | float) else "" for v in ys]}
        if dots:
            fig.add_scatter(mode="markers+text", textposition="middle right",
                            marker={"size": 11, "symbol": "diamond"}, **style)
        else:
            fig.add_bar(textposition="outside", **style)
    layout(fig, barmode="group", scattermode="group")
    return fig, value_axis(fig, "y", values, unit, title=axis_title, scores=True)



def marked(per_budget: Mapping[str, Any], budgets: Sequence[str], rounds: int,
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


