"""The 13 quality metrics as one table of definitions and the one estimator they share
(docs/method.md §8.2–8.6, §8.11; ABCDE §5.1, §5.7–5.8; Jaccard decomposition §3.1, §6–8).

Every metric is an exact part plus signed parts, each "the exact total T of some pair
classes × the importance-weighted share p̂ of their judged draws with a verdict value":

    metric = exact + Σ_parts sign · T_part · p̂_part

Per part: a (modified) Wilson interval at its effective sample size, the smaller of the
sample's and the design's expected; the parts combine by MOVER. Where the papers leave
room (docs/method.md §8.3, §8.6, §8.11): a part of total 0 adds 0; a part whose class was
not drawn, or never judged, is bounded by [0, T] in a sum and makes a one-part metric
undefined; a design that never draws some of a part's pairs cannot give it ("not
available"); a thin metric is ``not_conclusive``, saying why.

References: Hesterberg, Technometrics 37:185–194, 1995 (mixtures); Kish, Survey Sampling,
1965.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from abcde.quality.intervals import (
    DEFAULT_SE,
    design_n_eff,
    effective_n,
    interval,
    mover_limits,
    reweighted_mean_se,
    z_value,
)
from abcde.quality.ppi import PowerTuned, power_tuned
from abcde.quality.result import Estimate, UnknownRange
from abcde.quality.sample import CLASS_KEYS, JudgedSample, count_distinct

MIN_N_EFF = 10.0
"""Below this effective sample size a metric, or its part that carries PART_SHARE of its
Σ T²/n_eff, is not conclusive (docs/method.md §8.11)."""
PART_SHARE = 0.25
MAX_UNKNOWN_SHARE = 0.2
"""More unknown verdicts than this share — of the sample, or of the draws of a part that
carries PART_SHARE of a metric's Σ|T| — make estimates not conclusive (§8.11)."""
UNKNOWN_REASON = "unknown verdicts"
"""How a not-conclusive reason of MAX_UNKNOWN_SHARE starts."""
HEAVY_TAIL_EFFICIENCY = 0.5
"""Below this design efficiency (n_design per expected draw) a thin part is blamed on the
design's heavy-tailed weights, else on too few draws (§8.11)."""
EQ, NE = "equivalent", "not_equivalent"


@dataclass(frozen=True)
class Part:
    """One term sign · T · p̂: T sums the ``target`` population's weights (u or w) over the
    ``classes`` (codes of CLASS_KEYS); p̂ averages the ``indicator`` 1(i≡j) or 1(i≢j)."""

    sign: int
    target: str
    classes: tuple[int, ...]
    indicator: str


@dataclass(frozen=True)
class Metric:
    """A row of the table: its JSON ``key``, the papers' ``label``, its ``parts``, the
    ``exact`` part (a key of the manifest's ``exact``) and the exact impact metric it
    ``decomposes`` (good + bad = it; docs/method.md §8.4 gives the sources)."""

    key: str
    label: str
    parts: tuple[Part, ...]
    decomposes: str | None = None
    exact: str | None = None


def _parts(target: str, *terms: tuple[int, str, str]) -> tuple[Part, ...]:
    return tuple(Part(sign, target, (CLASS_KEYS.index(c),), value) for sign, c, value in terms)


