"""Sampling at scale with exponential clocks (ABCDE App. A; docs/method.md §7).

Every element e of a population gets a first draw time key(e) = −ln(U_e)/w_e, with U_e
the reproducible md5 uniform of docs/method.md §10 (`abcde.sql.helpers.uniform`), identical on
every engine for the same seed and key:

- without replacement: the N elements with the smallest keys (App. A, step 1);
- with replacement (steps 2–3): M = the largest key among the N; element e is drawn
  dc(e) = 1 + Poisson(w_e·(M − key(e))) times. The Poisson part runs here in Python
  (numpy) on the N returned rows, in order of first draw, seeded from the seed;
- the budget fill (steps 3.1–3.2): a persisted stream of draws in draw order, walked
  until B unique judgeable pairs are seen (`sql_templates/pairs/budget.sql`, used by
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

import numpy as np

from abcde.errors import InputError
from abcde.sql.pipeline import Pipeline
from abcde.sql.quoting import literal
from abcde.sql.templates import render

# Stream numbers that keep the Python randomness of different uses apart.
POISSON_STREAM = 0x5A3D
# numpy's Poisson draws exactly up to this λ; above, a rounded normal (draw_counts).
POISSON_EXACT_MAX = 1e12
# Draw counts stay int64 integers while their total is exactly representable in a double.
EXACT_COUNT_MAX = 2**53


def check_seed(seed: int) -> int:
    """Seeds are non-negative integers (they become part of the md5 key text)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


def check_count(name: str, value: object, *, minimum: int = 1,
                maximum: int | None = None) -> int:
    """A size, budget or number of draws: an integer in [minimum, maximum] (not a float
    such as 2.5, which would be truncated silently, nor a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"between {minimum:,} and {maximum:,}" if maximum is not None else \
            f">= {minimum:,}"
        raise ValueError(f"{name} must be {bound}, got {value:,}")
    return int(value)


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
    if n < 1:
        raise ValueError("a clock sample needs n >= 1")
    seed_sql = literal(check_seed(seed)) if isinstance(seed, int) else seed
    query = render("sampling/clock.sql", source=source, columns=list(columns), weight=weight,
                   keys=list(keys), seed=seed_sql, stream=stream, n=int(n),
                   partition_by=list(partition_by))
    return pipeline.add(name, query, materialise=True)


def rng(seed: int, stream: int) -> np.random.Generator:
    """numpy's generator for one (seed, stream): the same numbers on every machine."""
    return np.random.default_rng(np.random.SeedSequence([check_seed(seed), stream]))


def draw_counts(keys: Sequence[float] | np.ndarray, weights: Sequence[float] | np.ndarray,
                seed: int) -> np.ndarray:
    """dc(e) = 1 + Poisson(w_e·(M − key(e))) with M = max key (ABCDE App. A, steps 2–3).

    `keys` and `weights` must be in order of first draw (clock_rank), so that the same
    seed and sample give the same counts on every engine.

    Weights that span many orders of magnitude make λ = w_e·(M − key(e)) huge: the heavy
    element is drawn that many times before the light one's first draw. numpy's Poisson
    is exact up to λ = POISSON_EXACT_MAX (1e12); above it λ + √λ·Z rounded (Z standard
    normal) replaces it — the Poisson's skewness there is 1/√λ ≤ 1e-6. Counts are exact
    int64 integers while their total is at most 2^53; beyond that (only with weights
    spanning more than ~15 orders of magnitude) they are float64, rounded to 16 digits.
    """
    k = np.asarray(keys, dtype=float)
    w = np.asarray(weights, dtype=float)
    if k.size == 0:
        return np.zeros(0, dtype=np.int64)
    lam = np.maximum(w * (k.max() - k), 0.0)
    if not np.isfinite(lam).all():
        raise InputError("the item weights × Jaccard distances span too wide a range for a "
                         "sample with replacement (a draw count overflows a double)",
                         hint="Sample fewer items (--size), or check the weights.")
    gen = rng(seed, POISSON_STREAM)
    big = lam > POISSON_EXACT_MAX
    extra = np.zeros(lam.size)
    extra[~big] = gen.poisson(lam[~big])  # with no huge λ: exactly the plain Poisson draw
    if big.any():
        z = gen.standard_normal(int(big.sum()))
        extra[big] = np.maximum(np.rint(lam[big] + np.sqrt(lam[big]) * z), 0.0)
    counts = 1.0 + extra
    if math.fsum(counts) <= EXACT_COUNT_MAX:
        return counts.astype(np.int64)
    return counts


def digits_for(n: int) -> int:
    """How many digit tables `pairs/draw_ids.sql` needs for draw numbers 0..n−1."""
    return max(1, len(str(max(n - 1, 0))))


