"""Rankings by a float that engines compute to within a few ulps of each other.

Mathematically equal values — the two halves of a cluster split in two contribute the
same to the JaccardDistance — come out of different engines (and out of DuckDB's parallel
sums, run to run) differing in their last bits. Ordering by the raw float would then list
tied clusters in a different order, or pick different ones for a top-K, per engine and per
run. `rank_key` makes values that agree to RANK_DIGITS significant digits equal, so ties
are broken by id everywhere. It computes exactly what the SQL helper
`abcde.templates.rank_key` computes.
"""

from __future__ import annotations

import math

from abcde.templates import RANK_DIGITS


def rank_key(x: float | None) -> float:
    """4·10^d·k + round(x·e^−k·10^d), k = floor(ln x + 1/2), d = RANK_DIGITS; −inf for
    x ≤ 0 or None (ranked last in a descending order)."""
    if x is None or not x > 0:
        return -math.inf
    k = math.floor(math.log(x) + 0.5)
    scale = float(10 ** RANK_DIGITS)
    return 4 * scale * k + math.floor(x * math.exp(-k) * scale + 0.5)
