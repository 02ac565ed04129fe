"""Prediction-powered shares: a model judges every drawn pair, humans a random subset of
them, and the share of equivalent pairs of a class keeps a valid interval whatever the
model's errors (docs/method.md §8.15; ABCDE App. B).

Per class, over the draw rows the model judged (f ∈ [0, 1]) with the humans' verdicts y
on a subset (reweighted by its factor, 1/π calibrated per class, as today's unknowns):

    p̂ = λ · F + R_h(y − λ f),   F = Σ k m f / Σ k m  (every model row),

R_h the ratio estimator of today (:func:`~abcde.quality.intervals.ratio_terms`) over the
humans' rows. Since F + R(·) of the same rows is R(y), p̂ linearises as R_all(y) plus the
second-phase error of R_h(y − λ f): SE² = draws' term of y + pair-keep term of y − λ f,
both from the same linearisation as today's. λ minimises that SE² (the pair-keep term is
quadratic in λ: PPI++ power tuning), clipped to [0, 1], cross-fitted over two halves of
the pairs when a class has few human verdicts. λ = 0 is today's estimate exactly.

References: A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan, T. Zrnic,
Prediction-powered inference, Science 382:669–674, 2023; A. N. Angelopoulos, J. C. Duchi,
T. Zrnic, PPI++: efficient prediction-powered inference, arXiv:2311.01453, 2023;
T. Zrnic, E. J. Candès, Active statistical inference, ICML 2024.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from abcde.errors import InputError
from abcde.inputs.records import read_records
from abcde.quality.intervals import ratio_terms
from abcde.quality.judgements import id_text, parse_verdict
from abcde.quality.sample import CLASS_KEYS, JudgedSample

MODEL_LOG = "model_verdicts.jsonl"
"""A sample directory's model verdicts (`abcde model-judge`), read by `abcde estimate`."""


def model_log(directory: str | Path | None) -> Path | None:
    """The sample directory's model verdicts once `abcde model-judge` wrote them: what
    `abcde estimate` and the judge's panel use when given no other."""
    found = None if directory is None else Path(directory) / MODEL_LOG
    return found if found is not None and found.is_file() else None
CROSS_FIT_BELOW = 100
"""Fewer human-judged pairs than this in a class: λ is cross-fitted (each half of the
pairs corrects with the λ of the other), so its estimate does not bias p̂."""


@dataclass(frozen=True)
class PowerTuned:
    """A prediction-powered share: p̂, its SE, the power λ, the humans' pairs, the SE of
    the humans' verdicts alone and the model's agreement with them (draw-weighted)."""

    p: float
    se: float
    power: float
    human_pairs: int
    human_se: float
    agreement: float

    @property
    def worth(self) -> float:
        """How many human verdicts alone would give the same SE ("300 worth ~740")."""
        if not (self.se > 0 and math.isfinite(self.human_se)):
            return float(self.human_pairs)
        return self.human_pairs * (self.human_se / self.se) ** 2


def _power(y: np.ndarray, f: np.ndarray, args: tuple[np.ndarray, ...],
           default: float = 0.0) -> float:
    """argmin_λ of the pair-keep term of y − λ f (a quadratic), clipped to [0, 1];
    ``default`` when it is flat (f the same on every pair: nothing to tune by)."""
    keep = [ratio_terms(x, *args)[2] for x in (y, f, y - f)]
    cross = (keep[0] + keep[1] - keep[2]) / 2
    return min(1.0, max(0.0, cross / keep[1])) if keep[1] > 0 else default


