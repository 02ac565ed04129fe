"""The judged sample: draw rows joined with their verdicts, validated, as arrays, with
the per-class tallies and the reweighting of unknown verdicts (docs/method.md §8.1–8.3).

The SQL side samples ordered item pairs (i, j) with replacement from one of two pair
populations and returns one row per unique ordered pair drawn, with its ``draw_count``:
a row drawn k times counts k times. :func:`judged_sample` validates those rows, joins the
verdicts (one per unordered pair; self pairs are equivalent without a judge) and computes,
per pair class, the factor that keeps the class at its sampled weight when unknown
verdicts are dropped (ABCDE §5.8; Jaccard decomposition §8):

    f_class = draws sampled in the class / draws judged in the class.

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5.7–5.8.

S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google
Switzerland, 2024, §7–8.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcde.quality.judgements import VERDICTS, id_text, parse_verdict

POPULATIONS = ("abcde", "jaccard")
"""The pair populations (docs/method.md §6.2–6.3)."""
CLASSES = ("self", "split", "merge", "stable")
"""Pair classes of a draw row; 'stable' means stable and not self (i ≠ j)."""
SELF, SPLIT, MERGE, STABLE = range(4)
_CLASS_CODE = {name: code for code, name in enumerate(CLASSES)}
_VERDICT_CODE = {"equivalent": 1, "not_equivalent": 0, "unknown": -1}
REQUIRED_COLUMNS = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count")

__all__ = [
    "CLASSES",
    "MERGE",
    "POPULATIONS",
    "REQUIRED_COLUMNS",
    "SELF",
    "SPLIT",
    "STABLE",
    "VERDICTS",
    "ClassTally",
    "JudgedSample",
    "class_tallies",
    "count_distinct",
    "equivalent",
    "judged_sample",
    "reweighting_factors",
    "slice_factors",
]


@dataclass(frozen=True)
class ClassTally:
    """Draws and pairs of one pair class, before and after dropping unknowns.

    ``factor`` = sampled_draws / judged_draws (ABCDE §5.8; docs/method.md §8.3); None
    when the class was sampled but nothing in it was judged.
    """

    sampled_draws: int
    judged_draws: int
    sampled_pairs: int
    judged_pairs: int
    factor: float | None
    #: judged pairs with each verdict (equivalent + not_equivalent = judged_pairs)
    equivalent_pairs: int = 0
    not_equivalent_pairs: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form (``sample.classes`` of ``abcde estimate``)."""
        return {
            "sampled_draws": self.sampled_draws,
            "judged_draws": self.judged_draws,
            "sampled_pairs": self.sampled_pairs,
            "judged_pairs": self.judged_pairs,
            "factor": self.factor,
            "equivalent_pairs": self.equivalent_pairs,
            "not_equivalent_pairs": self.not_equivalent_pairs,
            "unknown_pairs": self.sampled_pairs - self.judged_pairs,
        }


