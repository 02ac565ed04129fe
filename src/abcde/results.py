"""What results are made of, for every command: rows of plain Python values (what
JSON can hold) and the output directory of `--out`."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from abcde.errors import InputError

OUT_FORMATS = ("parquet", "csv")


def prepare_out(out: Path) -> None:
    """Create the `--out` directory, or refuse it before any work is done."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        parent_is_file = isinstance(err, FileExistsError | NotADirectoryError)
        reason = "it or a parent is a file" if parent_is_file else (err.strerror or str(err))
        raise InputError(f"cannot create the output directory {out}: {reason}",
                         hint="--out names a directory (created if missing).") from err
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(f"cannot write to the output directory {out}: permission denied",
                         hint="Choose another --out directory.")


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
