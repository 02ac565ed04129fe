"""The population's pointwise metrics from a benchmark of complete true clusters drawn by a
known design, with intervals and paired differences (docs/method.md §4.4).

For an item i of a complete true cluster t, Precision(i) = w(C(i) ∩ t)/w(C(i)) and
Recall(i) = w(C(i) ∩ t)/w(t) are exact from the run's whole cluster C(i) ([PW] eq. 11–15
with the run's items as T). The engine sums them per sampled cluster: x_t = w(t),
y_t = Σ_{i∈t} w_i m(i) (`evaluate/benchmark_clusters.sql`). A metric over the population,
Σ_i w_i m(i) / Σ_i w_i, is then the ratio of two totals over clusters, estimated by the
Hájek ratio θ̂ = Σ d_t y_t / Σ d_t x_t with d_t = 1/π_t (∝ 1/size for clusters drawn
∝ size, 1 for a uniform draw, or the inclusion probabilities given). Its variance is the
with-replacement (Hansen–Hurwitz [HH]) variance of the linearised values
e_t = d_t (y_t − θ̂ x_t) / Σ d x: v = n/(n − 1) Σ (e_t − ē)² [SSW]. Two runs
evaluated on the same clusters are paired: the difference has e_t^B − e_t^A. F1 of the
overall P and R is linearised through its partial derivatives.

[PW] S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland, 2024.
arXiv:2405.10421. [BI] O. Binette, S. A. York, E. Hickerson, Y. Baek, S. Madhavan,
C. Jones. Estimating the performance of entity resolution algorithms: lessons learned
through PatentsView.org. The American Statistician 77(4) (2023) 370–380. [HH] M. H. Hansen,
W. N. Hurwitz. On the theory of sampling from finite populations. Ann. Math. Statist. 14
(1943) 333–362. [SSW] C.-E. Särndal, B. Swensson, J. Wretman. Model Assisted Survey
Sampling. Springer, 1992.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np

from abcde.errors import InputError
from abcde.evaluation.results import (
    MIN_CLUSTERS,
    MIN_LOSS_CLUSTERS,
    OVERALL_METRICS,
    POINTWISE_METRICS,
)

CONFIDENCE = 0.95
_Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)


@dataclass(frozen=True)
class Sample:
    """The sampled clusters of one run: their ids, design weights d_t = 1/π_t (up to a
    constant), weights x_t and sums y_t per metric."""

    ids: list[Hashable]
    d: np.ndarray
    x: np.ndarray
    y: dict[str, np.ndarray]

    @classmethod
    def of(cls, rows: Sequence[Mapping[str, Any]], design: str) -> Sample:
        """From the rows of `evaluate/benchmark_clusters.sql`, in the order of their ids
        (every run of one truth has the same clusters: paired by position); a column
        design's probabilities are checked here: one value in (0, 1] per cluster."""
        rows = sorted(rows, key=lambda r: r["cluster_id"])
        if design == "size":
            d = [1.0 / r["size"] for r in rows]
        elif design == "uniform":
            d = [1.0] * len(rows)
        else:
            bad = [r["cluster_id"] for r in rows
                   if r["p_rows"] != r["design_rows"] or r["p_min"] != r["p_max"]
                   or not 0 < r["p_min"] <= 1]
            if bad:
                raise InputError(f"column {design!r} must hold one inclusion probability in "
                                 f"(0, 1] for every row of a cluster; {len(bad)} cluster(s) "
                                 "do not", table="truth", examples=bad, option="truth_sample",
                                 hint="Give each cluster the probability with which it was "
                                      "drawn, or {option} size|uniform.")
            d = [1.0 / r["p_min"] for r in rows]
        x = np.array([float(r["weight"]) for r in rows])
        y = {m: x * np.array([float(r[m] or 0.0) for r in rows]) for m in POINTWISE_METRICS}
        return cls([r["cluster_id"] for r in rows], np.array(d), x, y)

    def part(self, x: np.ndarray, y: dict[str, np.ndarray]) -> Sample:
        """The same clusters with the sums of a part of their items (a slice)."""
        return Sample(self.ids, self.d, x, y)


class Estimate(NamedTuple):
    """A metric's estimate θ̂, its linearised values e_t (Σ e_t = 0) and its loss per
    cluster d_t·|x_t·m* − y_t| (m* the metric's perfect value), which says how many
    clusters carry what the estimate rests on."""

    theta: float
    e: np.ndarray
    loss: np.ndarray

    def minus(self, other: Estimate, y: np.ndarray) -> Estimate:
        """self − other on the same clusters; `y`: d_t·|y_t^self − y_t^other|."""
        return Estimate(self.theta - other.theta, self.e - other.e, y)


