"""Sizing the judgement budget and checking the estimators on one's own data: simulated
judgement rounds with a ground truth as the judge, and — since the truth fixes every
metric's exact value — their bias and coverage (docs/method.md §8.12–8.13; ABCDE §5.8,
App. A; Jaccard decomposition §7–8).

Replication r (seed + r) draws one stream with the real SQL sampler and walks it until
the largest budget is filled; every smaller budget is the prefix cut at its b-th unique
judgeable pair, the very sample ``sample_pairs(budget=b, seed=seed + r)`` gives (ABCDE
App. A 3.1–3.2). A stratified simulation runs the stratified sampler per budget. The
truth judges each sample (a further share of pairs made unknown at random) and the
exact values come from SQL (:mod:`abcde.quality.exact`) when the truth covers T.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from time import monotonic
from typing import Any

import numpy as np

from abcde import progress
from abcde.errors import InputError
from abcde.inputs.session import Session
from abcde.params import (
    CONFIDENCE,
    COUNT,
    MAX_SEED,
    SEED,
    Constraint,
    IntList,
    Maybe,
    Real,
    checked,
)
from abcde.quality.estimate import Sample, estimate_with_verdicts, judged_design
from abcde.quality.exact import ExactQuality, exact_quality
from abcde.quality.intervals import DEFAULT_SE, z_value
from abcde.quality.judgements import SamplePairs, judge_pairs, read_truth, truth_judge
from abcde.quality.metrics import METRIC_KEYS
from abcde.quality.sequential import STOP_WHEN, simulated_stops
from abcde.quality.wording import LABELS, level_text, percent
from abcde.sample_files.manifest import CLASS_KEYS, population_entries
from abcde.sample_files.pairs import HUMAN_COLUMN
from abcde.sampling.humans import humans_subset
from abcde.sampling.pairs import (
    Ceiling,
    Design,
    _sorted,
    design_for,
    fetch_totals,
    fill_budget,
    nothing_to_judge,
    prepare,
)

log = logging.getLogger("abcde")
DEFAULT_BUDGETS = (100, 300, 1000, 3000)
FLAG_COVERAGE = 0.90
"""The coverage below which 95% intervals are flagged (:func:`flag_coverage`)."""
LONG_RUN = 600.0
"""Seconds beyond which the time a run will take is said after its first round."""
PRECISION = 1e-9
"""Relative: a bias or a miss of the exact value below it is rounding, not statistics
(the exact values are sums in SQL, docs/method.md §8.12)."""


def flag_coverage(confidence: float) -> float:
    """1 − 2·(1 − confidence): intervals that miss the exact value more than twice as
    often as their level allows are flagged (docs/method.md §8.13).

    >>> round(flag_coverage(0.95), 6), round(flag_coverage(0.8), 6)
    (0.9, 0.6)
    """
    return 1 - 2 * (1 - confidence)


def cut_stream(stream: Sequence[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The sample a budget takes from a stream of draws (in draw order): the draws up to
    the one bringing the budget-th unique judgeable pair, as unique ordered pairs with
    draw counts and pair ids numbered by first draw (as sql_templates/pairs/sample.sql;
    docs/method.md §7.4–7.5)."""
    seen: set[tuple[Any, Any]] = set()
    end = None
    for k, r in enumerate(stream):
        if r["item_i"] != r["item_j"]:
            seen.add(tuple(sorted((str(r["item_i"]), str(r["item_j"])))))
            if len(seen) == budget:
                end = k
                break
    if end is None:
        raise ValueError(f"the stream holds fewer than {budget} judgeable pairs")
    rows: dict[tuple[Any, Any], dict[str, Any]] = {}
    ids: dict[tuple[str, ...], int] = {}
    for r in stream[: end + 1]:
        ordered = (r["item_i"], r["item_j"])
        if ordered in rows:
            rows[ordered]["draw_count"] += 1
        else:
            pid = ids.setdefault(tuple(sorted((str(r["item_i"]), str(r["item_j"])))),
                                 len(ids) + 1)
            rows[ordered] = {**{k: v for k, v in r.items() if k != "d"}, "pair_id": pid,
                             "draw_count": 1, "first_draw": r["d"] + 1}
    return list(rows.values())


