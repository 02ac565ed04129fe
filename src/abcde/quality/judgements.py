"""Verdicts of a pair sample from judgement files, ground truths and judges
(docs/method.md §8.1; ABCDE §5.8, App. B).

A judgement file (CSV or JSONL, typically the sample's filled ``questions.csv``) names a
pair by ``pair_id`` — numbered per sample, so a row keyed by it alone must carry its
``sample_id`` — or by ``item_1``, ``item_2`` in either order (also ``item_i``,
``item_j``), checked against the sample's pairs. Rows of another sample of the same
stream carry their verdicts over by item ids (docs/method.md §7.10). A known verdict
beats "unknown"; two different known verdicts for a pair are a contradiction.
:func:`normalise_verdict` is abcde's one verdict normaliser.
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
SPELLINGS = ("yes/true/1/same, no/false/0/different, blank/?/skip/cant_tell; True/False/None")
SPREADSHEET_HINT = ("Open questions.csv in Excel through Data > From Text/CSV with the id "
                    "columns as Text (or judge questions.jsonl, or with `abcde judge`), then "
                    "save it as CSV UTF-8.")

Judge = Callable[[Any, Any], Any]


def normalise_verdict(value: Any) -> str | None:
    """The verdict a word (:data:`SYNONYMS`; case, spaces and hyphens ignored), a bool, None
    or NaN (unknown) spells, or None when it spells none (docs/method.md §8.1; ABCDE §5.8).

    >>> normalise_verdict("Not equivalent"), normalise_verdict(True), normalise_verdict("")
    ('not_equivalent', 'equivalent', 'unknown')
    >>> normalise_verdict("maybe") is None
    True
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    if isinstance(value, bool):
        return "equivalent" if value else "not_equivalent"
    return SYNONYMS.get(str(value).strip().lower().replace(" ", "_").replace("-", "_"))


def parse_verdict(value: Any, where: str = "verdicts") -> str:
    """:func:`normalise_verdict`, refusing (InputError) a value that spells no verdict."""
    word = normalise_verdict(value)
    if word is None:
        raise InputError(f"{where}: verdict must be one of {VERDICTS} (or {SPELLINGS}), got "
                         f"{value!r}")
    return word


def id_text(value: Any) -> str | None:
    """An id as the text ids are compared by: stripped, an integral float without ".0",
    blank as None (docs/method.md §8.1).

    >>> id_text(17), id_text(17.0), id_text(" 17 "), id_text("")
    ('17', '17', '17', None)
    """
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip() or None


_DECIMAL = re.compile(r"^[0-9]+\.0+$")  # an int column holding a blank, written by pandas
# a long number a spreadsheet rounded to 15 digits (9007199254740993 → 9.00719925474102E+15)
_SCIENTIFIC = re.compile(r"^[+-]?[0-9]+(\.[0-9]+)?[eE][+-]?[0-9]+$")


def _pair_id_text(value: Any) -> str | None:
    """Pair ids are integers: "17.0" and "017" are pair 17."""
    text = id_text(value)
    if text is not None and _DECIMAL.match(text):
        text = text.split(".")[0]
    return str(int(text)) if text is not None and text.isascii() and text.isdigit() else text


@dataclass
class JudgementRow:
    line: int
    pair_id: str | None
    item_1: str | None
    item_2: str | None
    verdict: str
    sample_id: str | None


def read_judgements(path: str | Path) -> list[JudgementRow]:
    """The rows of a CSV or JSONL judgement file, verdicts normalised, with line numbers
    (encodings and delimiters as :func:`abcde.inputs.records.read_records` reads them)."""
    p = Path(path)
    if record_suffix(p) not in (*JSONL_SUFFIXES, *CSV_SUFFIXES):
        raise InputError(f"judgement file {p}: expected .csv or .jsonl (or .csv.gz, .jsonl.gz)")
    read = read_records(p, what="judgement file",
                        expected=[{"verdict", "pair_id"}, *({"verdict", *c} for c in ITEM_COLUMNS)])
    return rows_from_records(read.rows, set(read.columns), read.where)


