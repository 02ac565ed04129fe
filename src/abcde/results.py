"""What results are made of, for every command: rows of plain Python values (what
JSON can hold). Where they are written (atomically, `--out`): `abcde.outputs`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

OUT_FORMATS = ("parquet", "csv")


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
