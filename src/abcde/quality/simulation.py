"""Sizing the judgement budget and checking the estimators on one's own data: simulated
judgement rounds with a ground truth as the judge, their intervals, and — since the
truth fixes every metric's exact value — their bias and coverage (ABCDE §5.8, App. A;
Jaccard decomposition §7–8; docs/method.md §8.12–8.13).

For each replication r (seed + r) the real SQL sampler draws one stream and walks it
until the largest budget is filled (ABCDE App. A 3.1–3.2); every smaller budget b is
the prefix of the same stream cut at its b-th unique judgeable pair — exactly the
sample `sample_pairs(budget=b, seed=seed + r)` would give, since the stream is indexed
by draw number. Each sample is judged by the truth (same truth cluster ⇒ equivalent,
an item the truth lacks ⇒ unknown; optionally a further share of pairs made unknown at
random) and estimated. The exact value of every metric is computed from the truth in
SQL (`abcde.quality.exact`, per triple cell), when the truth covers T. The report gives,
per budget and metric: the mean estimate − exact (the bias, with its standard error
sd/√R), the share of the intervals that hold the exact value (the coverage; below
:func:`flag_coverage` of the level, 90% for 95% intervals, it is flagged), the mean
half-width of the intervals, and how often the metric was undefined or not conclusive.
When the truth does not cover T, the exact values, bias and coverage are unavailable
and the report says why.

With ``stratify`` (an allocation: proportional, equal or a fraction) the rounds use
`abcde.sampling.stratified` instead, one sampling run per budget and replication.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from abcde import progress
from abcde.errors import InputError
from abcde.inputs.session import Session
from abcde.params import CONFIDENCE, COUNT, MAX_SEED, SEED, IntList, Real, checked
from abcde.quality.estimate import Sample, estimate_with_verdicts
from abcde.quality.exact import ExactQuality, exact_quality
from abcde.quality.intervals import DEFAULT_SE, z_value
from abcde.quality.judgements import SamplePairs, judge_pairs, read_truth, truth_judge
from abcde.quality.metrics import METRIC_KEYS
from abcde.results import plain_row
from abcde.sampling.pairs import (
    Ceiling,
    Design,
    _sorted,
    design_for,
    fetch_totals,
    fill_budget,
    population_entries,
    prepare,
)

DEFAULT_BUDGETS = (100, 300, 1000, 3000)
FLAG_COVERAGE = 0.90
"""Below this share of 95% intervals holding the exact value, a metric is flagged
(:func:`flag_coverage` at 0.95)."""


def flag_coverage(confidence: float) -> float:
    """The coverage below which intervals of a level are flagged as too narrow.

    They are flagged when they miss the exact value more than twice as often as their
    level allows: 1 − 2·(1 − confidence), 90% for 95% intervals. A fixed 90% flagged every
    metric of a correct 80% interval and none of a 99% interval that missed 9% of the
    time (docs/method.md §8.13).

    Parameters
    ----------
    confidence : float
        The intervals' level, in (0, 1).

    Returns
    -------
    float

    References
    ----------
    docs/method.md §8.13.

    Examples
    --------
    >>> round(flag_coverage(0.95), 6), round(flag_coverage(0.8), 6), round(flag_coverage(0.99), 6)
    (0.9, 0.6, 0.98)
    """
    return 1 - 2 * (1 - confidence)


def simulation_ceiling() -> Ceiling:
    """The default cost ceiling, worded for `abcde simulate`: its largest --budgets is
    filled, and it has no --max-stream-draws.

    Parameters
    ----------
    None

    Returns
    -------
    Ceiling
        ``Ceiling.of()`` with simulate's option names.

    References
    ----------
    docs/method.md §7.5.
    """
    return replace(Ceiling.of(), budget_option="the largest of --budgets", draws_option=None)


def cut_stream(stream: Sequence[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The sample a budget takes from a stream of draws.

    The draws (in draw order) up to the one that brings the budget-th unique judgeable
    pair, aggregated into unique ordered pairs with draw counts and pair ids numbered by
    first draw (as sql_templates/pairs/sample.sql does).

    Parameters
    ----------
    stream : sequence of mappings
        Draws in draw order, with item_i, item_j, pair_class, label and u_over_w (every
        column but the draw number d is carried into the rows).
    budget : int
        Unique judgeable (unordered) pairs.

    Returns
    -------
    list of dict
        Draw rows pair_id, item_i, item_j, pair_class, label, u_over_w, …, draw_count.

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
        row = {k: v for k, v in r.items() if k != "d"}
        rows[ordered] = {**row, "pair_id": pid, "draw_count": 1}
    return list(rows.values())


def simulate(base: object, exp: object, weights: object | None = None, *, truth: object,
             population: str = "mixture", alpha: float | None = None,
             budgets: Sequence[int] = DEFAULT_BUDGETS,
             replications: int = 20, seed: int = 0, unknown_share: float = 0.0,
             stratify: str | float | None = None, confidence: float = 0.95,
             **inputs: Any) -> dict[str, Any]:
    """Bias, coverage and interval half-width of every quality metric per budget.

    Parameters
    ----------
    base, exp, weights : table, file, mapping or DataFrame
        The clusterings and optional item weights, as for ``abcde.sample_pairs``.
    truth : mapping, DataFrame, Arrow table, str or Path
        The ground truth that plays the judge (:func:`~abcde.quality.judgements.read_truth`)
        and fixes the exact values (:func:`~abcde.quality.exact.exact_quality`).
    population, alpha : str, float
        The sampling design, as for ``abcde.sample_pairs`` (default: the mixture,
        α = 0.5).
    budgets : sequence of int, or int
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
    **inputs
        The inputs and the engine, as for ``abcde.impact``.

    Returns
    -------
    dict
        ``{"population", "alpha", "budgets", "replications", "stratify", "confidence",
        "flag_coverage", "exact":
        {"available", "values", "reason", …}, "metrics": {metric: {budget: {"exact",
        "mean", "bias", "bias_se", "coverage", "flagged", "half_width", "estimate_sd",
        "undefined", "not_conclusive"}}}, "rows": [...]}`` — ``bias`` = mean estimate −
        exact with ``bias_se`` = sd/√R, ``coverage`` the share of the reported intervals
        that hold the exact value (None when the truth does not cover T), ``flagged`` when
        it is below ``flag_coverage`` (:func:`flag_coverage` of ``confidence``),
        ``half_width`` the mean (ci_high − ci_low)/2;
        ``rows`` is one flat record per (budget, metric), handy for a DataFrame.

    References
    ----------
    docs/method.md §7.4–7.5, §8, §8.12–8.13. ABCDE §5.8, App. A (S. van Staden, A. Grubb.
    ABCDE: Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §7–8 (S. van Staden. Decomposing the Jaccard Distance and the Jaccard
    Index in ABCDE. Google Switzerland, 2024).
    """
    return run_simulate(Session.of(base, exp, weights, **inputs), truth,
                        design=design_for(population, alpha), budgets=budgets,
                        replications=replications, seed=seed, unknown_share=unknown_share,
                        stratify=stratify, confidence=confidence)


@checked(budgets=IntList(COUNT), replications=COUNT, seed=SEED,
         unknown_share=Real(0.0, 1.0, open="hi"), confidence=CONFIDENCE)
def run_simulate(session: Session, truth: object, *, design: Design | None = None,
                 budgets: Sequence[int] = DEFAULT_BUDGETS, replications: int = 20,
                 seed: int = 0, unknown_share: float = 0.0,
                 stratify: str | float | None = None,
                 confidence: float = 0.95) -> dict[str, Any]:
    """`simulate` of a session's inputs (and `abcde.Comparison.simulate`)."""
    design = design or design_for()
    if seed + replications - 1 > MAX_SEED:  # replication r draws with seed + r
        raise InputError(f"{{option}} + replications - 1 must be at most {MAX_SEED:,}, the "
                         "largest seed", option="seed")
    allocation = None
    if stratify is not None:
        from abcde.sampling.stratified import ALLOCATION

        allocation = ALLOCATION.check("stratify", stratify)
    z = z_value(confidence)
    spec = session.spec
    truth_map = read_truth(truth, spec.columns.item, spec.columns.cluster)
    base_judge = truth_judge(truth_map)
    results: dict[int, list[dict[str, Any]]] = {b: [] for b in budgets}
    with session.using() as (eng, inputs):
        exact = exact_quality(spec.base, spec.exp, spec.weights, truth=truth,
                              item_col=spec.columns.item, cluster_col=spec.columns.cluster,
                              weight_col=spec.columns.weight,
                              missing_weight=spec.missing_weight, engine=eng)
        if stratify is None:
            pipeline, _ = prepare(eng, inputs, design, prefix="abcde_sim_")
            totals = fetch_totals(eng, pipeline)
            self_parts = plain_row(pipeline.fetch(eng, "pair_self")[0])
            overall = plain_row(pipeline.fetch(eng, "overall")[0])
            manifest = {"design": design.as_dict(), "population": design.population,
                        "alpha": design.alpha, "sample_id": "simulation",
                        **population_entries(totals, self_parts, overall)}
        for r in progress.track(range(replications), "simulated rounds"):
            rng = random.Random(seed * 1_000_003 + r)
            if stratify is None:
                p, _, _ = fill_budget(eng, pipeline, budgets[-1], seed + r,
                                      ceiling=simulation_ceiling())
                p.add("sim_stream", _sorted("pair_stream", ("d",)))
                stream = [plain_row(x) for x in p.fetch(eng, "sim_stream")]
            for b in budgets:
                if stratify is None:
                    s = Sample(cut_stream(stream, b), manifest, "simulation")
                else:
                    from abcde.sampling.stratified import run_stratified

                    ps = run_stratified(session, b, allocation, seed=seed + r, design=design)
                    if not ps.manifest["pairs"]["judgeable"]:
                        # its empty draws were refused as an edited sample
                        from abcde.sampling.pairs import nothing_to_judge

                        raise nothing_to_judge()
                    s = Sample(ps.draws, ps.manifest, "simulation")
                verdicts = _judge(s.pairs, base_judge, unknown_share, rng)
                results[b].append(estimate_with_verdicts(s, verdicts, confidence=confidence,
                                                         se_method=DEFAULT_SE))
    doc = _summary(results, exact, replications, z, confidence)
    doc.update(population=design.population, alpha=design.alpha, stratify=stratify,
               unknown_share=unknown_share)
    return doc


def _judge(pairs: SamplePairs, judge: Any, unknown_share: float,
           rng: random.Random) -> dict[str, str]:
    verdicts = judge_pairs(judge, pairs)
    if unknown_share:
        for pid in sorted(verdicts, key=lambda x: (len(x), x)):
            if rng.random() < unknown_share:
                verdicts[pid] = "unknown"
    return verdicts


def _summary(results: dict[int, list[dict[str, Any]]], exact: ExactQuality,
             replications: int, z: float, confidence: float = 0.95) -> dict[str, Any]:
    """Per (metric, budget): bias and its SE, coverage, the mean half-width of the
    intervals actually reported ((ci_high − ci_low)/2: Wilson intervals are asymmetric and
    never zero-wide, so z·mean(SE) would understate them), the sd of the estimates and
    z·sd (the half-width an honest interval needs), undefined and not-conclusive counts."""
    metrics: dict[str, dict[int, dict[str, Any]]] = {}
    rows = []
    flag_below = flag_coverage(confidence)
    for key in METRIC_KEYS:
        metrics[key] = {}
        value = exact.values.get(key) if exact.available else None
        for b, docs in results.items():
            ests = [d[key]["estimate"] for d in docs if d[key]["estimate"] is not None]
            with_ci = [d[key] for d in docs
                       if d[key]["ci_low"] is not None and d[key]["ci_high"] is not None]
            halves = [(e["ci_high"] - e["ci_low"]) / 2 for e in with_ci]
            sd = _sd(ests)
            mean = math.fsum(ests) / len(ests) if ests else None
            cell: dict[str, Any] = {
                "exact": value, "mean": mean, "bias": None, "bias_se": None,
                "coverage": None, "flagged": False,
                "half_width": math.fsum(halves) / len(halves) if halves else None,
                "estimate_sd": sd, "spread_half_width": None if sd is None else z * sd,
                "undefined": len(docs) - len(with_ci),
                "not_conclusive": sum(bool(d[key].get("not_conclusive")) for d in docs)}
            if value is not None and mean is not None:
                cell["bias"] = mean - value
                cell["bias_se"] = None if sd is None else sd / math.sqrt(len(ests))
            if value is not None and with_ci:
                tol = 1e-9 * max(abs(value), 1e-12)
                held = [e["ci_low"] - tol <= value <= e["ci_high"] + tol for e in with_ci]
                cell["coverage"] = sum(held) / len(held)
                cell["flagged"] = cell["coverage"] < flag_below
            metrics[key][b] = cell
            rows.append({"budget": b, "metric": key, **cell})
    return {"budgets": sorted(results), "replications": replications,
            "confidence": confidence, "flag_coverage": flag_below,
            "exact": exact.as_dict(), "metrics": metrics, "rows": rows}


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
        Metrics × budgets, each cell: the mean half-width of the reported intervals, the
        coverage of the exact value, the bias (mean − exact, in standard errors), "!"
        when the coverage is below the document's ``flag_coverage``; or why the exact values are
        unavailable.

    References
    ----------
    docs/method.md §8.8, §8.13.
    """
    from abcde.quality.wording import LABELS, level_text
    from abcde.text import table

    budgets = doc["budgets"]
    rows = []
    flagged = []
    for key, per in doc["metrics"].items():
        row: dict[str, Any] = {"metric": LABELS.get(key, key)}
        for b in budgets:
            c = per[b]
            cell = "-" if c["half_width"] is None else f"±{100 * c['half_width']:.3f}%"
            if c["coverage"] is not None:
                cell += f" cov {100 * c['coverage']:.0f}%"
            if c["bias"] is not None:
                se = c["bias_se"]
                sig = "" if not se else f" ({c['bias'] / se:+.1f} SE)"
                cell += f" bias {100 * c['bias']:+.3f}%{sig}"
            if c["flagged"]:
                cell += " !"
                flagged.append(f"{LABELS.get(key, key)} at {b}")
            if c["undefined"]:
                cell += f" ({c['undefined']} undef.)"
            if c["not_conclusive"]:
                cell += f" ({c['not_conclusive']} not concl.)"
            row[str(b)] = cell
        rows.append(row)
    design = f"{doc['population']} population, α = {doc['alpha']:g}"
    level = level_text(doc.get("confidence", 0.95))  # documents of before it was recorded
    flag_below = doc.get("flag_coverage", FLAG_COVERAGE)
    head = (f"per budget: mean {level} half-width, coverage of the exact value, bias = mean "
            f"estimate − exact (in SEs of the mean) — {design}, {doc['replications']} "
            f"replications{', stratified ' + str(doc['stratify']) if doc['stratify'] else ''}")
    lines = [head]
    exact = doc["exact"]
    if not exact["available"]:
        lines.append(f"exact values unavailable: {exact['reason']}; only the half-widths are "
                     "shown")
    lines.append(table(rows, ["metric", *[str(b) for b in budgets]]))
    if flagged:
        lines.append(f"! coverage below {100 * flag_below:.0f}%: {', '.join(flagged)} — "
                     "these intervals are too narrow for this data; a larger budget, the "
                     "mixture population or stratification may help (docs/method.md §8.13)")
    return "\n".join(lines)