class ModelAccuracy(Constraint):
    """A simulated model judge (docs/method.md §8.15): one accuracy, right that share of
    the time on every pair (0.9), or per pair class its sensitivity (right on equivalent
    pairs) and specificity (right on the others), "CLASS=SENS[/SPEC]" (SPEC = SENS when
    left out), a bare number for the classes not named: "0.9,split=0/1" is always wrong on
    split pairs that are equivalent. A mapping class → accuracy or (sens, spec) too."""

    what = ("an accuracy in [0, 1] (e.g. 0.9), or per class CLASS=SENSITIVITY[/SPECIFICITY] "
            f"with a bare number for the others (e.g. '0.9,split=0.6/0.95'; classes: "
            f"{', '.join(CLASS_KEYS)})")

    def convert(self, value: Any) -> float | dict[str, dict[str, float]]:
        if isinstance(value, str) and "=" not in value:
            value = float(value)
        if not isinstance(value, str | Mapping):
            return _RATE.convert(value)  # one accuracy, reported as given
        parts = [p.split("=", 1) if "=" in p else ["", p] for p in value.split(",")] \
            if isinstance(value, str) else list(value.items())
        given: dict[str, Any] = {}
        for name, rates in parts:
            name = name.strip()
            if (name and name not in CLASS_KEYS) or name in given:
                raise ValueError
            given[name] = rates
        out = {}
        for name in CLASS_KEYS:
            rates = given.get(name, given.get(""))
            if rates is None:
                raise ValueError
            if isinstance(rates, str):
                rates = [float(r) for r in rates.split("/")]
            pair = list(rates) if isinstance(rates, Sequence) else [rates]
            if len(pair) == 1:
                pair *= 2
            sens, spec = (_RATE.convert(r) for r in pair)  # two, or ValueError
            out[name] = {"sensitivity": sens, "specificity": spec}
        return out


_RATE = Real(0.0, 1.0)
MODEL_ACCURACY = ModelAccuracy()


def simulated_model(truth: Mapping[str, str], classes: Mapping[str, str],
                    accuracy: float | Mapping[str, Mapping[str, float]],
                    rng: random.Random) -> dict[str, float]:
    """pair id → the simulated model's verdict (1.0 equivalent, 0.0 not) on the pairs
    whose truth is known: right with the sensitivity of the pair's class when the truth
    says equivalent, with its specificity otherwise (one draw per pair, in id order)."""
    out = {}
    for p, v in sorted(truth.items()):
        if v == "unknown":
            continue
        rates = accuracy if isinstance(accuracy, float) else accuracy[classes[p]][
            "sensitivity" if v == "equivalent" else "specificity"]
        out[p] = float((v == "equivalent") == (rng.random() < rates))
    return out