def power_tuned(y: np.ndarray, human: np.ndarray, f: np.ndarray, factor: np.ndarray,
                draw_count: np.ndarray, pair_key: np.ndarray, stratum: np.ndarray,
                importance: np.ndarray, power: float | None = None) -> PowerTuned:
    """The prediction-powered share of the model's rows (module docstring): ``y`` the
    human verdicts (read where ``human``), ``f`` the model's, ``factor`` the humans'
    reweighting factors; ``power`` fixes λ (None: tuned)."""
    k = draw_count.astype(float)
    model_share = float((k * importance * f).sum() / (k * importance).sum())
    h = human
    args = (factor[h], draw_count[h], pair_key[h], stratum[h], importance[h])
    yh, fh = y[h], f[h]
    pairs = int(np.unique(pair_key[h]).size)
    if power is not None:
        lam = np.full(yh.size, float(power))
    elif pairs < CROSS_FIT_BELOW:
        fold = pair_key[h] % 2 == 0
        lam = np.empty(yh.size)
        whole = _power(yh, fh, args)  # a fold whose λ is flat takes it (a small class)
        for part in (fold, ~fold):
            other = ~part
            sub = tuple(a[other] for a in args)
            lam[part] = _power(yh[other], fh[other], sub, whole) if other.any() else whole
    else:
        lam = np.full(yh.size, _power(yh, fh, args))
    mean_d, _, keep_d = ratio_terms(yh - lam * fh, *args)
    mean_y, first_y, keep_y = ratio_terms(yh, *args)
    power_used = ratio_terms(lam, *args)[0] if lam.size else 0.0  # weighted as R_h
    p = mean_y if power_used == 0 else power_used * model_share + mean_d
    first = first_y
    if power_used > 0:  # the draws' term of λf from every model row, the rest the humans'
        every = ratio_terms(power_used * f, np.ones(f.size), draw_count, pair_key, stratum,
                            importance)[1]
        first = max(0.0, first_y - ratio_terms(lam * fh, *args)[1] + every)
    agree = float((draw_count[h] * (np.round(fh) == yh)).sum() / draw_count[h].sum())
    return PowerTuned(min(1.0, max(0.0, p)), math.sqrt(first + keep_d), power_used, pairs,
                      math.sqrt(first_y + keep_y), agree)


def model_value(raw: Any, where: str) -> float:
    """A model verdict as P(equivalent): a number in [0, 1] or a verdict word (NaN for
    'unknown'); anything else is refused, naming ``where``."""
    if (isinstance(raw, int | float) and not isinstance(raw, bool)) or (
            isinstance(raw, str) and raw.strip().replace(".", "", 1).isdigit()):
        value = float(raw)
        if not 0 <= value <= 1:
            raise InputError(f"{where} ({{option}}): a probability must be in [0, 1], got "
                             f"{raw!r}", option="model")
        return value
    word = parse_verdict(raw, where)
    return {"equivalent": 1.0, "not_equivalent": 0.0}.get(word, math.nan)


def read_model_verdicts(model: Any, pairs: Mapping[str, tuple[Any, Any]]) -> dict[str, float]:
    """pair id → P(equivalent) from a CSV/JSONL file (pair_id and verdict or probability),
    a mapping pair id → value, or a callable (i, j) → value over ``pairs`` (id → items)."""
    if callable(model):
        return {pid: model_value(model(i, j), f"the model on pair {pid}")
                for pid, (i, j) in pairs.items()}
    if isinstance(model, Mapping):
        return {str(id_text(k)): model_value(v, f"the model's verdict of pair {k}")
                for k, v in model.items()}
    read = read_records(model, what="model verdict file",
                        expected=[{"pair_id", "verdict"}, {"pair_id", "probability"}])
    column = next((c for c in ("probability", "verdict") if c in read.columns), None)
    if column is None or "pair_id" not in read.columns:
        raise InputError(f"model verdict file {read.where}: expected columns pair_id and "
                         f"verdict or probability; it has {sorted(read.columns)}",
                         option="model")
    return {str(id_text(r["pair_id"])): model_value(r[column], f"{read.where} line {n}")
            for n, r in read.rows}


def class_summary(s: JudgedSample) -> dict[str, dict[str, Any]]:
    """Per class with model and human verdicts: the model's agreement with the humans,
    λ, the human pairs and what they are worth (toward u, else w; docs/method.md §8.15)."""
    out: dict[str, dict[str, Any]] = {}
    assert s.model is not None
    for code, name in enumerate(CLASS_KEYS):
        rows = (s.class_key == code) & ~np.isnan(s.model)
        if not (rows & s.known).any():
            continue
        m = s.importance_u if s.importance_u[rows].sum() > 0 else s.importance_w
        r = power_tuned(s.equivalent[rows], s.known[rows], s.model[rows], s.factor[rows],
                        s.draw_count[rows], s.pair_key[rows], s.class_key[rows], m[rows])
        worth = r.worth
        given = f"{r.human_pairs:,} human verdict{'' if r.human_pairs == 1 else 's'}"
        out[name] = {"agreement": r.agreement, "power": r.power, "human_pairs": r.human_pairs,
                     "worth": worth, "text": (
                         f"{given} worth ~{worth:,.0f}" if r.power > 0.05 else f"{given}: the "
                         "model adds nothing here (λ ≈ 0), the humans' estimate is used")}
    return out
