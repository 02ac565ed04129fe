"""The report page: sections rendered with Jinja2 into one offline HTML file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jinja2

from abcde.report.figures import Section
from abcde.version import __version__

#: The file may run its own inline scripts and styles and show data: images (plotly's
#: "download as PNG"); nothing else — no request leaves it.
CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:; base-uri 'none'; form-action 'none'")
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True,
                 "modeBarButtonsToRemove": ["sendDataToCloud", "select2d", "lasso2d"]}


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("abcde.report", "templates"),
                              autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True)


def script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element: '<', '>' and '&' as \\u escapes, so
    no string of the data can close the element or open a comment."""
    text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def plotly_js() -> str:
    """The plotly.js bundle of the installed plotly wheel (inlined once per page)."""
    from plotly.offline import get_plotlyjs

    # "</script" cannot occur in a script element's text: escape the slash.
    return get_plotlyjs().replace("</script", "<\\/script")


def render(sections: Sequence[Section], title: str = "abcde report") -> str:
    """The report as one HTML document.

    Parameters
    ----------
    sections : sequence of Section
        From :mod:`abcde.report.figures`.
    title : str
        The page title.

    Returns
    -------
    str
        HTML with plotly.js, the styles and every figure inlined; the figures' JSON is
        in the element ``<script type="application/json" id="abcde-figures">`` (id →
        plotly figure).

    References
    ----------
    docs/method.md §13.
    """
    figures = {f.id: f.figure for s in sections for f in s.figures}
    env = _environment()
    return env.get_template("report.html").render(
        title=title, sections=sections, csp=CSP, version=__version__,
        created=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        figures_json=script_json(figures), config_json=script_json(PLOTLY_CONFIG),
        plotly_js=plotly_js(),
        css=(Path(__file__).parent / "templates" / "report.css").read_text())