def simulate(base: object, exp: object, weights: object | None = None, *, truth: object,
             population: str = "mixture", alpha: float | None = None,
             budgets: Sequence[int] = DEFAULT_BUDGETS, replications: int = 20, seed: int = 0,
             unknown_share: float = 0.0, stratify: str | float | None = None,
             confidence: float = 0.95, stop_when: Any = (), model_accuracy: Any = None,
             model_budget: int | None = None, target_half_width: float | None = None,
             **inputs: Any) -> dict[str, Any]:
    """Bias, coverage and interval half-width of every quality metric per budget.

    Parameters
    ----------
    base, exp, weights : table, file, mapping or DataFrame
        The clusterings and optional item weights, as for ``abcde.sample_pairs``.
    truth : mapping, DataFrame, Arrow table, str or Path
        The ground truth that judges and fixes the exact values.
    population, alpha : str, float
        The sampling design, as for ``abcde.sample_pairs`` (default the mixture, α = 0.5).
    budgets : sequence of int, or int
        Budgets (unique judgeable pairs) to compare.
    replications : int
        Simulated rounds per budget (seeds ``seed``, ``seed + 1``, …). When the first
        round shows that all take more than 10 minutes, the time is said on the log.
    seed : int
        The first round's seed.
    unknown_share : float
        Share of pairs made 'unknown' at random, in [0, 1).
    stratify : str, float or None
        A stratified allocation (proportional, equal or a fraction), or None.
    confidence : float
        The intervals' level.
    stop_when : str or sequence of str
        Questions of ``abcde estimate --stop-when``: each round's largest budget is also
        judged in stream order, looked at after every verdict, and ``sequential`` says
        after how many verdicts the stop signal came and how often it was wrong
        (docs/method.md §8.14). Not with ``stratify``.
    model_accuracy, model_budget, target_half_width
        Also rounds with a model judge right ``model_accuracy`` of the time on each of
        ``model_budget`` pairs (or per class its sensitivity/specificity,
        :class:`ModelAccuracy`) (default 10 × the largest budget), the humans judging the
        sampler's random subset of each budget (docs/method.md §8.15): ``model`` gives
        their bias and coverage per metric and, per budget, ΔPrecision's half-widths
        alone and with the model, what the human verdicts are worth and, for
        ``target_half_width``, the human verdicts either needs.
    **inputs
        The inputs and the engine, as for ``abcde.impact``.

    Returns
    -------
    dict
        ``population``, ``alpha``, ``budgets``, ``replications``, ``stratify``,
        ``unknown_share``, ``confidence``, ``flag_coverage``, ``exact`` (available,
        values, reason, …), ``metrics`` (metric → budget → exact, mean, bias = mean −
        exact (0 below rounding), bias_se = sd/√R, coverage, flagged, half_width (mean
        reported), estimate_sd, spread_half_width = z·sd, undefined, not_conclusive) and
        ``rows`` (one flat record per budget and metric).

    References
    ----------
    docs/method.md §7.4–7.5, §8.12–8.13. S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430, §5.8, App. A. S. van Staden.
    Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google Switzerland,
    2024, §7–8.
    """
    return run_simulate(Session.of(base, exp, weights, **inputs), truth,
                        design=design_for(population, alpha), budgets=budgets,
                        replications=replications, seed=seed, unknown_share=unknown_share,
                        stratify=stratify, confidence=confidence, stop_when=stop_when,
                        model_accuracy=model_accuracy, model_budget=model_budget,
                        target_half_width=target_half_width)


@checked(budgets=IntList(COUNT), replications=COUNT, seed=SEED,
         unknown_share=Real(0.0, 1.0, open="hi"), confidence=CONFIDENCE, stop_when=STOP_WHEN,
         model_accuracy=Maybe(MODEL_ACCURACY), model_budget=Maybe(COUNT),
         target_half_width=Maybe(Real(0.0, 1.0, open="lo")))