def influence(sample: Sample) -> dict[str, Estimate]:
    """Each metric's `Estimate`; f1_of_overall = 2PR/(P + R) through ∂F/∂P = 2R²/(P + R)²,
    ∂F/∂R = 2P²/(P + R)²."""
    d, x = sample.d, sample.x
    total = float(d @ x)
    out = {}
    for m, y in sample.y.items():
        theta = float(d @ y) / total
        perfect = 0.0 if m == "jaccard_distance" else 1.0
        out[m] = Estimate(theta, d * (y - theta * x) / total, d * np.abs(perfect * x - y))
    p, r = out["precision"], out["recall"]
    s = p.theta + r.theta
    out["f1_of_overall"] = Estimate(
        2 * p.theta * r.theta / s if s > 0 else 0.0,
        (2 * r.theta**2 * p.e + 2 * p.theta**2 * r.e) / (s * s) if s > 0 else 0 * x,
        p.loss + r.loss)
    return {m: out[m] for m in OVERALL_METRICS}


def kish(values: np.ndarray) -> float:
    """Kish's effective number, (Σ v)²/Σ v² (0 for no weight)."""
    return float(values.sum() ** 2 / (values * values).sum()) if values.any() else 0.0


def interval(est: Estimate, lo: float = 0.0, hi: float = 1.0,
             clusters: float = math.inf) -> dict[str, Any]:
    """θ̂ with its standard error n/(n − 1) Σ (e_t − ē)² and the normal interval, cut to
    the range [lo, hi] the metric lies in; conclusive with `clusters` effective clusters
    and MIN_LOSS_CLUSTERS effective clusters carrying its loss (docs/method.md §4.4)."""
    e, n = est.e, len(est.e)
    se = math.sqrt(n / (n - 1) * float(((e - e.mean()) ** 2).sum())) if n > 1 else math.nan
    half = _Z * se
    return {"estimate": est.theta, "se": se,
            "low": max(lo, est.theta - half) if n > 1 else None,
            "high": min(hi, est.theta + half) if n > 1 else None,
            "conclusive": clusters >= MIN_CLUSTERS and kish(est.loss) >= MIN_LOSS_CLUSTERS}


def effective_clusters(sample: Sample) -> float:
    """Kish's effective number of clusters, (Σ d x)²/Σ (d x)²."""
    return kish(sample.d * sample.x)


def population_doc(sample: Sample, design: str,
                   slices: Sequence[tuple[list[str], list[dict[str, Any]]]],
                   ) -> dict[str, Any]:
    """A run's `population` in the JSON: the design, the clusters, each metric with its
    interval, and per slice value the same where enough clusters carry it."""
    n_eff = effective_clusters(sample)
    doc = {"design": design, "clusters": len(sample.ids), "effective_clusters": n_eff,
           "conclusive": n_eff >= MIN_CLUSTERS, "confidence": CONFIDENCE,
           "metrics": {m: interval(est, clusters=n_eff)
                       for m, est in influence(sample).items()},
           "slices": []}
    where = {c: k for k, c in enumerate(sample.ids)}
    for slicing, rows in slices:
        parts: dict[tuple, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
        for r in rows:
            key = tuple(r[c] for c in slicing)
            x, y = parts.setdefault(key, (np.zeros(len(where)),
                                          {m: np.zeros(len(where)) for m in POINTWISE_METRICS}))
            k = where[r["b"]]
            x[k] = float(r["weight"])
            for m in POINTWISE_METRICS:
                y[m][k] = x[k] * float(r[m] or 0.0)
        out = []
        for key, (x, y) in parts.items():
            part = sample.part(x, y)
            n_eff = effective_clusters(part)
            out.append({**dict(zip(slicing, key, strict=True)),
                        "clusters": int((x > 0).sum()), "effective_clusters": n_eff,
                        "conclusive": n_eff >= MIN_CLUSTERS,
                        "share": float(sample.d @ x) / float(sample.d @ sample.x),
                        "metrics": {m: interval(est, clusters=n_eff)
                                    for m, est in influence(part).items()}})
        out.sort(key=lambda s: (-s["share"], *map(str, (s[c] for c in slicing))))
        doc["slices"].append({"slice_by": slicing, "rows": out})
    return doc


def paired_doc(a: Sample, b: Sample) -> dict[str, dict[str, Any]]:
    """b − a of every metric, paired on the same clusters (e_t^B − e_t^A); conclusive
    when enough clusters carry the difference, d_t·|y_t^B − y_t^A|."""
    ea, eb = influence(a), influence(b)
    moved = {m: a.d * np.abs(b.y[m] - a.y[m]) for m in POINTWISE_METRICS}
    moved["f1_of_overall"] = moved["precision"] + moved["recall"]
    n_eff = min(effective_clusters(a), effective_clusters(b))
    return {m: interval(eb[m].minus(ea[m], moved[m]), -1.0, 1.0, n_eff) for m in ea}
