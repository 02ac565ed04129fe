"""Per-case score tables: the long table (system, case, metric, value) read from CSV or
JSONL, pivoted to ``table[system][case][metric]`` and validated (docs/method.md §9.1).

UIR (`abcde.evaluation.uir`) needs, for each system and each test case, one finite
score per metric, higher being better ([UIR] §4.1). This module reads and checks such a
table; every refusal is a `UirInputError` whose message names the file and line, or the
system, case and metric at fault.

References
----------
[UIR] E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. *Journal of
Artificial Intelligence Research* 42 (2011) 689–718. doi:10.1613/jair.3401.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from abcde.errors import InputError
from abcde.inputs.frames import table_columns
from abcde.inputs.records import Records, read_records
from abcde.text import printing_alike

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "CaseScores",
    "ScoreRow",
    "ScoreTable",
    "UirInputError",
    "as_score_table",
    "check_metrics",
    "examples_text",
    "finite_score",
    "pivot_scores",
    "read_scores",
]

System = Hashable
Case = Hashable
#: One system's scores: ``scores[case][metric]``.
CaseScores = Mapping[Case, Mapping[str, float]]
#: Every system's scores: ``table[system][case][metric]``.
ScoreTable = dict[System, dict[Case, dict[str, float]]]


class UirInputError(ValueError):
    """Bad score table: the message names the system, case and metric at fault."""


class ScoreRow(NamedTuple):
    """One row of the long score table."""

    system: System
    case: Case
    metric: str
    value: float


def examples_text(items: Iterable[object], limit: int = 5) -> str:
    """The first `limit` items, as reprs joined by commas (for error messages).

    Parameters
    ----------
    items : iterable
        What to show.
    limit : int
        How many to show at most.

    Returns
    -------
    str
        e.g. ``"'a', 'b'"``.

    References
    ----------
    None: a formatting helper of this module's error messages.

    >>> examples_text(["a", "b", "c"], limit=2)
    "'a', 'b'"
    """
    return ", ".join(repr(x) for x in list(items)[:limit])


def finite_score(value: object, where: str) -> float:
    """A score as a float, refused unless it is a finite real number (not a bool).

    Parameters
    ----------
    value : object
        The score (int, float or numpy number).
    where : str
        Names the score in the error message (system, case, metric or file and line).

    Returns
    -------
    float
        The score.

    Raises
    ------
    UirInputError
        The value is not a number, or is NaN or infinite.

    References
    ----------
    docs/method.md §9.1 (one finite score per system, case and metric).
    """
    # numbers.Real holds int, float and numpy's numbers (numpy registers them): numpy is
    # imported only where arrays are built, which `abcde evaluate` of one run never does
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UirInputError(f"{where}: value {value!r} is not a number")
    out = float(value)
    if not math.isfinite(out):
        raise UirInputError(f"{where}: value {out!r} is not finite")
    return out


def check_metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    """The metric names UIR combines, refused if empty, a bare string or repeated.

    Parameters
    ----------
    metrics : sequence of str
        Metric names, higher being better for each.

    Returns
    -------
    tuple of str
        The names in their order.

    Raises
    ------
    UirInputError
        `metrics` is a string, is empty or repeats a name.

    References
    ----------
    docs/method.md §9.1; [UIR] §4.1 (the set X of metrics).
    """
    if isinstance(metrics, str):
        raise UirInputError(f"metrics must be a sequence of names, not the string {metrics!r}")
    out = tuple(metrics)
    if not out:
        raise UirInputError("metrics is empty: UIR needs at least one metric")
    dup = sorted({m for m in out if out.count(m) > 1})
    if dup:
        raise UirInputError(f"metrics listed more than once: {examples_text(dup)}")
    return out


def pivot_scores(rows: Iterable[Sequence[object]], metrics: Sequence[str]) -> ScoreTable:
    """Long table of (system, case, metric, value) → ``table[system][case][metric]``.

    Rows of metrics not in `metrics` are ignored entirely. Systems and cases keep their
    order of first appearance.

    Parameters
    ----------
    rows : iterable of 4-sequences
        (system, case, metric, value) rows, e.g. from `read_scores`.
    metrics : sequence of str
        The metrics to keep (see `check_metrics`).

    Returns
    -------
    dict
        ``table[system][case][metric] = value``; every system has every case and metric.

    Raises
    ------
    UirInputError
        Rows that are not 4-tuples, duplicate (system, case, metric) rows, non-numeric
        or non-finite values of the requested metrics, a metric of `metrics` absent
        from the table, and any system lacking a (case, metric) that another system has
        — the message names system, case and metric.

    References
    ----------
    docs/method.md §9.1; [UIR] §4.2 (UIR compares systems over the same test cases T).
    """
    metrics = check_metrics(metrics)
    rows = rows if isinstance(rows, list) else list(rows)
    fast = _pivot_fast(rows, metrics)
    # anything the fast path cannot vouch for (a refusal, unusual key types) goes through
    # the row-by-row loop, which raises the exact message
    table = fast if fast is not None else _pivot_loop(rows, metrics)
    _refuse_systems_alike(table)
    return table


def _refuse_systems_alike(table: ScoreTable) -> None:
    """Two system names that print alike (é composed, and e + a combining accent) would
    be two rows and columns of the UIR matrix no reader could tell apart: refused, as
    `abcde evaluate` refuses such run names."""
    alike = printing_alike(s for s in table if isinstance(s, str))
    if alike:
        raise UirInputError(
            "systems whose names print alike but are written with different Unicode "
            f"characters (e.g. é and e + a combining accent): "
            f"{', '.join(map(ascii, alike[0]))}; write each system's name one way")


#: Key types for which equal keys are the same value (1 == 1.0 == True, 0.0 == -0.0 are
#: not), so that a key's first occurrence anywhere may stand for it in every system
_PLAIN_KEYS = (str, int, type(None))


def _plain(keys: Iterable[object]) -> bool:
    types = set(map(type, keys))
    types.discard(type(None))
    return len(types) <= 1 and types <= set(_PLAIN_KEYS)


def _codes(keys: Sequence[Hashable]) -> tuple[list[Hashable], np.ndarray]:
    """The distinct keys in order of first appearance, and each key's index among them."""
    import numpy as np

    lookup = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    return list(lookup), np.fromiter(map(lookup.__getitem__, keys), dtype=np.int64,
                                     count=len(keys))