def run_simulate(session: Session, truth: object, *, design: Design | None = None,
                 budgets: Sequence[int] = DEFAULT_BUDGETS, replications: int = 20,
                 seed: int = 0, unknown_share: float = 0.0,
                 stratify: str | float | None = None,
                 confidence: float = 0.95, stop_when: Any = (),
                 model_accuracy: Any = None, model_budget: int | None = None,
                 target_half_width: float | None = None) -> dict[str, Any]:
    """:func:`simulate` of a session's inputs (and ``abcde.Comparison.simulate``); with
    ``model_accuracy``, also rounds with a model judge (:func:`_model_rounds`)."""
    design = design or design_for()
    if stop_when and stratify is not None:
        raise InputError("{option} is not supported with a stratified simulation yet "
                         "(each stratum is its own stream)", option="stop_when")
    if model_accuracy is not None and (stratify is not None or stop_when):
        raise InputError("{option} is not supported with a stratified or sequential "
                         "simulation yet", option="model_accuracy")
    fill_to = budgets[-1] if model_accuracy is None else max(
        budgets[-1], model_budget or 10 * budgets[-1])
    runs = []
    if seed + replications - 1 > MAX_SEED:  # replication r draws with seed + r
        raise InputError(f"{{option}} + replications - 1 must be at most {MAX_SEED:,}, the "
                         "largest seed", option="seed")
    allocation = None
    if stratify is not None:
        from abcde.sampling.stratified import ALLOCATION, run_stratified

        allocation = ALLOCATION.check("stratify", stratify)
    spec = session.spec
    judge = truth_judge(read_truth(truth, spec.columns.item, spec.columns.cluster))
    ceiling = replace(Ceiling.of(), budget_option="the largest of --budgets" if model_accuracy
                      is None else "--model-budget", draws_option=None)
    results: dict[int, list[dict[str, Any]]] = {b: [] for b in budgets}
    combined: dict[int, list[dict[str, Any]]] = {b: [] for b in budgets}
    with session.using() as (eng, inputs):
        exact = exact_quality(spec.base, spec.exp, spec.weights, truth=truth,
                              item_col=spec.columns.item, cluster_col=spec.columns.cluster,
                              weight_col=spec.columns.weight,
                              missing_weight=spec.missing_weight, engine=eng)
        if stratify is None:
            pipeline, _ = prepare(eng, inputs, design, prefix="abcde_sim_")
            manifest = {"design": design.as_dict(), "population": design.population,
                        "alpha": design.alpha, "sample_id": "simulation",
                        **population_entries(fetch_totals(eng, pipeline),
                                             pipeline.fetch(eng, "pair_self")[0],
                                             pipeline.fetch(eng, "overall")[0])}
        start = monotonic()
        for r in progress.track(range(replications), "simulated rounds"):
            rng = random.Random(seed * 1_000_003 + r)
            if stratify is None:
                p, _, _ = fill_budget(eng, pipeline, fill_to, seed + r, ceiling=ceiling)
                p.add("sim_stream", _sorted("pair_stream", ("d",)))
                stream = p.fetch(eng, "sim_stream")
            for b in budgets:
                if stratify is None:
                    s = Sample(cut_stream(stream, b), manifest, "simulation")
                else:
                    ps = run_stratified(session, b, allocation, seed=seed + r, design=design)
                    if not ps.manifest["pairs"]["judgeable"]:
                        raise nothing_to_judge()
                    s = Sample(ps.draws, ps.manifest, "simulation")
                verdicts = _judge(s.pairs, judge, unknown_share, rng)
                results[b].append(estimate_with_verdicts(s, verdicts, confidence=confidence,
                                                         se_method=DEFAULT_SE))
            if model_accuracy is not None:
                _model_rounds(combined, Sample(cut_stream(stream, fill_to), manifest,
                                               "simulation"), judge, model_accuracy,
                              unknown_share, rng, seed + r, confidence)
            if stop_when:  # the largest budget, judged in stream order
                cols = {k: [row[k] for row in s.draws] for k in s.draws[0]}
                cols["pair_id"] = [str(x) for x in cols["pair_id"]]
                js, dsg = judged_design(cols, verdicts, manifest)
                runs.append((js, dsg, np.asarray(cols["first_draw"]) - 1, cols["pair_id"]))
            if r == 0:
                _say_how_long(monotonic() - start, replications)
    doc = _summary(results, exact, replications, z_value(confidence), confidence)
    doc.update(population=design.population, alpha=design.alpha, stratify=stratify,
               unknown_share=unknown_share)
    if model_accuracy is not None:
        doc["model"] = _model_summary(doc, _summary(combined, exact, replications,
                                                    z_value(confidence), confidence),
                                      model_accuracy, fill_to, target_half_width)
    if stop_when:
        doc["sequential"] = {"budget": budgets[-1], "questions": simulated_stops(
            runs, stop_when, exact.values if exact.available else None, confidence)}
    return doc


def _model_rounds(combined: dict[int, list[dict[str, Any]]], s: Sample, judge: Any,
                  accuracy: float | Mapping[str, Mapping[str, float]],
                  unknown_share: float, rng: random.Random, seed: int,
                  confidence: float) -> None:
    """One replication's rounds with a model judge (docs/method.md §8.15): the model
    (:func:`simulated_model`) judges the stream's pairs; per budget b the humans judge the
    sampler's subset of b of them."""
    verdicts = _judge(s.pairs, judge, unknown_share, rng)
    classes = {str(r["pair_id"]): _class_of(r) for r in s.draws}
    model = simulated_model(judge_pairs(judge, s.pairs), classes, accuracy, rng)
    ids = [str(r["pair_id"]) for r in s.draws]
    for b in combined:
        chosen = humans_subset(ids, b, seed)
        rows = [{**r, HUMAN_COLUMN: chosen.get(str(r["pair_id"]))} for r in s.draws]
        combined[b].append(estimate_with_verdicts(
            Sample(rows, s.manifest, "simulation"), verdicts, confidence=confidence,
            se_method=DEFAULT_SE, model=model))


