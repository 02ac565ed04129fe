"""Sampling at scale with exponential clocks (ABCDE App. A; docs/method.md §7.1–7.2):
each element gets the key −ln(U_e)/w_e from the md5 uniform of docs/method.md §10, the
same on every engine for a seed; without replacement the N smallest keys, with
replacement dc(e) = 1 + Poisson(w_e·(M − key(e))) drawn in SQL (`sampling/draw_counts.sql`),
so that a warehouse script draws the same counts as the engines. The pair stream
(`abcde.sampling.pairs`) draws in the clocks' order directly (docs/method.md §7.4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from abcde.sql.pipeline import Pipeline
from abcde.sql.quoting import literal
from abcde.sql.templates import render

# The Poisson draw of `sampling/draw_counts.sql` inverts the CDF exactly up to this λ and
# uses the Cornish–Fisher quantile above it (docs/method.md §7.2).
POISSON_EXACT_MAX = 100
# Draw counts are integers exactly representable in a double up to here.
EXACT_COUNT_MAX = 2**53


def add_clock_step(pipeline: Pipeline, name: str, source: str, *, columns: Sequence[str],
                   weight: str, keys: Sequence[str], seed: int | str, n: int,
                   stream: str = "clock", partition_by: Sequence[str] = ()) -> str:
    """Add a materialised step: the `n` smallest exponential-clock keys of `source` per
    partition (ABCDE App. A step 1). `weight` is an SQL expression of `columns` (≤ 0 never
    draws), `keys` identify an element (with `stream` and the seed: the md5 key; they break
    ties), `seed` an integer or an SQL expression. Adds `clock_weight`, `clock_key` and
    `clock_rank` (1 = first drawn)."""
    seed_sql = literal(seed) if isinstance(seed, int) else seed
    query = render("sampling/clock.sql", source=source, columns=list(columns), weight=weight,
                   keys=list(keys), seed=seed_sql, stream=stream, n=int(n),
                   partition_by=list(partition_by))
    return pipeline.add(name, query, materialise=True)


def poisson_terms() -> list[tuple[int, str]]:
    """(k, ln k!) for every k the exact inversion of `sampling/draw_counts.sql` reaches
    (k ≤ λ + 9√λ + 10 at λ = POISSON_EXACT_MAX), ln k! written with 17 significant digits
    (math.lgamma): literals, so that every engine sums the same numbers."""
    k_max = math.ceil(POISSON_EXACT_MAX + 9 * math.sqrt(POISSON_EXACT_MAX) + 10)
    return [(k, repr(math.lgamma(k + 1.0))) for k in range(k_max + 1)]


def add_draw_count_steps(pipeline: Pipeline, name: str, clock: str, *, id_col: str,
                         seed: int | str, partition: str | None = None) -> str:
    """Add a materialised step `name`: (clock_rank, draw_count) of every element of the
    clock sample `clock`, dc = 1 + Poisson(w·(M − key)) drawn in SQL (ABCDE App. A steps
    2–3; docs/method.md §7.2), keyed by `id_col` so that an element gets the same count on
    every engine; `seed` an integer or an SQL expression, per `partition`."""
    if "poisson_terms" not in pipeline.steps:
        pipeline.add("poisson_terms", render("sampling/poisson_terms.sql",
                                             terms=poisson_terms()))
    seed_sql = literal(seed) if isinstance(seed, int) else seed
    return pipeline.add(name, render("sampling/draw_counts.sql", clock=clock, id_col=id_col,
                                     seed=seed_sql, exact_max=float(POISSON_EXACT_MAX),
                                     partition=partition),
                        materialise=True)


def count_value(value: object) -> int | float:
    """A draw count (or a sum of them) as Python returns it: an int while it is an exact
    integer (≤ 2^53), else the float."""
    f = float(value)  # type: ignore[arg-type]
    return int(f) if f.is_integer() and abs(f) <= EXACT_COUNT_MAX else f


def digits_for(n: int) -> int:
    """How many digit tables `pairs/draw_ids.sql` needs for draw numbers 0..n−1."""
    return max(1, len(str(max(n - 1, 0))))


