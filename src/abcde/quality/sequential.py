"""Confidence sequences of the quality metrics, valid however often one looks, and the
stop signal of ``--stop-when`` (docs/method.md §8.14).

A metric exact + Σ sign·T·p̂ is, linearised, a running mean of the per-draw influence
terms T·m·(x − p̂)/Ê[m] of its parts (the SE's residuals, §8.7) over the iid stream of
draws (§7.4), so the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha,
Kennedy & Ramdas (Ann. Stat. 52(6), 2024, Thm 2.2; Robbins' normal mixture, two one-sided
boundaries at α/2) applies to it. Every prefix is evaluated at once from cumulative sums.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcde.params import Constraint
from abcde.quality.metrics import (
    EQ,
    METRIC_KEYS,
    METRICS,
    MIN_N_EFF,
    Design,
    Metric,
    design_expected_n_eff,
)
from abcde.quality.sample import CLASS_KEYS, JudgedSample

MIN_JUDGED_DRAWS = 10
"""Below this many judged draws in the prefix a part enters the sequence by its whole
range [0, T]: the normal approximation behind the sequence needs draws."""
_LABELS = {k: m.label for k, m in METRICS.items()}


def unit_margin(n: np.ndarray | float, planned: float, alpha: float) -> np.ndarray:
    """The half-width of the two-sided asymptotic sequence for unit variance after n
    draws, tightest at ``planned`` draws (module docstring; Waudby-Smith et al. 2024).

    >>> round(float(unit_margin(1000, 1000, 0.05)) * math.sqrt(1000), 3)  # z = 1.96 fixed
    3.279
    """
    a = alpha / 2
    rho2 = (2 * math.log(1 / a) + math.log(1 + 2 * math.log(1 / a))) / planned
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(2 * (n * rho2 + 1) / (n * n * rho2) * np.log(np.sqrt(n * rho2 + 1) / a))


# --------------------------------------------------------------------------- #
# The questions of --stop-when
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Question:
    """``metric op value``; ``halfwidth`` True asks for the metric's half-width."""

    metric: str
    op: str
    value: float
    halfwidth: bool = False

    @property
    def text(self) -> str:
        op = {"<=": "≤", ">=": "≥"}.get(self.op, self.op)
        if self.halfwidth:
            return f"half-width of {_LABELS[self.metric]} {op} {_number(self.value, False)}"
        signed = self.metric == "delta_precision"
        return f"{_LABELS[self.metric]} {op} {_number(self.value, signed)}"


def _number(x: float, sign: bool) -> str:
    if x == 0:
        return "0"
    points = f"{100 * x:+.4g}" if sign else f"{100 * x:.4g}"
    return f"{points}%" if abs(x) <= 1 else f"{x:g}"


