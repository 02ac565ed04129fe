"""The judged sample: draw rows joined with their verdicts, as arrays, with each draw's
importance weights and the per-class reweighting of unknown verdicts (docs/method.md
§8.1–8.3; ABCDE §5.7–5.8; Jaccard decomposition §6.1, §7–8).

The SQL sampler returns one row per unique ordered pair (i, j), i ≠ j, drawn from the
mixture q = α·u/Σu + (1 − α)·w/Σw (docs/method.md §6.9), with its ``draw_count`` and
u_ij/w_ij (``u_over_w``). Unknown verdicts are dropped and the judged draws of each class
reweighted by f = sampled draws / judged draws. Draw rows given in memory are checked
here, where they enter: each rule below prevents a wrong number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from abcde.errors import InputError
from abcde.inputs.frames import table_columns
from abcde.quality.judgements import VERDICTS, id_text, parse_verdict
from abcde.sample_files.manifest import CLASS_KEYS
from abcde.sample_files.pairs import HUMAN_COLUMN
from abcde.sampling.pairs import importance

CLASSES = ("split", "merge", "stable")
"""Pair classes of a draw row (docs/method.md §6.1); 'stable' means stable and not self."""
SPLIT, MERGE, STABLE = range(3)
KEY_SPLIT, KEY_MERGE, KEY_PLUS, KEY_MINUS, KEY_ZERO = range(len(CLASS_KEYS))
"""Codes of :data:`abcde.sampling.pairs.CLASS_KEYS`: split, merge, and stable pairs by the
sign of W_b − W_e (ΔPrecision's label, ABCDE eq. 58)."""
REQUIRED_COLUMNS = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count",
                    "u_over_w")
OPTIONAL_COLUMNS = ("stratum", HUMAN_COLUMN)
_VERDICT_CODE = {"equivalent": 1, "not_equivalent": 0, "unknown": -1}
_VERDICT_WORD = {c: w for w, c in _VERDICT_CODE.items()}

__all__ = ["CLASSES", "CLASS_KEYS", "KEY_MERGE", "KEY_MINUS", "KEY_PLUS", "KEY_SPLIT",
           "KEY_ZERO", "MERGE", "REQUIRED_COLUMNS", "SPLIT", "STABLE", "VERDICTS",
           "ClassTally", "JudgedSample", "class_tallies", "count_distinct", "factors_within",
           "judged_sample"]


@dataclass(frozen=True)
class ClassTally:
    """Draws and pairs of one class, before and after dropping unknowns; ``factor`` =
    sampled / judged draws, None when nothing in the class was judged (docs/method.md §8.3)."""

    sampled_draws: int
    judged_draws: int
    sampled_pairs: int
    judged_pairs: int
    factor: float | None
    equivalent_pairs: int = 0
    not_equivalent_pairs: int = 0

    def as_dict(self) -> dict[str, Any]:
        """``sample.classes`` of ``abcde estimate``."""
        return {"sampled_draws": self.sampled_draws, "judged_draws": self.judged_draws,
                "sampled_pairs": self.sampled_pairs, "judged_pairs": self.judged_pairs,
                "factor": self.factor, "equivalent_pairs": self.equivalent_pairs,
                "not_equivalent_pairs": self.not_equivalent_pairs,
                "unknown_pairs": self.sampled_pairs - self.judged_pairs}


@dataclass(frozen=True)
class JudgedSample:
    """Draw rows with their verdicts as parallel arrays: ``equivalent`` 1.0/0.0 (NaN when
    unknown, ``known`` False), ``factor`` the row's reweighting factor (0 when unknown),
    ``pair_key`` a dense code of the unordered pair, ``class_key`` a code of
    :data:`CLASS_KEYS`, ``importance_u``/``importance_w`` (u_ij/Σu)/q_ij and (w_ij/Σw)/q_ij
    (docs/method.md §6.9), ``stratum`` a stratified sample's strata, ``slice_columns``
    the other columns."""

    alpha: float
    pair_key: np.ndarray
    class_key: np.ndarray
    draw_count: np.ndarray
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
    model: np.ndarray | None = None  # a model judge's P(equivalent) per row, NaN: none
    inverse_pi: np.ndarray | None = None  # a model round: 1/π of the humans' rows, else 0

    @property
    def rows(self) -> int:
        return int(self.pair_key.shape[0])