_STABLE = ("stable_plus", "stable_minus", "stable_zero")
METRICS: dict[str, Metric] = {m.key: m for m in (
    Metric("delta_precision", "ΔPrecision", _parts(
        "u", (-1, "split", EQ), (1, "merge", EQ), (1, "stable_plus", EQ),
        (-1, "stable_minus", EQ)), exact="delta_precision"),
    Metric("good_split_rate", "GoodSplitRate", _parts("u", (1, "split", NE)), "split_rate"),
    Metric("bad_split_rate", "BadSplitRate", _parts("u", (1, "split", EQ)), "split_rate"),
    Metric("good_merge_rate", "GoodMergeRate", _parts("u", (1, "merge", EQ)), "merge_rate"),
    Metric("bad_merge_rate", "BadMergeRate", _parts("u", (1, "merge", NE)), "merge_rate"),
    Metric("good_split_distance", "GoodSplitDistance", _parts("w", (1, "split", NE)),
           "split_distance"),
    Metric("bad_split_distance", "BadSplitDistance", _parts("w", (1, "split", EQ)),
           "split_distance"),
    Metric("good_merge_distance", "GoodMergeDistance", _parts("w", (1, "merge", EQ)),
           "merge_distance"),
    Metric("bad_merge_distance", "BadMergeDistance", _parts("w", (1, "merge", NE)),
           "merge_distance"),
    Metric("good_distance", "GoodDistance", _parts("w", (1, "split", NE), (1, "merge", EQ)),
           "jaccard_distance"),
    Metric("bad_distance", "BadDistance", _parts("w", (1, "split", EQ), (1, "merge", NE)),
           "jaccard_distance"),
    Metric("affected_good_index", "AffectedGoodIndex",
           _parts("w", *((1, c, EQ) for c in _STABLE)), "affected_jaccard_index",
           exact="affected_good_index"),
    Metric("affected_bad_index", "AffectedBadIndex", _parts("w", *((1, c, NE) for c in _STABLE)),
           "affected_jaccard_index"),
)}
"""The 13 quality metrics, in the order of ``abcde estimate`` (docs/method.md §8.4)."""
METRIC_KEYS = tuple(METRICS)


@dataclass(frozen=True)
class Design:
    """What the estimators read of the manifest: per class key its exact totals ``u``,
    ``w``, probability ``q``, expected Kish n_eff per draw ``kish_u``, ``kish_w`` and the
    weight the design never draws ``u_uncovered``, ``w_uncovered``; the ``exact`` parts;
    Σu and Σw (``sums``); and per class the draws per unit of design probability
    (``scale``: all draws, or a stratum's draws over its probability)."""

    classes: Mapping[str, Mapping[str, float]]
    exact: Mapping[str, float]
    sums: Mapping[str, float]
    scale: Mapping[str, float]

    def total(self, part: Part) -> float:
        return sum(self.classes[CLASS_KEYS[c]][part.target] for c in part.classes)


def design_expected_n_eff(part: Part, design: Design) -> float:
    """n·(Σ p)²/Σ p²/kish over the part's classes, p a class's share of the target: the
    design's expected Kish n_eff, seeing the pairs the sample did not draw (Kish 1965;
    docs/method.md §8.11). 0 when the design gives the classes no probability."""
    total = design.sums[part.target]
    if total <= 0:
        return 0.0
    share = square = 0.0
    for code in part.classes:
        c = design.classes[CLASS_KEYS[code]]
        p = c[part.target] / total
        share += p
        if c[f"kish_{part.target}"] > 0:
            square += p * p / c[f"kish_{part.target}"]
    scale = min(design.scale[CLASS_KEYS[code]] for code in part.classes)
    return scale * share * share / square if square > 0 else 0.0


def _efficiency(part: Part, design: Design) -> float:
    """n_design per expected draw of the part's classes: 1 for constant weights, small for
    heavy tails (1 when the design gives the classes no probability)."""
    q = sum(design.classes[CLASS_KEYS[code]]["q"] for code in part.classes)
    scale = min(design.scale[CLASS_KEYS[code]] for code in part.classes)
    return design_expected_n_eff(part, design) / (scale * q) if q > 0 and scale > 0 else 1.0


@dataclass(frozen=True)
class PartEstimate:
    """One part's T, p̂, interval and effective sample sizes."""

    total: float
    p: float
    low: float
    high: float
    se: float | None
    n_eff: float
    n_design: float
    pairs: np.ndarray
    draws: int
    drawn: bool
    efficiency: float = 1.0
    unknown: float = 0.0  # the share of the part's draws without a verdict
    power: PowerTuned | None = None  # with a model judge: the prediction-powered share


