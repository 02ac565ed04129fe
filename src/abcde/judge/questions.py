"""The questions of a pair sample as the judging page shows them (docs/method.md §12.3):
per judgeable pair its id, the two item ids and each attribute of both items; nothing
tells how either clustering treats the pair, so the page is blind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from abcde.errors import InputError, Shown
from abcde.quality.judgements import id_text
from abcde.sample_files.exported import (
    exported_manifest,
    is_exported,
    read_exported,
    read_exported_questions,
)
from abcde.sample_files.layout import MANIFEST, stamp
from abcde.sample_files.manifest import sample_id
from abcde.sample_files.pairs import read_pair_manifest, read_questions

SAMPLE_HINT = "Give the directory written by `abcde sample-pairs --out DIR`."


@dataclass(frozen=True)
class Question:
    """One pair to judge; ``attributes``: (name, value 1, value 2)."""

    pair_id: str
    item_1: Any
    item_2: Any
    attributes: tuple[tuple[str, Any, Any], ...]


@dataclass(frozen=True)
class JudgeSample:
    """What a judging server serves: the questions by pair id, in file order; `stamp`
    tells the manifest from a replacement (`sample-pairs --overwrite`)."""

    directory: Path
    sample_id: str
    population: str
    questions: dict[str, Question]
    attributes: tuple[str, ...]
    stamp: tuple[int, ...] | None = None
    manifest_name: str = MANIFEST
    notes: tuple[str, ...] = ()  # said as warnings when the server starts

    @property
    def exported(self) -> bool:
        return self.manifest_name != MANIFEST

    @property
    def pair_ids(self) -> list[str]:
        return list(self.questions)


def load_questions(directory: str | Path) -> JudgeSample:
    """The questions of a directory of ``abcde sample-pairs --out``, or of a warehouse
    sample's exported pair_manifest, pair_sample and pair_questions (docs/method.md §7.6,
    §12.3)."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError(f"{d} is not a directory", hint=SAMPLE_HINT)
    if not (d / MANIFEST).is_file() and is_exported(d):
        return _load_exported(d)
    if not (d / MANIFEST).is_file():
        raise InputError(f"{d} is not a pair sample: it has no {MANIFEST}", hint=SAMPLE_HINT)
    when = stamp(d / MANIFEST)
    manifest = read_pair_manifest(d)
    return _sample(JudgeSample(d, sample_id(manifest), manifest["population"], {}, (), when),
                   read_questions(d, manifest), str(d / "questions.jsonl"))


def _load_exported(d: Path) -> JudgeSample:
    """A warehouse sample's questions; its manifest read as ``abcde estimate`` reads it,
    so a directory the estimate would refuse is refused before anyone judges."""
    _, manifest = read_exported(d)
    rows, path = read_exported_questions(d)
    found = exported_manifest(d)
    assert found is not None  # is_exported(d)
    sid = sample_id(manifest)
    if rows and not {"pair_id", "item_1", "item_2"} <= set(rows[0]):
        raise InputError(f"{path} is not the pair_questions table of the script (it lacks "
                         "pair_id, item_1 or item_2)", hint=SAMPLE_HINT)
    foreign = [Shown(f"row {k}: sample_id {r['sample_id']}") for k, r in enumerate(rows, 1)
               if id_text(r.get("sample_id")) not in (None, sid)]
    if foreign:  # verdicts on them would go to this sample's pairs of the same ids
        raise InputError(f"{path} belongs to another sample (this manifest's sample_id is "
                         f"{sid})", column="sample_id", examples=foreign,
                         hint="Export the pair_manifest and pair_questions of one run.")
    filled = sum(id_text(r.get("verdict")) is not None for r in rows)
    notes = (f"{path} has {filled:,} verdict(s) filled in by hand, which abcde judge does "
             "not read: the verdicts given here go to verdicts.jsonl, which `abcde estimate "
             f"{d}` then reads instead (pass --judgements FILE to estimate from the filled "
             "file)",) if filled else ()
    return _sample(JudgeSample(d, sid, str(manifest["population"]), {}, (), stamp(found),
                               found.name, notes),
                   [{k: _plain(v) for k, v in r.items()} for r in rows], str(path))


def _plain(value: Any) -> Any:
    """A value of an exported table as the page prints it (a decimal, a date)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return float(value) if isinstance(value, Decimal) else str(value)


def _sample(sample: JudgeSample, rows: list[Mapping[str, Any]], where: str) -> JudgeSample:
    """`sample` with the questions of `rows` (attributes: ``<name>_1`` with a ``<name>_2``)."""
    if not rows:
        raise InputError(f"{where} has no pairs to judge (Base and Exp agree on every "
                         "item, or every sampled pair is a self pair)")
    keys = [str(k) for k in rows[0]]
    names = tuple(k[:-2] for k in keys if k.endswith("_1") and k != "item_1"
                  and f"{k[:-2]}_2" in keys)
    questions = {}
    for r in rows:
        pid = str(id_text(r["pair_id"]))
        questions[pid] = Question(pid, r["item_1"], r["item_2"], tuple(
            (n, r.get(f"{n}_1"), r.get(f"{n}_2")) for n in names))
    return JudgeSample(sample.directory, sample.sample_id, sample.population, questions,
                       names, sample.stamp, sample.manifest_name, sample.notes)


def resolve_columns(sample: JudgeSample, names: Sequence[str], option: str) -> tuple[str, ...]:
    """``--image-col``/``--link-col`` names (repeated or comma-separated, ``attr_``
    optional) as the questions spell them."""
    out = []
    for given in names:
        for name in (n.strip() for n in given.split(",")):
            if not name:
                continue
            found = next((a for a in (name, f"attr_{name}") if a in sample.attributes), None)
            if found is None:
                shown = ", ".join(sample.attributes) or "none"
                raise InputError(f"{option} {name}: the questions have no attribute "
                                 f"{name!r} (attributes: {shown})",
                                 hint="Name an attribute column of the sample, without "
                                      "the _1/_2 suffix.")
            out.append(found)
    return tuple(dict.fromkeys(out))
