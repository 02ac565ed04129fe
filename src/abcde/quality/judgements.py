"""Judgement files and judges for a pair sample (ABCDE §5.8, App. B; SPEC §8).

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
(`abcde.sampling.manifest.sample_id`, also printed by ``abcde estimate``), and it must
equal this sample's id; without it the file is refused, since another sample's
``pair_id,verdict`` file would otherwise be applied silently to the wrong pairs. Rows
that name the two item ids are checked against the sample's pairs and need no
``sample_id`` (when present it must still match); rows with both the pair id and the
item ids must match the sample's pair. Column names are compared without surrounding
spaces, and a UTF-8 byte-order mark (Excel) is ignored. """

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abcde.errors import InputError, Shown

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
    """'equivalent' | 'not_equivalent' | 'unknown', or None if the word is not one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    if isinstance(value, bool):
        return "equivalent" if value else "not_equivalent"
    text = str(value).strip().lower().replace(" ", "_").replace("-", "_")
    return SYNONYMS.get(text)


@dataclass
class JudgementRow:
    line: int
    pair_id: str | None
    item_1: str | None
    item_2: str | None
    verdict: str
    sample_id: str | None


def id_text(value: Any) -> str | None:
    """Ids compare as text: a CSV gives '17' where the sample has 17 (and a float
    column 17.0); surrounding spaces are dropped, blank is None."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def read_judgements(path: str | Path) -> list[JudgementRow]:
    """Rows of a CSV or JSONL judgement file, verdicts normalised, with line numbers."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"judgement file {p} does not exist")
    if p.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        records = []
        with p.open(encoding="utf-8-sig") as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as err:
                    raise InputError(f"{p}: line {n} is not JSON ({err.msg})") from None
                if not isinstance(obj, dict):
                    raise InputError(f"{p}: line {n} is not a JSON object")
                records.append((n, obj))
        columns: set[str] = set().union(*(r.keys() for _, r in records)) if records else set()
    elif p.suffix.lower() in (".csv", ".tsv", ".txt"):
        with p.open(newline="", encoding="utf-8-sig") as f:  # -sig: Excel's BOM
            reader = csv.DictReader(f, delimiter="\t" if p.suffix.lower() == ".tsv" else ",")
            columns = set(reader.fieldnames or [])
            records = [(reader.line_num, row) for row in reader]
    else:
        raise InputError(f"judgement file {p}: expected .csv or .jsonl")
    return rows_from_records(records, columns, str(p))


def rows_from_records(records: Iterable[tuple[int, Mapping[str, Any]]], columns: set[str],
                      where: str) -> list[JudgementRow]:
    """Validate columns and verdict words of (line, record) pairs.

    Column names are stripped of surrounding spaces (``pair_id, verdict`` is a common
    hand-edited header), both when validated and when looked up in the records.
    """
    stripped: dict[str, str] = {}
    for c in columns:
        name = str(c).strip()
        if name in stripped and stripped[name] != str(c):
            raise InputError(f"{where}: columns {stripped[name]!r} and {str(c)!r} are the "
                             "same name once spaces are stripped", column=name)
        stripped[name] = str(c)
    columns = set(stripped)
    records = [(line, {str(k).strip(): v for k, v in rec.items()}) for line, rec in records]
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
            line, id_text(rec.get("pair_id")),
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


def match_judgements(rows: Sequence[JudgementRow], pairs: SamplePairs, *,
                     expected_sample_id: str | None, where: str) -> dict[str, str]:
    """pair_id → verdict for the sample, with every check of the module docstring."""
    if expected_sample_id is not None:
        other = sorted({r.sample_id for r in rows if r.sample_id and
                        r.sample_id != expected_sample_id})
        if other:
            raise InputError(f"{where} was judged for another sample (sample_id "
                             f"{', '.join(other)}; this sample is {expected_sample_id})",
                             column="sample_id",
                             hint="Estimate with the sample directory the questions came from.")
    unbound = [f"line {r.line}: pair_id {r.pair_id}" for r in rows
               if r.pair_id is not None and r.item_1 is None and r.item_2 is None
               and r.sample_id is None]
    if unbound:
        this = f" (this sample's id is {expected_sample_id})" if expected_sample_id else ""
        raise InputError(
            f"{where}: {len(unbound)} row(s) name their pair by pair_id alone, without a "
            "sample_id. Pair ids are numbered per sample, in draw order, so they only "
            "identify a pair within the sample they came from; a file judged for another "
            "sample would be applied to the wrong pairs.", column="sample_id",
            examples=[Shown(u) for u in unbound],
            hint=f"Keep the sample_id column of the questions file{this}, or key the rows "
                 "by the item ids (item_1, item_2), which are checked against the sample.")
    missing, foreign, mismatched = [], [], []
    verdicts: dict[str, tuple[str, int]] = {}
    conflicts = []
    for r in rows:
        pid = r.pair_id
        if r.item_1 is not None or r.item_2 is not None:
            by_items = pairs.by_items.get(_ordered(r.item_1, r.item_2))
            if pid is not None and by_items != pid:
                if pid in pairs.by_id or by_items is not None:
                    mismatched.append(f"line {r.line}: pair_id {pid} with items "
                                      f"{r.item_1}, {r.item_2}")
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
    if mismatched:
        raise InputError(f"{where}: {len(mismatched)} row(s) whose pair_id and item ids do "
                         "not match this sample — the file belongs to another sample",
                         examples=[Shown(m) for m in mismatched],
                         hint="Estimate with the sample directory the questions came from.")
    if foreign:
        raise InputError(f"{where}: {len(foreign)} judged pair(s) are not in the sample",
                         examples=[Shown(f) for f in foreign],
                         hint="Judge the pairs of the sample's questions file; is this "
                              "the right sample directory?")
    if missing:
        raise InputError(f"{where}: {len(missing)} row(s) name no pair (no pair_id and no "
                         "item ids)", examples=[Shown(m) for m in missing])
    if conflicts:
        raise InputError(f"{where}: {len(conflicts)} contradictory verdict(s)",
                         column="verdict", examples=[Shown(c) for c in conflicts],
                         hint="Resolve the disagreement (or mark the pair unknown).")
    return {pid: v for pid, (v, _) in verdicts.items()}


def judge_pairs(judge: Judge, pairs: SamplePairs) -> dict[str, str]:
    """Ask a callable judge (i, j) → 'equivalent' | 'not_equivalent' | 'unknown'
    (or True / False / None) once per non-self pair of the sample (ABCDE App. B: an ML
    model or an LLM can be the judge)."""
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


def truth_judge(truth: Mapping[Any, Any]) -> Judge:
    """A judge from a ground-truth clustering item → cluster: same cluster ⇒
    equivalent, different ⇒ not_equivalent, an item missing from the truth ⇒ unknown."""
    clusters = {id_text(k): v for k, v in truth.items()}

    def judge(i: Any, j: Any) -> str:
        a, b = clusters.get(id_text(i)), clusters.get(id_text(j))
        if a is None or b is None:
            return "unknown"
        return "equivalent" if a == b else "not_equivalent"

    return judge