def _undefined(total: float, note: str, confidence: float) -> Estimate:
    return Estimate(None, None, None, None, 0, 0, total, confidence, note)


def estimate_metric(metric: Metric, s: JudgedSample, design: Design, *,
                    confidence: float = 0.95, se_method: str = DEFAULT_SE,
                    mask: np.ndarray | None = None, factors: np.ndarray | None = None,
                    cache: dict[Any, Any] | None = None,
                    design_cap: bool | None = None) -> Estimate:
    """exact + Σ sign·T·p̂ over the metric's parts, with its interval (module docstring),
    restricted to the rows of ``mask`` with their ``factors`` (a slice); ``cache`` holds
    parts shared between metrics; ``design_cap`` (default: without a mask) caps each
    part's n_eff at the design's expected one (docs/method.md §8.2–8.11)."""
    cap = mask is None if design_cap is None else design_cap
    exact = float(design.exact.get(metric.exact, 0.0)) if metric.exact else 0.0
    in_mask = np.ones(s.rows, dtype=bool) if mask is None else mask
    factors = s.factor if factors is None else factors
    drawn, judged = _classes_in(s, in_mask, "all" if mask is None else id(in_mask), cache)
    starved = [CLASS_KEYS[c] for part in metric.parts for c in part.classes
               if design.total(part) > 0 and c in drawn and c not in judged]
    if starved and len(metric.parts) == 1:
        return _undefined(design.total(metric.parts[0]), f"undefined: "
                          f"{', '.join(dict.fromkeys(starved))} pairs were drawn but none has "
                          "a verdict, so their share cannot be reweighted (ABCDE §5.8)",
                          confidence)
    parts: list[tuple[Part, PartEstimate]] = []
    notes: list[str] = []
    for part in metric.parts:
        total = design.total(part)
        if total == 0:
            continue
        names = ", ".join(CLASS_KEYS[c] for c in part.classes)
        uncovered = sum(design.classes[CLASS_KEYS[c]][f"{part.target}_uncovered"]
                        for c in part.classes)
        if uncovered > 0:
            return _undefined(total, f"not available: the design never draws pairs that "
                              f"carry {uncovered:.3g} of the {names} pairs' {part.target} "
                              f"weight {total:.3g} (α = {s.alpha:g}: pairs with u_ij = 0, "
                              "Jaccard decomposition §6.1); sample with --population mixture",
                              confidence)
        result = _part(part, s, design, in_mask, factors, total, se_method, confidence,
                       cap, "all" if mask is None else id(in_mask), cache)
        if not result.drawn:
            if len(metric.parts) == 1:
                return _undefined(total, f"undefined: no {names} pairs were drawn (their "
                                  f"total weight is {total:.6g})", confidence)
            why = (f"{names} pairs were drawn but none has a verdict" if names in starved
                   else f"no {names} pair drawn")
            notes.append(f"{why}: its part is bounded by [0, {total:.3g}]")
        parts.append((part, result))
    if not parts:
        note = ("exact: every pair it needs is a self pair (no verdict needed)" if exact else
                "exactly 0: the population has none of its pairs")
        return Estimate(exact, 0.0, exact, exact, 0, 0, 0.0, confidence, note, "exact",
                        exact=exact)
    return _combine(exact, parts, notes, confidence)


def _classes_in(s: JudgedSample, in_mask: np.ndarray, scope: Any,
                cache: dict[Any, Any] | None) -> tuple[set[int], set[int]]:
    """The class codes drawn, and judged, within the mask (kept in ``cache``)."""
    key = ("classes", scope)
    if cache is None or key not in cache:
        found = tuple({int(c) for c in np.flatnonzero(np.bincount(s.class_key[rows]))}
                      for rows in (in_mask, in_mask & s.known))
        if cache is None:
            return found
        cache[key] = found
    return cache[key]


