"""Adversarial clustering worlds for the quality estimators (issue #11): the regimes
where a pair sample drawn from one population is dominated by pairs it almost never
draws. Shared by the statistical tests (small sizes) and
`benchmarks/run_quality_worlds.py` (the issue's sizes).

Every world has Base, Exp, a truth clustering that covers T (the judge) and item
weights, as mappings with integer item ids. Sizes are parameters: the tests use small
worlds (seconds per replication batch), the benchmark the sizes of the issue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class World:
    name: str
    base: dict[int, int]
    exp: dict[int, int]
    truth: dict[int, int]
    weight: dict[int, float]
    unknown_share: float = 0.0  # share of judgeable pairs whose verdict is made unknown


def _truth(moved: dict[int, int], stay: dict[int, int], wrong: float, seed: int,
           ) -> dict[int, int]:
    """`moved` (the clustering that is right) except for a share `wrong` of the items it
    moves, which truly belong where `stay` puts them."""
    rng = np.random.default_rng(seed)
    return {i: stay[i] if moved[i] != stay[i] and rng.random() < wrong else moved[i]
            for i in moved}


def split_out(clusters: int = 100, size: int = 1000, share: float = 0.3,
              wrong: float = 0.0, seed: int = 1) -> World:
    """The issue's reproduction: `clusters` Base clusters of `size` items; Exp splits the
    first `share` of each into singletons; the split is right (truth = Exp) except for
    a share `wrong` of the split-out items (truly in their Base cluster). Exact
    ΔPrecision +0.5097 at the default sizes."""
    n = clusters * size
    base = {i: i // size for i in range(n)}
    cut = round(share * size)
    exp = {i: (n + i if i % size < cut else i // size) for i in range(n)}
    return World("split_out", base, exp, _truth(exp, base, wrong, seed),
                 dict.fromkeys(range(n), 1.0))


def glued(clusters: int = 100, size: int = 1000, share: float = 0.3,
          wrong: float = 0.0, seed: int = 1) -> World:
    """The mirror of :func:`split_out`: singletons glued into big clusters, a bad merge
    (truth = Base, except for a share `wrong` of the glued items that truly belong)."""
    w = split_out(clusters, size, share)
    return World("glued", w.exp, w.base, _truth(w.exp, w.base, 1 - wrong, seed), w.weight)


def pairs_out(clusters: int = 100, size: int = 1000, share: float = 0.3,
              wrong: float = 0.0, seed: int = 1) -> World:
    """Like :func:`split_out`, but the split-out items leave in pairs (two-item Exp
    clusters), truth = Exp (but for a share `wrong`). Their stable pairs carry
    ΔPrecision ≈ +0.15 with importance weights |l| = U|W_b − W_e|/(W_b W_e) ≈ size/2 on
    the jaccard population: what the exact self pairs alone cannot fix."""
    n = clusters * size
    base = {i: i // size for i in range(n)}
    cut = round(share * size) // 2 * 2
    exp = {i: (n + i // 2 if i % size < cut else i // size) for i in range(n)}
    return World("pairs_out", base, exp, _truth(exp, base, wrong, seed),
                 dict.fromkeys(range(n), 1.0))


def shattered(size: int = 200_000, others: int = 33_340, other_size: int = 10,
              wrong: float = 0.0, seed: int = 1) -> World:
    """One Base cluster of `size` items shattered into singletons in Exp (truth = Exp,
    but for a share `wrong` of the items, which truly stay together), beside `others`
    unchanged items in clusters of `other_size`. Exact ΔPrecision +85.7% at the default
    sizes."""
    n = size + others
    base = {i: (0 if i < size else 1 + (i - size) // other_size) for i in range(n)}
    exp = {i: (n + i if i < size else base[i]) for i in range(n)}
    return World("shattered", base, exp, _truth(exp, base, wrong, seed),
                 dict.fromkeys(range(n), 1.0))


def noisy(n: int = 2000, seed: int = 1, cluster: int = 10, unknown_share: float = 0.0,
          name: str = "noisy") -> World:
    """A realistic control: truth clusters of ~`cluster` items; Base = truth with 25%
    of the items misplaced; Exp repairs half of Base's errors and misplaces 15% anew;
    log-normal(0, 1) weights."""
    rng = np.random.default_rng(seed)
    k = n // cluster
    truth = {i: int(rng.integers(k)) for i in range(n)}
    base = {i: truth[i] if rng.random() < 0.75 else int(rng.integers(k)) for i in range(n)}
    exp = {}
    for i in range(n):
        u = rng.random()
        exp[i] = base[i] if u < 0.5 else truth[i] + k if u < 0.85 else int(rng.integers(2 * k))
    w = rng.lognormal(0.0, 1.0, n)
    return World(name, base, exp, truth, {i: float(w[i]) for i in range(n)}, unknown_share)


def unknown30(n: int = 2000, seed: int = 1) -> World:
    """:func:`noisy` with 30% of the judgeable pairs' verdicts unknown (at random)."""
    return noisy(n, seed, unknown_share=0.3, name="unknown30")


def wide(n: int = 2000, seed: int = 2) -> World:
    """:func:`noisy`'s clusterings with weights log-uniform over 1e-4 … 1e4, the heaviest
    on affected items: the affected items get the largest weights, the unaffected the
    smallest (heavy pairs in affected cells carry most of every metric)."""
    w0 = noisy(n, seed)
    rng = np.random.default_rng(seed + 100)
    weights = np.sort(10 ** rng.uniform(-4, 4, n))[::-1]
    base_members: dict[int, set[int]] = {}
    exp_members: dict[int, set[int]] = {}
    for i in range(n):
        base_members.setdefault(w0.base[i], set()).add(i)
        exp_members.setdefault(w0.exp[i], set()).add(i)
    affected = [i for i in range(n) if base_members[w0.base[i]] != exp_members[w0.exp[i]]]
    rest = [i for i in range(n) if base_members[w0.base[i]] == exp_members[w0.exp[i]]]
    order = [*(int(x) for x in rng.permutation(affected)), *(int(x) for x in rng.permutation(rest))]
    weight = {i: float(weights[k]) for k, i in enumerate(order)}
    return World("wide", w0.base, w0.exp, w0.truth, weight)


WORLDS: dict[str, Callable[..., World]] = {
    "split_out": split_out, "glued": glued, "pairs_out": pairs_out, "shattered": shattered,
    "noisy": noisy, "unknown30": unknown30, "wide": wide,
}