def _pivot_fast(rows: list[Sequence[object]], metrics: tuple[str, ...]) -> ScoreTable | None:
    """`_pivot_loop`'s table in array operations (a large evaluate has 10^6 rows), or
    None when the rows would be refused or hold keys whose equal values differ."""
    import numpy as np

    if not rows or set(map(len, rows)) != {4}:
        return None
    systems, cases, names, values = (list(map(itemgetter(k), rows)) for k in range(4))
    wanted = set(metrics)
    try:
        keep = np.fromiter((m in wanted for m in names), dtype=bool, count=len(names))
    except TypeError:  # an unhashable metric name
        return None
    if not keep.all():
        pick = np.flatnonzero(keep).tolist()
        if not pick:
            return None
        systems, cases, names, values = ([col[i] for i in pick]
                                         for col in (systems, cases, names, values))
    if not (_plain(systems) and _plain(cases) and set(map(type, names)) == {str}):
        return None
    if any(t is bool or not issubclass(t, (int, float, np.integer, np.floating))
           for t in set(map(type, values))):
        return None
    try:
        vals = np.array(values, dtype=float)
    except (OverflowError, ValueError, TypeError):
        return None
    if not np.isfinite(vals).all():
        return None
    sys_keys, s = _codes(systems)
    case_keys, c = _codes(cases)
    met_keys, m = _codes(names)
    n_s, n_c, n_m = len(sys_keys), len(case_keys), len(met_keys)
    n = vals.size
    # every system on every case and metric, each once: n rows, each its own (s, c, m)
    if n_m != len(metrics) or n != n_s * n_c * n_m:
        return None
    if np.bincount((s * n_c + c) * n_m + m, minlength=n).max() != 1:
        return None
    # rows grouped by (system, case), each group in row order: its first row is where
    # that system first has the case; a system's cases go in that order, a case's
    # metrics in row order (as the loop inserts them)
    by_pair = np.argsort(s * n_c + c, kind="stable").reshape(n_s, n_c, n_m)
    case_order = np.argsort(by_pair[:, :, 0], axis=1)
    grid = np.take_along_axis(by_pair, case_order[:, :, None], axis=1)
    grid_mets = m[grid]
    table: ScoreTable = {}
    if (grid_mets == grid_mets[0, 0]).all():
        # one metric order throughout (the usual case): a flat list per metric and system
        labels = [met_keys[j] for j in grid_mets[0, 0].tolist()]
        for i, name in enumerate(sys_keys):
            cols = [vals[grid[i, :, j]].tolist() for j in range(n_m)]
            table[name] = {case_keys[k]: dict(zip(labels, v, strict=True))
                           for k, v in zip(case_order[i].tolist(), zip(*cols, strict=True),
                                           strict=True)}
    else:
        for i, name in enumerate(sys_keys):
            table[name] = {case_keys[k]: {met_keys[j]: x for j, x in zip(js, v, strict=True)}
                           for k, js, v in zip(case_order[i].tolist(), grid_mets[i].tolist(),
                                               vals[grid[i]].tolist(), strict=True)}
    return table


