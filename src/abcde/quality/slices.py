"""ΔPrecision per slice of vantage items and its contribution to ΔPrecision(T) (ABCDE
App. B; docs/method.md §8.9–8.10).

Only the draws whose vantage item i is in the slice I are used, and unknown verdicts are
reweighted per class *within the slice*. As for ΔPrecision(T) (docs/method.md §8.2), the
contribution is an exact part plus signed class parts:

    contribution(I) = Σ_{i∈I} u_ii·l_ii + Σ_k sign_k · T_k(I) · p̂_k(I)      (App. B.2)
    ΔPrecision(I)   = (W / weight(I)) × contribution(I)                    (App. B.1)

where T_k(I) = Σ_{i∈I} Σ_{j: (i,j) ∈ k} u_ij is the exact u total of class k over the
slice's vantage items and p̂_k(I) the importance-weighted share of equivalent verdicts
among the class's draws with vantage item in I. Both come from the manifest's slice rows
(pairs/slice_pairweights.sql). The contributions of a partition of T add up to
ΔPrecision(T). Stratified samples are estimated the same way (every class lies in one
stratum).

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, App. B (eq. 59–67).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from abcde.quality.intervals import DEFAULT_SE
from abcde.quality.metrics import METRICS, Design, estimate_metric
from abcde.quality.result import Estimate, rescaled
from abcde.quality.sample import CLASS_KEYS, JudgedSample, slice_factors

SLICE_CLASSES = ("split", "merge", "stable_plus", "stable_minus")
"""The classes whose u totals a manifest slice row gives (ΔPrecision's parts)."""


@dataclass(frozen=True)
class SliceEstimate:
    """ΔPrecision(I) and ΔPrecisionContribution(I) of one slice I of vantage items.

    ``slice`` is the slice's key (column → value), ``weight`` = weight(I),
    ``pairweight`` = pairweight(I), ``draws`` the draws whose vantage item is in I.
    """

    slice: dict[str, Any]
    weight: float
    pairweight: float
    draws: int
    delta_precision: Estimate
    contribution: Estimate

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form (``slices`` of ``abcde estimate``)."""
        return {
            "slice": self.slice,
            "weight": self.weight,
            "pairweight": self.pairweight,
            "draws": self.draws,
            "delta_precision": self.delta_precision.as_dict(),
            "contribution": self.contribution.as_dict(),
        }


def slice_delta_precision(
    s: JudgedSample,
    in_slice: np.ndarray,
    row: Mapping[str, Any],
    total_weight: float,
    design: Design,
    *,
    key: Mapping[str, Any] | None = None,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> SliceEstimate:
    """ΔPrecision(I) and its contribution from the draws whose vantage item is in I.

    contribution(I) = self part + Σ sign·T_k(I)·p̂_k(I) (module docstring);
    ΔPrecision(I) = W/w(I)·contribution(I). Unknown verdicts are reweighted per class
    *within the slice*; a class drawn in the slice but never judged there makes both
    undefined. A part's effective sample size is capped, as for ΔPrecision(T), at the
    design's expected one, taken for the slice as the class's times T_k(I)/T_k
    (:func:`_slice_class`): without it a slice of a design with heavy-tailed weights
    toward u (``--population jaccard``) showed a tame sample n_eff and covered 67–81%.

    Parameters
    ----------
    s : JudgedSample
        The judged sample.
    in_slice : numpy.ndarray
        Boolean mask over the draw rows: the vantage item is in I.
    row : mapping
        The manifest's slice row: ``weight`` = w(I) > 0, ``pairweight`` ≥ 0, the u totals
        of :data:`SLICE_CLASSES` over I and ``self_delta_precision``.
    total_weight : float
        W > 0.
    design : Design
        The sample's design (its Σu, Σw and draws scale; the classes are replaced by the
        slice's).
    key : mapping, optional
        The slice's column → value, carried into the result.
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se`.

    Returns
    -------
    SliceEstimate

    Raises
    ------
    ValueError
        On weights ≤ 0, a negative total, or a row without the class totals.

    References
    ----------
    docs/method.md §8.9. ABCDE App. B.1 (eq. 59–63) and App. B.2 (eq. 64–67)
    (S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
    arXiv:2407.21430).
    """
    slice_weight = float(row["weight"])
    if not (slice_weight > 0 and total_weight > 0):
        raise ValueError(f"slice {dict(key or {})}: weights must be > 0")
    missing = [c for c in (*SLICE_CLASSES, "self_delta_precision", "pairweight")
               if row.get(c) is None]
    if missing:
        raise ValueError(f"manifest slice {dict(key or {})} lacks {missing} (drawn by an "
                         "earlier abcde?)")
    if float(row["pairweight"]) < 0 or any(float(row[c]) < 0 for c in SLICE_CLASSES):
        raise ValueError(f"slice {dict(key or {})}: totals must be ≥ 0")
    classes = {k: _slice_class(design.classes[k], float(row[k]) if k in SLICE_CLASSES
                               else 0.0) for k in CLASS_KEYS}
    sliced = replace(design, classes=classes,
                     exact={"delta_precision": float(row["self_delta_precision"])})
    mask = np.asarray(in_slice, dtype=bool)
    factors, _ = slice_factors(s, mask)
    contribution = estimate_metric(
        METRICS["delta_precision"],
        s,
        sliced,
        confidence=confidence,
        se_method=se_method,
        mask=mask,
        factors=factors,
        what="slice",
        design_cap=True,
    )
    dp = rescaled(contribution, total_weight / slice_weight)
    return SliceEstimate(
        dict(key or {}),
        slice_weight,
        float(row["pairweight"]),
        int(s.draw_count[mask].sum()),
        dp,
        contribution,
    )


def _slice_class(whole: Mapping[str, float], u: float) -> dict[str, float]:
    """A class's design quantities for a slice whose u total is ``u``.

    The design's expected Kish n_eff toward u of a class is n·kish_u (docs/method.md
    §8.11); for the slice's pairs of the class it is taken as n·kish_u·T_k(I)/T_k: exact
    when the slice holds the same share T_k(I)/T_k of every stratum's u mass (the
    manifest has no per-slice Σ p²/q, so a slice whose pairs avoid the class's heavy
    strata gets a cap lower than its own, one that concentrates them a higher one). The
    importance weights' heavy tail then reaches a slice as it reaches the whole
    population, by the share of the class the slice holds (Kish 1965; ABCDE App. B.2,
    eq. 64–67 for the slice's parts).
    """
    share = u / float(whole["u"]) if float(whole["u"]) > 0 else 0.0
    # q in proportion too: the design's efficiency kish_u/q (heavy tails) is the class's
    return {**whole, "u": u, "u_uncovered": 0.0, "kish_u": float(whole["kish_u"]) * share,
            "q": float(whole["q"]) * share}


def equal_mask(column: np.ndarray, value: Any) -> np.ndarray:
    """Rows of ``column`` equal to ``value`` (None matches None).

    Parameters
    ----------
    column : numpy.ndarray
        A slice column of the draws.
    value : Any
        The slice's value.

    Returns
    -------
    numpy.ndarray
        Boolean mask.

    References
    ----------
    docs/method.md §3.6 (slices), §8.9.
    """
    if value is None:
        return np.array([v is None for v in column], dtype=bool)
    result = np.asarray(column == value)
    if result.shape != column.shape:  # numpy declined an elementwise comparison
        result = np.array([v == value for v in column], dtype=bool)
    return result.astype(bool)


def slice_rows(slices: Any) -> list[dict[str, Any]]:
    """Manifest slices as rows {<column>: value, ..., weight, pairweight}.

    Parameters
    ----------
    slices : list of mappings, mapping, or None
        A list of such rows, or {column: {value: {weight, pairweight}}}.

    Returns
    -------
    list of dict

    References
    ----------
    docs/method.md §6.4 (slice pairweights), §8.9.
    """
    if slices is None:
        return []
    if isinstance(slices, Mapping):
        rows = []
        for column, per_value in slices.items():
            for value, stats in per_value.items():
                rows.append({column: value, **stats})
        return rows
    return [dict(r) for r in slices]


def estimate_slices(
    s: JudgedSample,
    slices: Any,
    total_weight: float,
    design: Design,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> list[SliceEstimate]:
    """Per-slice ΔPrecision and contribution for every slice row of the manifest.

    Parameters
    ----------
    s : JudgedSample
        The judged sample, with the slice columns.
    slices : Any
        The manifest's slices (:func:`slice_rows`): each row names its slice by column
        values and gives ``weight``, ``pairweight``, the class totals and the self part.
    total_weight : float
        W, the total item weight.
    design : Design
        The sample's design.
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se`.

    Returns
    -------
    list of SliceEstimate
        In the manifest's order.

    Raises
    ------
    ValueError
        On a row without weight, totals or slice column, or a column the draws lack.

    References
    ----------
    docs/method.md §8.9. ABCDE App. B (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430).
    """
    numbers = ("weight", "pairweight", *SLICE_CLASSES, "self_delta_precision")
    out = []
    for row in slice_rows(slices):
        if "weight" not in row or "pairweight" not in row:
            raise ValueError(f"manifest slice {row} needs 'weight' and 'pairweight'")
        key = {k: v for k, v in row.items() if k not in numbers}
        if not key:
            raise ValueError(f"manifest slice {row} names no slice column")
        mask = np.ones(s.rows, dtype=bool)
        for column, value in key.items():
            if column not in s.slice_columns:
                raise ValueError(
                    f"manifest slices by {column!r} but draws have no such column "
                    f"(slice columns: {sorted(s.slice_columns)})"
                )
            mask &= equal_mask(np.asarray(s.slice_columns[column], dtype=object), value)
        out.append(slice_delta_precision(s, mask, row, total_weight, design, key=key,
                                         confidence=confidence, se_method=se_method))
    return out