def _part(part: Part, s: JudgedSample, design: Design, in_mask: np.ndarray,
          factors: np.ndarray, total: float, se_method: str, confidence: float,
          design_cap: bool, scope: Any, cache: dict[Any, PartEstimate] | None) -> PartEstimate:
    """One part's estimate. 1(i≢j) is the complement of 1(i≡j) on the same draws: p̂ is
    1 − p̂, the SE and n_eff the same, the interval mirrored; so only 1(i≡j) is computed,
    and ``cache`` keeps it for the other metrics."""
    key = (part.target, part.classes, scope, design_cap, id(factors), se_method, confidence)
    hit = None if cache is None else cache.get(key)
    if hit is None:
        hit = _equivalent_part(part, s, design, in_mask, factors, total, se_method,
                               confidence, design_cap)
        if cache is not None:
            cache[key] = hit
    if part.indicator == EQ or not hit.drawn:
        return hit
    return replace(hit, p=1 - hit.p, low=1 - hit.high, high=1 - hit.low)


def _equivalent_part(part: Part, s: JudgedSample, design: Design, in_mask: np.ndarray,
                     factors: np.ndarray, total: float, se_method: str, confidence: float,
                     design_cap: bool) -> PartEstimate:
    in_part = in_mask & (s.class_key == part.classes[0] if len(part.classes) == 1
                         else np.isin(s.class_key, part.classes))
    if s.model is not None:  # the humans' verdicts correct the model's (§8.15)
        in_part &= ~np.isnan(s.model)
    used = in_part & s.known
    if not used.any():  # not drawn, or drawn but never judged: the share is unknown
        return PartEstimate(total, 0.5, 0.0, 1.0, None, 0.0, 0.0, np.array([], dtype=np.int64),
                            0, False)
    weights = s.importance_u if part.target == "u" else s.importance_w
    f, k, keys, m = factors[used], s.draw_count[used], s.pair_key[used], weights[used]
    power = None
    n_design_sample = design_n_eff(f, k, keys, se_method, m)
    judged_share = float(k.sum()) / float(s.draw_count[in_part].sum())
    gained = judged_share
    if s.model is None:
        p, se = reweighted_mean_se(s.equivalent[used], f, k, keys, s.class_key[used],
                                   se_method, m)
    else:
        power = power_tuned(s.equivalent[in_part], s.known[in_part], s.model[in_part],
                            factors[in_part], s.draw_count[in_part], s.pair_key[in_part],
                            s.class_key[in_part], weights[in_part])
        p, se = power.p, power.se
        f, k, keys, m = (np.ones(in_part.sum()), s.draw_count[in_part], s.pair_key[in_part],
                         weights[in_part])
        # the humans' n_eff times what the model makes them worth, at most the model's
        gain = power.worth / power.human_pairs if power.human_pairs else 1.0
        n_design_sample = min(design_n_eff(f, k, keys, se_method, m), n_design_sample * gain)
        gained, judged_share = min(1.0, judged_share * gain), 1.0
    se_ok = se is not None and math.isfinite(se)
    n_sample = effective_n(p, se if se_ok else None, n_design_sample)
    n_design, efficiency = math.inf, 1.0
    if design_cap:
        n_design = design_expected_n_eff(part, design) * gained
        efficiency = _efficiency(part, design)
    n_eff = min(n_sample, n_design)
    low, high = interval(p, n_eff, confidence)
    return PartEstimate(total, p, low, high, se if se_ok else None, n_eff, n_design, keys,
                        int(k.sum()), True, efficiency, 1.0 - judged_share, power)