def count_distinct(keys: np.ndarray) -> int:
    """Distinct values of dense non-negative codes (pairs counted once, docs/method.md §8.3)."""
    return int(np.count_nonzero(np.bincount(keys))) if keys.size else 0


def class_tallies(class_key: np.ndarray, draw_count: np.ndarray, known: np.ndarray,
                  pair_key: np.ndarray, equivalent: np.ndarray) -> dict[str, ClassTally]:
    """Per class of :data:`CLASS_KEYS`, sampled and judged draws and pairs, the verdict
    counts and the factor f = sampled / judged draws (ABCDE §5.8: 1000 split draws, 800
    judged → each judged split draw weighs 1.25; docs/method.md §8.3)."""
    tallies: dict[str, ClassTally] = {}
    for code, name in enumerate(CLASS_KEYS):
        in_class = class_key == code
        judged = in_class & known
        same = judged & (equivalent == 1.0)
        sampled_draws, judged_draws = int(draw_count[in_class].sum()), int(draw_count[judged].sum())
        tallies[name] = ClassTally(
            sampled_draws, judged_draws, count_distinct(pair_key[in_class]),
            count_distinct(pair_key[judged]),
            sampled_draws / judged_draws if judged_draws else None,
            count_distinct(pair_key[same]), count_distinct(pair_key[judged & ~same]))
    return tallies


def factors_within(s: JudgedSample, mask: np.ndarray) -> np.ndarray:
    """The reweighting factors recomputed within ``mask`` (a slice), per class (0 outside
    it and for unknown rows; docs/method.md §8.9)."""
    return _factors(s.class_key, s.draw_count, s.known, mask, s.inverse_pi)


def _factors(keys: np.ndarray, draw_count: np.ndarray, known: np.ndarray, mask: np.ndarray,
             inverse_pi: np.ndarray | None) -> np.ndarray:
    """Per class within ``mask``, sampled / judged draws (§8.3); with the humans' recorded
    π, 1/π calibrated so that the class's draws are kept: (1/π)·Σk / Σ_judged k/π, which
    is the former when π is the same for every pair (docs/method.md §8.15)."""
    factors = np.zeros(keys.size)
    for code in range(len(CLASS_KEYS)):
        in_class = mask & (keys == code)
        judged = in_class & known
        if inverse_pi is None:
            judged_draws = draw_count[judged].sum()
            if judged_draws:
                factors[judged] = draw_count[in_class].sum() / judged_draws
        elif judged.any():
            weighted = (draw_count[judged] * inverse_pi[judged]).sum()
            factors[judged] = inverse_pi[judged] * draw_count[in_class].sum() / weighted
    return factors


