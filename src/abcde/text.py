"""Plain-text tables and JSON: the shapes every command prints."""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any


def to_json(doc: dict[str, Any]) -> str:
    """JSON with NaN/inf refused (they never belong in a report)."""
    return json.dumps(doc, indent=2, default=str, allow_nan=False)


# What a NULL slice or group value prints as, in every text table, page and figure (the
# JSON says null). "-" is a missing number; a missing key is a group of its own.
NULL_KEY = "(none)"


def key_label(value: Any) -> str:
    """A slice or group value as text: NULL is NULL_KEY, a boolean true/false (as the
    data, the JSON and a filter write it, not Python's True), everything else as str()."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return NULL_KEY if value is None else str(value)


def fmt(value: Any, kind: str = "auto") -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if kind == "pct":
            return f"{100 * value:.2f}%"
        if math.isfinite(value) and (value == 0 or 1 <= abs(value) < 1e12):
            return f"{value:,.2f}"
        return f"{value:.4g}"
    return str(value)


def table(rows: Sequence[dict[str, Any]], columns: Sequence[str],
          headers: Sequence[str] | None = None, pct: Sequence[str] = (),
          keys: Sequence[str] = ()) -> str:
    """A fixed-width text table; numbers right-aligned; a value of a `keys` column (a
    slice or group value) prints as `key_label` does (NULL as NULL_KEY, elsewhere "-"):
    exactly, as the page shows it and a filter takes it back, since two groups -1.337
    and -1.342 both rounded to -1.34 and a year 2024 read 2,024."""
    heads = list(headers or columns)
    cells = [[key_label(r.get(c)) if c in keys
              else fmt(r.get(c), "pct" if c in pct else "auto") for c in columns]
             for r in rows]
    widths = [max([len(h)] + [len(row[k]) for row in cells]) for k, h in enumerate(heads)]
    numeric = [all(isinstance(r.get(c), int | float) or r.get(c) is None for r in rows)
               for c in columns]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    out = [line(heads), line(["-" * w for w in widths])]
    out += [line(row) for row in cells]
    return "\n".join(out)


def printing_alike(names: Iterable[str]) -> list[list[str]]:
    """The groups of different names that print alike: equal once NFC-normalised (é
    composed, and e + a combining accent), each in first-seen order. Run names
    (abcde.evaluation.run) and system names (abcde.evaluation.scores) so written would be
    outputs no reader could tell apart."""
    groups: dict[str, list[str]] = {}
    for name in names:
        group = groups.setdefault(unicodedata.normalize("NFC", name), [])
        if name not in group:
            group.append(name)
    return [group for group in groups.values() if len(group) > 1]