def _class_of(row: Mapping[str, Any]) -> str:
    """A draw row's class of CLASS_KEYS: stable pairs by the sign of their label, as
    :func:`abcde.quality.sample.judged_sample` splits them (ABCDE eq. 58)."""
    name, label = str(row["pair_class"]), float(row["label"])
    if name != "stable":
        return name
    return "stable_plus" if label > 0 else "stable_minus" if label < 0 else "stable_zero"


def _model_summary(doc: dict[str, Any], summary: dict[str, Any], accuracy: Any,
                   model_budget: int, target: float | None) -> dict[str, Any]:
    """The model rounds' bias and coverage (``metrics``, as without a model) and per human
    budget b the ΔPrecision half-widths: the human verdicts b is worth with the model
    (humans alone need b·(hw_humans/hw_model)²) and, for ``target``, the human budgets
    either needs: alone hw² = c/b; with the model hw² = a + c/b, a the model's pairs'
    floor, through the two largest budgets (a = 0 with one budget, then optimistic below
    its half-width); none when the target is below the floor (more model pairs needed)."""
    saving, points = [], []
    for b in doc["budgets"]:
        alone = doc["metrics"]["delta_precision"][b]["half_width"]
        both = summary["metrics"]["delta_precision"][b]["half_width"]
        row: dict[str, Any] = {"budget": b, "human_half_width": alone,
                               "combined_half_width": both, "worth": None}
        if alone and both:
            row["worth"] = b * (alone / both) ** 2
            points.append((1.0 / b, both * both))
        saving.append(row)
    if target is not None and points:
        x, y = np.array(points[-2:]).T
        slope, floor = (np.polyfit(x, y, 1) if len(points) > 1 else (y[0] / x[0], 0.0))
        floor, slope = max(float(floor), 0.0), max(float(slope), 1e-300)
        for row in saving:
            if row["worth"] is not None:
                row["humans_alone"] = math.ceil(row["budget"] * (
                    row["human_half_width"] / target) ** 2)
                row["humans_with_model"] = (math.ceil(slope / (target**2 - floor))
                                            if target**2 > floor else None)
    return {"accuracy": accuracy, "model_budget": model_budget, "target_half_width": target,
            "metrics": summary["metrics"], "delta_precision": saving}


def _say_how_long(first: float, replications: int) -> None:
    """After the first round, the time all will take when it is long: a run of hours is
    said before it is committed to (issue: 10⁹ replications ran without a word)."""
    total = first * replications
    if total <= LONG_RUN or replications < 2:
        return
    fit = max(1, int(LONG_RUN / first)) if first > 0 else replications
    log.warning("simulate: the first of %s rounds took %.1f s, so all take about %s; "
                "interrupt (Ctrl-C) and lower --replications (about %s fit in %d minutes) "
                "or the largest of --budgets if that is too long",
                f"{replications:,}", first, _duration(total), f"{fit:,}", LONG_RUN // 60)


def _duration(seconds: float) -> str:
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds / 60:,.0f} minutes"


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
    """Per metric and budget: bias and its SE, coverage, the mean half-width of the
    intervals reported (Wilson intervals are lopsided, never zero-wide: z·mean(SE) would
    understate them), the sd of the estimates and z·sd, undefined and not-conclusive
    counts. A bias, its SE or a miss below PRECISION of the exact value is rounding."""
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
            tol = PRECISION * max(abs(value), 1e-12) if value is not None else 0.0
            if value is not None and mean is not None:
                cell["bias"] = 0.0 if abs(mean - value) <= tol else mean - value
                se = None if sd is None else sd / math.sqrt(len(ests))
                cell["bias_se"] = se if se is None or se > tol else 0.0  # rounding: none
            if value is not None and with_ci:
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


def _bias_text(bias: float) -> str:
    """A bias in percent with 3 decimals, or two significant digits where those would
    show 0: a real bias of 1e-7 must not read 0.000% beside its SEs."""
    small = 0 < abs(100 * bias) < 5e-4
    return percent(bias, 1 - math.floor(math.log10(abs(100 * bias))) if small else 3)


