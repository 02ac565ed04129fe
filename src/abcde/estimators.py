"""Quality estimators that run on the small returned sample of judged item pairs.

The SQL side samples ordered item pairs (i, j) with replacement from one of two
pair populations and returns one row per unique ordered pair drawn:

- ``abcde``: the ΔPrecision population of ABCDE §5.7 (eq. 52–58), pair weight
  u_ij, label l_ij ∈ {−1, +1};
- ``jaccard``: the population of the Jaccard decomposition paper §7, pair weight
  w_ij = w_i w_j / (W·U), labels a_i, −b_i, a_i − b_i (eq. 92–95).

Every metric is "a weighted mean over the sample × the total weight of the pairs
it was sampled from" (ABCDE §5.1, Jaccard §3.1).  Observations are *draws*: a
row with ``draw_count`` k counts k times.  Unknown verdicts are dropped and the
remaining draws are reweighted per class (self, split, merge, stable non-self) so
that every class keeps its sampled weight (ABCDE §5.8, Jaccard §8).  The
standard error is Kirchner's Case I formula for a weighted mean (ABCDE §5.8)
plus, when some verdicts are unknown, the variance of which *pairs* were judged
(``se_method="pair_clustered"``, the default; see :func:`reweighted_mean_se`).
With every pair judged the two methods agree exactly.

Decisions where the papers leave room:
- factors count draws (a pair drawn k times is k sampled / judged draws);
- a class drawn but never judged makes every metric that needs it undefined
  (estimate None with a note), never 0; a class with population total 0 gives
  exactly 0 with SE 0;
- slices reweight unknowns per class *within the slice*;
- on the jaccard population the (good|bad)(split|merge) *rates* are estimated by
  importance weighting with |l_ij| = u_ij/w_ij (Jaccard §6.1); the abcde
  population cannot give the distances or the affected indexes (see
  ``unavailable`` in :func:`estimate`);
- a non-self pair with no verdict at all counts as unknown (and is reported).

Entry points: :func:`estimate` (everything, as a JSON-ready dict),
:func:`judged_sample` plus the per-metric functions, :func:`weighted_mean_se`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any

import numpy as np

POPULATIONS = ("abcde", "jaccard")
CLASSES = ("self", "split", "merge", "stable")
"""Pair classes of a draw row; 'stable' means stable and not self (i ≠ j)."""
VERDICTS = ("equivalent", "not_equivalent", "unknown")
_VERDICT_CODE = {"equivalent": 1, "not_equivalent": 0, "unknown": -1}

SELF, SPLIT, MERGE, STABLE = range(4)
_CLASS_CODE = {name: code for code, name in enumerate(CLASSES)}
REQUIRED_COLUMNS = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count")

RATE_KEYS = ("good_split_rate", "bad_split_rate", "good_merge_rate", "bad_merge_rate")
DISTANCE_KEYS = (
    "good_split_distance",
    "bad_split_distance",
    "good_merge_distance",
    "bad_merge_distance",
    "good_distance",
    "bad_distance",
)
INDEX_KEYS = ("affected_good_index", "affected_bad_index")
METRIC_KEYS = ("delta_precision", *RATE_KEYS, *DISTANCE_KEYS, *INDEX_KEYS)

_TOLERANCE = 1e-6  # relative tolerance for manifest consistency checks

_UNAVAILABLE_ABCDE = {
    **dict.fromkeys(
        DISTANCE_KEYS,
        "needs the jaccard population (Jaccard decomposition §7): abcde draws are "
        "sampled ∝ u_ij and labelled ±1, so they lack the importance weights "
        "w_ij/u_ij (= W_b/U for splits, W_e/U for merges) that would convert them",
    ),
    **dict.fromkeys(
        INDEX_KEYS,
        "needs the jaccard population: the abcde population gives u_ij = 0 to stable "
        "pairs of items whose Base and Exp clusters weigh the same (W_b = W_e), so "
        "they are never sampled (Jaccard decomposition §6.1)",
    ),
}


# --------------------------------------------------------------------------- #
# Results
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Estimate:
    """An estimated metric with its standard error and normal confidence interval.

    ``estimate`` is None when the sample cannot estimate the metric (``note``
    says why); ``se``/``ci_*`` are None when the standard error is undefined
    (a single draw).  ``pairs`` counts the distinct judged unordered pairs used
    (self pairs included), ``draws`` the draws they carry.
    """

    estimate: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    pairs: int
    draws: int
    multiplier: float
    confidence: float = 0.95
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form used by :func:`estimate`."""
        return {
            "estimate": self.estimate,
            "se": self.se,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "pairs": self.pairs,
            "draws": self.draws,
            "multiplier": self.multiplier,
            "note": self.note,
        }


@dataclass(frozen=True)
class ClassTally:
    """Draws and pairs of one pair class, before and after dropping unknowns.

    ``factor`` = sampled_draws / judged_draws (ABCDE §5.8); None when the
    class was sampled but nothing in it was judged.
    """

    sampled_draws: int
    judged_draws: int
    sampled_pairs: int
    judged_pairs: int
    factor: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "sampled_draws": self.sampled_draws,
            "judged_draws": self.judged_draws,
            "sampled_pairs": self.sampled_pairs,
            "judged_pairs": self.judged_pairs,
            "factor": self.factor,
        }


@dataclass(frozen=True)
class JudgedSample:
    """Draw rows joined with their verdicts, validated, as parallel numpy arrays.

    ``equivalent`` is 1.0 / 0.0 for judged rows and NaN for unknown ones;
    ``factor`` is the per-row reweighting factor of its class (0 when unknown).
    """

    population: str
    pair_id: np.ndarray
    pair_key: np.ndarray  # dense int code of pair_id
    item_i: np.ndarray
    item_j: np.ndarray
    pair_class: np.ndarray  # int codes, see CLASSES
    label: np.ndarray
    draw_count: np.ndarray
    equivalent: np.ndarray
    known: np.ndarray
    factor: np.ndarray
    tallies: dict[str, ClassTally]
    slice_columns: dict[str, np.ndarray]
    missing_verdicts: int
    unused_verdicts: int

    @property
    def rows(self) -> int:
        return int(self.pair_id.shape[0])