def _combine(exact: float, parts: list[tuple[Part, PartEstimate]], notes: list[str],
             confidence: float) -> Estimate:
    """exact + Σ sign·T·p̂, the SE in quadrature and the MOVER interval; a part without
    judged draws adds its whole range [0, T] to the limits (quadrature would narrow it)."""
    values, lows, highs = [], [], []
    unknown_low = unknown_high = variance = 0.0
    z = z_value(confidence)
    se_bounded = False
    for part, r in parts:
        scaled = (r.total * r.p, r.total * r.low, r.total * r.high)
        value, low, high = scaled if part.sign > 0 else (-scaled[0], -scaled[2], -scaled[1])
        if not r.drawn:
            unknown_low += low - value
            unknown_high += high - value
            low = high = value
        values.append(value), lows.append(low), highs.append(high)
        if r.se is None:  # fewer than two draws: the interval's half-width / z
            se_bounded = se_bounded or r.drawn
            variance += (r.total * (r.high - r.low) / (2 * z)) ** 2
        else:
            variance += (r.total * r.se) ** 2
    low, high = mover_limits(values, lows, highs)
    total = sum(r.total for _, r in parts)
    spread = [r.total ** 2 / max(r.n_eff, 1.0 if not r.drawn else 1e-12) for _, r in parts]
    n_eff = total * total / sum(spread)
    if se_bounded:
        notes.append("standard error undefined: fewer than two draws" if len(parts) == 1 else
                     "a part has fewer than two draws: its SE is its interval's half-width / z")
    single_draw = se_bounded and len(parts) == 1
    return Estimate(
        exact + float(sum(values)), None if single_draw else math.sqrt(variance),
        exact + (low + unknown_low), exact + (high + unknown_high),
        count_distinct(np.concatenate([r.pairs for _, r in parts])),
        sum(r.draws for _, r in parts), total, confidence, "; ".join(notes) or None,
        "wilson" if len(parts) == 1 else "mover", n_eff, exact=exact,
        not_conclusive=_thin_reason(parts, spread, n_eff) or _unknown_reason(parts))


def _thin_reason(parts: list[tuple[Part, PartEstimate]], spread: list[float],
                 n_eff: float) -> str | None:
    """Why a metric rests on too few effective draws: its own n_eff, or that of the part
    weighing most in Σ T²/n_eff with at least PART_SHARE of it (docs/method.md §8.11)."""
    k = int(np.argmax(spread))
    part, worst = parts[k]
    if not (n_eff < MIN_N_EFF or (worst.n_eff < MIN_N_EFF
                                  and spread[k] >= PART_SHARE * sum(spread))):
        return None
    names = ", ".join(CLASS_KEYS[c] for c in part.classes)
    # the design is blamed only when its weights, not the sample's size, keep n_design
    # small: one draw of evenly weighted pairs gives n_design < 1 under any design
    by_design = (worst.drawn and worst.n_design < MIN_N_EFF and worst.n_design <= worst.n_eff
                 and worst.efficiency < HEAVY_TAIL_EFFICIENCY)
    head = (f"n_eff {n_eff:.1f} < {MIN_N_EFF:g}" if n_eff < MIN_N_EFF else
            f"its {names} part (sign·T = {part.sign * worst.total:+.3g}) rests on "
            f"n_eff {worst.n_eff:.1f} < {MIN_N_EFF:g}")
    return head + ": " + (
        f"the design's importance weights toward {part.target} are heavy-tailed for the "
        f"{names} pairs (expected n_eff {worst.n_design:.1f} for the sample's draws; "
        "Kish 1965)" if by_design else
        f"too few effective draws of the {names} pairs ({worst.n_eff:.1f}, from "
        f"{worst.draws:,} judged draw{'s' if worst.draws != 1 else ''})" if worst.drawn
        else f"no judged draw of the {names} pairs")


