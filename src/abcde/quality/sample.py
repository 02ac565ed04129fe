"""The judged sample: draw rows joined with their verdicts, validated, as arrays, with
each draw's importance weights, the per-class tallies and the reweighting of unknown
verdicts (docs/method.md §8.1–8.3).

The SQL side samples ordered item pairs (i, j), i ≠ j, with replacement from the design of
docs/method.md §6.9 — a mixture q = α·u/Σu + (1 − α)·w/Σw of the ABCDE population u and
the Jaccard population w — and returns one row per unique ordered pair drawn, with its
``draw_count`` (a row drawn k times counts k times) and its u_ij/w_ij (``u_over_w``).
:func:`judged_sample` validates those rows, joins the verdicts (one per unordered pair),
computes each draw's importance weights toward u and w
(:func:`abcde.sampling.pairs.importance`) and, per class, the factor that keeps the class
at its sampled weight when unknown verdicts are dropped (ABCDE §5.8; Jaccard
decomposition §8):

    f_class = draws sampled in the class / draws judged in the class.

Self pairs are never drawn (they need no verdict and are added exactly, docs/method.md
§6.8); a draw row (i, i) is refused, as it can only come from an earlier design.

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5.7–5.8.

S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google
Switzerland, 2024, §6.1, §7–8.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcde.quality.judgements import VERDICTS, id_text, parse_verdict
from abcde.sampling.pairs import CLASS_KEYS, importance

CLASSES = ("split", "merge", "stable")
"""Pair classes of a draw row (docs/method.md §6.1); 'stable' means stable and not self."""
SPLIT, MERGE, STABLE = range(3)
_CLASS_CODE = {name: code for code, name in enumerate(CLASSES)}
KEY_SPLIT, KEY_MERGE, KEY_PLUS, KEY_MINUS, KEY_ZERO = range(len(CLASS_KEYS))
"""Codes of the estimation classes :data:`abcde.sampling.pairs.CLASS_KEYS`: split, merge,
and stable pairs by the sign of W_b − W_e (ΔPrecision's label, ABCDE eq. 58)."""
_VERDICT_CODE = {"equivalent": 1, "not_equivalent": 0, "unknown": -1}
REQUIRED_COLUMNS = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count",
                    "u_over_w")
OPTIONAL_COLUMNS = ("stratum",)
"""Columns read when present: the stratum of a stratified sample (docs/method.md §7.7)."""