# --------------------------------------------------------------------------- #
# Statistics
# --------------------------------------------------------------------------- #


def weighted_mean_se(
    x: Sequence[float] | np.ndarray,
    w: Sequence[float] | np.ndarray,
    counts: Sequence[float] | np.ndarray | None = None,
) -> tuple[float, float]:
    """Weighted mean and its standard error, Kirchner Case I (ABCDE §5.8).

        x̄_w = Σ w_i x_i / Σ w_i
        SE  = sqrt( (Σ w_i x_i² / Σ w_i − x̄_w²) · Σ w_i² / ((Σ w_i)² − Σ w_i²) )

    Row r stands for ``counts[r]`` observations (draws) of value x[r] and weight
    w[r], so Σw = Σ k·w, Σw² = Σ k·w² and so on.  With all w = 1 this is the
    sample standard deviation (ddof = 1) over √n.  The first factor is computed
    in its centred form Σ w (x − x̄_w)² / Σ w, which is algebraically identical
    and does not cancel catastrophically.  SE is NaN with a single observation.
    """
    xs = np.asarray(x, dtype=float)
    ws = np.asarray(w, dtype=float)
    ks = np.ones_like(xs) if counts is None else np.asarray(counts, dtype=float)
    if not (xs.shape == ws.shape == ks.shape) or xs.ndim != 1:
        raise ValueError(
            f"x, w and counts must be 1-d and of equal length, got shapes "
            f"{xs.shape}, {ws.shape}, {ks.shape}"
        )
    if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ws)) and np.all(np.isfinite(ks))):
        raise ValueError("x, w and counts must be finite")
    if np.any(ws < 0) or np.any(ks < 0):
        raise ValueError("weights and counts must be non-negative")
    return _kirchner(xs, ws, ks)


def _kirchner(xs: np.ndarray, ws: np.ndarray, ks: np.ndarray) -> tuple[float, float]:
    """Kirchner Case I on validated arrays; see :func:`weighted_mean_se`."""
    kw = ks * ws
    sum_w = float(kw.sum())
    if sum_w <= 0:
        raise ValueError("no observations with positive weight")
    mean = float((kw * xs).sum() / sum_w)
    sum_w2 = float((kw * ws).sum())
    denominator = sum_w * sum_w - sum_w2
    if denominator <= 1e-12 * sum_w * sum_w:
        return mean, math.nan
    spread = float((kw * (xs - mean) ** 2).sum() / sum_w)
    return mean, math.sqrt(spread * sum_w2 / denominator)


SE_METHODS = ("pair_clustered", "kirchner")
DEFAULT_SE = "pair_clustered"


def reweighted_mean_se(
    x: np.ndarray,
    factor: np.ndarray,
    draw_count: np.ndarray,
    pair_key: np.ndarray,
    stratum: np.ndarray,
    method: str = DEFAULT_SE,
) -> tuple[float, float]:
    """Mean and SE of judged draws reweighted for unknown verdicts (ABCDE §5.8).

    Rows are judged draw rows: value ``x``, ``draw_count`` k, reweighting
    ``factor`` f of their ``stratum`` (pair class), dense ``pair_key`` of their
    unordered pair.

    ``method="kirchner"``: Kirchner Case I with weight f per draw, exactly as the
    paper prints it (:func:`weighted_mean_se`).  It treats every draw as an
    independent observation, but verdicts — and so the unknowns — come per
    *pair*: a pair drawn k times (or drawn as both (i, j) and (j, i)) is dropped
    or kept with all its draws, which Case I does not see, so with unknowns and
    repeated pairs its interval is too narrow.

    ``method="pair_clustered"`` (default) adds that variance.  With N = Σ f·k the
    sampled draws in scope, x̄ the weighted mean, s² = Σ f k (x − x̄)² / N,
    x̄_c the weighted mean of stratum c and g_p = Σ_{rows r of pair p} k_r (x_r − x̄_c):

        SE² = s² / (N − 1) + Σ_{judged pairs p} f_p (f_p − 1) g_p² / N²

    i.e. the sampling variance of the mean over all N draws plus the linearised
    variance of keeping each pair of stratum c with probability 1/f_c, given the
    per-stratum calibration.  When every pair is judged (all f = 1) this is exactly
    Kirchner Case I; when no pair repeats and strata share one mean it agrees with
    Kirchner Case I to O(1/N).
    """
    if method not in SE_METHODS:
        raise ValueError(f"se_method must be one of {SE_METHODS}, got {method!r}")
    k = draw_count.astype(float)
    if method == "kirchner":
        return _kirchner(x, factor, k)
    fk = factor * k
    total = float(fk.sum())
    if total <= 0:
        raise ValueError("no observations with positive weight")
    mean = float((fk * x).sum() / total)
    if total * total - float((fk * factor).sum()) <= 1e-12 * total * total:
        return mean, math.nan  # a single draw carries everything: no spread to see
    spread = float((fk * (x - mean) ** 2).sum() / total)
    variance = spread / (total - 1)
    if np.any(factor != 1):
        strata = np.asarray(stratum, dtype=np.int64)
        stratum_mean = np.bincount(strata, weights=fk * x) / np.maximum(
            np.bincount(strata, weights=fk), 1e-300
        )
        per_pair = np.bincount(pair_key, weights=k * (x - stratum_mean[strata]))
        pair_factor = np.ones(per_pair.size)
        pair_factor[pair_key] = factor
        variance += float((pair_factor * (pair_factor - 1) * per_pair**2).sum()) / total**2
    return mean, math.sqrt(variance)


