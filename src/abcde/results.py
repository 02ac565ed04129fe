"""What results are made of, for every command: rows of plain Python values (what
JSON can hold). Where they are written (atomically, `--out`): `abcde.outputs`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

OUT_FORMATS = ("parquet", "csv")
#: the longest list and mapping a result's repr shows in full
REPR_ROWS, REPR_KEYS = 5, 40


def summary_repr(result: Any) -> str:
    """The repr of a result dataclass, its long lists and mappings (sampled rows,
    clusters, slices, UIR cases) given as their length: a notebook shows the repr of a
    cell's last value, and that of a million sampled rows took minutes and megabytes."""
    shown = ", ".join(f"{f.name}={_short(getattr(result, f.name))}"
                      for f in fields(result) if f.repr)
    return f"{type(result).__name__}({shown})"


def _short(value: Any) -> str:
    if isinstance(value, list | tuple):
        if len(value) > REPR_ROWS:
            return f"<{len(value):,} rows>"
        inner = ", ".join(_short(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' * (len(value) == 1)})"
    if isinstance(value, dict):
        if len(value) > REPR_KEYS:
            return f"<{len(value):,} entries>"
        return "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in value.items()) + "}"
    return repr(value)


def plain_row(row: dict[str, Any], text: Sequence[str] = ()) -> dict[str, Any]:
    """Plain Python numbers (DuckDB sums of integers come back as int128 via int). A
    NaN or infinite value of a `text` column (a slice value: the metrics never are)
    becomes the string 'NaN', 'Infinity' or '-Infinity', which JSON can hold."""
    out = {}
    for k, v in row.items():
        if isinstance(v, float) and k in text and not math.isfinite(v):
            out[k] = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
        elif isinstance(v, bool) or v is None or isinstance(v, str | float):
            out[k] = v
        elif isinstance(v, int):
            out[k] = int(v)
        else:
            try:
                out[k] = float(v)
            except (TypeError, ValueError):
                out[k] = v
    return out