def _pivot_loop(rows: Iterable[Sequence[object]], metrics: tuple[str, ...]) -> ScoreTable:
    """`pivot_scores` row by row: the refusals and their messages."""
    wanted = set(metrics)
    table: ScoreTable = {}
    seen: dict[tuple[object, object, object], int] = {}
    cases: dict[Case, None] = {}
    for idx, row in enumerate(rows):
        if len(row) != 4:
            raise UirInputError(
                f"row {idx}: expected (system, case, metric, value), got {len(row)} fields"
            )
        system, case, metric, value = row
        if metric not in wanted:
            continue
        key = (system, case, metric)
        if key in seen:
            raise UirInputError(
                f"duplicate score for system {system!r}, case {case!r}, metric {metric!r} "
                f"(rows {seen[key]} and {idx})"
            )
        seen[key] = idx
        v = finite_score(value, f"row {idx}: system {system!r}, case {case!r}, "
                         f"metric {metric!r}")
        table.setdefault(system, {}).setdefault(case, {})[metric] = v
        cases.setdefault(case, None)
    if not table:
        raise UirInputError(f"no scores for the metrics {examples_text(metrics)}")
    present = {m for per_case in table.values() for row in per_case.values() for m in row}
    absent = [m for m in metrics if m not in present]
    if absent:
        raise UirInputError(f"metric(s) not in the score table: {examples_text(absent)}")
    for system, per_case in table.items():
        for case in cases:
            row = per_case.get(case, {})
            for m in metrics:
                if m not in row:
                    missing = sum(
                        1 for c in cases for mm in metrics if mm not in per_case.get(c, {})
                    )
                    raise UirInputError(
                        f"system {system!r} has no score for case {case!r}, metric {m!r} "
                        f"({missing} (case, metric) score(s) missing for this system); "
                        "every system must be scored on every case and metric"
                    )
    return table