def z_value(confidence: float = 0.95) -> float:
    """Two-sided standard normal quantile, e.g. 1.959964 for 95%."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def scaled_estimate(
    mean: float | None,
    se: float | None,
    multiplier: float,
    *,
    pairs: int,
    draws: int,
    confidence: float = 0.95,
    note: str | None = None,
) -> Estimate:
    """multiplier × mean with SE(c·X) = c·SE(X) (ABCDE §5.8) and a normal CI."""
    if mean is None:
        return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)
    value = multiplier * mean
    if se is None or math.isnan(se):
        note = note or "standard error undefined: fewer than two draws"
        return Estimate(value, None, None, None, pairs, draws, multiplier, confidence, note)
    scaled_se = abs(multiplier) * se
    half = z_value(confidence) * scaled_se
    return Estimate(
        value, scaled_se, value - half, value + half, pairs, draws, multiplier, confidence, note
    )


def exact_zero(multiplier: float, what: str, confidence: float = 0.95) -> Estimate:
    """A metric over an empty pair class: exactly 0, no sampling error."""
    return Estimate(0.0, 0.0, 0.0, 0.0, 0, 0, multiplier, confidence, f"exactly 0: {what}")


def sum_independent(parts: Sequence[Estimate], confidence: float = 0.95) -> Estimate:
    """Sum of estimates from disjoint pair classes; SEs add in quadrature (Jaccard §4.4, §8)."""
    undefined = [p.note or "undefined" for p in parts if p.estimate is None]
    pairs = sum(p.pairs for p in parts)
    draws = sum(p.draws for p in parts)
    multiplier = sum(p.multiplier for p in parts)
    if undefined:
        return Estimate(
            None, None, None, None, pairs, draws, multiplier, confidence, "; ".join(undefined)
        )
    value = float(sum(p.estimate for p in parts if p.estimate is not None))
    if any(p.se is None for p in parts):
        note = "standard error undefined: a part has fewer than two draws"
        return Estimate(value, None, None, None, pairs, draws, multiplier, confidence, note)
    se = math.sqrt(sum(p.se**2 for p in parts if p.se is not None))
    half = z_value(confidence) * se
    notes = [p.note for p in parts if p.note]
    return Estimate(
        value,
        se,
        value - half,
        value + half,
        pairs,
        draws,
        multiplier,
        confidence,
        "; ".join(notes) or None,
    )


# --------------------------------------------------------------------------- #
# Unknown verdicts
# --------------------------------------------------------------------------- #


def _count_distinct(keys: np.ndarray) -> int:
    """Number of distinct values of dense non-negative integer codes."""
    return int(np.count_nonzero(np.bincount(keys))) if keys.size else 0


def class_tallies(
    pair_class: np.ndarray, draw_count: np.ndarray, known: np.ndarray, pair_key: np.ndarray
) -> dict[str, ClassTally]:
    """Sampled and judged draws per class and the reweighting factor (ABCDE §5.8).

    factor(class) = draws sampled in class / draws judged in class, so the judged
    draws of every class keep the class's sampled weight (e.g. 1000 split draws
    sampled, 800 judged → each judged split draw weighs 1.25).  Classes are
    self, split, merge and stable non-self (ABCDE §5.8, Jaccard §8); ``pair_class``
    holds their integer codes.
    """
    tallies: dict[str, ClassTally] = {}
    for code, name in enumerate(CLASSES):
        in_class = pair_class == code
        judged = in_class & known
        sampled_draws = int(draw_count[in_class].sum())
        judged_draws = int(draw_count[judged].sum())
        factor = sampled_draws / judged_draws if judged_draws else None
        tallies[name] = ClassTally(
            sampled_draws,
            judged_draws,
            _count_distinct(pair_key[in_class]),
            _count_distinct(pair_key[judged]),
            factor,
        )
    return tallies


def reweighting_factors(
    pair_class: Sequence[str], draw_count: Sequence[int], judged: Sequence[bool]
) -> dict[str, float | None]:
    """Per-class weight of a judged draw: sampled draws / judged draws (ABCDE §5.8).

    A convenience wrapper over :func:`class_tallies` for plain sequences; a class
    that was not sampled is absent, one with no judged draws maps to None.
    """
    codes = _class_codes(np.asarray(pair_class, dtype=object))
    counts = np.asarray(draw_count, dtype=np.int64)
    known = np.asarray(judged, dtype=bool)
    keys = np.arange(codes.size)
    tallies = class_tallies(codes, counts, known, keys)
    return {name: t.factor for name, t in tallies.items() if t.sampled_draws}


def _row_factors(s: JudgedSample, mask: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Reweighting factors recomputed within ``mask`` (a slice), per class.

    Returns the per-row factors (0 outside the mask or when unknown) and the
    classes that were sampled inside the mask but have no judged draw there.
    """
    factors = np.zeros(s.rows)
    starved = []
    for code, name in enumerate(CLASSES):
        in_class = mask & (s.pair_class == code)
        judged = in_class & s.known
        sampled = s.draw_count[in_class].sum()
        judged_draws = s.draw_count[judged].sum()
        if sampled and not judged_draws:
            starved.append(name)
        elif judged_draws:
            factors[judged] = sampled / judged_draws
    return factors, starved


# --------------------------------------------------------------------------- #
# Input normalisation and validation
# --------------------------------------------------------------------------- #


def _as_columns(table: Any, what: str) -> dict[str, np.ndarray]:
    """Columns of a mapping of sequences, a list of row mappings, a pyarrow
    table, a pandas DataFrame or a DuckDB relation, as numpy arrays."""
    if hasattr(table, "fetchnumpy"):
        table = table.fetchnumpy()
    elif hasattr(table, "to_pydict"):
        table = table.to_pydict()
    elif (
        hasattr(table, "columns") and hasattr(table, "to_numpy") and not isinstance(table, Mapping)
    ):
        table = {str(c): table[c].to_numpy() for c in table.columns}
    if isinstance(table, Mapping):
        columns = {str(k): _array(v) for k, v in table.items()}
    else:
        rows = list(table)
        if rows and not all(isinstance(r, Mapping) for r in rows):
            raise ValueError(f"{what}: expected a mapping of columns or a list of row mappings")
        names: list[str] = []
        for r in rows:
            names.extend(k for k in r if k not in names)
        columns = {str(n): _array([r.get(n) for r in rows]) for n in names}
    lengths = {name: col.shape[0] for name, col in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"{what}: columns have different lengths {lengths}")
    return columns


