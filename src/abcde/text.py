"""Plain-text tables and JSON: the shapes every command prints."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any


def to_json(doc: dict[str, Any]) -> str:
    """JSON with NaN/inf refused (they never belong in a report)."""
    return json.dumps(doc, indent=2, default=str, allow_nan=False)


# What a NULL slice or group value prints as, in every text table, page and figure (the
# JSON says null). "-" is a missing number; a missing key is a group of its own.
NULL_KEY = "(none)"


def key_label(value: Any) -> str:
    """A slice or group value as text: NULL is NULL_KEY, everything else as str()."""
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
    """A fixed-width text table; numbers right-aligned; a NULL in a `keys` column (a slice
    or group value) prints as NULL_KEY, elsewhere as "-"."""
    heads = list(headers or columns)
    cells = [[NULL_KEY if c in keys and r.get(c) is None
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