def as_score_table(
    scores: Iterable[Sequence[object]] | ScoreTable, metrics: Sequence[str]
) -> ScoreTable:
    """A long table or an already pivoted table, validated by `pivot_scores`.

    Parameters
    ----------
    scores : iterable of rows, DataFrame, or dict
        (system, case, metric, value) rows; a pandas DataFrame or an Arrow table with
        the columns system, case, metric and value (iterating a DataFrame gives its
        column names: it was refused as rows of 6 fields); or
        ``table[system][case][metric]``.
    metrics : sequence of str
        The metrics to keep.

    Returns
    -------
    dict
        ``table[system][case][metric]``, as `pivot_scores` returns it.

    References
    ----------
    docs/method.md §9.1.
    """
    table_rows = _table_rows(scores)
    if table_rows is not None:
        return pivot_scores(table_rows, metrics)
    if isinstance(scores, Mapping):
        rows = [
            (s, c, m, v)
            for s, per_case in scores.items()
            for c, per_metric in per_case.items()
            for m, v in per_metric.items()
        ]
        return pivot_scores(rows, metrics)
    return pivot_scores(scores, metrics)


def _table_rows(scores: Any) -> list[tuple[Any, ...]] | None:
    """The (system, case, metric, value) rows of a pandas DataFrame or an Arrow table,
    by column name; None for anything else."""
    if isinstance(scores, Mapping):
        return None
    try:
        table = table_columns(scores, "the score table")
    except InputError as err:
        raise UirInputError(str(err)) from None
    if table is None:
        return None
    names = list(table)
    missing = [c for c in _COLUMNS if c not in names]
    if missing:
        raise UirInputError(f"a score table needs the columns {', '.join(_COLUMNS)}; it "
                            f"lacks {', '.join(missing)} (its columns: {', '.join(names)})")
    columns = [table[c] for c in _COLUMNS]
    return list(zip(*columns, strict=True))


# ------------------------------------------------------------------ files


_COLUMNS = ("system", "case", "metric", "value")


def _parse_value(value: object, path: str | Path, line: int, raw: object = None) -> float:
    """`value` as a finite float; `raw` (default `value`) is what the file holds, for
    messages."""
    raw = value if raw is None else raw
    if isinstance(value, bool) or value is None:
        raise UirInputError(f"{path}, line {line}: column 'value' is not a number: {raw!r}")
    if isinstance(value, (int, float)):
        value = float(value)
    else:
        text = str(value).strip()
        try:
            value = float(text)
        except ValueError:
            raise UirInputError(
                f"{path}, line {line}: column 'value' is not a number: {raw!r}"
            ) from None
    if not math.isfinite(value):
        raise UirInputError(f"{path}, line {line}: column 'value' is not finite: {raw!r}")
    return value


# European spreadsheets write 0,75: with a delimiter other than "," the comma cannot be
# one; with "," (a quoted "0,75") it could be a thousands separator
_COMMA_DECIMAL = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_POINT_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?")
_EXPORT_HINT = ("export the scores again with one decimal mark: a decimal point throughout "
                "(in Excel, File > Options > Advanced, untick 'Use system separators' and "
                "set the decimal separator to '.'), or ';'-separated with a decimal comma "
                "in every value")


def _decimal_comma(read: Records, values: list[tuple[object, int]]) -> bool:
    """Whether the CSV's values are written with a decimal comma (0,75), read as such
    only when that is unambiguous: a delimiter other than ',' and no value with a decimal
    point; any other file holding a value with a decimal comma is refused."""
    texts = [(str(v).strip(), line) for v, line in values if isinstance(v, str)]
    comma = next(((t, line) for t, line in texts if _COMMA_DECIMAL.fullmatch(t)), None)
    if comma is None:
        return False
    where = f"{read.where}, line {comma[1]}: column 'value' is {comma[0]!r}, with a decimal comma"
    if read.delimiter == ",":
        raise UirInputError(f"{where}, in a ','-separated file (a thousands separator?); "
                            + _EXPORT_HINT)
    point = next(((t, line) for t, line in texts if _POINT_DECIMAL.fullmatch(t)), None)
    if point is not None:
        raise UirInputError(f"{where}, and line {point[1]} is {point[0]!r}, with a decimal "
                            f"point: which mark is meant is unclear; {_EXPORT_HINT}")
    return True