def _array(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        arr = np.asarray(list(values), dtype=object)
    return arr


def _examples(values: np.ndarray, limit: int = 5) -> list[Any]:
    return [v.item() if hasattr(v, "item") else v for v in values[:limit]]


def _class_codes(pair_class: np.ndarray) -> np.ndarray:
    """Integer codes (see CLASSES) of the pair_class column."""
    distinct, inverse = np.unique(np.asarray(pair_class).astype(str), return_inverse=True)
    lookup = np.full(distinct.size, -1, dtype=np.int8)
    for slot, name in enumerate(distinct):
        lookup[slot] = _CLASS_CODE.get(str(name).strip().lower(), -1)
    codes = lookup[np.asarray(inverse).reshape(-1)]
    bad = codes < 0
    if bad.any():
        raise ValueError(
            f"draws.pair_class must be one of {CLASSES}; got {_examples(pair_class[bad])}"
        )
    return codes


def _dense_codes(*arrays: np.ndarray) -> list[np.ndarray]:
    """Factorise values shared across arrays into dense integer codes."""
    joined = np.concatenate(arrays) if arrays else np.array([])
    try:
        _, inverse = np.unique(joined, return_inverse=True)
    except TypeError:  # mixed, unorderable types: fall back to a dict
        index: dict[Any, int] = {}
        inverse = np.fromiter((index.setdefault(v, len(index)) for v in joined), np.int64)
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    out, start = [], 0
    for a in arrays:
        out.append(inverse[start : start + a.shape[0]])
        start += a.shape[0]
    return out


def _normalise_verdict(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    if isinstance(value, (bool, np.bool_)):
        return "equivalent" if value else "not_equivalent"
    text = str(value).strip().lower().replace(" ", "_").replace("-", "_")
    if text not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS} (or True/False/None), got {value!r}")
    return text


def _normalise_all(values: Any) -> list[str]:
    """Normalised verdicts, each distinct raw value parsed once."""
    seen: dict[Any, str] = {}
    out = []
    for v in _plain(values):
        try:
            text = seen.get(v)
            if text is None:
                text = seen[v] = _normalise_verdict(v)
        except TypeError:  # unhashable
            text = _normalise_verdict(v)
        out.append(text)
    return out


def _plain(values: Any) -> list[Any]:
    """Python scalars from a numpy array or any iterable (np.int64(3) → 3)."""
    if isinstance(values, np.ndarray):
        return values.tolist()
    return [_scalar(v) for v in values]


def _verdict_map(verdicts: Any) -> dict[Any, str]:
    """pair_id → verdict from a mapping, columns {pair_id, verdict} or rows."""
    if hasattr(verdicts, "to_pydict") or hasattr(verdicts, "fetchnumpy"):
        verdicts = _as_columns(verdicts, "verdicts")
    if isinstance(verdicts, Mapping) and "pair_id" in verdicts and "verdict" in verdicts:
        ids, values = verdicts["pair_id"], verdicts["verdict"]
        if not isinstance(ids, (str, bytes)) and isinstance(ids, (Sequence, np.ndarray)):
            ids, values = _plain(ids), _normalise_all(values)
            if len(ids) != len(values):
                raise ValueError("verdicts: pair_id and verdict columns differ in length")
            return dict(zip(ids, values, strict=True))
    if isinstance(verdicts, Mapping):
        return dict(zip(_plain(verdicts.keys()), _normalise_all(verdicts.values()), strict=True))
    out: dict[Any, str] = {}
    for row in verdicts:
        if isinstance(row, Mapping):
            out[_scalar(row["pair_id"])] = _normalise_verdict(row["verdict"])
        else:
            pair_id, verdict = row
            out[_scalar(pair_id)] = _normalise_verdict(verdict)
    return out


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _check_pair_structure(
    pair_key: np.ndarray, i_code: np.ndarray, j_code: np.ndarray, codes: np.ndarray, pair_id: Any
) -> None:
    """Rows are unique ordered pairs; a pair_id names {i, j} and at most (i,j), (j,i)."""
    n = pair_key.size
    if n == 0:
        return
    m = int(max(i_code.max(), j_code.max())) + 1
    ordered = i_code * m + j_code
    uniq, counts = np.unique(ordered, return_counts=True)
    if (counts > 1).any():
        dup = np.isin(ordered, uniq[counts > 1])
        raise ValueError(
            "draws: each ordered pair (item_i, item_j) must appear once (aggregate "
            f"repeats into draw_count); repeated pair_ids {_examples(pair_id[dup])}"
        )
    lo, hi = np.minimum(i_code, j_code), np.maximum(i_code, j_code)
    unordered = lo * m + hi
    order = np.argsort(pair_key, kind="stable")
    keys, first = np.unique(pair_key[order], return_index=True)
    per_key_unordered = unordered[order][first]
    per_key_class = codes[order][first]
    group = np.searchsorted(keys, pair_key)
    bad = (unordered != per_key_unordered[group]) | (codes != per_key_class[group])
    if bad.any():
        raise ValueError(
            "draws: rows sharing a pair_id must be (i, j) and (j, i) of one unordered pair "
            f"with one pair_class; offending pair_ids {_examples(pair_id[bad])}"
        )


def _check_labels(population: str, codes: np.ndarray, label: np.ndarray, pair_id: Any) -> None:
    if not np.all(np.isfinite(label)):
        raise ValueError(
            f"draws.label must be finite; pair_ids {_examples(pair_id[~np.isfinite(label)])}"
        )
    if population == "abcde":
        bad = np.abs(label) != 1
        bad |= (codes == SPLIT) & (label != -1)
        bad |= (codes == MERGE) & (label != 1)
        rule = "abcde labels are −1 (split), +1 (merge), sgn(W_b − W_e) = ±1 (stable, self)"
    else:
        bad = ((codes == SPLIT) & (label > -1)) | ((codes == MERGE) & (label < 1))
        rule = "jaccard labels are −b ≤ −1 (split), a ≥ 1 (merge), a − b (stable, self)"
    if bad.any():
        raise ValueError(f"draws.label: {rule}; offending pair_ids {_examples(pair_id[bad])}")


def judged_sample(draws: Any, verdicts: Any, population: str) -> JudgedSample:
    """Validate the draw rows, join the verdicts and compute per-class reweighting.

    ``draws``: one row per unique ordered pair drawn with columns pair_id,
    item_i (vantage item), item_j, pair_class ∈ CLASSES, label, draw_count ≥ 1,
    and optional slice columns of the vantage item.  ``verdicts``: pair_id →
    'equivalent' | 'not_equivalent' | 'unknown' (also accepted: a
    {pair_id: [...], verdict: [...]} column mapping, (pair_id, verdict) rows,
    True/False/None).  Self pairs are always equivalent (ABCDE §5.8); a non-self
    pair without a verdict counts as unknown.
    """
    if population not in POPULATIONS:
        raise ValueError(f"population must be one of {POPULATIONS}, got {population!r}")
    cols = _as_columns(draws, "draws")
    missing = [c for c in REQUIRED_COLUMNS if c not in cols]
    if missing:
        raise ValueError(f"draws lacks columns {missing}; it has {sorted(cols)}")
    pair_id = cols["pair_id"]
    item_i, item_j = cols["item_i"], cols["item_j"]
    codes = _class_codes(cols["pair_class"])
    try:
        label = np.asarray(cols["label"], dtype=float)
        raw_count = np.asarray(cols["draw_count"], dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"draws.label and draws.draw_count must be numeric: {err}") from None
    bad_count = ~np.isfinite(raw_count) | (raw_count < 1) | (raw_count != np.floor(raw_count))
    if bad_count.any():
        raise ValueError(
            f"draws.draw_count must be an integer ≥ 1; pair_ids {_examples(pair_id[bad_count])}"
        )
    draw_count = raw_count.astype(np.int64)
    _check_labels(population, codes, label, pair_id)
    i_code, j_code = _dense_codes(item_i, item_j)
    (pair_key,) = _dense_codes(pair_id)
    is_self = i_code == j_code
    if (is_self != (codes == SELF)).any():
        raise ValueError(
            "draws: pair_class is 'self' exactly when item_i = item_j; offending pair_ids "
            f"{_examples(pair_id[is_self != (codes == SELF)])}"
        )
    _check_pair_structure(pair_key, i_code, j_code, codes, pair_id)

    verdict_of = _verdict_map(verdicts)
    unique_keys, first = np.unique(pair_key, return_index=True)
    first_ids = _plain(pair_id[first])
    found = [verdict_of.get(p) for p in first_ids]
    verdict_code = np.array([_VERDICT_CODE.get(v, -2) for v in found], dtype=np.int8)
    first_self = codes[first] == SELF
    contradiction = first_self & (verdict_code == 0)
    if contradiction.any():
        raise ValueError(
            "verdicts: self pairs are always equivalent; got 'not_equivalent' for "
            f"{_examples(pair_id[first][contradiction])}"
        )
    equivalent_by_key = np.where(verdict_code >= 0, verdict_code, np.nan).astype(float)
    equivalent_by_key[first_self] = 1.0
    missing_verdicts = int(((verdict_code == -2) & ~first_self).sum())
    unused_verdicts = len(verdict_of) - int((verdict_code != -2).sum())
    equivalent = equivalent_by_key[np.searchsorted(unique_keys, pair_key)]
    known = ~np.isnan(equivalent)
    tallies = class_tallies(codes, draw_count, known, pair_key)
    factor = np.zeros(label.size)
    for code, name in enumerate(CLASSES):
        f = tallies[name].factor
        if f is not None:
            factor[(codes == code) & known] = f
    slices = {k: v for k, v in cols.items() if k not in REQUIRED_COLUMNS}
    return JudgedSample(
        population,
        pair_id,
        pair_key,
        item_i,
        item_j,
        codes,
        label,
        draw_count,
        equivalent,
        known,
        factor,
        tallies,
        slices,
        missing_verdicts,
        unused_verdicts,
    )


# --------------------------------------------------------------------------- #
# Metric estimators
# --------------------------------------------------------------------------- #


def _class_mean(
    s: JudgedSample,
    classes: Sequence[int],
    values: np.ndarray,
    multiplier: float,
    what: str,
    confidence: float,
    se_method: str,
    mask: np.ndarray | None = None,
    factors: np.ndarray | None = None,
) -> Estimate:
    """multiplier × reweighted mean of ``values`` over the judged draws of ``classes``."""
    if multiplier < 0 or not math.isfinite(multiplier):
        raise ValueError(f"{what}: the population total must be finite and ≥ 0, got {multiplier}")
    names = ", ".join(CLASSES[c] for c in classes)
    if multiplier == 0:
        return exact_zero(multiplier, f"the population has no {names} pairs", confidence)
    selected = np.zeros(len(CLASSES), dtype=bool)
    selected[list(classes)] = True
    in_scope = selected[s.pair_class]
    if mask is not None:
        in_scope &= mask
    if factors is None:
        factors = s.factor
        starved = [
            CLASSES[c]
            for c in classes
            if s.tallies[CLASSES[c]].sampled_draws and not s.tallies[CLASSES[c]].judged_draws
        ]
    else:
        starved = [
            CLASSES[c]
            for c in classes
            if (in_scope & (s.pair_class == c)).any()
            and not (in_scope & (s.pair_class == c) & s.known).any()
        ]
    used = in_scope & s.known
    pairs = _count_distinct(s.pair_key[used])
    draws = int(s.draw_count[used].sum())
    if starved:
        note = (
            f"undefined: {', '.join(starved)} pairs were drawn but none has a verdict, "
            "so their share cannot be reweighted (ABCDE §5.8)"
        )
        return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)
    if not used.any():
        note = f"undefined: no {names} pairs were drawn (their total weight is {multiplier:.6g})"
        return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)
    mean, se = reweighted_mean_se(
        values[used],
        factors[used],
        s.draw_count[used],
        s.pair_key[used],
        s.pair_class[used],
        se_method,
    )
    return scaled_estimate(mean, se, multiplier, pairs=pairs, draws=draws, confidence=confidence)


