"""The report page: sections rendered with Jinja2 into one offline HTML file
(docs/method.md §13.1)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from functools import cache
from importlib import resources
from typing import Any

import jinja2

from abcde.report.plots import Section
from abcde.version import __version__

#: the file runs its own inline scripts and styles and shows data: images (plotly's
#: "download as PNG"); nothing else — no request leaves it
CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:; base-uri 'none'; form-action 'none'")
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True,
                 "modeBarButtonsToRemove": ["sendDataToCloud", "select2d", "lasso2d"]}


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: '<', '>' and '&' as \\u escapes, so no
    string of the data can close the element or open a comment."""
    text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(sections: Sequence[Section], title: str = "abcde report",
           notes: Sequence[str] = ()) -> str:
    """The report as one HTML document: plotly.js (of the installed wheel), the styles
    and every figure inlined; the figures' JSON in ``<script type="application/json"
    id="abcde-figures">`` (id → plotly figure); ``notes`` at the top."""
    template, assets = _page()
    return template.render(
        title=title, sections=sections, notes=notes, csp=CSP, version=__version__,
        created=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        figures_json=script_json({f.id: f.figure for s in sections for f in s.figures}),
        config_json=script_json(PLOTLY_CONFIG), **assets)


@cache
def _page() -> tuple[jinja2.Template, dict[str, str]]:
    """The page's template, compiled once, and what every page inlines: plotly.js (of
    the installed wheel) and the styles."""
    from plotly.offline import get_plotlyjs

    env = jinja2.Environment(loader=jinja2.PackageLoader("abcde.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    templates = resources.files("abcde.report").joinpath("templates")
    # "</script" cannot occur in a script element's text: escape the slash
    return env.get_template("report.html"), {
        "plotly_js": get_plotlyjs().replace("</script", "<\\/script"),
        "css": templates.joinpath("report.css").read_text(encoding="utf-8")}