_QUESTION = re.compile(r"\s*([a-z_]+?)(?:\.(halfwidth))?\s*(<=|>=|<|>)\s*"
                       r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(%?)\s*")


class StopWhen(Constraint):
    """Questions for the stop signal: ``METRIC>V``, ``METRIC<V`` (or ≥, ≤), with the
    metric a key of ``abcde estimate``'s JSON, ``halfwidth<=V`` (ΔPrecision's) or
    ``METRIC.halfwidth<=V``; V a number or a percentage. A tuple of questions is
    returned (one string, or several)."""

    what = ("a question such as 'delta_precision>0', 'bad_merge_rate<0.02', "
            "'halfwidth<=0.01' or 'good_merge_rate.halfwidth<=1%' (metrics: "
            + ", ".join(METRIC_KEYS) + ")")

    def convert(self, value: Any) -> tuple[Question, ...]:
        texts = [value] if isinstance(value, str) else list(value)
        return tuple(self._one(t) for t in texts)

    @staticmethod
    def _one(text: Any) -> Question:
        if isinstance(text, Question):
            return text
        match = _QUESTION.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError
        name, suffix, op, number, percent = match.groups()
        halfwidth = suffix is not None or name == "halfwidth"
        metric = "delta_precision" if name == "halfwidth" else name
        value = float(number) / (100 if percent else 1)
        if metric not in METRICS or (halfwidth and (op not in ("<", "<=") or value <= 0)):
            raise ValueError
        return Question(metric, op, value, halfwidth)


STOP_WHEN = StopWhen()


# --------------------------------------------------------------------------- #
# Running sums over prefixes of the stream
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Stream:
    """Per stratum (one for an unstratified sample) the rows in it, the first draw of
    each row, the stratum's draws D and the prefix lengths n (draws) to evaluate."""

    rows: list[np.ndarray]
    first_draw: list[np.ndarray]
    draws: list[int]
    times: list[np.ndarray]


class _Sums:
    """Σ k(n)·v over the rows of one stratum at each prefix length n: a row adds
    a + b·n for n > f (its interpolated count), so two cumulative sums over the rows
    in first-draw order give every prefix at once."""

    def __init__(self, first: np.ndarray, count: np.ndarray, draws: int, times: np.ndarray):
        order = np.argsort(first, kind="stable")
        f, k = first[order].astype(float), count[order].astype(float)
        span = draws - 1 - f
        self.b = np.divide(k - 1, span, out=np.zeros_like(f), where=span > 0)
        self.a = 1 - self.b * (f + 1)
        self.order = order
        self.at = np.searchsorted(f, times, side="left")  # rows with f < n
        self.times = times.astype(float)

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """Σ k(n)·v at each time, for a row of values or a stack of rows."""
        v = np.atleast_2d(values)[:, self.order]
        zero = np.zeros((v.shape[0], 1))
        a = np.concatenate([zero, np.cumsum(v * self.a, axis=1)], axis=1)[:, self.at]
        b = np.concatenate([zero, np.cumsum(v * self.b, axis=1)], axis=1)[:, self.at]
        out = a + b * self.times
        return out if np.ndim(values) > 1 else out[0]


@dataclass(frozen=True)
class Running:
    """A metric's running estimate and confidence sequence at each evaluated prefix."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    sigma: list[np.ndarray]  # per stratum σ̂ (0 where no part of the metric lies)
    margin_alpha: float
    bounded: np.ndarray  # True where a thin part entered by its range


def _share(add: _Sums, total: float, m: np.ndarray, x: np.ndarray, used: np.ndarray,
           per_draw: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One part's Hájek share p̂ = Σkmx/Σkm over the ``used`` rows at every prefix, the
    variance per draw of its influence term T·m(x − p̂)/Ê[m], and whether it is thin."""
    m, x = np.where(used, m, 0.0), np.where(used, x, 0.0)
    judged, w1, w1x, w2, w2x = add(np.stack([used.astype(float), m, m * x, m * m, m * m * x]))
    safe = np.where(w1 > 0, w1, 1.0)
    p = np.where(w1 > 0, w1x / safe, 0.5)
    # the spread around p̂ with one pseudo draw of each verdict (Laplace): a part whose
    # draws all agree gets a width, not a sequence of zero width
    pad = safe / np.maximum(judged, 1.0)
    q = (w1x + pad) / (safe + 2 * pad)
    spread = np.maximum(w2x * (1 - 2 * q) + q * q * w2, 0.0)
    v = total * total * add.times * spread / safe**2  # T²·n·Σm²(x − p)²/(Σm)²
    # at least what the design's expected n_eff gives (the estimate's cap, §8.11): heavy
    # weights the prefix has not met yet still count
    n_design = per_draw * add.times
    v = np.maximum(v, total * total * q * (1 - q) * add.times / np.maximum(n_design, 1e-300))
    n_eff = np.minimum(np.where(w2 > 0, w1 * w1 / np.where(w2 > 0, w2, 1.0), 0.0), n_design)
    return p, v, (judged < MIN_JUDGED_DRAWS) | (n_eff < MIN_N_EFF)


def metric_sequence(metric: Metric, s: JudgedSample, design: Design, stream: Stream,
                    confidence: float, sums: list[_Sums] | None = None,
                    cache: dict[Any, Any] | None = None) -> Running:
    """The metric's confidence sequence at ``stream.times`` (module docstring). The lower
    limit takes every unknown verdict of the prefix as the one that lowers the metric,
    the upper as the other (no assumption on why they are unknown); the estimate is the
    estimators' own, unknowns reweighted within their class (§8.3). ``cache`` keeps the
    parts metrics share (one sample, one stream)."""
    cache = {} if cache is None else cache
    sums = sums or [_Sums(f, s.draw_count[r], d, t) for r, f, d, t in
                    zip(stream.rows, stream.first_draw, stream.draws, stream.times, strict=True)]
    size = stream.times[0].size
    exact = float(design.exact.get(metric.exact, 0.0)) if metric.exact else 0.0
    estimate = np.full(size, exact)
    centre = [np.full(size, exact), np.full(size, exact)]  # the low side's, the high's
    ends = [np.full(size, exact), np.full(size, exact)]  # the metric's possible range
    bounded = np.zeros(size, dtype=bool)
    variance = [[np.zeros(size) for _ in sums] for _ in range(2)]
    touched: set[int] = set()
    for part in metric.parts:
        total = design.total(part)
        if total == 0:
            continue
        sign_t = part.sign * total
        ends[0] += min(0.0, sign_t)
        ends[1] += max(0.0, sign_t)
        m_all = s.importance_u if part.target == "u" else s.importance_w
        per_draw = design_expected_n_eff(part, design) / max(
            design.scale[CLASS_KEYS[part.classes[0]]], 1e-300)
        drawn_anywhere = False
        for h, (rows, add) in enumerate(zip(stream.rows, sums, strict=True)):
            drawn = s.class_key[rows] == part.classes[0]  # one class per part (METRICS)
            if not drawn.any():
                continue
            drawn_anywhere = touched.add(h) or True
            known = drawn & s.known[rows]
            x = s.equivalent[rows] if part.indicator == EQ else 1 - s.equivalent[rows]
            shares = {}
            for fill in (None, 0.0, 1.0):  # unknowns reweighted, or taken as 0 or 1
                key = (h, part.classes, part.target, part.indicator, fill, total)
                if key not in cache:
                    cache[key] = _share(add, total, m_all[rows], x if fill is None else
                                        np.where(known, x, fill),
                                        known if fill is None else drawn, per_draw)
                shares[fill] = cache[key]
            estimate += sign_t * shares[None][0]
            for side, lowers in ((0, part.sign > 0), (1, part.sign < 0)):
                p, v, thin = shares[0.0 if lowers else 1.0]
                centre[side] += np.where(thin, min(0.0, sign_t) if side == 0
                                         else max(0.0, sign_t), sign_t * p)
                variance[side][h] += np.where(thin, 0.0, v)
                bounded |= thin
        if not drawn_anywhere:  # its whole range, as the estimate bounds it
            estimate += sign_t / 2
            centre[0] += min(0.0, sign_t)
            centre[1] += max(0.0, sign_t)
            bounded[:] = True
    alpha = (1 - confidence) / max(len(touched), 1)
    half = [np.zeros(size), np.zeros(size)]
    for h in touched:
        margin = np.nan_to_num(unit_margin(stream.times[h], stream.draws[h], alpha), nan=np.inf)
        for side in (0, 1):
            sg = np.sqrt(variance[side][h])
            half[side] += np.where(sg > 0, sg * margin, 0.0)
    sigma = [np.sqrt(np.maximum(lo, hi)) for lo, hi in zip(*variance, strict=True)]
    return Running(estimate, np.clip(centre[0] - half[0], *ends),
                   np.clip(centre[1] + half[1], *ends), sigma, alpha, bounded)


# --------------------------------------------------------------------------- #
# The current prefix of a judged sample, and the document of --sequential
# --------------------------------------------------------------------------- #


def _starts(first_draw: np.ndarray, pair_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (ids) in stream order and the first draw of each."""
    keys, inverse = np.unique(pair_ids, return_inverse=True)
    starts = np.full(keys.size, np.iinfo(np.int64).max)
    np.minimum.at(starts, inverse.reshape(-1), first_draw)
    order = np.argsort(starts, kind="stable")
    return keys[order], starts[order]


def judged_prefix(first_draw: np.ndarray, draw_count: np.ndarray, pair_ids: Sequence[str],
                  strata: np.ndarray | None, answered: set[str]) -> tuple[Stream, int]:
    """Per stratum the longest prefix of pairs in stream order that all have a verdict
    (unknown included), in draws up to the first draw of the first pair without one,
    as a Stream of one time; and its number of pairs."""
    groups = [np.arange(first_draw.size)] if strata is None else [
        np.flatnonzero(strata == h) for h in dict.fromkeys(strata.tolist())]
    ids = np.asarray(pair_ids, dtype=object).astype(str)
    draws = [int(draw_count[g].sum()) for g in groups]
    times, pairs = [], 0
    for g, total in zip(groups, draws, strict=True):
        keys, starts = _starts(first_draw[g], ids[g])
        k = next((i for i, p in enumerate(keys.tolist()) if p not in answered), len(keys))
        times.append(np.array([starts[k] if k < len(keys) else total]))
        pairs += k
    return Stream(groups, [first_draw[g] for g in groups], draws, times), pairs


def every_prefix(first_draw: np.ndarray, draw_count: np.ndarray,
                 pair_ids: Sequence[Any]) -> tuple[Stream, np.ndarray]:
    """An unstratified sample looked at after every verdict in stream order (the prefix
    of K pairs ends before the first draw of pair K + 1), and K at each time."""
    _, starts = _starts(first_draw, np.asarray(pair_ids))
    draws = int(draw_count.sum())
    return (Stream([np.arange(first_draw.size)], [first_draw], [draws],
                   [np.append(starts[1:], draws)]), np.arange(1, starts.size + 1))


def sequential_doc(s: JudgedSample, design: Design, first_draw: np.ndarray,
                   pair_ids: Sequence[str], answered: set[str],
                   questions: Sequence[Question], confidence: float,
                   fixed: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The ``sequential`` section of ``abcde estimate``: the prefix judged, per metric the
    sequence at it beside the fixed interval, and each question's answer."""
    stream, pairs = judged_prefix(first_draw, s.draw_count, pair_ids, s.stratum, answered)
    sums = [_Sums(f, s.draw_count[r], d, t) for r, f, d, t in
            zip(stream.rows, stream.first_draw, stream.draws, stream.times, strict=True)]
    cache: dict[Any, Any] = {}
    seqs = {k: metric_sequence(m, s, design, stream, confidence, sums, cache)
            for k, m in METRICS.items()}
    metrics = {}
    for key, q in seqs.items():
        metrics[key] = {"estimate": float(q.estimate[0]), "cs_low": float(q.low[0]),
                        "cs_high": float(q.high[0]),
                        "halfwidth": float(q.high[0] - q.low[0]) / 2,
                        "ci_low": fixed[key].get("ci_low"), "ci_high": fixed[key].get("ci_high"),
                        "bounded": bool(q.bounded[0])}
    n_now = [float(t[0]) for t in stream.times]
    return {
        "confidence": confidence, "pairs": pairs,
        "sample_pairs": len(set(pair_ids)), "draws": int(sum(n_now)),
        "planned_draws": sum(stream.draws),
        "order": "the pairs in stream order (first draw) up to the first without a verdict; "
                 "an unknown verdict counts as judged: the estimate reweights it within its "
                 "class, the sequence takes it either way (docs/method.md §8.14)",
        "metrics": metrics,
        "questions": [answer(q, seqs[q.metric], n_now, stream.draws, pairs) for q in questions]}


def answers(question: Question, seq: Running) -> np.ndarray:
    """The answer at every evaluated prefix: yes / no (the sequence wholly on the asked
    side / the other), reached (a half-width), else not yet."""
    if question.halfwidth:
        half = (seq.high - seq.low) / 2
        done = (half < question.value) | ((half <= question.value) & (question.op == "<="))
        return np.where(done, "reached", "not yet")
    above = question.op in (">", ">=")
    yes = seq.low > question.value if above else seq.high < question.value
    no = seq.high < question.value if above else seq.low > question.value
    return np.where(yes, "yes", np.where(no, "no", "not yet"))


def answer(question: Question, seq: Running, n_now: Sequence[float],
           planned: Sequence[int], pairs: int) -> dict[str, Any]:
    """The answer in words at the (one) evaluated prefix, and how many more verdicts it
    probably needs at the current estimate and spread."""
    state = str(answers(question, seq)[0])
    gap = question.value if question.halfwidth else abs(float(seq.estimate[0]) - question.value)
    words = {"yes": "yes, stop", "no": "no, stop", "reached": "reached", "not yet": "not yet"}
    return {"question": question.text, "answer": state,
            "text": f"{question.text}: {words[state]}",
            "more_verdicts": None if state != "not yet" else
            _more(seq, gap, n_now, planned, pairs)}


def _more(seq: Running, gap: float, n_now: Sequence[float], planned: Sequence[int],
          pairs: int) -> int | None:
    """Verdicts until the half-width falls to ``gap``, all strata growing by one factor
    λ at the current σ̂ and pairs per draw; None while a thin part bounds the sequence
    (no rate yet) or the estimate sits on the threshold."""
    sigma = [float(sg[0]) for sg in seq.sigma]
    if seq.bounded[0] or gap <= 0 or pairs == 0 or not any(sigma):
        return None

    def half(scale: float) -> float:
        return sum(sg * float(unit_margin(n * scale, d, seq.margin_alpha))
                   for sg, n, d in zip(sigma, n_now, planned, strict=True) if sg > 0)

    lo, hi = 1.0, 2.0
    while half(hi) > gap:
        lo, hi = hi, hi * 2
        if hi > 1e9:
            return None
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if half(mid) > gap else (lo, mid)
    return max(1, math.ceil(pairs * (hi - 1)))


def first_stop(question: Question, seq: Running, pairs: np.ndarray) -> tuple[int | None, str]:
    """After how many verdicts, looked at after each, the question was first answered,
    and the answer; (None, "not yet") if never."""
    said = answers(question, seq)
    at = np.flatnonzero(said != "not yet")
    return (int(pairs[at[0]]), str(said[at[0]])) if at.size else (None, "not yet")


def simulated_stops(runs: Sequence[tuple[JudgedSample, Design, np.ndarray, Sequence[str]]],
                    questions: Sequence[Question], exact: Mapping[str, float] | None,
                    confidence: float) -> list[dict[str, Any]]:
    """Per question, over simulated rounds judged in stream order and looked at after
    every verdict: how often and after how many verdicts it stopped, its answers, and
    how often the answer contradicts the exact value (``abcde simulate --sequential``)."""
    stops: list[list[tuple[int | None, str]]] = [[] for _ in questions]
    for s, design, first, ids in runs:
        stream, pairs = every_prefix(first, s.draw_count, ids)
        cache: dict[Any, Any] = {}
        for k, q in enumerate(questions):
            seq = metric_sequence(METRICS[q.metric], s, design, stream, confidence,
                                  cache=cache)
            stops[k].append(first_stop(q, seq, pairs))
    out = []
    for q, got in zip(questions, stops, strict=True):
        value = None if exact is None else exact.get(q.metric)
        truth = None if value is None or q.halfwidth else (
            "yes" if (value > q.value if q.op == ">" else value >= q.value if q.op == ">="
                      else value < q.value if q.op == "<" else value <= q.value) else "no")
        done = [n for n, _ in got if n is not None]
        answers = [a for _, a in got]
        out.append({"question": q.text, "exact": value, "true_answer": truth,
                    "stopped": len(done) / len(got), "answers": {
                        a: answers.count(a) for a in ("yes", "no", "reached", "not yet")},
                    "verdicts_mean": float(np.mean(done)) if done else None,
                    "verdicts_median": float(np.median(done)) if done else None,
                    "wrong": None if truth is None else
                    sum(a in ("yes", "no") and a != truth for a in answers) / len(got)})
    return out


def render_sequential(doc: Mapping[str, Any]) -> str:
    """The text of ``--sequential`` under the estimate's table."""
    seq = doc["sequential"]
    lines = ["", f"Confidence sequences ({seq['confidence']:.0%}, valid however often you look): "
             f"{seq['pairs']:,} of {seq['sample_pairs']:,} pairs judged in stream order, "
             f"{seq['draws']:,} of {seq['planned_draws']:,} draws"]
    for key, m in seq["metrics"].items():
        fixed = ("" if m["ci_low"] is None else
                 f"   fixed interval [{m['ci_low']:+.4f}, {m['ci_high']:+.4f}]")
        lines.append(f"  {_LABELS[key]:<20} {m['estimate']:+.4f}  sequence "
                     f"[{m['cs_low']:+.4f}, {m['cs_high']:+.4f}]{fixed}")
    for q in seq["questions"]:
        left = seq["sample_pairs"] - seq["pairs"]
        more = "" if q["more_verdicts"] is None else \
            f" (about {q['more_verdicts']:,} more verdicts at the current rate" + (
                f"; the sample has {left:,} pairs left: a larger budget of the same stream "
                "keeps these verdicts)" if q["more_verdicts"] > left else ")")
        lines.append(f"{q['text']}{more}")
    return "\n".join(lines)


__all__ = ["MIN_JUDGED_DRAWS", "STOP_WHEN", "Question", "StopWhen", "Stream", "answer", "answers",
           "every_prefix", "first_stop", "judged_prefix", "metric_sequence",
           "render_sequential", "sequential_doc", "simulated_stops", "unit_margin"]
