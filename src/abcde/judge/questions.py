"""The questions of a pair sample as the judging page shows them (docs/method.md §12.3).

A sample directory (written by ``abcde sample-pairs --out``) holds ``questions.jsonl``
and ``questions.csv``: one row per unordered judgeable pair with ``pair_id``, ``item_1``,
``item_2``, each attribute of both items as ``<name>_1``, ``<name>_2``, and the sample's
``sample_id``. Nothing in them tells how either clustering treats the pair (the class
lives only in ``draws``), so a page built from the questions alone is blind. The JSONL
file is preferred (it keeps numbers and text apart); the CSV is the fallback.

A warehouse sample exported into a directory (docs/warehouse.md, step 4) has the
same questions as its ``pair_questions`` table and its manifest as ``pair_manifest``
(:mod:`abcde.sampling.exported`); both are only read, and the verdicts go to the
directory's ``verdicts.jsonl`` as for any sample.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from abcde.errors import InputError, Shown
from abcde.inputs.records import read_records
from abcde.quality.judgements import id_text
from abcde.sampling.exported import is_exported
from abcde.sampling.manifest import sample_id
from abcde.sampling.pairs import POPULATIONS

SAMPLE_HINT = "Give the directory written by `abcde sample-pairs --out DIR`."


@dataclass(frozen=True)
class Question:
    """One pair to judge: its id, the two item ids and (name, value 1, value 2) for
    every attribute."""

    pair_id: str
    item_1: Any
    item_2: Any
    attributes: tuple[tuple[str, Any, Any], ...]


@dataclass(frozen=True)
class JudgeSample:
    """What a judging server serves: the sample's id and its questions by pair id, in
    the questions file's order."""

    directory: Path
    sample_id: str
    population: str
    questions: dict[str, Question]
    attributes: tuple[str, ...]
    # manifest.json's identity when it was read: `sample-pairs --overwrite` renames a new
    # one over it, and a server still judging the old questions must notice.
    stamp: tuple[int, ...] | None = None
    # the manifest's file in `directory`: pair_manifest.parquet (or .csv, or a directory
    # of part files) for a warehouse sample exported there
    manifest_name: str = "manifest.json"
    notes: tuple[str, ...] = ()  # said as warnings when the server starts

    @property
    def exported(self) -> bool:
        """Whether it is a warehouse sample's exported tables."""
        return self.manifest_name != "manifest.json"

    @property
    def pair_ids(self) -> list[str]:
        return list(self.questions)


def load_questions(directory: str | Path) -> JudgeSample:
    """The questions of a sample directory, checked.

    Parameters
    ----------
    directory : str or Path
        Written by ``abcde sample-pairs --out``: manifest.json and questions.jsonl (or
        questions.csv); or a warehouse sample's tables exported there: pair_manifest,
        pair_sample and pair_questions (.parquet or .csv; docs/warehouse.md).

    Returns
    -------
    JudgeSample
        The sample id, the population, the questions by pair id and the attribute names.

    Raises
    ------
    InputError
        For a directory that is not a pair sample, has no questions or no pair to judge
        (an exported one: lacks pair_questions, or a table ``abcde estimate`` needs),
        whose questions belong to another sample, repeat a pair id or have a pair id . or
        .. or holding a control character (no page can carry it whole), or whose values hold
        half a character (a lone surrogate escape) (exit 2, naming the file and what to
        do).

    References
    ----------
    docs/method.md §7.6 (the questions), §12.3.
    """
    d = Path(directory)
    if not d.is_dir():
        raise InputError(f"{d} is not a directory", hint=SAMPLE_HINT)
    manifest_path = d / "manifest.json"
    if not manifest_path.is_file() and is_exported(d):
        # the tables of a warehouse round, exported (docs/warehouse.md, step 4)
        return _load_exported(d)
    if not manifest_path.is_file():
        raise InputError(f"{d} is not a pair sample: it has no manifest.json", hint=SAMPLE_HINT)
    try:
        stamp = manifest_stamp(manifest_path)
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"{manifest_path} is not readable JSON ({err})",
                         hint=SAMPLE_HINT) from None
    if not isinstance(manifest, dict) or manifest.get("population") not in POPULATIONS:
        raise InputError(f"{manifest_path} is not a pair-sample manifest (no population)",
                         hint=SAMPLE_HINT)
    records, where = _read_records(d)
    return _checked(JudgeSample(d, sample_id(manifest), str(manifest["population"]), {}, (),
                                stamp), records, where)


def _load_exported(d: Path) -> JudgeSample:
    """The questions of a warehouse sample exported into ``d``: its manifest read (and
    checked: valid input, design version, its draws there) as ``abcde estimate`` reads
    it, so a directory the estimate would refuse is refused before anyone judges."""
    from abcde.sampling.exported import exported_manifest, read_exported, read_exported_questions

    _, manifest = read_exported(d)
    records, path = read_exported_questions(d)
    found = exported_manifest(d)
    assert found is not None  # is_exported(d)
    filled = sum(id_text(r.get("verdict")) is not None for _, r in records)
    notes = (f"{path} has {filled:,} verdict(s) filled in by hand, which abcde judge does "
             "not read: the verdicts given here go to verdicts.jsonl, which `abcde estimate "
             f"{d}` then reads instead (pass --judgements FILE to estimate from the filled "
             "file)",) if filled else ()
    rows = [(line, {k: _plain(v) for k, v in r.items()}) for line, r in records]
    return _checked(JudgeSample(d, sample_id(manifest), str(manifest["population"]), {}, (),
                                manifest_stamp(found), found.name, notes), rows, str(path))


