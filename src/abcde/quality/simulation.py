"""Sizing the judgement budget: the interval each quality metric would have for a
given budget, by simulating judgement rounds with a ground truth as the judge
(ABCDE §5.8, App. A; Jaccard decomposition §7–8).

For each replication r (seed + r) the real SQL sampler draws one stream and walks it
until the largest budget is filled (ABCDE App. A 3.1–3.2); every smaller budget b is
the prefix of the same stream cut at its b-th unique judgeable pair — exactly the
sample `sample_pairs(budget=b, seed=seed + r)` would give, since the stream is indexed
by draw number. Each sample is judged by the truth (same truth cluster ⇒ equivalent,
an item the truth lacks ⇒ unknown; optionally a further share of pairs made unknown at
random) and estimated; the report gives, per budget and metric, the mean half-width of
the 95% intervals over the replications, the spread (sd) of the estimates across them —
z·sd is the half-width an honest interval needs, so under-coverage shows as a mean
half-width well below it — and how often the metric was undefined. The half-width
shrinks ∝ 1/√budget, so the table also tells what a larger budget would buy.

With ``stratify`` (an allocation: proportional, equal or a fraction) the rounds use
`abcde.sampling.stratified` instead, one sampling run per budget and replication.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from abcde import progress
from abcde.engines import Engine
from abcde.inputs.session import EngineOptions, open_inputs
from abcde.inputs.spec import InputSpec
from abcde.quality.estimate import Sample, estimate_with_verdicts
from abcde.quality.intervals import DEFAULT_SE, z_value
from abcde.quality.judgements import SamplePairs, judge_pairs, read_truth, truth_judge
from abcde.quality.metrics import metric_keys
from abcde.results import plain_row
from abcde.sampling.clocks import check_seed
from abcde.sampling.pairs import _sorted, fill_budget, prepare

DEFAULT_BUDGETS = (100, 300, 1000, 3000)


def cut_stream(stream: Sequence[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The sample a budget takes from a stream of draws.

    The draws (in draw order) up to the one that brings the budget-th unique judgeable
    pair, aggregated into unique ordered pairs with draw counts and pair ids numbered by
    first draw (as sql_templates/pairs/sample.sql does).

    Parameters
    ----------
    stream : sequence of mappings
        Draws in draw order, with item_i, item_j, pair_class and label.
    budget : int
        Unique judgeable (non-self, unordered) pairs.

    Returns
    -------
    list of dict
        Draw rows pair_id, item_i, item_j, pair_class, label, draw_count.

    Raises
    ------
    ValueError
        When the stream holds fewer judgeable pairs than the budget.

    References
    ----------
    docs/method.md §7.4–7.5 (the pair stream, budget fill). ABCDE App. A 3.1–3.2
    (S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
    arXiv:2407.21430).
    """
    seen: set[tuple[Any, Any]] = set()
    end = None
    for k, r in enumerate(stream):
        if r["item_i"] != r["item_j"]:
            key = tuple(sorted((str(r["item_i"]), str(r["item_j"]))))
            if key not in seen:
                seen.add(key)
                if len(seen) == budget:
                    end = k
                    break
    if end is None:
        raise ValueError(f"the stream holds fewer than {budget} judgeable pairs")
    rows: dict[tuple[Any, Any], dict[str, Any]] = {}
    ids: dict[tuple[str, str], int] = {}
    for r in stream[: end + 1]:
        ordered = (r["item_i"], r["item_j"])
        if ordered in rows:
            rows[ordered]["draw_count"] += 1
            continue
        unordered = tuple(sorted((str(r["item_i"]), str(r["item_j"]))))
        pid = ids.setdefault(unordered, len(ids) + 1)  # type: ignore[arg-type]
        rows[ordered] = {"pair_id": pid, "item_i": r["item_i"], "item_j": r["item_j"],
                         "pair_class": r["pair_class"], "label": r["label"], "draw_count": 1}
    return list(rows.values())


