"""Sampling at scale with exponential clocks (ABCDE App. A; docs/method.md §7).

Every element e of a population gets a first draw time key(e) = −ln(U_e)/w_e, with U_e
the reproducible md5 uniform of docs/method.md §10 (`abcde.sql.helpers.uniform`), identical on
every engine for the same seed and key:

- without replacement: the N elements with the smallest keys (App. A, step 1);
- with replacement (steps 2–3): M = the largest key among the N; element e is drawn
  dc(e) = 1 + Poisson(w_e·(M − key(e))) times. The Poisson draw runs in SQL too
  (`sampling/draw_counts.sql`, from md5 uniforms keyed by the element's id), so that a
  warehouse script (`abcde sql sample-items`) draws the same counts as the engines;
- the budget fill (steps 3.1–3.2): a persisted stream of draws in draw order, walked
  until B unique judgeable pairs are seen (`sql_templates/pairs/fill.sql`, used by
  `abcde.sampling.pairs`).

Decision (pairs): the successive draws of a superposition of exponential clocks are, in
distribution, independent draws with P(e) = w_e/Σw (competing exponentials). The pair
stream of `abcde.sampling.pairs` is generated directly in that form — draw number d = 0, 1, ...
is the draw-time order — because the pair population cannot be enumerated to give each
pair its own clock (docs/method.md §6). Items (`sample_items`) are enumerable and use the clocks.
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
    """Add a materialised step: the `n` smallest exponential-clock keys of `source`
    (per partition), ABCDE App. A step 1.

    `source` is a pipeline step (or table) holding `columns`; `weight` an SQL expression
    over them (elements with weight <= 0 never draw); `keys` integer or string columns
    that identify an element (they, `stream` and the seed make the md5 key; they also
    break ties). `seed` is an integer, or an SQL expression (e.g. a column when many
    seeds run at once, partitioned by it). Output: `columns`, `clock_weight`,
    `clock_key`, `clock_rank` (1 = first drawn).
    """
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
    """Add a materialised step `name`: (clock_rank, draw_count) for every element of the
    clock sample `clock` (`add_clock_step`), dc = 1 + Poisson(w·(M − key)) drawn in SQL
    (ABCDE App. A, steps 2–3; `sampling/draw_counts.sql`, docs/method.md §7.2). `id_col`
    names the element's id (integer or string): it keys the uniforms, so an element
    gets the same count whatever the engine or the order of the rows. `seed` is an
    integer, or an SQL expression (a column, with `partition` naming the column that
    separates many samples of one clock step, as `add_clock_step`'s `partition_by`)."""
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