def rows_from_records(records: Iterable[tuple[int, Mapping[str, Any]]], columns: set[str],
                      where: str) -> list[JudgementRow]:
    """(line, record) pairs as rows: column names stripped of spaces (and the upper case of
    a Snowflake unload undone), the columns and verdict words checked."""
    stripped: dict[str, str] = {}
    for c in map(str, columns):
        if stripped.setdefault(c.strip(), c) != c:
            raise InputError(f"{where}: columns {stripped[c.strip()]!r} and {c!r} are one "
                             "name once spaces are stripped", column=c.strip())
    upper = snowflake_renames(list(stripped), "verdict")
    names = {upper.get(k, k) for k in stripped}
    items = next((pair for pair in ITEM_COLUMNS if set(pair) <= names), None)
    if "verdict" not in names or ("pair_id" not in names and items is None):
        raise InputError(f"{where}: a judgement file needs columns 'verdict' and 'pair_id' or "
                         f"the two item ids 'item_1', 'item_2'; it has {sorted(names)}",
                         hint="Fill the verdict column of the sample's questions.csv (or "
                              "questions.jsonl) and keep its columns.")
    rows, bad = [], []
    for line, raw in records:
        rec = {upper.get(str(k).strip(), str(k).strip()): v for k, v in raw.items()}
        word = normalise_verdict(rec.get("verdict"))
        if word is None:
            bad.append(Shown(f"line {line}: {rec.get('verdict')!r}"))
            continue
        rows.append(JudgementRow(line, _pair_id_text(rec.get("pair_id")),
                                 id_text(rec.get(items[0])) if items else None,
                                 id_text(rec.get(items[1])) if items else None,
                                 word, id_text(rec.get("sample_id"))))
    if bad:
        raise InputError(f"{where}: {len(bad)} unknown verdict word(s); verdicts are "
                         f"{', '.join(VERDICTS)} (blank = unknown)", column="verdict",
                         examples=bad, hint=f"Synonyms accepted: {SPELLINGS}.")
    return rows


@dataclass
class SamplePairs:
    """The sample's unordered pairs: pair_id → (item a, item b) (text keys) and back."""

    by_id: dict[str, tuple[Any, Any]]
    by_items: dict[tuple[str, str], str]
    self_ids: set[str]

    @classmethod
    def from_draws(cls, draws: Sequence[Mapping[str, Any]]) -> SamplePairs:
        by_id: dict[str, tuple[Any, Any]] = {}
        by_items: dict[tuple[str, str], str] = {}
        self_ids = set()
        for r in draws:
            pid = str(id_text(r["pair_id"]))
            by_id.setdefault(pid, (r["item_i"], r["item_j"]))
            by_items[_ordered(id_text(r["item_i"]), id_text(r["item_j"]))] = pid
            if r["pair_class"] == "self":
                self_ids.add(pid)
        return cls(by_id, by_items, self_ids)


def _ordered(a: str | None, b: str | None) -> tuple[str, str]:
    x, y = a or "", b or ""
    return (x, y) if x <= y else (y, x)


# What a judgement file may get wrong, in the order it is reported: (message, hint).
_PROBLEMS = {
    "scientific": ("{n} id(s) are numbers in scientific notation, as a spreadsheet writes "
                   "the long numbers it has rounded (Excel keeps 15 digits): they no longer "
                   "name the sample's items, pairs or sample", SPREADSHEET_HINT),
    "another": ("judged for another sample (this sample is {this})",
                "Estimate with the sample directory the questions came from. (Verdicts carry "
                "over only between samples of one stream: the same inputs, population, seed "
                "and stratification, with another --budget.)"),
    "unbound": ("{n} row(s) name their pair by pair_id alone, without the sample_id of "
                "their questions file (or with another sample's, whose verdicts carry over "
                "by item ids only): pair ids are numbered per sample, so another sample's "
                "file would be applied to the wrong pairs",
                "Keep the sample_id and item columns of the questions file (this sample's "
                "id is {this}), or key the rows by the item ids (item_1, item_2)."),
    "elsewhere": ("no row's pair_id and item ids match this sample's pairs: the file "
                  "belongs to another sample, or a spreadsheet rewrote its ids (00017 as "
                  "17, 17 as 17.0)", "Estimate with the sample directory the questions "
                  "came from. " + SPREADSHEET_HINT),
    "mistyped": ("{n} row(s) whose pair_id and item ids do not match this sample's pair "
                 "of that id (mistyped?)", "Correct the pair_id (or the item ids) of these "
                 "rows as the sample's questions file has them."),
    "foreign": ("{n} judged pair(s) are not in the sample",
                "Judge the pairs of the sample's questions file; is this the right sample "
                "directory? " + SPREADSHEET_HINT),
    "missing": ("{n} row(s) name no pair (no pair_id and no item ids)", None),
    "conflict": ("{n} contradictory verdict(s)",
                 "Resolve the disagreement (or mark the pair unknown)."),
}


def _refuse_problems(problems: Mapping[str, list[str]], where: str, this: str | None) -> None:
    for kind, (message, hint) in _PROBLEMS.items():
        found = problems.get(kind)
        if found:
            fill = {"n": len(found), "this": this or "unknown"}
            raise InputError(f"{where}: {message.format(**fill)}", examples=list(map(
                Shown, found)), hint=hint and hint.format(**fill),
                column="verdict" if kind == "conflict" else "sample_id"
                if kind in ("another", "unbound") else None)