def _equiv(s: JudgedSample) -> np.ndarray:
    return np.where(s.known, s.equivalent, 0.0)


def _importance(s: JudgedSample) -> np.ndarray:
    """u_ij / w_ij: 1 on the abcde population, |l_ij| on the jaccard one (Jaccard §6.1)."""
    return np.ones(s.rows) if s.population == "abcde" else np.abs(s.label)


def _require_jaccard(s: JudgedSample, what: str) -> None:
    if s.population != "jaccard":
        raise ValueError(f"{what}: {_UNAVAILABLE_ABCDE[what]}")


def delta_precision(
    s: JudgedSample, total: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """ΔPrecision(T) = Σu · mean over all draws of l_ij·1(i≡j).

    ABCDE §5.3 eq. 39 and §5.7; on the jaccard population Jaccard §6 eq. 80 and
    §7, where ``total`` = SplitDistance(T) + AffectedJaccardIndex(T) +
    MergeDistance(T).  ``total`` is the population's pair-weight sum.
    """
    values = s.label * _equiv(s)
    classes = (SELF, SPLIT, MERGE, STABLE)
    return _class_mean(s, classes, values, total, "delta_precision", confidence, se_method)


def good_split_rate(
    s: JudgedSample, split_total: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodSplitRate(T) = SplitRate(T) · mean over split draws of 1(i≢j).

    ABCDE eq. 41, 47–49, §5.6.1, §5.7.  On the jaccard population (``split_total``
    = SplitDistance(T)) each draw is importance-weighted by |l_ij| = b_i = u_ij/w_ij
    (Jaccard §6.1).
    """
    values = (1 - _equiv(s)) * _importance(s)
    return _class_mean(s, (SPLIT,), values, split_total, "good_split_rate", confidence, se_method)


def bad_split_rate(
    s: JudgedSample, split_total: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadSplitRate(T) = SplitRate(T) · mean over split draws of 1(i≡j).

    ABCDE eq. 42, §5.7; importance-weighted by |l_ij| on the jaccard population.
    """
    values = _equiv(s) * _importance(s)
    return _class_mean(s, (SPLIT,), values, split_total, "bad_split_rate", confidence, se_method)


def good_merge_rate(
    s: JudgedSample, merge_total: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodMergeRate(T) = MergeRate(T) · mean over merge draws of 1(i≡j).

    ABCDE eq. 43, §5.6.2, §5.7; on the jaccard population each draw is weighted by
    |l_ij| = a_i = u_ij/w_ij (Jaccard §6.1).
    """
    values = _equiv(s) * _importance(s)
    return _class_mean(s, (MERGE,), values, merge_total, "good_merge_rate", confidence, se_method)


def bad_merge_rate(
    s: JudgedSample, merge_total: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadMergeRate(T) = MergeRate(T) · mean over merge draws of 1(i≢j).

    ABCDE eq. 44, §5.7; importance-weighted by |l_ij| on the jaccard population.
    """
    values = (1 - _equiv(s)) * _importance(s)
    return _class_mean(s, (MERGE,), values, merge_total, "bad_merge_rate", confidence, se_method)


def good_split_distance(
    s: JudgedSample, split_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodSplitDistance(T) = SplitDistance(T) · mean over split draws of 1(i≢j).

    Jaccard decomposition eq. 5, 23–30, §4.4.
    """
    _require_jaccard(s, "good_split_distance")
    values = 1 - _equiv(s)
    return _class_mean(
        s, (SPLIT,), values, split_distance, "good_split_distance", confidence, se_method
    )


def bad_split_distance(
    s: JudgedSample, split_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadSplitDistance(T) = SplitDistance(T) · mean over split draws of 1(i≡j).

    Jaccard decomposition eq. 6, §4.4.
    """
    _require_jaccard(s, "bad_split_distance")
    values = _equiv(s)
    return _class_mean(
        s, (SPLIT,), values, split_distance, "bad_split_distance", confidence, se_method
    )


def good_merge_distance(
    s: JudgedSample, merge_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """GoodMergeDistance(T) = MergeDistance(T) · mean over merge draws of 1(i≡j).

    Jaccard decomposition eq. 7, §4.4.
    """
    _require_jaccard(s, "good_merge_distance")
    values = _equiv(s)
    return _class_mean(
        s, (MERGE,), values, merge_distance, "good_merge_distance", confidence, se_method
    )


def bad_merge_distance(
    s: JudgedSample, merge_distance: float, *, confidence: float = 0.95, se_method: str = DEFAULT_SE
) -> Estimate:
    """BadMergeDistance(T) = MergeDistance(T) · mean over merge draws of 1(i≢j).

    Jaccard decomposition eq. 8, §4.4.
    """
    _require_jaccard(s, "bad_merge_distance")
    values = 1 - _equiv(s)
    return _class_mean(
        s, (MERGE,), values, merge_distance, "bad_merge_distance", confidence, se_method
    )


def good_distance(
    s: JudgedSample,
    split_distance: float,
    merge_distance: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """GoodDistance(T) = GoodSplitDistance(T) + GoodMergeDistance(T) (Jaccard eq. 11, 21, §8).

    Split and merge pairs are disjoint, so the SEs add in quadrature.
    """
    opts = {"confidence": confidence, "se_method": se_method}
    parts = [
        good_split_distance(s, split_distance, **opts),
        good_merge_distance(s, merge_distance, **opts),
    ]
    return sum_independent(parts, confidence)


def bad_distance(
    s: JudgedSample,
    split_distance: float,
    merge_distance: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """BadDistance(T) = BadSplitDistance(T) + BadMergeDistance(T) (Jaccard eq. 12, 22, §8)."""
    opts = {"confidence": confidence, "se_method": se_method}
    parts = [
        bad_split_distance(s, split_distance, **opts),
        bad_merge_distance(s, merge_distance, **opts),
    ]
    return sum_independent(parts, confidence)


def affected_good_index(
    s: JudgedSample,
    affected_jaccard_index: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """AffectedGoodIndex(T) = AffectedJaccardIndex(T) · mean over stable+self draws of 1(i≡j).

    Jaccard eq. 56–58, §7; self pairs count as judged equivalent and keep their
    sampled weight against the reweighted stable non-self draws (Jaccard §8).
    """
    _require_jaccard(s, "affected_good_index")
    values = _equiv(s)
    return _class_mean(
        s,
        (SELF, STABLE),
        values,
        affected_jaccard_index,
        "affected_good_index",
        confidence,
        se_method,
    )


def affected_bad_index(
    s: JudgedSample,
    affected_jaccard_index: float,
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> Estimate:
    """AffectedBadIndex(T) = AffectedJaccardIndex(T) · mean over stable+self draws of 1(i≢j).

    Jaccard decomposition eq. 59, §7.
    """
    _require_jaccard(s, "affected_bad_index")
    values = 1 - _equiv(s)
    return _class_mean(
        s,
        (SELF, STABLE),
        values,
        affected_jaccard_index,
        "affected_bad_index",
        confidence,
        se_method,
    )


# --------------------------------------------------------------------------- #
# Slices (ABCDE Appendix B)
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class SliceEstimate:
    """ΔPrecision(I) and ΔPrecisionContribution(I) of one slice I of vantage items."""

    slice: dict[str, Any]
    weight: float
    pairweight: float
    draws: int
    delta_precision: Estimate
    contribution: Estimate

    def as_dict(self) -> dict[str, Any]:
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

    ΔPrecision(I) = mean_{draws, i∈I} l_ij·1(i≡j) × (W / w(I))·pairweight(I)
    (ABCDE App. B.1, eq. 59–63); contribution = w(I)/W·ΔPrecision(I) = mean ×
    pairweight(I) (App. B.2, eq. 64–67).  Unknown verdicts are reweighted per
    class *within the slice*.  ``in_slice`` is a boolean mask over draw rows.
    """
    if not (slice_weight > 0 and total_weight > 0):
        raise ValueError(f"slice {dict(key or {})}: weights must be > 0")
    if pairweight < 0:
        raise ValueError(f"slice {dict(key or {})}: pairweight must be ≥ 0")
    mask = np.asarray(in_slice, dtype=bool)
    factors, _ = _row_factors(s, mask)
    values = s.label * _equiv(s)
    classes = (SELF, SPLIT, MERGE, STABLE)
    contribution = _class_mean(
        s, classes, values, pairweight, "slice", confidence, se_method, mask=mask, factors=factors
    )
    scale = total_weight / slice_weight
    dp = Estimate(
        None if contribution.estimate is None else contribution.estimate * scale,
        None if contribution.se is None else contribution.se * scale,
        None if contribution.ci_low is None else contribution.ci_low * scale,
        None if contribution.ci_high is None else contribution.ci_high * scale,
        contribution.pairs,
        contribution.draws,
        pairweight * scale,
        confidence,
        contribution.note,
    )
    return SliceEstimate(
        dict(key or {}),
        float(slice_weight),
        float(pairweight),
        int(s.draw_count[mask].sum()),
        dp,
        contribution,
    )


def _equal_mask(column: np.ndarray, value: Any) -> np.ndarray:
    """Rows of ``column`` equal to ``value`` (None matches None)."""
    if value is None:
        return np.array([v is None for v in column], dtype=bool)
    result = np.asarray(column == value)
    if result.shape != column.shape:  # numpy declined an elementwise comparison
        result = np.array([v == value for v in column], dtype=bool)
    return result.astype(bool)


def _slice_rows(slices: Any) -> list[dict[str, Any]]:
    """Manifest slices as rows {<column>: value, ..., weight, pairweight}.

    Accepted: a list of such rows, or {column: {value: {weight, pairweight}}}.
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
    """Per-slice ΔPrecision and contribution for every slice row of the manifest (ABCDE App. B)."""
    out = []
    for row in _slice_rows(slices):
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
            mask &= _equal_mask(s.slice_columns[column], value)
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


# --------------------------------------------------------------------------- #
# Reporting
# --------------------------------------------------------------------------- #


def _percent(value: float, digits: int) -> str:
    return f"{100 * value:+.{digits}f}%"


def precision_verdict(est: Estimate, name: str = "ΔPrecision") -> str:
    """Plain-language reading of a ΔPrecision estimate and its confidence interval.

    "ΔPrecision +0.8% ± 0.3% (95% CI): the Experiment is more precise" when the
    interval excludes 0, "…: no significant difference" when it contains 0.
    """
    level = f"{100 * est.confidence:g}% CI"
    if est.estimate is None:
        return f"{name} could not be estimated: {est.note}"
    if est.se is None or est.ci_low is None or est.ci_high is None:
        return f"{name} {_percent(est.estimate, 2)} (no confidence interval: {est.note})"
    half = (est.ci_high - est.ci_low) / 2
    if half == 0:
        tail = "no difference" if est.estimate == 0 else "no sampling error"
        return f"{name} {_percent(est.estimate, 2)} ({tail}; {est.note or 'exact'})"
    # enough decimals for two significant digits of the half-width, at least one
    digits = min(6, max(1, 1 - math.floor(math.log10(100 * half))))
    head = f"{name} {_percent(est.estimate, digits)} ± {100 * half:.{digits}f}% ({level})"
    if est.ci_low > 0:
        return f"{head}: the Experiment is more precise"
    if est.ci_high < 0:
        return f"{head}: the Experiment is less precise"
    return f"{head}: no significant difference"


# --------------------------------------------------------------------------- #
# Manifest and top level
# --------------------------------------------------------------------------- #


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(abs(a), abs(b)) + 1e-15


def _metric(manifest: Mapping[str, Any], name: str) -> float | None:
    for section in ("metrics", "impact"):
        inner = manifest.get(section)
        if isinstance(inner, Mapping) and inner.get(name) is not None:
            return float(inner[name])
    value = manifest.get(name)
    return None if value is None else float(value)


def _totals(manifest: Mapping[str, Any], population: str) -> dict[str, float]:
    """Class totals of the pair population, checked against the impact metrics."""
    raw = manifest.get("totals")
    if not isinstance(raw, Mapping):
        raise ValueError("manifest.totals must map total, split, merge, stable to pair-weight sums")
    missing = [k for k in ("total", "split", "merge", "stable") if raw.get(k) is None]
    if missing:
        raise ValueError(f"manifest.totals lacks {missing}")
    totals = {k: float(raw[k]) for k in ("total", "split", "merge", "stable")}
    for k, v in totals.items():
        if not (math.isfinite(v) and v >= 0):
            raise ValueError(f"manifest.totals.{k} must be finite and ≥ 0, got {v}")
    parts = totals["split"] + totals["merge"] + totals["stable"]
    if not _close(totals["total"], parts):
        raise ValueError(
            f"manifest.totals: total {totals['total']!r} ≠ split + merge + stable {parts!r}"
        )
    expected = (
        {"split": "split_rate", "merge": "merge_rate"}
        if population == "abcde"
        else {
            "split": "split_distance",
            "merge": "merge_distance",
            "stable": "affected_jaccard_index",
        }
    )
    for k, metric in expected.items():
        value = _metric(manifest, metric)
        if value is not None and not _close(value, totals[k]):
            raise ValueError(
                f"manifest: totals.{k} = {totals[k]!r} but {metric} = {value!r}; for the "
                f"{population} population they are the same sum (is the population right?)"
            )
    return totals


def _check_classes_against_totals(s: JudgedSample, totals: Mapping[str, float]) -> None:
    for code, name in enumerate(CLASSES):
        total_key = "stable" if name == "self" else name
        if totals[total_key] == 0 and (s.pair_class == code).any():
            raise ValueError(f"draws include {name} pairs but manifest.totals.{total_key} is 0")


def estimate(
    draws: Any,
    verdicts: Any,
    manifest: Mapping[str, Any],
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> dict[str, Any]:
    """All quality estimates the sample supports, as a JSON-ready dict.

    Keys: ``population``; ``delta_precision`` and the four (good|bad)(split|merge)
    rates (both populations; importance-weighted on the jaccard one, Jaccard
    §6.1); on the jaccard population also the six distances and the two
    affected indexes.  Each is a dict estimate, se, ci_low, ci_high, pairs,
    draws, multiplier, note (estimate None + note when the sample cannot tell).
    ``unavailable`` maps the keys the population cannot give to the reason;
    ``verdict`` reads ΔPrecision in words; ``slices`` lists per-slice ΔPrecision
    and contribution (ABCDE App. B) when the manifest has slices; ``sample``
    reports draws, pairs, unknowns and reweighting factors per class.
    ``se_method``: see :func:`reweighted_mean_se` ("pair_clustered" or the
    paper's plain "kirchner"; identical when every pair has a verdict).
    """
    if se_method not in SE_METHODS:
        raise ValueError(f"se_method must be one of {SE_METHODS}, got {se_method!r}")
    population = manifest.get("population")
    if population not in POPULATIONS:
        raise ValueError(f"manifest.population must be one of {POPULATIONS}, got {population!r}")
    totals = _totals(manifest, population)
    s = judged_sample(draws, verdicts, population)
    _check_classes_against_totals(s, totals)

    opts: dict[str, Any] = {"confidence": confidence, "se_method": se_method}
    results: dict[str, Estimate] = {
        "delta_precision": delta_precision(s, totals["total"], **opts),
        "good_split_rate": good_split_rate(s, totals["split"], **opts),
        "bad_split_rate": bad_split_rate(s, totals["split"], **opts),
        "good_merge_rate": good_merge_rate(s, totals["merge"], **opts),
        "bad_merge_rate": bad_merge_rate(s, totals["merge"], **opts),
    }
    unavailable: dict[str, str] = {}
    if population == "jaccard":
        sd, md, aji = totals["split"], totals["merge"], totals["stable"]
        results.update(
            good_split_distance=good_split_distance(s, sd, **opts),
            bad_split_distance=bad_split_distance(s, sd, **opts),
            good_merge_distance=good_merge_distance(s, md, **opts),
            bad_merge_distance=bad_merge_distance(s, md, **opts),
            good_distance=good_distance(s, sd, md, **opts),
            bad_distance=bad_distance(s, sd, md, **opts),
            affected_good_index=affected_good_index(s, aji, **opts),
            affected_bad_index=affected_bad_index(s, aji, **opts),
        )
        note = (
            "importance-weighted by |l_ij| = u_ij/w_ij from the jaccard population "
            "(Jaccard §6.1); large labels widen the interval"
        )
        for key in RATE_KEYS:
            if results[key].estimate is not None and results[key].note is None:
                results[key] = replace(results[key], note=note)
    else:
        unavailable.update(_UNAVAILABLE_ABCDE)

    out: dict[str, Any] = {"population": population, "se_method": se_method}
    out.update({k: v.as_dict() for k, v in results.items()})
    out["unavailable"] = unavailable
    out["verdict"] = precision_verdict(results["delta_precision"])
    slices = manifest.get("slices")
    if slices:
        total_weight = _metric(manifest, "weight")
        if total_weight is None:
            raise ValueError("manifest has slices but no total item weight 'weight' (W)")
        out["slices"] = [e.as_dict() for e in estimate_slices(s, slices, total_weight, **opts)]
    known = s.known
    out["sample"] = {
        "rows": s.rows,
        "draws": int(s.draw_count.sum()),
        "pairs": _count_distinct(s.pair_key),
        "judged_pairs": _count_distinct(s.pair_key[known]),
        "unknown_pairs": _count_distinct(s.pair_key[~known]),
        "missing_verdicts": s.missing_verdicts,
        "unused_verdicts": s.unused_verdicts,
        "classes": {name: t.as_dict() for name, t in s.tallies.items()},
    }
    return out


def metric_keys(population: str) -> tuple[str, ...]:
    """Metric keys :func:`estimate` returns for ``population``."""
    if population not in POPULATIONS:
        raise ValueError(f"population must be one of {POPULATIONS}, got {population!r}")
    if population == "jaccard":
        return METRIC_KEYS
    return ("delta_precision", *RATE_KEYS)