def _score_rows(read: Records, wanted: set[str] | None) -> list[tuple[ScoreRow, int]]:
    """Score rows of a record file, each checked (columns, types, values)."""
    path = read.where
    if not read.jsonl:
        missing = [c for c in _COLUMNS if c not in read.columns]
        if missing:
            # System, VALUE: names are matched exactly; say so where that is the cause
            cased = [h for h in read.columns if h.lower() in missing]
            raise UirInputError(
                f"{path}: missing column(s) {', '.join(repr(c) for c in missing)}; "
                f"header is {read.columns!r}"
                + (f" ({', '.join(map(repr, cased))} differ(s) in case: column names are "
                   "matched exactly, in lower case)" if cased else "")
            )
    kept: list[tuple[tuple[str, str, str], object, int]] = []
    for line, rec in read.rows:
        missing = [c for c in _COLUMNS if c not in rec]
        if missing:
            raise UirInputError(
                f"{path}, line {line}: missing column(s) {', '.join(repr(c) for c in missing)}"
            )
        for c in _COLUMNS[:3]:
            if not isinstance(rec[c], str | int) or isinstance(rec[c], bool):
                raise UirInputError(
                    # what is accepted: text or an integer (JSONL `"case": 3` is case '3')
                    f"{path}, line {line}: column {c!r} must be text or an integer, "
                    f"got {rec[c]!r}"
                )
            if not str(rec[c]).strip():
                raise UirInputError(f"{path}, line {line}: column {c!r} is empty")
        metric = str(rec["metric"]).strip()
        if wanted is not None and metric not in wanted:
            continue
        kept.append(((str(rec["system"]).strip(), str(rec["case"]).strip(), metric),
                     rec["value"], line))
    comma = not read.jsonl and _decimal_comma(read, [(v, line) for _, v, line in kept])
    return [(ScoreRow(*key, _parse_value(
        value.strip().replace(",", ".") if comma and isinstance(value, str) else value,
        path, line, raw=value)), line) for key, value, line in kept]


def read_scores(path: str | Path, metrics: Sequence[str] | None = None) -> list[ScoreRow]:
    """Read a long score table (columns system, case, metric, value) from CSV or JSONL.

    The format goes by the suffix: ``.jsonl``/``.ndjson``/``.json`` → one JSON object
    per line, anything else → CSV with a header (extra columns are ignored; a byte-order
    mark is allowed). system, case and metric are read as strings.

    Parameters
    ----------
    path : str or Path
        The score file, UTF-8.
    metrics : sequence of str, optional
        Keep only the rows of these metrics; rows of other metrics are skipped unread
        (their values are not checked). Default: every row.

    Returns
    -------
    list of ScoreRow
        The rows in file order (pivot them with `pivot_scores`).

    Raises
    ------
    UirInputError
        Naming the file and line: unreadable or non-UTF-8 file, missing column, a row
        with more or fewer fields than the header, empty field, non-numeric or
        non-finite value, duplicate (system, case, metric), invalid JSON, no rows.

    References
    ----------
    docs/method.md §9.1 (the per-case score table); [UIR] §4.2.
    """
    p = Path(path)
    wanted = None if metrics is None else set(check_metrics(metrics))
    try:
        read = read_records(p, what="score file", expected=[_COLUMNS])
    except InputError as err:
        raise UirInputError(str(err)) from None
    rows = _score_rows(read, wanted)
    if not rows:
        if wanted is not None:
            raise UirInputError(f"{p}: no score rows for the metric(s) {examples_text(metrics)}")
        raise UirInputError(f"{p}: no score rows")
    first_line: dict[tuple[str, str, str], int] = {}
    for row, line in rows:
        key = (row.system, row.case, row.metric)
        if key in first_line:
            raise UirInputError(
                f"{p}, line {line}: duplicate score for system {row.system!r}, "
                f"case {row.case!r}, metric {row.metric!r} (first on line {first_line[key]})"
            )
        first_line[key] = line
    return [row for row, _ in rows]