def _merge(into: dict[str, tuple[str, str]], pid: str, word: str, origin: str,
           conflicts: list[str]) -> None:
    """The one rule of several verdicts for a pair: a known one beats "unknown", two
    different known ones are a contradiction."""
    old = into.get(pid)
    if old is None or old[0] == "unknown":
        into[pid] = (word, origin)
    elif word not in ("unknown", old[0]):
        conflicts.append(f"pair {pid}: {old[1]} says {old[0]}, {origin} says {word}")


def match_judgements(rows: Sequence[JudgementRow], pairs: SamplePairs, *,
                     expected_sample_id: str | None, where: str,
                     stream: tuple[str, str, int] | None = None,
                     carried: dict[str, dict[str, int]] | None = None) -> dict[str, str]:
    """pair_id → verdict of the sample's judged non-self pairs from the rows of one source
    (module docstring). Rows whose sample_id names another sample of ``stream`` carry
    their verdicts over by item ids (their pairs the sample lacks are skipped); what
    carried over is counted per sample id in ``carried``: rows, verdicts, unknown,
    not_in_sample. Every problem is refused naming its rows (:data:`_PROBLEMS`)."""
    problems: dict[str, list[str]] = {kind: [] for kind in _PROBLEMS}
    items = {x for key in pairs.by_items for x in key}
    for r in rows:  # numbers a spreadsheet rewrote: named as such, not as "another sample"
        for column, value, known in (("item_1", r.item_1, items), ("item_2", r.item_2, items),
                                     ("pair_id", r.pair_id, pairs.by_id),
                                     ("sample_id", r.sample_id, {expected_sample_id})):
            if value and _SCIENTIFIC.match(value) and value not in known:
                problems["scientific"].append(f"line {r.line}: {column} {value}")
    others = {r.sample_id for r in rows if expected_sample_id is not None and r.sample_id
              and r.sample_id != expected_sample_id}
    related = {sid for sid in others if _related(sid, stream)}
    problems["another"] = [f"sample_id {sid}" for sid in sorted(others - related)]
    own: dict[str, tuple[str, str]] = {}
    by_other: dict[str, dict[str, tuple[str, str]]] = {sid: {} for sid in related}
    conflicts = problems["conflict"]
    agreed = 0  # rows whose pair_id and item ids name the same pair
    for r in rows:
        at = f"line {r.line}"
        by_items = pairs.by_items.get(_ordered(r.item_1, r.item_2))
        named = r.item_1 is not None or r.item_2 is not None
        if r.sample_id in related:
            stats = (carried if carried is not None else {}).setdefault(
                r.sample_id, {"rows": 0, "verdicts": 0, "unknown": 0, "not_in_sample": 0})
            stats["rows"] += 1
            if not named and r.pair_id is not None:
                problems["unbound"].append(f"{at}: pair_id {r.pair_id}")
            elif by_items is None:
                stats["not_in_sample"] += 1
            elif by_items not in pairs.self_ids:
                _merge(by_other[r.sample_id], by_items, r.verdict, f"sample {r.sample_id}",
                       conflicts)
            continue
        pid = r.pair_id
        agreed += named and pid is not None and by_items == pid
        if named and pid is not None and by_items != pid:
            if pid in pairs.by_id or by_items is not None:
                problems["mistyped"].append(
                    f"{at}: pair_id {pid} with items {r.item_1}, {r.item_2} (" + (
                        f"pair {pid} is {pairs.by_id[pid][0]}, {pairs.by_id[pid][1]}"
                        if pid in pairs.by_id else f"those items are pair {by_items}") + ")")
            else:
                problems["foreign"].append(f"{at}: pair_id {pid} ({r.item_1}, {r.item_2})")
            continue
        if named and by_items is None:
            if r.item_1 != r.item_2 or r.item_1 is None:
                problems["foreign"].append(f"{at}: items ({r.item_1}, {r.item_2})")
            elif r.verdict == "not_equivalent":
                conflicts.append(f"{at}: self pair ({r.item_1}, {r.item_1}) judged "
                                 "not_equivalent")
            continue
        pid = by_items if named else pid
        if pid is None:
            problems["missing"].append(at)
        elif not named and r.sample_id is None:
            problems["unbound"].append(f"{at}: pair_id {pid}")
        elif pid not in pairs.by_id:
            problems["foreign"].append(f"{at}: pair_id {pid}")
        elif pid in pairs.self_ids:
            if r.verdict == "not_equivalent":
                conflicts.append(f"{at}: self pair {pid} judged not_equivalent (an item is "
                                 "always equivalent to itself)")
        else:
            _merge(own, pid, r.verdict, at, conflicts)
    for sid, got in sorted(by_other.items()):
        if carried is not None:
            carried[sid]["verdicts"] = sum(v != "unknown" for v, _ in got.values())
            carried[sid]["unknown"] = sum(v == "unknown" for v, _ in got.values())
        for pid, (word, origin) in got.items():
            _merge(own, pid, word, origin, conflicts)
    if not agreed:  # every row of both ids disagrees: not a typo
        problems["elsewhere"], problems["mistyped"] = problems["mistyped"], []
    _refuse_problems(problems, where, expected_sample_id)
    return {pid: v for pid, (v, _) in own.items()}