def simulate(base: object, exp: object, weights: object | None = None, *, truth: object,
             population: str = "jaccard", budgets: Sequence[int] = DEFAULT_BUDGETS,
             replications: int = 20, seed: int = 0, unknown_share: float = 0.0,
             stratify: str | float | None = None, confidence: float = 0.95,
             item_col: str = "item_id", cluster_col: str = "cluster_id",
             weight_col: str = "weight", missing_weight: float | None = None,
             engine: Engine | None = None, db: str | Path | None = None,
             memory_limit: str | None = None, threads: int | None = None) -> dict[str, Any]:
    """Expected confidence-interval half-width of every quality metric per budget.

    Parameters
    ----------
    base, exp, weights : table, file, mapping or DataFrame
        The clusterings and optional item weights, as for ``abcde.sample_pairs``.
    truth : mapping, DataFrame, str or Path
        The ground truth that plays the judge (:func:`~abcde.quality.judgements.read_truth`).
    population : {"abcde", "jaccard"}
        The pair population to sample.
    budgets : sequence of int
        Budgets (unique judgeable pairs) to compare.
    replications : int
        Simulated rounds per budget (seeds ``seed``, ``seed + 1``, …).
    seed : int
        The first round's seed.
    unknown_share : float
        Share of pairs made 'unknown' at random, in [0, 1).
    stratify : str, float or None
        A stratified allocation (proportional, equal or a fraction), or None.
    confidence : float
        The intervals' level.
    item_col, cluster_col, weight_col, missing_weight, engine, db, memory_limit, threads
        Input and engine options, as for ``abcde.sample_pairs``.

    Returns
    -------
    dict
        ``{"population", "budgets", "replications", "stratify", "metrics": {metric:
        {budget: {"half_width", "se", "estimate", "estimate_sd", "spread_half_width",
        "undefined"}}}, "rows": [...]}`` — ``half_width`` the mean (ci_high − ci_low)/2 of
        the reported intervals, ``spread_half_width`` z × ``estimate_sd`` (the sd of the
        estimates over the replications); ``rows`` is one flat record per (budget,
        metric), handy for a DataFrame in a notebook.

    Raises
    ------
    ValueError
        On budgets or replications < 1 or an unknown share outside [0, 1).

    References
    ----------
    docs/method.md §7.4–7.5, §8. ABCDE §5.8, App. A (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §7–8 (S. van Staden. Decomposing the Jaccard Distance and the Jaccard
    Index in ABCDE. Google Switzerland, 2024).
    """
    budgets = sorted({int(b) for b in budgets})
    if not budgets or budgets[0] < 1 or replications < 1:
        raise ValueError("budgets must be >= 1 and replications >= 1")
    if not 0 <= unknown_share < 1:
        raise ValueError("unknown_share must be in [0, 1)")
    seed = check_seed(seed)
    z = z_value(confidence)
    truth_map = read_truth(truth, item_col, cluster_col)
    base_judge = truth_judge(truth_map)
    results: dict[int, list[dict[str, Any]]] = {b: [] for b in budgets}
    spec = InputSpec.of(base, exp, weights, item_col=item_col, cluster_col=cluster_col,
                        weight_col=weight_col, missing_weight=missing_weight)
    with EngineOptions(engine, db, memory_limit, threads).open() as eng:
        if stratify is None:
            inputs = open_inputs(eng, spec)
            pipeline, _ = prepare(eng, inputs, population, prefix="abcde_sim_")
            totals = plain_row(pipeline.fetch(eng, "pair_totals")[0])
            overall = plain_row(pipeline.fetch(eng, "overall")[0])
            manifest = {"population": population, "metrics": overall,
                        "weight": overall["weight"], "sample_id": "simulation",
                        "totals": {k: float(totals[k])
                                   for k in ("total", "split", "merge", "stable")}}
        for r in progress.track(range(replications), "simulated rounds"):
            rng = random.Random(seed * 1_000_003 + r)
            if stratify is None:
                p, _, _ = fill_budget(eng, pipeline, budgets[-1], seed + r)
                p.add("sim_stream", _sorted("pair_stream", ("d",)))
                stream = [plain_row(x) for x in p.fetch(eng, "sim_stream")]
            for b in budgets:
                if stratify is None:
                    s = Sample(cut_stream(stream, b), manifest, "simulation")
                else:
                    from abcde.sampling.stratified import sample_pairs_stratified

                    ps = sample_pairs_stratified(
                        base, exp, weights, population=population, budget=b,
                        allocation=stratify, seed=seed + r, item_col=item_col,
                        cluster_col=cluster_col, weight_col=weight_col,
                        missing_weight=missing_weight, engine=eng)
                    s = Sample(ps.draws, ps.manifest, "simulation")
                verdicts = _judge(s.pairs, base_judge, unknown_share, rng)
                results[b].append(estimate_with_verdicts(s, verdicts, confidence=confidence,
                                                         se_method=DEFAULT_SE))
    return _summary(results, population, replications, z, stratify)