@dataclass(frozen=True)
class JudgedSample:
    """Draw rows joined with their verdicts, validated, as parallel numpy arrays.

    ``equivalent`` is 1.0 / 0.0 for judged rows and NaN for unknown ones; ``known`` says
    which; ``factor`` is the per-row reweighting factor of its class (0 when unknown);
    ``pair_key`` a dense integer code of ``pair_id``; ``pair_class`` integer codes of
    :data:`CLASSES`; ``slice_columns`` the columns beyond :data:`REQUIRED_COLUMNS`.
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
        """Number of draw rows (unique ordered pairs)."""
        return int(self.pair_id.shape[0])


def equivalent(s: JudgedSample) -> np.ndarray:
    """v = 1(i ≡ j) per row, 0 for unknown rows (which carry factor 0).

    Parameters
    ----------
    s : JudgedSample
        The judged sample.

    Returns
    -------
    numpy.ndarray
        1.0 where judged equivalent, else 0.0.

    References
    ----------
    docs/method.md §8.4 (v).
    """
    return np.where(s.known, s.equivalent, 0.0)


# --------------------------------------------------------------------------- #
# Class tallies and the reweighting of unknown verdicts
# --------------------------------------------------------------------------- #


def count_distinct(keys: np.ndarray) -> int:
    """Number of distinct values of dense non-negative integer codes.

    Parameters
    ----------
    keys : numpy.ndarray
        Dense integer codes (e.g. ``JudgedSample.pair_key``), possibly empty.

    Returns
    -------
    int

    References
    ----------
    docs/method.md §8.3 (pairs are counted per unordered pair).
    """
    return int(np.count_nonzero(np.bincount(keys))) if keys.size else 0


def class_tallies(
    pair_class: np.ndarray, draw_count: np.ndarray, known: np.ndarray, pair_key: np.ndarray,
    equivalent: np.ndarray | None = None,
) -> dict[str, ClassTally]:
    """Sampled and judged draws per class and the reweighting factor.

    factor(class) = draws sampled in class / draws judged in class, so the judged draws
    of every class keep the class's sampled weight (e.g. 1000 split draws sampled, 800
    judged → each judged split draw weighs 1.25). Classes are self, split, merge and
    stable non-self.

    Parameters
    ----------
    pair_class : numpy.ndarray
        Integer codes of :data:`CLASSES` per row.
    draw_count : numpy.ndarray
        Draws per row.
    known : numpy.ndarray
        Whether the row's pair has a verdict.
    pair_key : numpy.ndarray
        Dense code of the row's unordered pair.
    equivalent : numpy.ndarray, optional
        1.0 / 0.0 per judged row: the verdict counts per class (else 0).

    Returns
    -------
    dict of str to ClassTally
        One entry per class of :data:`CLASSES`.

    References
    ----------
    docs/method.md §8.3. ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard decomposition §8
    (S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE.
    Google Switzerland, 2024).
    """
    tallies: dict[str, ClassTally] = {}
    for code, name in enumerate(CLASSES):
        in_class = pair_class == code
        judged = in_class & known
        sampled_draws = int(draw_count[in_class].sum())
        judged_draws = int(draw_count[judged].sum())
        factor = sampled_draws / judged_draws if judged_draws else None
        same = judged & (equivalent == 1.0) if equivalent is not None else None
        tallies[name] = ClassTally(
            sampled_draws,
            judged_draws,
            count_distinct(pair_key[in_class]),
            count_distinct(pair_key[judged]),
            factor,
            count_distinct(pair_key[same]) if same is not None else 0,
            count_distinct(pair_key[judged & ~same]) if same is not None else 0,
        )
    return tallies


def reweighting_factors(
    pair_class: Sequence[str], draw_count: Sequence[int], judged: Sequence[bool]
) -> dict[str, float | None]:
    """Per-class weight of a judged draw: sampled draws / judged draws.

    A convenience wrapper over :func:`class_tallies` for plain sequences.

    Parameters
    ----------
    pair_class : sequence of str
        Class name per row.
    draw_count : sequence of int
        Draws per row.
    judged : sequence of bool
        Whether the row has a verdict.

    Returns
    -------
    dict of str to float or None
        A class that was not sampled is absent, one with no judged draws maps to None.

    References
    ----------
    docs/method.md §8.3. ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430).

    Examples
    --------
    >>> reweighting_factors(["split"] * 1000, [1] * 1000, [True] * 800 + [False] * 200)
    {'split': 1.25}
    """
    codes = _class_codes(np.asarray(pair_class, dtype=object))
    counts = np.asarray(draw_count, dtype=np.int64)
    known = np.asarray(judged, dtype=bool)
    keys = np.arange(codes.size)
    tallies = class_tallies(codes, counts, known, keys)
    return {name: t.factor for name, t in tallies.items() if t.sampled_draws}


def slice_factors(s: JudgedSample, mask: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Reweighting factors recomputed within ``mask`` (a slice), per class.

    Parameters
    ----------
    s : JudgedSample
        The judged sample.
    mask : numpy.ndarray
        Boolean mask over the draw rows.

    Returns
    -------
    (factors, starved) : tuple
        The per-row factors (0 outside the mask or when unknown) and the classes that
        were sampled inside the mask but have no judged draw there.

    References
    ----------
    docs/method.md §8.3, §8.9 (unknowns are reweighted per class within the slice).
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


def _normalise_all(values: Any) -> list[str]:
    """Normalised verdicts (:func:`abcde.quality.judgements.parse_verdict`), each distinct raw
    value parsed once (keyed by type too: True, 1 and 1.0 are equal keys but not the
    same verdict spelling)."""
    seen: dict[tuple[type, Any], str] = {}
    out = []
    for v in _plain(values):
        try:
            text = seen.get((type(v), v))
            if text is None:
                text = seen[(type(v), v)] = parse_verdict(v)
        except TypeError:  # unhashable
            text = parse_verdict(v)
        out.append(text)
    return out


def _plain(values: Any) -> list[Any]:
    """Python scalars from a numpy array or any iterable (np.int64(3) → 3)."""
    if isinstance(values, np.ndarray):
        return values.tolist()
    return [_scalar(v) for v in values]


def _verdict_map(verdicts: Any) -> dict[str | None, str]:
    """pair_id (as text, :func:`abcde.quality.judgements.id_text`) → verdict from a mapping,
    columns {pair_id, verdict} or rows."""
    raw = _raw_verdict_map(verdicts)
    out: dict[str | None, str] = {}
    for pair_id, verdict in raw.items():
        key = id_text(pair_id)
        if key in out and out[key] != verdict:
            raise ValueError(
                f"verdicts: pair ids {key!r} name one pair (ids compare as text) but have "
                f"different verdicts {out[key]!r} and {verdict!r}"
            )
        out[key] = verdict
    return out


def _raw_verdict_map(verdicts: Any) -> dict[Any, str]:
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
            out[_scalar(row["pair_id"])] = parse_verdict(row["verdict"])
        else:
            pair_id, verdict = row
            out[_scalar(pair_id)] = parse_verdict(verdict)
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

    Self pairs are always equivalent (a verdict saying otherwise is an error); a
    non-self pair without a verdict counts as unknown (``missing_verdicts``); verdicts
    for pairs not drawn are counted (``unused_verdicts``). Pair ids compare as text
    (:func:`abcde.quality.judgements.id_text`: 17, 17.0 and "17" are one id).

    Parameters
    ----------
    draws : mapping of columns, list of row mappings, DataFrame, pyarrow table or DuckDB relation
        One row per unique ordered pair drawn, with columns pair_id, item_i (the vantage
        item), item_j, pair_class ∈ :data:`CLASSES`, label, draw_count ≥ 1, and optional
        slice columns of the vantage item. Rows sharing a pair_id are (i, j) and (j, i)
        of one unordered pair.
    verdicts : mapping, column mapping or rows
        pair_id → verdict; also a {pair_id: [...], verdict: [...]} column mapping or
        (pair_id, verdict) rows / {pair_id, verdict} row mappings. Verdicts are
        spelled as :func:`abcde.quality.judgements.normalise_verdict` accepts
        (equivalent / not_equivalent / unknown, True/False/None and the synonyms).
    population : {"abcde", "jaccard"}
        The pair population the draws come from; it fixes the allowed labels
        (abcde: ±1; jaccard: −b ≤ −1 for splits, a ≥ 1 for merges).

    Returns
    -------
    JudgedSample
        The validated rows as arrays, verdicts joined, class tallies and factors.

    Raises
    ------
    ValueError
        Naming the offending pair ids: missing columns, an unknown pair class, a
        draw count that is not an integer ≥ 1, a label the population does not allow,
        a self pair that is not (i, i), a repeated ordered pair, a pair id naming two
        pairs, two verdicts for one id, a self pair judged not equivalent, a value that
        is no verdict.

    References
    ----------
    docs/method.md §6.1–6.3 (pairs, classes, labels), §8.1 (verdicts), §8.3
    (reweighting). ABCDE §5.7–5.8 (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard decomposition §7–8
    (S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE.
    Google Switzerland, 2024).
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
    first_ids = [id_text(p) for p in _plain(pair_id[first])]
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
    tallies = class_tallies(codes, draw_count, known, pair_key, equivalent)
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
