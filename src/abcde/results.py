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
    """A fetched row (plain Python values: `abcde.engines.base.plain`) with the NaN or
    infinite values of its `text` columns (slice values; the metrics never are) as
    'NaN', 'Infinity' or '-Infinity', which JSON can hold."""
    return {k: ("NaN" if math.isnan(v) else "Infinity" if v > 0 else "-Infinity")
            if k in text and isinstance(v, float) and not math.isfinite(v) else v
            for k, v in row.items()}
