"""How one attribute value is shown on the judging page (docs/method.md §12.3): text by
default; with ``--image-col`` an image, with ``--link-col`` a link — but only for an
absolute http(s) URL without spaces or control characters; anything else stays text,
so a ``javascript:`` or ``data:`` value can never become active. Jinja2 escapes
everything (autoescape), attributes included."""

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
    """A value as the page prints it.

    Parameters
    ----------
    value : any
        An attribute value from the questions.

    Returns
    -------
    str or None
        Its text (whole floats up to 2**53 without ".0", larger as 1e+20, booleans as
        true/false, lists and objects as JSON); None for no value (null, blank, NaN).

    References
    ----------
    docs/method.md §12.3.

    Examples
    --------
    >>> as_text(3.0), as_text(0.5), as_text(" "), as_text(float("nan")), as_text([1, "a"])
    ('3', '0.5', None, None, '[1, "a"]')
    >>> as_text(True), as_text([True, None])
    ('true', '[true, null]')
    """
    if value is None:
        return None
    if isinstance(value, bool):  # as the questions files write it, not Python's True
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return None
        # whole floats as integers only where a double holds every integer (2**53):
        # beyond, int() would print digits the data never had (1e300: 301 of them)
        whole = value.is_integer() and abs(value) <= 2.0 ** 53
        return str(int(value)) if whole else repr(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    text = str(value)
    return text if text.strip() else None


def web_url(text: str | None) -> str | None:
    """A value that may become an image or a link.

    Parameters
    ----------
    text : str or None
        The value's text.

    Returns
    -------
    str or None
        ``text`` when it is an absolute http(s) URL with a host and without spaces or
        control characters (at most 4096 characters); None otherwise.

    References
    ----------
    docs/method.md §12.1.

    Examples
    --------
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
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def cell(value: Any, kind: str = "text") -> Cell:
    """How one value is shown.

    Parameters
    ----------
    value : any
        The value.
    kind : str
        "text", or "image"/"link" for ``--image-col``/``--link-col`` attributes.

    Returns
    -------
    Cell
        "empty" for no value; "image" or "link" only for a web URL
        (:func:`web_url`); "text" otherwise.

    References
    ----------
    docs/method.md §12.1, §12.3.
    """
    text = as_text(value)
    if text is None:
        return Cell("empty", "")
    if kind in ("image", "link"):
        url = web_url(text)
        if url is not None:
            return Cell(kind, text, url)
    return Cell("text", text)


def differs(a: Any, b: Any) -> bool:
    """Whether two values of an attribute differ as the page shows them.

    Parameters
    ----------
    a, b : any
        The two items' values.

    Returns
    -------
    bool

    References
    ----------
    docs/method.md §12.3.

    Examples
    --------
    >>> differs(1, 1.0), differs(None, ""), differs("a", "b")
    (False, False, True)
    """
    return as_text(a) != as_text(b)


# Characters a page does not show: format characters (zero-width space, joiners, the
# byte-order mark, the soft hyphen), controls, and spaces other than the plain one (a
# no-break space looks like a space)
_UNSEEN = ("Cf", "Cc", "Zs", "Zl", "Zp")
# controls have no Unicode name (unicodedata.name raises)
_CONTROLS = {"\r": "CARRIAGE RETURN", "\t": "CHARACTER TABULATION", "\n": "LINE FEED"}


def _as_seen(text: str) -> str:
    """What the eye tells of `text` on the page (which keeps line breaks and runs of
    spaces): composed letters (NFC), any space as a space, any line break as one, no
    other format or control character, no trailing space."""
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
    """Why two values that differ look the same on the page, if they do.

    Parameters
    ----------
    a, b : any
        The two items' values.

    Returns
    -------
    str or None
        None when the values are equal as shown or differ visibly; else what tells them
        apart: the characters that do not show, by code point and name (at most three),
        or that the same letters are written with other code points (é composed, and e
        + a combining accent). A judge shown "≠" between two identical-looking values
        could not tell whether it matters.

    References
    ----------
    docs/method.md §12.3.

    Examples
    --------
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