def _judge(pairs: SamplePairs, judge: Any, unknown_share: float,
           rng: random.Random) -> dict[str, str]:
    verdicts = judge_pairs(judge, pairs)
    if unknown_share:
        for pid in sorted(verdicts, key=lambda x: (len(x), x)):
            if rng.random() < unknown_share:
                verdicts[pid] = "unknown"
    return verdicts


def _summary(results: dict[int, list[dict[str, Any]]], population: str, replications: int,
             z: float, stratify: Any) -> dict[str, Any]:
    """Per (metric, budget): the mean half-width of the intervals actually reported
    ((ci_high − ci_low)/2: Wilson intervals are asymmetric and never zero-wide, so
    z·mean(SE) would understate them), the mean SE, and the spread of the estimates
    over the replications — z·estimate_sd is the half-width an interval needs to
    cover; a mean half-width well below it means the intervals under-cover."""
    metrics: dict[str, dict[int, dict[str, Any]]] = {}
    rows = []
    for key in metric_keys(population):
        metrics[key] = {}
        for b, docs in results.items():
            ses = [d[key]["se"] for d in docs if d[key]["se"] is not None]
            ests = [d[key]["estimate"] for d in docs if d[key]["estimate"] is not None]
            halves = [(d[key]["ci_high"] - d[key]["ci_low"]) / 2 for d in docs
                      if d[key]["ci_low"] is not None and d[key]["ci_high"] is not None]
            sd = _sd(ests)
            cell = {"half_width": math.fsum(halves) / len(halves) if halves else None,
                    "se": math.fsum(ses) / len(ses) if ses else None,
                    "estimate": math.fsum(ests) / len(ests) if ests else None,
                    "estimate_sd": sd,
                    "spread_half_width": None if sd is None else z * sd,
                    "undefined": len(docs) - len(halves)}
            metrics[key][b] = cell
            rows.append({"budget": b, "metric": key, **cell})
    return {"population": population, "budgets": sorted(results), "replications":
            replications, "stratify": stratify, "metrics": metrics, "rows": rows}


def _sd(xs: Sequence[float]) -> float | None:
    if len(xs) < 2:
        return None
    m = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def render_table(doc: dict[str, Any]) -> str:
    """The text report of ``abcde simulate``.

    Parameters
    ----------
    doc : dict
        The result of :func:`simulate`.

    Returns
    -------
    str
        Metrics × budgets: the mean 95% half-width of the reported intervals and, in
        brackets, z × the sd of the estimates over the replications (what the half-width
        should be), in percentage points.

    References
    ----------
    docs/method.md §8.8.
    """
    from abcde.quality.wording import LABELS
    from abcde.text import table

    budgets = doc["budgets"]
    rows = []
    for key, per in doc["metrics"].items():
        row: dict[str, Any] = {"metric": LABELS.get(key, key)}
        for b in budgets:
            c = per[b]
            cell = "-" if c["half_width"] is None else f"±{100 * c['half_width']:.3f}%"
            if c["spread_half_width"] is not None:
                cell += f" (z·sd {100 * c['spread_half_width']:.3f}%)"
            if c["undefined"]:
                cell += f" ({c['undefined']} undef.)"
            row[str(b)] = cell
        rows.append(row)
    head = (f"mean 95% CI half-width per budget, and z·sd of the estimates across "
            f"replications ({doc['population']} population, {doc['replications']} "
            f"replications{', stratified ' + str(doc['stratify']) if doc['stratify'] else ''})"
            "\na half-width well below z·sd means the intervals under-cover; with few "
            "replications z·sd is itself rough")
    return head + "\n" + table(rows, ["metric", *[str(b) for b in budgets]])
