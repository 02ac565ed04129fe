"""How one attribute value is shown on the judging page (docs/method.md §12.3): text by
default; with ``--image-col`` an image, with ``--link-col`` a link — but only for an
absolute http(s) URL without spaces or control characters; anything else stays text,
so a ``javascript:`` or ``data:`` value can never become active. Jinja2 escapes
everything (autoescape), attributes included."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

MAX_URL = 4096


@dataclass(frozen=True)
class Cell:
    kind: str        # "text", "empty", "image", "link"
    text: str
    url: str | None = None


def as_text(value: Any) -> str | None:
    """A value as the page prints it; None for no value (null, blank, NaN)."""
    if value is None:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return repr(value) if not value.is_integer() else str(int(value))
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    text = str(value)
    return text if text.strip() else None


def web_url(text: str | None) -> str | None:
    """``text`` if it is an absolute http(s) URL with a host, else None."""
    if text is None or len(text) > MAX_URL:
        return None
    url = text.strip()
    if any(c.isspace() or not c.isprintable() for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def cell(value: Any, kind: str = "text") -> Cell:
    """A Cell for a value of an attribute shown as ``kind`` (text, image or link)."""
    text = as_text(value)
    if text is None:
        return Cell("empty", "")
    if kind in ("image", "link"):
        url = web_url(text)
        if url is not None:
            return Cell(kind, text, url)
    return Cell("text", text)


def differs(a: Any, b: Any) -> bool:
    """Whether two values of an attribute differ as the page shows them."""
    return as_text(a) != as_text(b)
