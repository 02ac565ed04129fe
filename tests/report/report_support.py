"""Reading a report back: the figures' JSON the page plots."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any


def figures(page: str | Path) -> dict[str, dict[str, Any]]:
    """id → plotly figure, from the page's data island."""
    text = Path(page).read_text() if isinstance(page, Path) else page
    m = re.search(r'<script type="application/json" id="abcde-figures">(.*?)</script>',
                  text, re.S)
    assert m, "no figures in the page"
    return json.loads(m.group(1))


def trace(fig: dict[str, Any], name: str) -> dict[str, Any]:
    found = [t for t in fig["data"] if t.get("name") == name]
    assert len(found) == 1, (name, [t.get("name") for t in fig["data"]])
    return found[0]


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))
