"""Sampling at scale with exponential clocks (ABCDE App. A; SPEC §7).

Every element e of a population gets a first draw time key(e) = −ln(U_e)/w_e, with U_e
the reproducible md5 uniform of ENGINES.md (`abcde.templates.uniform`), identical on
every engine for the same seed and key:

- without replacement: the N elements with the smallest keys (App. A, step 1);
- with replacement (steps 2–3): M = the largest key among the N; element e is drawn
  dc(e) = 1 + Poisson(w_e·(M − key(e))) times. The Poisson part runs here in Python
  (numpy) on the N returned rows, in order of first draw, seeded from the seed;
- the budget fill (steps 3.1–3.2): a persisted stream of draws in draw order, walked
  until B unique judgeable pairs are seen (`sql_templates/pairs/budget.sql`, used by
  `abcde.pairs`).

Decision (pairs): the successive draws of a superposition of exponential clocks are, in
distribution, independent draws with P(e) = w_e/Σw (competing exponentials). The pair
stream of `abcde.pairs` is generated directly in that form — draw number d = 0, 1, ...
is the draw-time order — because the pair population cannot be enumerated to give each
pair its own clock (SPEC §6). Items (`sample_items`) are enumerable and use the clocks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from abcde.engines.base import Engine
from abcde.pipeline import Pipeline
from abcde.templates import literal, render

# Stream numbers that keep the Python randomness of different uses apart.
POISSON_STREAM = 0x5A3D


def check_seed(seed: int) -> int:
    """Seeds are non-negative integers (they become part of the md5 key text)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


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
    """
    k = np.asarray(keys, dtype=float)
    w = np.asarray(weights, dtype=float)
    if k.size == 0:
        return np.zeros(0, dtype=np.int64)
    lam = np.maximum(w * (k.max() - k), 0.0)
    return 1 + rng(seed, POISSON_STREAM).poisson(lam).astype(np.int64)


def digits_for(n: int) -> int:
    """How many digit tables `pairs/draw_ids.sql` needs for draw numbers 0..n−1."""
    return max(1, len(str(max(n - 1, 0))))


def fingerprint(engine: Engine, pipeline: Pipeline, extra: dict[str, Any]) -> dict[str, Any]:
    """A short hash of the compared inputs (cells, weights) and of `extra` (e.g. row
    counts of the inputs), cheap to compute: sums over cells of md5 uniforms. Floats are
    rounded to 10 significant digits first, since engines sum in different orders."""
    if "fingerprint" not in pipeline.steps:
        pipeline.add("fingerprint", render("sampling/fingerprint.sql"))
    row = pipeline.fetch(engine, "fingerprint")[0]
    parts = {k: (int(v) if k in ("cells", "items") else float(f"{float(v):.10g}"))
             for k, v in row.items()}
    parts.update(extra)
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode())
    return {"sha256": digest.hexdigest()[:16], **parts}
