"""How one attribute value is shown on the judging page (docs/method.md §12.3): text, or
with ``--image-col``/``--link-col`` an image or a link, only for an absolute http(s)
URL (a ``javascript:`` or ``data:`` value stays text)."""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter
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
    """A value as the page prints it; None for no value. Whole floats print as integers
    only up to 2**53, where a double holds every integer.

    >>> as_text(3.0), as_text(0.5), as_text(" "), as_text(float("nan")), as_text([1, "a"])
    ('3', '0.5', None, None, '[1, "a"]')
    >>> as_text(True), as_text([True, None]), as_text(1e300)
    ('true', '[true, null]', '1e+300')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool | dict | list):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) <= 2.0 ** 53 \
            else repr(value)
    text = str(value)
    return text if text.strip() else None


def web_url(text: str | None) -> str | None:
    """``text`` when it is an absolute http(s) URL with a host and no space or control
    character; else None.

    >>> web_url("https://a.example/x.png"), web_url("javascript:alert(1)"), web_url("//a/b")
    ('https://a.example/x.png', None, None)
    """
    if text is None or len(text) > MAX_URL:
        return None
    url = text.strip()
    if any(c.isspace() or not c.isprintable() for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.hostname else None


def cell(value: Any, kind: str = "text") -> Cell:
    """How one value is shown: "image"/"link" (``kind``) only for a web URL."""
    text = as_text(value)
    if text is None:
        return Cell("empty", "")
    url = web_url(text) if kind in ("image", "link") else None
    return Cell(kind, text, url) if url is not None else Cell("text", text)


def differs(a: Any, b: Any) -> bool:
    """Whether two values differ as the page shows them.

    >>> differs(1, 1.0), differs(None, ""), differs("a", "b")
    (False, False, True)
    """
    return as_text(a) != as_text(b)


# what a page does not show: format characters (zero-width space, joiners, the BOM, the
# soft hyphen), controls, and spaces other than the plain one
_UNSEEN = ("Cf", "Cc", "Zs", "Zl", "Zp")
_CONTROLS = {"\r": "CARRIAGE RETURN", "\t": "CHARACTER TABULATION", "\n": "LINE FEED"}


def _as_seen(text: str) -> str:
    """What the eye tells of ``text`` on the page: NFC, spaces and line breaks unified,
    no other format or control character, no trailing space."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        cat = unicodedata.category(ch)
        if cat == "Zs":
            out.append(" ")
        elif ch == "\n" or cat in ("Zl", "Zp"):
            out.append("\n")
        elif ch == "\t" or cat not in ("Cf", "Cc"):
            out.append(ch)
    return "".join(out).rstrip()


def unseen_difference(a: Any, b: Any) -> str | None:
    """Why two differing values look the same on the page, if they do: the characters
    that do not show (at most three), or the same letters in other code points.

    >>> unseen_difference("Acme", "Acme\u200b")
    'differ only in characters that do not show: U+200B ZERO WIDTH SPACE'
    >>> unseen_difference("Acme", "Acne") is None, unseen_difference("x", "x") is None
    (True, True)
    """
    ta, tb = as_text(a), as_text(b)
    if ta == tb or ta is None or tb is None or _as_seen(ta) != _as_seen(tb):
        return None
    unseen = [Counter(ch for ch in t if unicodedata.category(ch) in _UNSEEN or ch == " ")
              for t in (ta, tb)]
    odd = sorted(set((unseen[0] - unseen[1]) + (unseen[1] - unseen[0])))
    if not odd:
        return ("the same letters written with other Unicode code points (e.g. é, and e + "
                "a combining accent)")
    names = [f"U+{ord(ch):04X} {unicodedata.name(ch, _CONTROLS.get(ch, 'CONTROL CHARACTER'))}"
             for ch in odd[:3]]
    more = f" and {len(odd) - 3} more" if len(odd) > 3 else ""
    return f"differ only in characters that do not show: {', '.join(names)}{more}"