def judged_sample(draws: Any, verdicts: Any, *, alpha: float, kappa: float,
                  where: str = "draws",
                  model: Mapping[str, float] | None = None) -> JudgedSample:
    """Check the draw rows (columns, row mappings, a DataFrame, an Arrow table or a DuckDB
    relation), join the verdicts (pair id → verdict in any form :func:`_joined_verdicts`
    takes; ids compare as text), and compute the importance weights for α and κ = Σu/Σw
    and the reweighting. A pair without a verdict is unknown (``missing_verdicts``);
    verdicts of pairs not drawn are counted (``unused_verdicts``). Refused, naming pair
    ids: a missing column, an unknown pair class, a draw count that is not an integer
    ≥ 1, a label or u_ij/w_ij the design does not write, a self pair (an earlier design),
    a repeated ordered pair, a pair id naming two pairs, two verdicts for one id. ``model``:
    a model judge's P(equivalent) by pair id (docs/method.md §8.15)."""
    cols = _columns(draws, where)
    missing = [c for c in REQUIRED_COLUMNS if c not in cols]
    if missing:
        raise InputError(f"{where} lacks columns {missing}; it has {sorted(cols)}")
    pair_id = cols["pair_id"]
    names = np.unique(np.asarray(cols["pair_class"]).astype(str), return_inverse=True)
    lookup = np.array([CLASSES.index(n.strip().lower()) if n.strip().lower() in CLASSES
                       else -1 for n in names[0]], dtype=np.int8)
    codes = lookup[np.asarray(names[1]).reshape(-1)]
    try:
        label, u_over_w, raw_count = (np.asarray(cols[c], dtype=float)
                                      for c in ("label", "u_over_w", "draw_count"))
    except (TypeError, ValueError) as err:
        raise InputError(f"{where}: label, u_over_w and draw_count must be numeric: "
                         f"{err}") from None
    i_code, j_code = _dense_codes(cols["item_i"], cols["item_j"])
    (pair_key,) = _dense_codes(pair_id)
    _refuse(where, pair_id, *_draw_problems(codes, label, u_over_w, raw_count, i_code,
                                                  j_code, pair_key))
    draw_count = raw_count.astype(np.int64)
    if model is not None:  # a model verdict file belongs to one sample
        ids = {str(id_text(p)) for p in pair_id.tolist()}
        stray = sorted(p for p in model if p not in ids)
        if stray:
            raise InputError(
                f"{{option}}: {len(stray):,} of the model's {len(model):,} verdicts name no "
                f"pair of {where} (pair ids {', '.join(map(str, stray[:5]))}); give the model's "
                "verdicts on this sample's pairs (`abcde model-judge` writes them)",
                option="model")
    inverse_pi = None
    if HUMAN_COLUMN in cols:  # a model round: the humans' subset, ξ/π (§8.15)
        pi = np.asarray(cols[HUMAN_COLUMN], dtype=float)
        bad = ~np.isnan(pi) & ~((pi > 0) & (pi <= 1))
        if bad.any():
            raise InputError(f"{where}: {HUMAN_COLUMN} must be empty or in (0, 1]; pair ids "
                             f"{', '.join(map(str, pair_id[bad][:5].tolist()))}")
        inverse_pi = np.where(np.isnan(pi), 0.0, 1.0 / np.where(np.isnan(pi), 1.0, pi))
    unique_keys, first = np.unique(pair_key, return_index=True)
    verdict_code, given = _joined_verdicts(verdicts, pair_id[first], where)
    equivalent_by_key = np.where(verdict_code >= 0, verdict_code, np.nan).astype(float)
    equivalent = equivalent_by_key[np.searchsorted(unique_keys, pair_key)]
    known = ~np.isnan(equivalent)
    if inverse_pi is not None:
        known &= inverse_pi > 0
        equivalent = np.where(known, equivalent, np.nan)
    keys = np.where(codes == SPLIT, KEY_SPLIT, KEY_MERGE)
    stable = codes == STABLE
    keys = np.where(stable & (label > 0), KEY_PLUS, keys)
    keys = np.where(stable & (label < 0), KEY_MINUS, keys)
    keys = np.where(stable & (label == 0), KEY_ZERO, keys).astype(np.int64)
    tallies = class_tallies(keys, draw_count, known, pair_key, equivalent)
    factor = _factors(keys, draw_count, known, np.ones(label.size, dtype=bool), inverse_pi)
    with np.errstate(divide="ignore", invalid="ignore"):  # q = 0 rows are refused later
        importance_u, importance_w = importance(u_over_w, alpha, kappa)
    stratum = cols.get("stratum")
    return JudgedSample(
        float(alpha), pair_key, keys, draw_count, np.asarray(importance_u, dtype=float),
        np.asarray(importance_w, dtype=float), equivalent, known, factor, tallies,
        None if stratum is None else np.asarray(stratum, dtype=object),
        {k: v for k, v in cols.items() if k not in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)},
        int((verdict_code == -2).sum()), given - int((verdict_code != -2).sum()),
        None if model is None else np.array([model.get(str(id_text(p)), np.nan)
                                             for p in pair_id.tolist()], dtype=float),
        inverse_pi)