__all__ = [
    "CLASSES",
    "CLASS_KEYS",
    "KEY_MERGE",
    "KEY_MINUS",
    "KEY_PLUS",
    "KEY_SPLIT",
    "KEY_ZERO",
    "MERGE",
    "REQUIRED_COLUMNS",
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
    :data:`CLASSES`, ``class_key`` of :data:`CLASS_KEYS`; ``importance_u`` and
    ``importance_w`` the draws' weights (u_ij/Σu)/q_ij and (w_ij/Σw)/q_ij for the design's
    ``alpha`` and κ = Σu/Σw (docs/method.md §6.9); ``stratum`` the stratum names of a
    stratified sample (else None); ``slice_columns`` the other columns.
    """

    alpha: float
    pair_id: np.ndarray
    pair_key: np.ndarray  # dense int code of pair_id
    item_i: np.ndarray
    item_j: np.ndarray
    pair_class: np.ndarray  # int codes, see CLASSES
    class_key: np.ndarray  # int codes, see CLASS_KEYS
    label: np.ndarray
    draw_count: np.ndarray
    u_over_w: np.ndarray
    importance_u: np.ndarray
    importance_w: np.ndarray
    equivalent: np.ndarray
    known: np.ndarray
    factor: np.ndarray
    tallies: dict[str, ClassTally]
    stratum: np.ndarray | None
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
    class_key: np.ndarray, draw_count: np.ndarray, known: np.ndarray, pair_key: np.ndarray,
    equivalent: np.ndarray | None = None,
) -> dict[str, ClassTally]:
    """Sampled and judged draws per class and the reweighting factor.

    factor(class) = draws sampled in class / draws judged in class, so the judged draws
    of every class keep the class's sampled weight (e.g. 1000 split draws sampled, 800
    judged → each judged split draw weighs 1.25). The classes are those of the
    estimators, :data:`CLASS_KEYS`.

    Parameters
    ----------
    class_key : numpy.ndarray
        Integer codes of :data:`CLASS_KEYS` per row.
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
        One entry per class of :data:`CLASS_KEYS`.

    References
    ----------
    docs/method.md §8.3. ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard decomposition §8
    (S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE.
    Google Switzerland, 2024).
    """
    tallies: dict[str, ClassTally] = {}
    for code, name in enumerate(CLASS_KEYS):
        in_class = class_key == code
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
        Stable pairs count as one class here (``stable_plus``).

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
    tallies = class_tallies(np.where(codes == STABLE, KEY_PLUS, codes), counts, known, keys)
    names = {KEY_SPLIT: "split", KEY_MERGE: "merge", KEY_PLUS: "stable"}
    return {names[CLASS_KEYS.index(name)]: t.factor for name, t in tallies.items()
            if t.sampled_draws}


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
    for code, name in enumerate(CLASS_KEYS):
        in_class = mask & (s.class_key == code)
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
    """pair_id (as text, :func:`abcde.quality.judgements.id_text`) → verdict from a mapping
    (a pandas Series too), columns {pair_id, verdict} (a DataFrame too) or rows. A pair id
    given twice with different verdicts is refused, whether the two ids are equal or
    only equal as text (1 and '1'): the last one won silently."""
    out: dict[str | None, str] = {}
    for pair_id, verdict in _raw_verdicts(verdicts):
        key = id_text(pair_id)
        if key in out and out[key] != verdict:
            raise ValueError(
                f"verdicts: pair id {key!r} is given twice with different verdicts "
                f"{out[key]!r} and {verdict!r} (ids compare as text)"
            )
        out[key] = verdict
    return out


def _raw_verdicts(verdicts: Any) -> list[tuple[Any, str]]:
    """(pair id, normalised verdict) of every entry, repeated ids kept."""
    if hasattr(verdicts, "index") and hasattr(verdicts, "to_numpy") \
            and not hasattr(verdicts, "columns") and not isinstance(verdicts, Mapping):
        # a pandas Series pair_id -> verdict
        return list(zip(_plain(verdicts.index), _normalise_all(verdicts.to_numpy()),
                        strict=True))
    if hasattr(verdicts, "to_pydict") or hasattr(verdicts, "fetchnumpy") or (
            hasattr(verdicts, "columns") and not isinstance(verdicts, Mapping)):
        verdicts = _as_columns(verdicts, "verdicts")
    if isinstance(verdicts, Mapping) and "pair_id" in verdicts and "verdict" in verdicts:
        ids, values = verdicts["pair_id"], verdicts["verdict"]
        if not isinstance(ids, (str, bytes)) and isinstance(ids, (Sequence, np.ndarray)):
            ids, values = _plain(ids), _normalise_all(values)
            if len(ids) != len(values):
                raise ValueError("verdicts: pair_id and verdict columns differ in length")
            return list(zip(ids, values, strict=True))
    if isinstance(verdicts, Mapping):
        return list(zip(_plain(verdicts.keys()), _normalise_all(verdicts.values()),
                        strict=True))
    out: list[tuple[Any, str]] = []
    for row in verdicts:
        if isinstance(row, Mapping):
            out.append((_scalar(row["pair_id"]), parse_verdict(row["verdict"])))
        else:
            pair_id, verdict = row
            out.append((_scalar(pair_id), parse_verdict(verdict)))
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


def _check_labels(codes: np.ndarray, label: np.ndarray, u_over_w: np.ndarray,
                  pair_id: Any) -> None:
    """ΔPrecision's sign and u_ij/w_ij as pairs/population.sql writes them."""
    if not (np.all(np.isfinite(label)) and np.all(np.isfinite(u_over_w))):
        bad = ~(np.isfinite(label) & np.isfinite(u_over_w))
        raise ValueError(f"draws.label and draws.u_over_w must be finite; pair_ids "
                         f"{_examples(pair_id[bad])}")
    bad = ~np.isin(label, (-1.0, 0.0, 1.0))
    bad |= (codes == SPLIT) & (label != -1)
    bad |= (codes == MERGE) & (label != 1)
    # u_ij/w_ij = U/W_b ≥ 1 (split), U/W_e ≥ 1 (merge), 0 exactly when u_ij = 0 (stable)
    bad |= (codes != STABLE) & (u_over_w < 1 - 1e-9)
    bad |= (codes == STABLE) & ((u_over_w < 0) | ((u_over_w == 0) != (label == 0)))
    if bad.any():
        raise ValueError(
            "draws.label is ΔPrecision's sign (−1 split, +1 merge, sgn(W_b − W_e) stable) "
            "and draws.u_over_w is u_ij/w_ij (≥ 1 for split and merge, 0 exactly when the "
            f"label is 0); offending pair_ids {_examples(pair_id[bad])}"
        )


