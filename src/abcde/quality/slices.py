"""ΔPrecision per slice I of vantage items and its contribution to ΔPrecision(T) (ABCDE
App. B, eq. 59–67; docs/method.md §8.9):

    contribution(I) = Σ_{i∈I} u_ii·l_ii + Σ_k sign_k · T_k(I) · p̂_k(I)
    ΔPrecision(I)   = (W / weight(I)) × contribution(I)

from the draws whose vantage item is in I, unknown verdicts reweighted within the slice,
T_k(I) and the self part from the manifest's slice rows. The contributions of a
partition of T add up to ΔPrecision(T).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from abcde.errors import InputError
from abcde.quality.intervals import DEFAULT_SE
from abcde.quality.metrics import METRICS, Design, estimate_metric
from abcde.quality.result import Estimate
from abcde.quality.sample import CLASS_KEYS, JudgedSample, factors_within

SLICE_CLASSES = ("split", "merge", "stable_plus", "stable_minus")
"""The classes whose u totals a manifest slice row gives (ΔPrecision's parts)."""
_NUMBERS = ("weight", "pairweight", *SLICE_CLASSES, "self_delta_precision")


def slice_rows(slices: Any) -> list[dict[str, Any]]:
    """Manifest slices as rows {column: value, …, weight, pairweight, …}, from a list of
    rows or {column: {value: numbers}}."""
    if isinstance(slices, Mapping):
        return [{column: value, **numbers} for column, per_value in slices.items()
                for value, numbers in per_value.items()]
    return [dict(r) for r in slices or []]


def estimate_slices(s: JudgedSample, slices: Any, total_weight: float, design: Design, *,
                    confidence: float = 0.95, se_method: str = DEFAULT_SE,
                    where: str = "") -> list[dict[str, Any]]:
    """Per slice row of the manifest, ΔPrecision(I) and its contribution (``slices`` of
    ``abcde estimate``). A part's n_eff is capped, as for ΔPrecision(T), at the design's
    expected one, taken for the slice as the class's times T_k(I)/T_k (:func:`_sliced`):
    without it a slice of a heavy-tailed design showed a tame n_eff and covered 67–81%.
    A row that cannot be estimated is refused, ``where`` (a prefix) naming the sample."""
    out = []
    for row in slice_rows(slices):
        key = {k: v for k, v in row.items() if k not in _NUMBERS}
        problem = _problem(row, key, s, total_weight)
        if problem:
            raise InputError(f"{where}manifest {problem}",
                             hint="Is this the sample's manifest, as abcde wrote it?")
        mask = np.ones(s.rows, dtype=bool)
        for column, value in key.items():
            mask &= _equal(np.asarray(s.slice_columns[column], dtype=object), value)
        sliced = replace(design, exact={"delta_precision": float(row["self_delta_precision"])},
                         classes={k: _sliced(design.classes[k], float(row[k]) if k in SLICE_CLASSES
                                                  else 0.0)
                                  for k in CLASS_KEYS})
        contribution = estimate_metric(METRICS["delta_precision"], s, sliced,
                                       confidence=confidence, se_method=se_method, mask=mask,
                                       factors=factors_within(s, mask), design_cap=True)
        out.append({"slice": key, "weight": float(row["weight"]),
                    "pairweight": float(row["pairweight"]),
                    "draws": int(s.draw_count[mask].sum()),
                    "delta_precision": _times(contribution,
                                              total_weight / float(row["weight"])).as_dict(),
                    "contribution": contribution.as_dict()})
    return out


def _problem(row: Mapping[str, Any], key: Mapping[str, Any], s: JudgedSample,
             total_weight: float) -> str | None:
    """What keeps a slice row from being estimated, if anything."""
    absent = [c for c in key if c not in s.slice_columns]
    lacking = [c for c in _NUMBERS if row.get(c) is None]
    return (f"slices by {absent[0]!r} but draws have no such column (slice columns: "
            f"{sorted(s.slice_columns)})" if absent else
            f"slice {row} names no slice column" if not key else
            f"slice {key} lacks {lacking} (drawn by an earlier abcde?)" if lacking else
            f"slice {key} has a weight ≤ 0" if not (float(row["weight"]) > 0
                                                   and total_weight > 0) else
            f"slice {key} has a total < 0" if min(float(row[c]) for c in _NUMBERS[1:-1]) < 0
            else None)


def _sliced(whole: Mapping[str, float], u: float) -> dict[str, float]:
    """A class's design quantities for a slice of u total ``u``: kish_u and q in proportion
    T_k(I)/T_k (exact when the slice holds that share of every stratum's u mass; the
    design's efficiency kish_u/q stays the class's; Kish 1965)."""
    share = u / float(whole["u"]) if float(whole["u"]) > 0 else 0.0
    return {**whole, "u": u, "u_uncovered": 0.0, "kish_u": float(whole["kish_u"]) * share,
            "q": float(whole["q"]) * share}


def _equal(column: np.ndarray, value: Any) -> np.ndarray:
    """Rows of ``column`` equal to ``value`` (None matches None)."""
    if value is None:
        return np.array([v is None for v in column], dtype=bool)
    result = np.asarray(column == value)
    if result.shape != column.shape:  # numpy declined an elementwise comparison
        result = np.array([v == value for v in column], dtype=bool)
    return result.astype(bool)


def _times(est: Estimate, factor: float) -> Estimate:
    """``est`` × a known constant (SE(c·X) = c·SE(X), docs/method.md §8.7)."""
    def times(x: float | None) -> float | None:
        return None if x is None else x * factor

    return replace(est, estimate=times(est.estimate), se=times(est.se),
                   ci_low=times(est.ci_low), ci_high=times(est.ci_high),
                   multiplier=est.multiplier * factor)