def _draw_problems(codes: np.ndarray, label: np.ndarray, u_over_w: np.ndarray,
                   count: np.ndarray, i_code: np.ndarray, j_code: np.ndarray,
                   pair_key: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """(rows, what is wrong) for each rule a draw row must keep (docs/method.md §7.6)."""
    with np.errstate(invalid="ignore"):
        sign = ~np.isin(label, (-1.0, 0.0, 1.0)) | ~np.isfinite(u_over_w)
        sign |= ((codes == SPLIT) & (label != -1)) | ((codes == MERGE) & (label != 1))
        # u_ij/w_ij = U/W_b ≥ 1 (split), U/W_e ≥ 1 (merge), 0 exactly when u_ij = 0
        sign |= (codes != STABLE) & (u_over_w < 1 - 1e-9)
        sign |= (codes == STABLE) & ((u_over_w < 0) | ((u_over_w == 0) != (label == 0)))
    n = max(int(max(i_code.max(), j_code.max())) + 1, 1) if i_code.size else 1
    ordered = i_code * n + j_code
    uniq, counts = np.unique(ordered, return_counts=True)
    unordered = np.minimum(i_code, j_code) * n + np.maximum(i_code, j_code)
    order = np.argsort(pair_key, kind="stable")
    keys, first = np.unique(pair_key[order], return_index=True)
    group = np.searchsorted(keys, pair_key)
    two_pairs = ((unordered != unordered[order][first][group])
                 | (codes != codes[order][first][group]))
    return [
        (codes < 0, f"pair_class must be one of {CLASSES}"),
        (~np.isfinite(count) | (count < 1) | (count != np.floor(count)),
         "draw_count must be an integer ≥ 1"),
        (sign, "label is ΔPrecision's sign (−1 split, +1 merge, sgn(W_b − W_e) stable) and "
               "u_over_w is u_ij/w_ij (≥ 1 for split and merge, 0 exactly when the label is "
               "0)"),
        (i_code == j_code, "a self pair (i, i) was drawn; this design never draws self pairs "
                           "(they are added exactly, docs/method.md §6.8), so the sample "
                           "comes from an earlier abcde"),
        (np.isin(ordered, uniq[counts > 1]), "each ordered pair (item_i, item_j) must appear "
                                             "once (aggregate repeats into draw_count)"),
        (two_pairs, "rows sharing a pair_id must be (i, j) and (j, i) of one unordered "
                    "pair with one pair_class"),
    ]


def _refuse(where: str, pair_id: np.ndarray, *problems: tuple[np.ndarray, str]) -> None:
    for rows, what in problems:
        if rows.any():
            raise InputError(f"{where}: {what} (the examples are pair ids)",
                             examples=pair_id[rows][:5].tolist())


def _columns(table: Any, where: str) -> dict[str, np.ndarray]:
    """Columns of a mapping of sequences, row mappings, a DataFrame, an Arrow table or a
    DuckDB relation, as 1-d numpy arrays of one length."""
    if hasattr(table, "fetchnumpy"):
        table = table.fetchnumpy()
    frame = None if isinstance(table, Mapping) else table_columns(table, where)
    table = frame if frame is not None else table
    if not isinstance(table, Mapping):
        rows = list(table)
        if not all(isinstance(r, Mapping) for r in rows):
            raise InputError(f"{where}: expected a mapping of columns or a list of row "
                             "mappings")
        names = dict.fromkeys(k for r in rows for k in r)
        table = {n: [r.get(n) for r in rows] for n in names}
    columns = {str(k): _array(v) for k, v in table.items()}
    lengths = {name: col.shape[0] for name, col in columns.items()}
    if len(set(lengths.values())) > 1:
        raise InputError(f"{where}: columns have different lengths {lengths}")
    return columns


def _array(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    return arr if arr.ndim == 1 else np.asarray(list(values), dtype=object)


def _dense_codes(*arrays: np.ndarray) -> list[np.ndarray]:
    """Dense integer codes of the values shared across arrays."""
    joined = np.concatenate(arrays)
    try:
        _, inverse = np.unique(joined, return_inverse=True)
    except TypeError:  # mixed, unorderable types
        index: dict[Any, int] = {}
        inverse = np.fromiter((index.setdefault(v, len(index)) for v in joined), np.int64)
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    bounds = np.cumsum([0, *(a.shape[0] for a in arrays)])
    return [inverse[lo:hi] for lo, hi in pairwise(bounds)]


def _joined_verdicts(verdicts: Any, drawn: np.ndarray, where: str) -> tuple[np.ndarray, int]:
    """The verdict code (:data:`_VERDICT_CODE`, −2: none) of each of the ``drawn`` pair
    ids, and how many distinct ids the verdicts name. Verdicts: a mapping (a pandas Series
    too), columns {pair_id, verdict} (a DataFrame, an Arrow table too) or (pair id,
    verdict) rows; ids compare as text, so integer ids on both sides are joined as
    integers. A pair id given twice with two verdicts is refused."""
    ids, raw = _verdict_entries(verdicts, where)
    if isinstance(ids, np.ndarray) and ids.dtype.kind == "i" and drawn.dtype.kind == "i" \
            and isinstance(raw, np.ndarray) and raw.dtype.kind == "U":
        words, inverse = np.unique(raw, return_inverse=True)
        codes = np.array([_VERDICT_CODE[parse_verdict(w)] for w in words.tolist()],
                         dtype=np.int8)[np.asarray(inverse).reshape(-1)]
        order = np.argsort(ids, kind="stable")
        ids, codes = ids[order], codes[order]
        clash = (ids[1:] == ids[:-1]) & (codes[1:] != codes[:-1])
        if clash.any():
            at = int(np.argmax(clash))
            _refuse_twice(str(ids[at]), *(_VERDICT_WORD[int(c)] for c in codes[at:at + 2]))
        new = np.ones(ids.size, dtype=bool)
        new[1:] = ids[1:] != ids[:-1]
        ids, codes = ids[new], codes[new]
        at = np.minimum(np.searchsorted(ids, drawn), max(ids.size - 1, 0))
        hit = ids[at] == drawn if ids.size else np.zeros(drawn.size, dtype=bool)
        return np.where(hit, codes[at] if ids.size else -2, -2).astype(np.int8), int(ids.size)
    parsed: dict[tuple[type, Any], str] = {}
    out: dict[str | None, str] = {}
    for pair_id, value in zip(_plain(ids), _plain(raw) if isinstance(raw, np.ndarray) else raw,
                              strict=True):
        try:  # each distinct value parsed once, keyed by its type (1.0 == True is no verdict)
            word = parsed.get((type(value), value)) or parsed.setdefault(
                (type(value), value), parse_verdict(value))
        except TypeError:  # unhashable
            word = parse_verdict(value)
        key = id_text(pair_id)
        if out.get(key, word) != word:
            _refuse_twice(key, out[key], word)
        out[key] = word
    found = [_VERDICT_CODE[out[t]] if t in out else -2 for t in map(id_text, drawn.tolist())]
    return np.array(found, dtype=np.int8), len(out)


def _refuse_twice(key: str | None, word: str, other: str) -> None:
    raise InputError(f"verdicts: pair id {key!r} is given twice with different verdicts "
                     f"{word!r} and {other!r} (ids compare as text)")


def _verdict_entries(verdicts: Any, where: str) -> tuple[Sequence[Any], Sequence[Any]]:
    """Pair ids and raw verdicts, as given (columns stay arrays)."""
    if hasattr(verdicts, "index") and hasattr(verdicts, "to_numpy") \
            and not hasattr(verdicts, "columns") and not isinstance(verdicts, Mapping):
        return verdicts.index.tolist(), verdicts.to_numpy().tolist()
    if not isinstance(verdicts, Mapping) and (hasattr(verdicts, "fetchnumpy") or hasattr(
            verdicts, "to_pydict") or hasattr(verdicts, "columns")):
        verdicts = _columns(verdicts, "verdicts")
    if isinstance(verdicts, Mapping):
        ids = verdicts.get("pair_id") if "verdict" in verdicts else None
        if isinstance(ids, Sequence | np.ndarray) and not isinstance(ids, str | bytes):
            values = verdicts["verdict"]
            if len(ids) != len(values):
                raise InputError("verdicts: pair_id and verdict columns differ in length")
            return ids, values if isinstance(values, np.ndarray) else _plain(values)
        return list(verdicts.keys()), _plain(verdicts.values())
    rows = [(_scalar(r["pair_id"]), r["verdict"]) if isinstance(r, Mapping)
            else (_scalar(r[0]), r[1]) for r in verdicts]
    return [r[0] for r in rows], [r[1] for r in rows]


def _plain(values: Any) -> list[Any]:
    """Python scalars (np.int64(3) → 3)."""
    return values.tolist() if isinstance(values, np.ndarray) else [_scalar(v) for v in values]


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