def _class_key_codes(codes: np.ndarray, label: np.ndarray) -> np.ndarray:
    """:data:`CLASS_KEYS` codes from the pair class and ΔPrecision's sign."""
    out = np.where(codes == SPLIT, KEY_SPLIT, KEY_MERGE)
    stable = codes == STABLE
    out = np.where(stable & (label > 0), KEY_PLUS, out)
    out = np.where(stable & (label < 0), KEY_MINUS, out)
    return np.where(stable & (label == 0), KEY_ZERO, out).astype(np.int64)


def judged_sample(draws: Any, verdicts: Any, *, alpha: float, kappa: float) -> JudgedSample:
    """Validate the draw rows, join the verdicts, compute the importance weights and the
    per-class reweighting.

    A pair without a verdict counts as unknown (``missing_verdicts``); verdicts for pairs
    not drawn are counted (``unused_verdicts``). Pair ids compare as text
    (:func:`abcde.quality.judgements.id_text`: 17, 17.0 and "17" are one id).

    Parameters
    ----------
    draws : mapping of columns, list of row mappings, DataFrame, pyarrow table or DuckDB relation
        One row per unique ordered pair drawn, with columns pair_id, item_i (the vantage
        item), item_j ≠ item_i, pair_class ∈ :data:`CLASSES`, label (ΔPrecision's sign),
        draw_count ≥ 1, u_over_w (u_ij/w_ij), optionally stratum, and slice columns of
        the vantage item. Rows sharing a pair_id are (i, j) and (j, i) of one unordered
        pair.
    verdicts : mapping, column mapping or rows
        pair_id → verdict (a pandas Series too); also a {pair_id: [...], verdict: [...]}
        column mapping (a DataFrame, an Arrow table) or (pair_id, verdict) rows /
        {pair_id, verdict} row mappings. A pair id given twice must have one verdict.
        Verdicts are spelled as :func:`abcde.quality.judgements.normalise_verdict`
        accepts (equivalent / not_equivalent / unknown, True/False/None and the
        synonyms).
    alpha : float
        The design's share α of the ABCDE population (manifest ``alpha``).
    kappa : float
        κ = Σu/Σw over pairs i ≠ j (manifest ``totals``).

    Returns
    -------
    JudgedSample
        The validated rows as arrays, verdicts joined, importance weights, class tallies
        and factors.

    Raises
    ------
    ValueError
        Naming the offending pair ids: missing columns, an unknown pair class, a
        draw count that is not an integer ≥ 1, a label or u_ij/w_ij the design does not
        write, a self pair (i, i), a repeated ordered pair, a pair id naming two pairs,
        two verdicts for one id, a value that is no verdict.

    References
    ----------
    docs/method.md §6.1, §6.9 (pairs, classes, importance weights), §8.1 (verdicts),
    §8.3 (reweighting). ABCDE §5.7–5.8 (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard decomposition §6.1, §7–8
    (S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE.
    Google Switzerland, 2024).
    """
    if not (0 <= alpha <= 1 and math.isfinite(kappa) and kappa > 0):
        raise ValueError(f"the design needs alpha in [0, 1] and kappa > 0, got {alpha!r}, "
                         f"{kappa!r}")
    cols = _as_columns(draws, "draws")
    missing = [c for c in REQUIRED_COLUMNS if c not in cols]
    if missing:
        raise ValueError(f"draws lacks columns {missing}; it has {sorted(cols)}")
    pair_id = cols["pair_id"]
    item_i, item_j = cols["item_i"], cols["item_j"]
    codes = _class_codes(cols["pair_class"])
    try:
        label = np.asarray(cols["label"], dtype=float)
        u_over_w = np.asarray(cols["u_over_w"], dtype=float)
        raw_count = np.asarray(cols["draw_count"], dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"draws.label, draws.u_over_w and draws.draw_count must be numeric: "
                         f"{err}") from None
    bad_count = ~np.isfinite(raw_count) | (raw_count < 1) | (raw_count != np.floor(raw_count))
    if bad_count.any():
        raise ValueError(
            f"draws.draw_count must be an integer ≥ 1; pair_ids {_examples(pair_id[bad_count])}"
        )
    draw_count = raw_count.astype(np.int64)
    _check_labels(codes, label, u_over_w, pair_id)
    i_code, j_code = _dense_codes(item_i, item_j)
    (pair_key,) = _dense_codes(pair_id)
    if (i_code == j_code).any():
        raise ValueError(
            "draws: a self pair (i, i) was drawn; this design never draws self pairs (they "
            "are added exactly, docs/method.md §6.8), so the sample comes from an earlier "
            f"abcde; pair_ids {_examples(pair_id[i_code == j_code])}"
        )
    _check_pair_structure(pair_key, i_code, j_code, codes, pair_id)

    verdict_of = _verdict_map(verdicts)
    unique_keys, first = np.unique(pair_key, return_index=True)
    first_ids = [id_text(p) for p in _plain(pair_id[first])]
    found = [verdict_of.get(p) for p in first_ids]
    verdict_code = np.array([_VERDICT_CODE.get(v, -2) for v in found], dtype=np.int8)
    equivalent_by_key = np.where(verdict_code >= 0, verdict_code, np.nan).astype(float)
    missing_verdicts = int((verdict_code == -2).sum())
    unused_verdicts = len(verdict_of) - int((verdict_code != -2).sum())
    equivalent = equivalent_by_key[np.searchsorted(unique_keys, pair_key)]
    known = ~np.isnan(equivalent)
    keys = _class_key_codes(codes, label)
    tallies = class_tallies(keys, draw_count, known, pair_key, equivalent)
    factor = np.zeros(label.size)
    for code, name in enumerate(CLASS_KEYS):
        f = tallies[name].factor
        if f is not None:
            factor[(keys == code) & known] = f
    with np.errstate(divide="ignore", invalid="ignore"):  # q = 0 rows are refused later
        importance_u, importance_w = importance(u_over_w, alpha, kappa)
    stratum = cols.get("stratum")
    slices = {k: v for k, v in cols.items()
              if k not in REQUIRED_COLUMNS and k not in OPTIONAL_COLUMNS}
    return JudgedSample(
        float(alpha),
        pair_id,
        pair_key,
        item_i,
        item_j,
        codes,
        keys,
        label,
        draw_count,
        u_over_w,
        np.asarray(importance_u, dtype=float),
        np.asarray(importance_w, dtype=float),
        equivalent,
        known,
        factor,
        tallies,
        None if stratum is None else np.asarray(stratum, dtype=object),
        slices,
        missing_verdicts,
        unused_verdicts,
    )
