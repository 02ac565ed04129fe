"""Per-case score tables for UIR: the long table (system, case, metric, value) read from
CSV or JSONL and pivoted to ``table[system][case][metric]``, one finite score per system,
case and metric (docs/method.md §9.1; [UIR] §4.1). Every refusal names the file and line,
or the system, case and metric at fault.

[UIR] E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. *Journal of
Artificial Intelligence Research* 42 (2011) 689–718. doi:10.1613/jair.3401.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from abcde.errors import InputError
from abcde.inputs.frames import table_columns
from abcde.inputs.records import read_records
from abcde.text import printing_alike

System = Hashable
Case = Hashable
#: One system's scores: ``scores[case][metric]``.
CaseScores = Mapping[Case, Mapping[str, float]]
#: Every system's scores: ``table[system][case][metric]``.
ScoreTable = dict[System, dict[Case, dict[str, float]]]
COLUMNS = ("system", "case", "metric", "value")


class UirInputError(InputError, ValueError):
    """A bad score table or UIR option: the message names what is at fault."""


class ScoreRow(NamedTuple):
    system: System
    case: Case
    metric: str
    value: float


def examples_text(items: Iterable[object], limit: int = 5) -> str:
    """The first `limit` items as reprs joined by commas (for messages).

    >>> examples_text(["a", "b", "c"], limit=2)
    "'a', 'b'"
    """
    return ", ".join(repr(x) for x in list(items)[:limit])


def finite_score(value: object, where: str, raw: object = None) -> float:
    """A score as a float: a finite real number (numpy's too), not a bool; `raw`: as
    written, when `value` was parsed from it."""
    shown = value if raw is None else raw
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UirInputError(f"{where}: value {shown!r} is not a number")
    if not math.isfinite(out := float(value)):
        raise UirInputError(f"{where}: value {shown!r} is not finite")
    return out


def check_metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    """The metric names UIR combines: a non-empty sequence of distinct names."""
    out = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if not out:
        raise UirInputError("{option} is empty: UIR needs at least one metric",
                            option="metrics")
    if dup := sorted({m for m in out if out.count(m) > 1}):
        raise UirInputError(f"{{option}} lists {examples_text(dup)} more than once",
                            option="metrics")
    return out


def pivot_scores(rows: Iterable[Sequence[object]], metrics: Sequence[str],
                 where: str = "the score table") -> ScoreTable:
    """Long table of (system, case, metric, value) → ``table[system][case][metric]``.

    Rows of other metrics are ignored; systems and cases keep their order of first
    appearance. Refused: a row that is no 4-tuple, a repeated (system, case, metric), a
    value that is no finite number, a metric no row has, a system lacking a (case,
    metric) another has, and two systems whose names print alike ([UIR] §4.2: systems
    are compared over the same test cases; docs/method.md §9.1). `where` names the
    table in the messages of a missing score.
    """
    metrics = check_metrics(metrics)
    wanted = set(metrics)
    table: ScoreTable = {}
    for idx, row in enumerate(rows):
        if len(row) != 4:
            raise UirInputError(f"row {idx}: expected (system, case, metric, value), got "
                                f"{len(row)} fields")
        system, case, metric, value = row
        if metric not in wanted:
            continue
        per = table.setdefault(system, {}).setdefault(case, {})
        key = f"row {idx}: system {system!r}, case {case!r}, metric {metric!r}"
        if metric in per:
            raise UirInputError(f"{key}: a duplicate score")
        per[metric] = finite_score(value, key)
    if absent := [m for m in metrics
                  if not any(m in r for per in table.values() for r in per.values())]:
        raise UirInputError(f"{where}: no score of the metric(s) {examples_text(absent)}")
    cases = dict.fromkeys(c for per in table.values() for c in per)
    for system, per in table.items():
        gaps = [(c, m) for c in cases for m in metrics if m not in per.get(c, {})]
        if gaps:
            raise UirInputError(
                f"{where}: system {system!r} has no score for case {gaps[0][0]!r}, metric "
                f"{gaps[0][1]!r} ({len(gaps)} (case, metric) score(s) missing for this "
                "system); every system must be scored on every case and metric")
    if alike := printing_alike(s for s in table if isinstance(s, str)):
        # é composed and e + a combining accent: two rows of the matrix no reader can
        # tell apart, refused as `abcde evaluate` refuses such run names
        raise UirInputError(f"{where}: systems whose names print alike but are written with "
                            "different Unicode characters (e.g. é and e + a combining "
                            f"accent): {', '.join(map(ascii, alike[0]))}; write each "
                            "system's name one way")
    return table


def as_score_table(scores: Any, metrics: Sequence[str]) -> ScoreTable:
    """A long table (rows, or a DataFrame / Arrow table with the columns system, case,
    metric, value) or an already pivoted ``table[system][case][metric]``, checked by
    `pivot_scores`."""
    if isinstance(scores, Mapping):
        return pivot_scores([(s, c, m, v) for s, per in scores.items()
                             for c, row in per.items() for m, v in row.items()], metrics)
    table = table_columns(scores, "the score table")
    if table is None:
        return pivot_scores(scores, metrics)
    if missing := [c for c in COLUMNS if c not in table]:
        raise UirInputError(f"a score table needs the columns {', '.join(COLUMNS)}; it "
                            f"lacks {', '.join(missing)} (its columns: {', '.join(table)})")
    return pivot_scores(zip(*(table[c] for c in COLUMNS), strict=True), metrics)


# ------------------------------------------------------------------ files

# European spreadsheets write 0,75: read so only when the delimiter is not ',' and no
# value has a decimal point (else a comma could be a thousands separator)
_COMMA_DECIMAL = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
_POINT_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?")
_EXPORT_HINT = ("Export the scores again with one decimal mark: a decimal point throughout "
                "(in Excel, File > Options > Advanced, untick 'Use system separators' and "
                "set the decimal separator to '.'), or ';'-separated with a decimal comma "
                "in every value.")


def read_scores(path: str | Path, metrics: Sequence[str] | None = None) -> list[ScoreRow]:
    """The rows of a long score table (columns system, case, metric, value), CSV or JSONL
    by the suffix, read as `abcde.inputs.records` reads small files; with `metrics`, only
    the rows of those metrics (the others are skipped unread). system, case and metric
    are text (a JSONL integer is its text); docs/method.md §9.1."""
    wanted = None if metrics is None else set(metrics)  # checked by `pivot_scores`
    read = read_records(Path(path), what="score file", expected=[COLUMNS])
    where = read.where
    if not read.jsonl and (missing := [c for c in COLUMNS if c not in read.columns]):
        cased = [h for h in read.columns if h.lower() in missing]
        raise UirInputError(
            f"{where}: missing column(s) {examples_text(missing)}; header is "
            f"{read.columns!r}" + (f" ({examples_text(cased)} differ(s) in case: column "
                                   "names are matched exactly, in lower case)" if cased else ""))
    kept: list[tuple[tuple[str, ...], Any, int]] = []
    for line, rec in read.rows:
        if missing := [c for c in COLUMNS if c not in rec]:
            raise UirInputError(f"{where}, line {line}: missing column(s) "
                                f"{examples_text(missing)}")
        key = []
        for c in COLUMNS[:3]:
            if not isinstance(rec[c], str | int) or isinstance(rec[c], bool):
                raise UirInputError(f"{where}, line {line}: column {c!r} must be text or an "
                                    f"integer, got {rec[c]!r}")
            if not (text := str(rec[c]).strip()):
                raise UirInputError(f"{where}, line {line}: column {c!r} is empty")
            key.append(text)
        if wanted is None or key[2] in wanted:
            kept.append((tuple(key), rec["value"], line))
    if not kept:
        raise UirInputError(f"{where}: no score rows"
                            + (f" for the metric(s) {examples_text(metrics)}" if metrics else ""))
    texts = [(v.strip(), line) for _, v, line in kept if isinstance(v, str)]
    comma = None if read.jsonl else next(
        ((t, n) for t, n in texts if _COMMA_DECIMAL.fullmatch(t)), None)
    if comma is not None:
        said = f"{where}, line {comma[1]}: column 'value' is {comma[0]!r}, with a decimal comma"
        point = next(((t, n) for t, n in texts if _POINT_DECIMAL.fullmatch(t)), None)
        if read.delimiter == ",":
            raise UirInputError(f"{said}, in a ','-separated file (a thousands separator?)",
                                hint=_EXPORT_HINT)
        if point is not None:
            raise UirInputError(f"{said}, and line {point[1]} is {point[0]!r}, with a decimal "
                                "point: which mark is meant is unclear", hint=_EXPORT_HINT)
    out, first = [], {}
    for key, value, line in kept:
        if key in first:
            raise UirInputError(f"{where}, line {line}: duplicate score for system "
                                f"{key[0]!r}, case {key[1]!r}, metric {key[2]!r} (first on "
                                f"line {first[key]})")
        first[key] = line
        out.append(ScoreRow(*key, _value(value, comma is not None, f"{where}, line {line}")))
    return out


def _value(raw: object, comma: bool, where: str) -> float:
    """A file's value as a finite float (text as written, a JSON number as parsed)."""
    value: object = raw
    if isinstance(raw, str):
        try:
            value = float(raw.strip().replace(",", ".") if comma else raw.strip())
        except ValueError:
            value = None
    return finite_score(value, where, raw)