def _plain(value: Any) -> Any:
    """A value of an exported table as JSON holds it (a Parquet decimal, date or
    timestamp as the page can print it)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Decimal):
        return float(value)
    return str(value)


def _checked(sample: JudgeSample, records: list[tuple[int, Mapping[str, Any]]],
             where: str) -> JudgeSample:
    """``sample`` with the questions of ``records`` (from ``where``), checked as
    :func:`load_questions` says."""
    sid = sample.sample_id
    if not records:
        raise InputError(f"{where} has no pairs to judge (Base and Exp agree on every "
                         "item, or every sampled pair is a self pair)")
    questions: dict[str, Question] = {}
    attributes = _attribute_names(records[0][1])
    bad, foreign, twice, dots, controls = [], [], [], [], []
    halves = [Shown(f"line {line}: {key if _is_text(key) else ascii(key)}")
              for line, rec in records for key, value in rec.items()
              if not (_is_text(key) and _is_text(value))]
    if halves:
        raise InputError(f"{where}: values holding half a character (a lone UTF-16 "
                         "surrogate escape such as \\ud83d, left by a tool that cut an "
                         "emoji in two): they cannot be shown on a page nor written to the "
                         "verdict log", examples=halves,
                         hint="Fix these values (drop the half character), or draw the "
                              "sample again with `abcde sample-pairs`.")
    for line, rec in records:
        pid = id_text(rec.get("pair_id"))
        if pid is None or rec.get("item_1") is None or rec.get("item_2") is None:
            bad.append(Shown(f"line {line}"))
            continue
        other = id_text(rec.get("sample_id"))
        if other is not None and other != sid:
            foreign.append(Shown(f"line {line}: sample_id {other}"))
            continue
        if pid in questions:
            twice.append(Shown(f"line {line}: pair_id {pid}"))
            continue
        if pid in (".", ".."):
            dots.append(Shown(f"line {line}: pair_id {pid}"))
            continue
        if any(unicodedata.category(c) == "Cc" and c != "\t" for c in pid):
            controls.append(Shown(f"line {line}: pair_id {pid!a}"))
            continue
        questions[pid] = Question(pid, rec["item_1"], rec["item_2"], tuple(
            (name, rec.get(f"{name}_1"), rec.get(f"{name}_2")) for name in attributes))
    if bad:
        raise InputError(f"{where}: {len(bad)} row(s) without pair_id, item_1 or item_2",
                         examples=bad, hint=SAMPLE_HINT)
    if foreign:
        raise InputError(f"{where} belongs to another sample (this manifest's sample_id "
                         f"is {sid})", column="sample_id", examples=foreign,
                         hint="Keep the questions and the manifest of one sample together.")
    if twice:
        raise InputError(f"{where}: pair ids given twice", column="pair_id", examples=twice)
    if dots:  # a browser resolves /pair/.. to / (which sent it back: a redirect loop)
        raise InputError(f"{where}: a pair id . or .. cannot be the address of its page "
                         "(a browser reads it as the folder itself or the one above)",
                         column="pair_id", examples=dots,
                         hint="Rename these pairs (e.g. p. and p..) in the questions file.")
    if controls:  # /pair/a%0Ab matched no route (404); a form sends \n as \r\n, NUL as U+FFFD
        raise InputError(f"{where}: pair ids holding a control character (a line break, "
                         "NUL): a page cannot carry them whole to the server",
                         column="pair_id", examples=controls,
                         hint="Rename these pairs in the questions file, without control "
                              "characters.")
    return replace(sample, questions=questions, attributes=tuple(attributes))


def _is_text(value: Any) -> bool:
    """Whether a JSON value encodes as UTF-8: JSON's escapes can spell half a character
    (a lone surrogate), which no page or UTF-8 file can hold."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def manifest_stamp(path: Path) -> tuple[int, ...]:
    """What tells one manifest.json file from its replacement (outputs are renamed into
    place, so a new sample is a new inode).

    Parameters
    ----------
    path : Path
        The sample's manifest.json.

    Returns
    -------
    tuple of int
        Its device, inode, size and modification time (ns).

    References
    ----------
    docs/method.md §12.2.
    """
    st = path.stat()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _read_records(d: Path) -> tuple[list[tuple[int, Mapping[str, Any]]], str]:
    """The question rows of questions.jsonl, else questions.csv (blank CSV values are
    None), read by the one reader of record files."""
    for name in ("questions.jsonl", "questions.csv"):
        path = d / name
        if path.is_file():
            records = read_records(path, what="questions file")
            rows = records.rows if records.jsonl else [
                (line, {k: (v if v != "" else None) for k, v in row.items()})
                for line, row in records.rows]
            return rows, str(path)
    raise InputError(f"{d} has no questions.jsonl or questions.csv", hint=SAMPLE_HINT)


def _attribute_names(record: Mapping[str, Any]) -> list[str]:
    """Attribute names in file order: every ``<name>_1`` with a ``<name>_2`` beside it
    (the item ids are shown apart)."""
    keys = [str(k) for k in record]
    return [k[:-2] for k in keys if k.endswith("_1") and k != "item_1"
            and f"{k[:-2]}_2" in record]


def resolve_columns(sample: JudgeSample, names: Sequence[str], option: str) -> tuple[str, ...]:
    """Attribute names given to ``--image-col``/``--link-col``, checked.

    Parameters
    ----------
    sample : JudgeSample
        The sample.
    names : sequence of str
        As given: repeated options, or comma-separated; the ``attr_`` prefix the sample
        adds to a clashing name is optional.
    option : str
        The option's name, for the message.

    Returns
    -------
    tuple of str
        The attribute names as the questions spell them, without repeats.

    Raises
    ------
    InputError
        For a name the questions do not have (listing those they have).

    References
    ----------
    docs/method.md §12.3.
    """
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