def _unknown_reason(parts: list[tuple[Part, PartEstimate]]) -> str | None:
    """Why a metric is not conclusive for its unknown verdicts: a part carrying PART_SHARE
    of its Σ|T| with more than MAX_UNKNOWN_SHARE of its draws unknown. The reweighting
    assumes unknowns missing at random within a class (ABCDE §5.8); judges skipping one
    kind of pair break it while the sample-wide share stays low (docs/method.md §8.11)."""
    mass = sum(r.total for _, r in parts)
    worst = max((pr for pr in parts if pr[1].drawn and pr[1].total >= PART_SHARE * mass),
                key=lambda pr: pr[1].unknown, default=None)
    if worst is None or worst[1].unknown <= MAX_UNKNOWN_SHARE:
        return None
    part, r = worst
    names = ", ".join(CLASS_KEYS[c] for c in part.classes)
    return (f"{UNKNOWN_REASON}: {r.unknown:.0%} of the draws of its {names} pairs (sign·T = "
            f"{part.sign * r.total:+.3g}) have none, more than {MAX_UNKNOWN_SHARE:.0%}; the "
            "reweighting assumes they are missing at random within the class (ABCDE §5.8), "
            "and judges skipping one kind of pair bias it beyond the interval")


def estimate_all(s: JudgedSample, design: Design, *, confidence: float = 0.95,
                 se_method: str = DEFAULT_SE) -> dict[str, Estimate]:
    """Every metric of the table, in its order; with unknown verdicts among a metric's
    draws, its ``unknown_range``: the point estimates with every unknown verdict
    equivalent, resp. not equivalent (docs/method.md §8.11)."""
    cache: dict[Any, PartEstimate] = {}
    results = {key: estimate_metric(metric, s, design, confidence=confidence,
                                    se_method=se_method, cache=cache)
               for key, metric in METRICS.items()}
    if s.known.all() or s.model is not None or s.inverse_pi is not None:  # a chosen subset
        return results
    ends = [_point_estimates(s, design, verdict) for verdict in (1.0, 0.0)]
    for key, metric in METRICS.items():
        codes = np.zeros(len(CLASS_KEYS), dtype=bool)  # the classes of its parts of total > 0
        codes[[c for part in metric.parts for c in part.classes
               if design.classes[CLASS_KEYS[c]][part.target] > 0]] = True
        unknown = count_distinct(s.pair_key[codes[s.class_key] & ~s.known])
        eq, ne = ends[0][key], ends[1][key]
        if unknown and eq is not None and ne is not None:
            results[key] = replace(results[key], unknown_range=UnknownRange(eq, ne, unknown))
    return results


def _point_estimates(s: JudgedSample, design: Design, verdict: float) -> dict[str, float | None]:
    """Each metric's point estimate with every unknown verdict set to ``verdict``: every
    draw judged, every factor 1, so a part's p̂ is Σ k m x / Σ k m over its class, as
    :func:`estimate_metric` computes it, without the intervals (docs/method.md §8.11)."""
    x, k = np.where(s.known, s.equivalent, float(verdict)), s.draw_count.astype(float)
    by_class = [(r, k[r], x[r]) for r in (s.class_key == c for c in range(len(CLASS_KEYS)))]
    out: dict[str, float | None] = {}
    for key, metric in METRICS.items():
        values: list[float] | None = []
        for part in metric.parts:
            (c,), total = part.classes, design.total(part)
            rows, k_c, x_c = by_class[c]
            if total == 0:
                continue
            if design.classes[CLASS_KEYS[c]][f"{part.target}_uncovered"] > 0 or (
                    len(metric.parts) == 1 and not k_c.size):
                values = None  # not available, or undefined
                break
            km = k_c * (s.importance_u if part.target == "u" else s.importance_w)[rows]
            p = float((km * x_c).sum() / float(km.sum())) if km.size else 0.5
            value = total * (p if part.indicator == EQ or not km.size else 1 - p)
            values.append(value if part.sign > 0 else -value)
        exact = float(design.exact.get(metric.exact, 0.0)) if metric.exact else 0.0
        out[key] = None if values is None else exact + float(sum(values)) if values else exact
    return out


def unavailable(results: Mapping[str, Estimate]) -> dict[str, str]:
    """Metric key → why the sample's design cannot give it (docs/method.md §8.6)."""
    prefix = "not available: "
    return {k: (e.note or "")[len(prefix):] for k, e in results.items()
            if e.estimate is None and (e.note or "").startswith(prefix)}
