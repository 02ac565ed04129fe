"""Judgement files, ground truths and judges for a pair sample (docs/method.md §8.1;
ABCDE §5.8, App. B).

A judgement file is CSV or JSONL (one JSON object a line), typically the sample's
``questions.csv`` with its ``verdict`` column filled in. A row names its pair by

- ``pair_id`` (the sample's pair number), or
- the two item ids ``item_1``, ``item_2`` (also accepted: ``item_i``, ``item_j``), in
  either order.

With both, they must agree with the sample. ``verdict`` is ``equivalent``,
``not_equivalent`` or ``unknown``; a blank verdict is unknown. Case, spaces and hyphens
do not matter (``Not equivalent`` = ``not_equivalent``), and these synonyms are
accepted: yes/true/1/same → equivalent, no/false/0/different → not_equivalent,
?/skip/cant_tell → unknown. Anything else is an error with its line number.

A pair may appear more than once (several judges): identical verdicts and
"unknown" next to a known verdict are fine (the known one counts); two different known
verdicts are a contradiction and an error. Self pairs (i, i) are equivalent without
a judge; a file saying otherwise is an error.

Which sample a file belongs to: pair ids are numbered per sample (in draw order), so a
pair id alone names a pair only together with its sample. A row keyed by ``pair_id``
alone must therefore carry the ``sample_id`` of the questions file
(`abcde.sample_files.manifest.sample_id`, also printed by ``abcde estimate``), and it must
equal this sample's id; without it the file is refused, since another sample's
``pair_id,verdict`` file would otherwise be applied silently to the wrong pairs. Rows
that name the two item ids are checked against the sample's pairs and need no
``sample_id`` (when present it must still match); rows with both the pair id and the
item ids must match the sample's pair. Column names are compared without surrounding
spaces, and a UTF-8 byte-order mark (Excel) is ignored. Pair ids are integers, so a
``pair_id`` written as a decimal (``17.0``, from a float column) or zero-padded
(``017``) is pair 17; item ids written as decimals are refused, naming them.

:func:`normalise_verdict` is abcde's one verdict normaliser: the same spellings are
accepted in judgement files, from callable judges and by
:func:`abcde.quality.estimate.estimate_from_draws`.

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5.8 (verdicts, unknowns), App. B (models as judges).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abcde.errors import InputError, Shown
from abcde.inputs.frames import table_columns as frame_columns
from abcde.inputs.records import CSV_SUFFIXES, JSONL_SUFFIXES, read_records, record_suffix
from abcde.inputs.sources import missing_as_none
from abcde.sample_files.exported import snowflake_renames
from abcde.sample_files.manifest import parse_sample_id

VERDICTS = ("equivalent", "not_equivalent", "unknown")
SYNONYMS = {
    "equivalent": "equivalent", "yes": "equivalent", "true": "equivalent",
    "1": "equivalent", "same": "equivalent",
    "not_equivalent": "not_equivalent", "no": "not_equivalent", "false": "not_equivalent",
    "0": "not_equivalent", "different": "not_equivalent",
    "unknown": "unknown", "": "unknown", "?": "unknown", "skip": "unknown",
    "cant_tell": "unknown", "can't_tell": "unknown",
}
ITEM_COLUMNS = (("item_1", "item_2"), ("item_i", "item_j"))

Judge = Callable[[Any, Any], Any]


def normalise_verdict(value: Any) -> str | None:
    """The verdict a value spells, or None when it spells none (docs/method.md §8.1).

    The one verdict normaliser of abcde: judgement files, callable judges and verdicts
    given to :func:`abcde.quality.estimate.estimate_from_draws` all go through it.

    Parameters
    ----------
    value : Any
        A verdict word, a bool (numpy's too), None or NaN. Words ignore case,
        surrounding spaces, inner spaces and hyphens (``Not equivalent`` =
        ``not_equivalent``); the synonyms of :data:`SYNONYMS` are accepted:
        yes/true/1/same → equivalent, no/false/0/different → not_equivalent,
        blank/?/skip/cant_tell → unknown. None and NaN are unknown; True is
        equivalent, False not_equivalent.

    Returns
    -------
    str or None
        ``'equivalent'``, ``'not_equivalent'`` or ``'unknown'``; None if ``value`` is
        not a verdict (the caller says where, e.g. with a line number).

    References
    ----------
    S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
    arXiv:2407.21430, §5.8 (verdicts per pair; unknowns are dropped and reweighted).

    Examples
    --------
    >>> normalise_verdict("Not equivalent"), normalise_verdict(True), normalise_verdict("")
    ('not_equivalent', 'equivalent', 'unknown')
    >>> normalise_verdict("maybe") is None
    True
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    if isinstance(value, bool):
        return "equivalent" if value else "not_equivalent"
    text = str(value).strip().lower().replace(" ", "_").replace("-", "_")
    return SYNONYMS.get(text)


def parse_verdict(value: Any) -> str:
    """:func:`normalise_verdict`, refusing a value that is not a verdict.

    Parameters
    ----------
    value : Any
        As for :func:`normalise_verdict`.

    Returns
    -------
    str
        ``'equivalent'``, ``'not_equivalent'`` or ``'unknown'``.

    Raises
    ------
    ValueError
        When ``value`` spells no verdict.

    References
    ----------
    docs/method.md §8.1.
    """
    word = normalise_verdict(value)
    if word is None:
        raise ValueError(
            f"verdict must be one of {VERDICTS} (or True/False/None, or a synonym: "
            f"yes/true/1/same, no/false/0/different, blank/?/skip/cant_tell), got {value!r}"
        )
    return word


@dataclass
class JudgementRow:
    line: int
    pair_id: str | None
    item_1: str | None
    item_2: str | None
    verdict: str
    sample_id: str | None


def id_text(value: Any) -> str | None:
    """An id as text, the form in which pair and item ids are compared.

    A CSV gives '17' where the sample has 17 (and a float column 17.0); surrounding
    spaces are dropped, blank is None.

    Parameters
    ----------
    value : Any
        An id: int, float, str or None.

    Returns
    -------
    str or None
        The text; integral floats without their ".0".

    References
    ----------
    docs/method.md §8.1 (pair ids compare as text).

    Examples
    --------
    >>> id_text(17), id_text(17.0), id_text(" 17 "), id_text("")
    ('17', '17', '17', None)
    """
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


# An integer as pandas writes an int column that holds a blank (it becomes float): 17.0
_DECIMAL = re.compile(r"^[0-9]+\.0+$")


def _pair_id_text(value: Any) -> str | None:
    """A pair id as text: pair ids are integers, so "17.0" (a CSV written from a float
    column) is pair 17, as the float 17.0 is (:func:`id_text`), and so is "017" (a
    column formatted with leading zeros)."""
    text = id_text(value)
    if text is not None and _DECIMAL.match(text):
        text = text.split(".")[0]
    return str(int(text)) if text is not None and text.isascii() and text.isdigit() else text


def read_judgements(path: str | Path) -> list[JudgementRow]:
    """Rows of a CSV or JSONL judgement file, verdicts normalised, with line numbers.

    Parameters
    ----------
    path : str or Path
        A .csv, .tsv or .txt file with a header (delimiter , ; tab or |, sniffed from
        the header), or a .jsonl, .ndjson or .json file of one object a line (module
        docstring); in UTF-8 (with or without a byte-order mark), UTF-16 (Excel's
        "Unicode text") or Windows-1252 (:func:`abcde.inputs.records.decode_text`).

    Returns
    -------
    list of JudgementRow

    Raises
    ------
    InputError
        On a missing file, an unknown suffix, a workbook or binary file, a line that is
        not a JSON object, a malformed CSV line, missing columns or a verdict word
        :func:`normalise_verdict` does not know.

    References
    ----------
    docs/method.md §8.1.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"judgement file {p} does not exist")
    if record_suffix(p) not in (*JSONL_SUFFIXES, *CSV_SUFFIXES):
        raise InputError(f"judgement file {p}: expected .csv or .jsonl (or .csv.gz, "
                         ".jsonl.gz)")
    read = read_records(p, what="judgement file",
                        expected=[{"verdict", "pair_id"}, *({"verdict", *c} for c in ITEM_COLUMNS)])
    return rows_from_records(read.rows, set(read.columns), read.where)


def rows_from_records(records: Iterable[tuple[int, Mapping[str, Any]]], columns: set[str],
                      where: str) -> list[JudgementRow]:
    """Validate columns and verdict words of (line, record) pairs.

    Column names are stripped of surrounding spaces (``pair_id, verdict`` is a common
    hand-edited header), both when validated and when looked up in the records.

    Parameters
    ----------
    records : iterable of (int, mapping)
        Line number and record.
    columns : set of str
        The records' column names.
    where : str
        Where they come from, for messages.

    Returns
    -------
    list of JudgementRow

    Raises
    ------
    InputError
        On missing columns (``verdict`` and ``pair_id`` or two item ids), two columns
        that are one name once stripped, or unknown verdict words (with their lines).

    References
    ----------
    docs/method.md §8.1.
    """
    stripped: dict[str, str] = {}
    for c in columns:
        name = str(c).strip()
        if name in stripped and stripped[name] != str(c):
            raise InputError(f"{where}: columns {stripped[name]!r} and {str(c)!r} are the "
                             "same name once spaces are stripped", column=name)
        stripped[name] = str(c)
    # the questions table unloaded from Snowflake: PAIR_ID, ITEM_1, VERDICT (unquoted
    # names are stored in upper case), its verdicts filled in
    upper = snowflake_renames(list(stripped), "verdict")
    stripped = {upper.get(k, k): v for k, v in stripped.items()}
    columns = set(stripped)
    records = [(line, {upper.get(str(k).strip(), str(k).strip()): v for k, v in rec.items()})
               for line, rec in records]
    items = next((pair for pair in ITEM_COLUMNS if set(pair) <= columns), None)
    if "verdict" not in columns or ("pair_id" not in columns and items is None):
        need = "'verdict' and 'pair_id' or the two item ids 'item_1', 'item_2'"
        raise InputError(f"{where}: a judgement file needs columns {need}; it has "
                         f"{sorted(columns)}", hint="Fill the verdict column of the "
                         "sample's questions.csv (or questions.jsonl) and keep its columns.")
    rows, bad = [], []
    for line, rec in records:
        word = normalise_verdict(rec.get("verdict"))
        if word is None:
            bad.append(f"line {line}: {rec.get('verdict')!r}")
            continue
        rows.append(JudgementRow(
            line, _pair_id_text(rec.get("pair_id")),
            id_text(rec.get(items[0])) if items else None,
            id_text(rec.get(items[1])) if items else None,
            word, id_text(rec.get("sample_id"))))
    if bad:
        raise InputError(f"{where}: {len(bad)} unknown verdict word(s); verdicts are "
                         f"{', '.join(VERDICTS)} (blank = unknown)", column="verdict",
                         examples=[Shown(b) for b in bad],
                         hint="Synonyms accepted: yes/true/1/same, no/false/0/different, "
                              "?/skip/cant_tell.")
    return rows


@dataclass
class SamplePairs:
    """The sample's unordered pairs: pair_id → (item a, item b) (text keys) and back."""

    by_id: dict[str, tuple[Any, Any]]
    by_items: dict[tuple[str, str], str]
    self_ids: set[str]

    @classmethod
    def from_draws(cls, draws: Sequence[Mapping[str, Any]]) -> SamplePairs:
        """The pairs of a sample's draw rows (pair_id, item_i, item_j, pair_class)."""
        by_id: dict[str, tuple[Any, Any]] = {}
        by_items: dict[tuple[str, str], str] = {}
        self_ids = set()
        for r in draws:
            pid = id_text(r["pair_id"])
            assert pid is not None
            by_id.setdefault(pid, (r["item_i"], r["item_j"]))
            a, b = id_text(r["item_i"]), id_text(r["item_j"])
            by_items[_ordered(a, b)] = pid
            if r["pair_class"] == "self":
                self_ids.add(pid)
        return cls(by_id, by_items, self_ids)


def _ordered(a: str | None, b: str | None) -> tuple[str, str]:
    x, y = a or "", b or ""
    return (x, y) if x <= y else (y, x)


# A number as a spreadsheet writes one it has rounded to 15 significant digits
# (9007199254740993 -> 9.00719925474102E+15): no id of a sample looks like this.
_SCIENTIFIC = re.compile(r"^[+-]?[0-9]+(\.[0-9]+)?[eE][+-]?[0-9]+$")


def _spreadsheet_numbers(rows: Sequence[JudgementRow], pairs: SamplePairs,
                         expected_sample_id: str | None, where: str) -> None:
    """Refuse ids a spreadsheet rewrote in scientific notation, naming them as such (not
    as pairs of "another sample")."""
    items = {x for key in pairs.by_items for x in key}
    bad = []
    for r in rows:
        for column, value, known in (("item_1", r.item_1, items), ("item_2", r.item_2, items),
                                     ("pair_id", r.pair_id, pairs.by_id),
                                     ("sample_id", r.sample_id, {expected_sample_id})):
            if value and _SCIENTIFIC.match(value) and value not in known:
                bad.append(Shown(f"line {r.line}: {column} {value}"))
    if bad:
        raise InputError(
            f"{where}: {len(bad)} id(s) are numbers in scientific notation, as a spreadsheet "
            "program writes the long numbers it has rounded (Excel keeps 15 significant "
            "digits): they no longer name the sample's items, pairs or sample",
            examples=bad, hint="Open questions.csv in Excel through Data > From Text/CSV "
            "with the id columns as Text (or judge questions.jsonl, or with `abcde judge`), "
            "then save it as CSV UTF-8.")


def _spreadsheet_zeros(rows: Sequence[JudgementRow], pairs: SamplePairs, where: str) -> None:
    """Refuse item ids a spreadsheet read as numbers, losing their leading zeros
    (00123 -> 123), naming them as such (not as pairs of "another sample")."""
    padded = {x.lstrip("0"): x for key in pairs.by_items for x in key
              if len(x) > 1 and x.startswith("0") and x.isdigit()}
    if not padded:
        return
    items = {x for key in pairs.by_items for x in key}
    bad = [Shown(f"line {r.line}: {column} {value} (the sample has {padded[value]})")
           for r in rows for column, value in (("item_1", r.item_1), ("item_2", r.item_2))
           if value and value not in items and value in padded]
    if bad:
        raise InputError(
            f"{where}: {len(bad)} item id(s) lost their leading zeros, as when a spreadsheet "
            "program reads ids as numbers: they no longer name the sample's items",
            examples=bad, hint="Open questions.csv in Excel through Data > From Text/CSV "
            "with the id columns as Text (or judge questions.jsonl, or with `abcde judge`), "
            "then save it as CSV UTF-8.")


def _spreadsheet_decimals(rows: Sequence[JudgementRow], pairs: SamplePairs,
                          where: str) -> None:
    """Refuse integer item ids written as decimals (17 -> 17.0, as pandas writes an int
    column that holds a blank), naming them as such (not as pairs of "another sample")."""
    items = {x for key in pairs.by_items for x in key}
    bad = [Shown(f"line {r.line}: {column} {value} (the sample has {value.split('.')[0]})")
           for r in rows for column, value in (("item_1", r.item_1), ("item_2", r.item_2))
           if value and value not in items and _DECIMAL.match(value)
           and value.split(".")[0] in items]
    if bad:
        raise InputError(
            f"{where}: {len(bad)} item id(s) are written as decimals, as pandas writes an "
            "integer column that holds a blank: they no longer name the sample's items",
            examples=bad, hint="Keep the ids as text (pandas: read_csv(..., dtype=str, "
            "keep_default_na=False)), or judge questions.jsonl, or with `abcde judge`.")


def _related(sid: str, stream: tuple[str, str, int] | None) -> bool:
    """Whether a sample id names another sample of this sample's stream (same population,
    seed, inputs and stratification: docs/method.md §7.10)."""
    other = parse_sample_id(sid)
    return stream is not None and other is not None and other[0] == stream[0]


def match_judgements(rows: Sequence[JudgementRow], pairs: SamplePairs, *,
                     expected_sample_id: str | None, where: str,
                     stream: tuple[str, str, int] | None = None,
                     carried: dict[str, dict[str, int]] | None = None) -> dict[str, str]:
    """pair_id → verdict for the sample, with every check of the module docstring.

    Parameters
    ----------
    rows : sequence of JudgementRow
        Rows of a judgement file (:func:`read_judgements`, :func:`rows_from_records`).
    pairs : SamplePairs
        The sample's pairs.
    expected_sample_id : str or None
        The sample's id; rows naming another are refused, unless it is a sample of the
        same stream (`stream`).
    where : str
        Where the rows come from, for messages.
    stream : (str, str, int), optional
        This sample's stream (:func:`abcde.sample_files.manifest.stream_of`). Rows whose
        sample_id names another sample of the same stream — an earlier sample with a
        smaller budget, or a later one — carry their verdicts over: they are matched
        by their item ids (pair ids are numbered per sample), and their pairs that this
        sample lacks are skipped (docs/method.md §7.10).
    carried : dict, optional
        Filled with what carried over, per other sample id: ``rows``, ``verdicts`` (this
        sample's pairs given a known verdict by them), ``unknown`` and
        ``not_in_sample`` (rows of pairs this sample lacks).

    Returns
    -------
    dict of str to str
        pair_id (text) → verdict, one per judged non-self pair (a known verdict beats
        "unknown" for the same pair).

    Raises
    ------
    InputError
        On rows of another sample, rows keyed by pair_id without a sample_id (or of a
        related sample: they need item ids), ids a spreadsheet rewrote in scientific
        notation or stripped of leading zeros, integer item ids written as decimals
        (17.0), pairs not in the sample, pair ids and
        item ids that disagree, rows naming no pair, and contradictory verdicts (also a
        self pair judged not equivalent).

    References
    ----------
    docs/method.md §7.10, §8.1. ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430).
    """
    _spreadsheet_numbers(rows, pairs, expected_sample_id, where)
    _spreadsheet_zeros(rows, pairs, where)
    _spreadsheet_decimals(rows, pairs, where)
    related: set[str] = set()
    if expected_sample_id is not None:
        ids = {r.sample_id for r in rows if r.sample_id and r.sample_id != expected_sample_id}
        related = {sid for sid in ids if _related(sid, stream)}
        other = sorted(ids - related)
        if other:
            raise InputError(f"{where} was judged for another sample (sample_id "
                             f"{', '.join(other)}; this sample is {expected_sample_id})",
                             column="sample_id",
                             hint="Estimate with the sample directory the questions came "
                                  "from. (Verdicts carry over only between samples of one "
                                  "stream: the same inputs, population, seed and "
                                  "stratification, with another --budget.)")
    unbound = [f"line {r.line}: pair_id {r.pair_id}" for r in rows
               if r.pair_id is not None and r.item_1 is None and r.item_2 is None
               and (r.sample_id is None or r.sample_id in related)]
    if unbound:
        this = f" (this sample's id is {expected_sample_id})" if expected_sample_id else ""
        raise InputError(
            f"{where}: {len(unbound)} row(s) name their pair by pair_id alone, without a "
            "sample_id (or with the id of another sample, whose verdicts carry over by "
            "item ids only). Pair ids are numbered per sample, in draw order, so they only "
            "identify a pair within the sample they came from; a file judged for another "
            "sample would be applied to the wrong pairs.", column="sample_id",
            examples=[Shown(u) for u in unbound],
            hint=f"Keep the sample_id and item columns of the questions file{this}, or key "
                 "the rows by the item ids (item_1, item_2), which are checked against the "
                 "sample.")
    missing, foreign, mismatched = [], [], []
    agreed = 0  # rows whose pair_id and item ids name the same pair of the sample
    verdicts: dict[str, tuple[str, int]] = {}
    conflicts = []
    by_other: dict[str, dict[str, str]] = {sid: {} for sid in related}
    for r in rows:
        pid = r.pair_id
        if r.sample_id in related:
            pid = pairs.by_items.get(_ordered(r.item_1, r.item_2))
            stats = (carried if carried is not None else {}).setdefault(
                r.sample_id, {"rows": 0, "verdicts": 0, "unknown": 0, "not_in_sample": 0})
            stats["rows"] += 1
            if pid is None:
                stats["not_in_sample"] += 1
                continue
            if pid not in pairs.self_ids:
                old_word = by_other[r.sample_id].get(pid)
                if old_word is None or old_word == "unknown":
                    by_other[r.sample_id][pid] = r.verdict
        elif r.item_1 is not None or r.item_2 is not None:
            by_items = pairs.by_items.get(_ordered(r.item_1, r.item_2))
            agreed += pid is not None and by_items == pid
            if pid is not None and by_items != pid:
                if pid in pairs.by_id or by_items is not None:
                    mismatched.append(f"line {r.line}: pair_id {pid} with items "
                                      f"{r.item_1}, {r.item_2} (" + (
                                          f"pair {pid} is {pairs.by_id[pid][0]}, "
                                          f"{pairs.by_id[pid][1]}" if pid in pairs.by_id
                                          else f"those items are pair {by_items}") + ")")
                else:
                    foreign.append(f"line {r.line}: pair_id {pid} ({r.item_1}, {r.item_2})")
                continue
            if pid is None:
                if by_items is None:
                    if r.item_1 == r.item_2 and r.item_1 is not None:
                        if r.verdict == "not_equivalent":
                            conflicts.append(f"line {r.line}: self pair ({r.item_1}, "
                                             f"{r.item_1}) judged not_equivalent")
                        continue
                    foreign.append(f"line {r.line}: items ({r.item_1}, {r.item_2})")
                    continue
                pid = by_items
        elif pid is None:
            missing.append(f"line {r.line}")
            continue
        elif pid not in pairs.by_id:
            foreign.append(f"line {r.line}: pair_id {pid}")
            continue
        if pid in pairs.self_ids:
            if r.verdict == "not_equivalent":
                conflicts.append(f"line {r.line}: self pair {pid} judged not_equivalent "
                                 "(an item is always equivalent to itself)")
            continue
        old = verdicts.get(pid)
        if old is None or old[0] == "unknown":
            verdicts[pid] = (r.verdict, r.line)
        elif r.verdict not in ("unknown", old[0]):
            conflicts.append(f"pair {pid}: line {old[1]} says {old[0]}, "
                             f"line {r.line} says {r.verdict}")
    if carried is not None:
        for sid, got in by_other.items():
            carried[sid]["verdicts"] = sum(v != "unknown" for v in got.values())
            carried[sid]["unknown"] = sum(v == "unknown" for v in got.values())
    if mismatched and not agreed:
        raise InputError(f"{where}: no row's pair_id and item ids match this sample's "
                         "pairs: the file belongs to another sample",
                         examples=[Shown(m) for m in mismatched],
                         hint="Estimate with the sample directory the questions came from.")
    if mismatched:  # the other rows agree: a typo, not another sample
        raise InputError(f"{where}: {len(mismatched)} row(s) whose pair_id and item ids do "
                         "not match this sample's pair of that id (mistyped?)",
                         examples=[Shown(m) for m in mismatched],
                         hint="Correct the pair_id (or the item ids) of these rows as the "
                              "sample's questions file has them.")
    if foreign:
        raise InputError(f"{where}: {len(foreign)} judged pair(s) are not in the sample",
                         examples=[Shown(f) for f in foreign],
                         hint="Judge the pairs of the sample's questions file; is this "
                              "the right sample directory?")
    if missing:
        raise InputError(f"{where}: {len(missing)} row(s) name no pair (no pair_id and no "
                         "item ids)", examples=[Shown(m) for m in missing])
    for sid, got in sorted(by_other.items()):  # carried over: the same rule as own rows
        for pid, word in got.items():
            old = verdicts.get(pid)
            if old is None or old[0] == "unknown":
                verdicts[pid] = (word, 0)
            elif word not in ("unknown", old[0]):
                conflicts.append(f"pair {pid}: line {old[1]} says {old[0]}, sample {sid} "
                                 f"said {word}")
    if conflicts:
        raise InputError(f"{where}: {len(conflicts)} contradictory verdict(s)",
                         column="verdict", examples=[Shown(c) for c in conflicts],
                         hint="Resolve the disagreement (or mark the pair unknown).")
    return {pid: v for pid, (v, _) in verdicts.items()}


def merge_verdicts(sources: Sequence[tuple[str, Mapping[str, str]]]) -> dict[str, str]:
    """The verdicts of several judgement files (``abcde estimate --judgements A
    --judgements B``), by the rule of one file: a known verdict beats "unknown", two
    different known verdicts for one pair are a contradiction.

    Parameters
    ----------
    sources : sequence of (str, mapping)
        (where, pair_id → verdict) per file, as :func:`match_judgements` returns them.

    Returns
    -------
    dict of str to str

    Raises
    ------
    InputError
        Naming the pairs and the files that contradict each other.

    References
    ----------
    docs/method.md §8.1.
    """
    out: dict[str, tuple[str, str]] = {}
    conflicts = []
    for where, verdicts in sources:
        for pid, word in verdicts.items():
            old = out.get(pid)
            if old is None or old[0] == "unknown":
                out[pid] = (word, where)
            elif word not in ("unknown", old[0]):
                conflicts.append(Shown(f"pair {pid}: {old[1]} says {old[0]}, {where} says "
                                       f"{word}"))
    if conflicts:
        raise InputError(f"{len(conflicts)} contradictory verdict(s) between the judgement "
                         "files", column="verdict", examples=conflicts,
                         hint="Resolve the disagreement (or mark the pair unknown).")
    return {pid: word for pid, (word, _) in out.items()}


def judge_pairs(judge: Judge, pairs: SamplePairs) -> dict[str, str]:
    """Ask a callable judge once per non-self pair of the sample.

    Parameters
    ----------
    judge : callable
        (i, j) → 'equivalent' | 'not_equivalent' | 'unknown', True / False / None, or any
        spelling :func:`normalise_verdict` accepts. An ML model or an LLM can be the
        judge.
    pairs : SamplePairs
        The sample's pairs.

    Returns
    -------
    dict of str to str
        pair_id (text) → verdict.

    Raises
    ------
    InputError
        When the judge answers something that is not a verdict.

    References
    ----------
    docs/method.md §8.1. ABCDE App. B (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430).
    """
    out = {}
    for pid, (i, j) in pairs.by_id.items():
        if pid in pairs.self_ids:
            continue
        answer = judge(i, j)
        word = normalise_verdict(answer)
        if word is None:
            raise InputError(f"the judge returned {answer!r} for pair {pid} ({i}, {j}); "
                             f"expected one of {VERDICTS} or True/False/None")
        out[pid] = word
    return out


def read_truth(truth: Any, item_col: str = "item_id",
               cluster_col: str = "cluster_id") -> dict[Any, Any]:
    """item → truth cluster from a mapping, a DataFrame or a CSV/Parquet file.

    Parameters
    ----------
    truth : mapping, DataFrame, Arrow table, str or Path
        The ground truth.
    item_col, cluster_col : str
        Its item and cluster columns (tables and files).

    Returns
    -------
    dict

    Raises
    ------
    InputError
        On a missing file or column, or an item in two clusters.

    References
    ----------
    docs/method.md §8.1 (a ground truth as the judge).
    """
    if isinstance(truth, Mapping):
        return {k: missing_as_none(v) for k, v in truth.items()}
    table = table_columns(truth, "truth")
    if table is not None:
        missing = [c for c in (item_col, cluster_col) if c not in table]
        if missing:
            raise InputError(f"truth lacks columns; it has {list(table)}",
                             column=", ".join(missing))
        # as a truth file is read: a missing cluster (NaN, None, pd.NA) is NULL, i.e. no
        # truth cluster (the item's pairs are unknown, not 'not_equivalent' as NaN != NaN
        # would make them), and an item in two clusters is refused, not overwritten
        frame: dict[Any, Any] = {}
        for item, cluster in zip(table[item_col], table[cluster_col], strict=True):
            if item in frame and frame[item] != cluster:
                raise InputError("truth table: item in two clusters", column=item_col,
                                 examples=[item],
                                 hint="Give each item one truth cluster (or none).")
            frame[item] = cluster
        return frame
    if not isinstance(truth, str | Path):
        raise InputError(f"truth must be a mapping {{item: cluster}}, a DataFrame, an Arrow "
                         f"table or a CSV/Parquet path, not a {type(truth).__name__}",
                         hint="A pandas Series item → cluster: pass series.to_dict().")
    return _read_truth_file(Path(truth), item_col, cluster_col)


def _read_truth_file(path: Path, item_col: str, cluster_col: str) -> dict[Any, Any]:
    """item → truth cluster of a CSV/Parquet file, read as every clustering file is
    (`abcde.inputs.sources`): its format by the suffix (.csv.gz, .pq, ...), the ids and
    clusters of a CSV as text (so that 43.0 and 007 stay what the sample's items are;
    DuckDB's sniffer made 43.0 the number 43, which matched no item), a malformed file
    refused naming its line. A missing cluster (NULL, NaN) is no truth cluster."""
    from abcde.engines import connect
    from abcde.inputs.sources import open_source
    from abcde.sql.quoting import ident

    if not path.exists():
        raise InputError(f"truth file {path} does not exist")
    engine = connect("duckdb")
    try:
        source = open_source(engine, "truth", path, string_columns=(item_col, cluster_col))
        source.require(item_col, "--item-col", "item ids")
        source.require(cluster_col, "--cluster-col", "truth cluster ids")
        rows = engine.fetch(f"SELECT {ident(item_col)} AS i, {ident(cluster_col)} AS c "
                            f"FROM {source.relation}")
    finally:
        engine.close()
    out: dict[Any, Any] = {}
    for row in rows:
        item, cluster = row["i"], missing_as_none(row["c"])
        if item in out and out[item] != cluster:
            raise InputError(f"truth file {path}: item in two clusters",
                             column=item_col, examples=[item],
                             hint="Give each item one truth cluster (or none).")
        out[item] = cluster
    return out


def table_columns(table: Any, where: str) -> dict[str, list[Any]] | None:
    """The columns of an in-memory table (a pandas or polars DataFrame, an Arrow table)
    as lists of Python values, a missing value (NaN, pd.NA, NaT) as None, as a file's
    NULL reads; None when `table` is none of these.

    Parameters
    ----------
    table : Any
        The object given as truth or judgements.
    where : str
        What it is, for messages.

    Returns
    -------
    dict of str to list, or None

    References
    ----------
    docs/method.md §8.1.
    """
    raw = frame_columns(table, where)
    if raw is None:
        return None
    return {c: [missing_as_none(v) for v in values] for c, values in raw.items()}


def truth_judge(truth: Mapping[Any, Any]) -> Judge:
    """A judge from a ground-truth clustering.

    Parameters
    ----------
    truth : mapping
        item → truth cluster (item ids compare as text, :func:`id_text`).

    Returns
    -------
    callable
        (i, j) → 'equivalent' (same cluster), 'not_equivalent' (different) or 'unknown'
        (an item missing from the truth).

    References
    ----------
    docs/method.md §8.1.

    Examples
    --------
    >>> judge = truth_judge({1: "a", 2: "a", 3: "b"})
    >>> judge(1, 2), judge(1, 3), judge(1, 4)
    ('equivalent', 'not_equivalent', 'unknown')
    """
    clusters = {id_text(k): v for k, v in truth.items()}

    def judge(i: Any, j: Any) -> str:
        a, b = clusters.get(id_text(i)), clusters.get(id_text(j))
        if a is None or b is None:
            return "unknown"
        return "equivalent" if a == b else "not_equivalent"

    return judge
