"""ΔPrecision per slice of vantage items and its contribution to ΔPrecision(T) (ABCDE
App. B; docs/method.md §8.9–8.10).

Only the draws whose vantage item i is in the slice I are used, and unknown verdicts are
reweighted per class *within the slice*:

    contribution(I) = pairweight(I) × mean over those draws of l_ij·1(i≡j)   (App. B.2)
    ΔPrecision(I)   = (W / weight(I)) × contribution(I)                    (App. B.1)

pairweight(I) is the exact pair-weight sum of the slice's vantage items (docs/method.md
§6.4), recorded in the sample's manifest. The contributions of a partition of T add up
to ΔPrecision(T). A stratified sample sums the strata's contributions.

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, App. B (eq. 59–67).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcde.quality.intervals import DEFAULT_SE
from abcde.quality.metrics import METRICS, estimate_metric
from abcde.quality.result import Estimate, rescaled, sum_independent
from abcde.quality.sample import JudgedSample, slice_factors


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
    slice_weight: float,
    pairweight: float,
    total_weight: float,
    *,
    key: Mapping[str, Any] | None = None,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> SliceEstimate:
    """ΔPrecision(I) and its contribution from the draws whose vantage item is in I.

    ΔPrecision(I) = mean_{draws, i∈I} l_ij·1(i≡j) × (W / w(I))·pairweight(I);
    contribution = w(I)/W·ΔPrecision(I) = mean × pairweight(I). Unknown verdicts are
    reweighted per class *within the slice*; a class drawn in the slice but never judged
    there makes both undefined.

    Parameters
    ----------
    s : JudgedSample
        The judged sample.
    in_slice : numpy.ndarray
        Boolean mask over the draw rows: the vantage item is in I.
    slice_weight : float
        w(I) > 0.
    pairweight : float
        pairweight(I) ≥ 0, the exact pair-weight sum of the slice.
    total_weight : float
        W > 0.
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
        On weights ≤ 0 or a negative pairweight.

    References
    ----------
    docs/method.md §8.9. ABCDE App. B.1 (eq. 59–63) and App. B.2 (eq. 64–67)
    (S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
    arXiv:2407.21430).
    """
    if not (slice_weight > 0 and total_weight > 0):
        raise ValueError(f"slice {dict(key or {})}: weights must be > 0")
    if pairweight < 0:
        raise ValueError(f"slice {dict(key or {})}: pairweight must be ≥ 0")
    mask = np.asarray(in_slice, dtype=bool)
    factors, _ = slice_factors(s, mask)
    contribution = estimate_metric(
        METRICS["delta_precision"],
        s,
        pairweight,
        confidence=confidence,
        se_method=se_method,
        mask=mask,
        factors=factors,
        what="slice",
    )
    dp = rescaled(contribution, total_weight / slice_weight)
    return SliceEstimate(
        dict(key or {}),
        float(slice_weight),
        float(pairweight),
        int(s.draw_count[mask].sum()),
        dp,
        contribution,
    )


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
        values and gives ``weight`` and ``pairweight``.
    total_weight : float
        W, the total item weight.
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
        On a row without weight, pairweight or slice column, or a column the draws lack.

    References
    ----------
    docs/method.md §8.9. ABCDE App. B (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430).
    """
    out = []
    for row in slice_rows(slices):
        if "weight" not in row or "pairweight" not in row:
            raise ValueError(f"manifest slice {row} needs 'weight' and 'pairweight'")
        key = {k: v for k, v in row.items() if k not in ("weight", "pairweight")}
        if not key:
            raise ValueError(f"manifest slice {row} names no slice column")
        mask = np.ones(s.rows, dtype=bool)
        for column, value in key.items():
            if column not in s.slice_columns:
                raise ValueError(
                    f"manifest slices by {column!r} but draws have no such column "
                    f"(slice columns: {sorted(s.slice_columns)})"
                )
            mask &= equal_mask(s.slice_columns[column], value)
        out.append(
            slice_delta_precision(
                s,
                mask,
                float(row["weight"]),
                float(row["pairweight"]),
                total_weight,
                key=key,
                confidence=confidence,
                se_method=se_method,
            )
        )
    return out


def stratified_slices(
    strata: Mapping[str, JudgedSample],
    slices: Sequence[Mapping[str, Any]],
    total_weight: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> list[SliceEstimate]:
    """Per-slice ΔPrecision(I) and contribution of a stratified sample.

    contribution(I) = Σ_h pairweight_h(I)·mean_h(I) over the draws of stratum h whose
    vantage item is in I (unknowns reweighted per class within the slice and stratum),
    SEs in quadrature and intervals by MOVER (independent strata);
    ΔPrecision(I) = W/w(I)·contribution(I).

    Parameters
    ----------
    strata : mapping of str to JudgedSample
        Each stratum's judged sample, by stratum name, in the manifest's order.
    slices : sequence of mappings
        The manifest's slice rows: column values, ``weight``, ``pairweight`` and
        ``pairweight_<stratum>`` for every stratum.
    total_weight : float
        W, the total item weight.
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
        When the draws lack a slice column.

    References
    ----------
    docs/method.md §8.9–8.10. ABCDE App. B (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430).
    """
    out = []
    for row in slices:
        key = {k: v for k, v in row.items() if k != "weight" and not k.startswith("pairweight")}
        parts = []
        n_draws = 0
        for name, js in strata.items():
            mask = np.ones(js.rows, dtype=bool)
            for column, value in key.items():
                if column not in js.slice_columns:
                    raise ValueError(f"manifest slices by {column!r} but draws lack it")
                mask &= equal_mask(np.asarray(js.slice_columns[column], dtype=object), value)
            est = slice_delta_precision(js, mask, float(row["weight"]),
                                        float(row[f"pairweight_{name}"]), total_weight,
                                        key=key, confidence=confidence, se_method=se_method)
            parts.append(est.contribution)
            n_draws += est.draws
        contribution = sum_independent(parts, confidence)
        dp = rescaled(contribution, total_weight / float(row["weight"]))
        out.append(SliceEstimate(key, float(row["weight"]), float(row["pairweight"]), n_draws,
                                 dp, contribution))
    return out