def render_table(doc: dict[str, Any]) -> str:
    """The text report of ``abcde simulate``: per metric and budget the mean half-width of
    the reported intervals, the coverage of the exact value, the bias in SEs of the mean
    and "!" when the coverage is below ``flag_coverage`` (docs/method.md §8.13)."""
    from abcde.text import table

    budgets = doc["budgets"]
    rows, flagged = [], []
    for key, per in doc["metrics"].items():
        row: dict[str, Any] = {"metric": LABELS.get(key, key)}
        for b in budgets:
            c = per[b]
            cell = "-" if c["half_width"] is None else f"±{percent(c['half_width'], 3, False)}"
            if c["coverage"] is not None:
                cell += f" cov {100 * c['coverage']:.0f}%"
            if c["bias"] is not None:
                se = c["bias_se"]
                sig = f" ({c['bias'] / se:+.1f} SE)" if se and c["bias"] else ""
                cell += f" bias {_bias_text(c['bias'])}{sig}"
            if c["flagged"]:
                cell += " !"
                flagged.append(f"{LABELS.get(key, key)} at {b}")
            if c["undefined"]:
                cell += f" ({c['undefined']} undef.)"
            if c["not_conclusive"]:
                cell += f" ({c['not_conclusive']} not concl.)"
            row[str(b)] = cell
        rows.append(row)
    lines = [f"per budget: mean {level_text(doc.get('confidence', 0.95))} half-width, "
             f"coverage of the exact value, bias = mean estimate − exact (in SEs of the mean)"
             f" — {doc['population']} population, α = {doc['alpha']:g}, "
             f"{doc['replications']} replications"
             f"{', stratified ' + str(doc['stratify']) if doc['stratify'] else ''}"]
    if not doc["exact"]["available"]:
        lines.append(f"exact values unavailable: {doc['exact']['reason']}; only the "
                     "half-widths are shown")
    lines.append(table(rows, ["metric", *[str(b) for b in budgets]]))
    for q in (doc.get("sequential") or {}).get("questions", []):
        lines.append(
            f"{q['question']}, judged in stream order up to {doc['sequential']['budget']:,} "
            f"pairs and looked at after every verdict: stopped in {q['stopped']:.0%} of the "
            "rounds" + ("" if q["verdicts_mean"] is None else
                        f", after {q['verdicts_mean']:,.0f} verdicts on average (median "
                        f"{q['verdicts_median']:,.0f})") + ("" if q["wrong"] is None else
                        f"; the answer contradicted the exact value in {q['wrong']:.1%}"))
    model = doc.get("model")
    for m in [model] if model else []:
        a = m["accuracy"]
        right = f"right {a:.0%} of the time" if isinstance(a, float) else \
            "right (sensitivity/specificity) " + ", ".join(
                f"{c} {r['sensitivity']:.0%}/{r['specificity']:.0%}" for c, r in a.items())
        lines.append(f"with a model judge {right} on {m['model_budget']:,} pairs, "
                     "ΔPrecision per human budget:")
        for row in m["delta_precision"]:
            if row["worth"] is None:
                continue
            cov = m["metrics"]["delta_precision"][row["budget"]]["coverage"]
            line = (f"  {row['budget']:,} human verdicts: "
                    f"±{percent(row['human_half_width'], 3, False)} alone, "
                    f"±{percent(row['combined_half_width'], 3, False)} with the model"
                    f"{'' if cov is None else f' (cov {100 * cov:.0f}%)'}, worth ~"
                    f"{row['worth']:,.0f}")
            if "humans_alone" in row:
                need = row["humans_with_model"]
                line += (f"; ±{percent(m['target_half_width'], 3, False)} needs "
                         f"~{row['humans_alone']:,} alone, " + (
                             f"~{need:,} with the model" if need else
                             "more model pairs with the model"))
            lines.append(line)
    if flagged:
        lines.append(f"! coverage below {100 * doc.get('flag_coverage', FLAG_COVERAGE):.0f}%: "
                     f"{', '.join(flagged)} — these intervals are too narrow for this data; a "
                     "larger budget, the mixture population or stratification may help "
                     "(docs/method.md §8.13)")
    return "\n".join(lines)