def _related(sid: str, stream: tuple[str, str, int] | None) -> bool:
    """Whether a sample id names another sample of this sample's stream (same population,
    seed, inputs and stratification: docs/method.md §7.10)."""
    other = parse_sample_id(sid)
    return stream is not None and other is not None and other[0] == stream[0]


def merge_verdicts(sources: Sequence[tuple[str, Mapping[str, str]]]) -> dict[str, str]:
    """The verdicts of several judgement files, (where, pair_id → verdict) each, by the
    rule of one file (:func:`_merge`)."""
    out: dict[str, tuple[str, str]] = {}
    conflicts: list[str] = []
    for where, verdicts in sources:
        for pid, word in verdicts.items():
            _merge(out, pid, word, where, conflicts)
    _refuse_problems({"conflict": conflicts}, "the judgement files", None)
    return {pid: word for pid, (word, _) in out.items()}


def judge_pairs(judge: Judge, pairs: SamplePairs) -> dict[str, str]:
    """A callable judge's verdict (any spelling :func:`normalise_verdict` takes) on each
    non-self pair of the sample (ABCDE App. B: a model or an LLM can judge)."""
    return {pid: parse_verdict(judge(i, j), f"the judge on pair {pid} ({i}, {j})")
            for pid, (i, j) in pairs.by_id.items() if pid not in pairs.self_ids}


def read_truth(truth: Any, item_col: str = "item_id",
               cluster_col: str = "cluster_id") -> dict[Any, Any]:
    """item → truth cluster from a mapping, a DataFrame, an Arrow table or a CSV/Parquet
    file; a missing cluster (NULL, NaN, pd.NA) is no truth cluster, an item in two
    clusters is refused (docs/method.md §8.1)."""
    if isinstance(truth, Mapping):
        return {k: missing_as_none(v) for k, v in truth.items()}
    table = table_columns(truth, "truth")
    if table is None and not isinstance(truth, str | Path):
        raise InputError(f"truth must be a mapping {{item: cluster}}, a DataFrame, an Arrow "
                         f"table or a CSV/Parquet path, not a {type(truth).__name__}",
                         hint="A pandas Series item → cluster: pass series.to_dict().")
    if table is None:
        return _read_truth_file(Path(truth), item_col, cluster_col)
    missing = [c for c in (item_col, cluster_col) if c not in table]
    if missing:
        raise InputError(f"truth lacks columns; it has {list(table)}", column=", ".join(missing))
    return _one_cluster_each(zip(table[item_col], table[cluster_col], strict=True),
                             "truth table", item_col)


def _one_cluster_each(rows: Iterable[tuple[Any, Any]], where: str,
                      item_col: str) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for item, cluster in rows:
        if out.setdefault(item, cluster) != cluster:
            raise InputError(f"{where}: item in two clusters", column=item_col,
                             examples=[item], hint="Give each item one truth cluster (or none).")
    return out


def _read_truth_file(path: Path, item_col: str, cluster_col: str) -> dict[Any, Any]:
    """A truth file read as every clustering file is (`abcde.inputs.sources`): the format by
    its suffix, the ids and clusters of a CSV as text (43.0 and 007 stay what the sample's
    items are)."""
    from abcde.engines import connect
    from abcde.inputs.sources import open_source
    from abcde.sql.quoting import ident

    engine = connect("duckdb")
    try:
        source = open_source(engine, "truth", path, string_columns=(item_col, cluster_col))
        source.require(item_col, "--item-col", "item ids")
        source.require(cluster_col, "--cluster-col", "truth cluster ids")
        rows = engine.fetch(f"SELECT {ident(item_col)} AS i, {ident(cluster_col)} AS c "
                            f"FROM {source.relation}")
    finally:
        engine.close()
    return _one_cluster_each(((r["i"], missing_as_none(r["c"])) for r in rows),
                             f"truth file {path}", item_col)


def table_columns(table: Any, where: str) -> dict[str, list[Any]] | None:
    """The columns of a DataFrame or an Arrow table as lists, a missing value as None (as
    a file's NULL reads); None for anything else."""
    raw = frame_columns(table, where)
    if raw is None:
        return None
    return {c: [missing_as_none(v) for v in values] for c, values in raw.items()}


def truth_judge(truth: Mapping[Any, Any]) -> Judge:
    """A judge from item → truth cluster (ids compare as text): same cluster ⇒
    equivalent, an item the truth lacks ⇒ unknown.

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
