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
from dataclasses import dataclass

import numpy as np

from abcde.quality.intervals import ratio_terms

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


def _power(y: np.ndarray, f: np.ndarray, args: tuple[np.ndarray, ...]) -> float:
    """argmin_λ of the pair-keep term of y − λ f (a quadratic), clipped to [0, 1]."""
    keep = [ratio_terms(x, *args)[2] for x in (y, f, y - f)]
    cross = (keep[0] + keep[1] - keep[2]) / 2
    return min(1.0, max(0.0, cross / keep[1])) if keep[1] > 0 else 0.0


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
        for part in (fold, ~fold):
            other = ~part
            sub = tuple(a[other] for a in args)
            lam[part] = _power(yh[other], fh[other], sub) if other.any() else 0.0
    else:
        lam = np.full(yh.size, _power(yh, fh, args))
    mean_d, _, keep_d = ratio_terms(yh - lam * fh, *args)
    mean_y, first_y, keep_y = ratio_terms(yh, *args)
    power_used = float(lam.mean()) if lam.size else 0.0
    p = mean_y if power_used == 0 else power_used * model_share + mean_d
    agree = float((draw_count[h] * (np.round(fh) == yh)).sum() / draw_count[h].sum())
    return PowerTuned(min(1.0, max(0.0, p)), math.sqrt(first_y + keep_d), power_used, pairs,
                      math.sqrt(first_y + keep_y), agree)
