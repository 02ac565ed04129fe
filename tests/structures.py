"""Comparing results of separate runs: floats to 1e-12 relative.

DuckDB, PostgreSQL and Spark sum doubles in parallel, in an order that varies from run
to run (even on a few thousand rows: 867.0337999999999 one run, 867.0338000000006 the
next), so two runs of one command agree to rounding, not bit for bit.
"""

from __future__ import annotations

import math
from typing import Any


def same(a: Any, b: Any, path: str = "") -> None:
    """Assert equal structures; floats to 1e-12 relative."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (path, set(a) ^ set(b or {}))
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list | tuple):
        assert isinstance(b, list | tuple) and len(a) == len(b), (path, a, b)
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{k}]")
    elif isinstance(a, float) and isinstance(b, float | int):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (path, a, b)
    else:
        assert a == b, (path, a, b)
