"""Where a sample's files go and how abcde knows them again: the names, the claim of the
output (a sample is replaced only when asked, and only once the new one is complete),
the sha256 digests and the seal of the manifest (docs/method.md §7.9).

A manifest abcde writes carries ``format``: the format version and the sha256 of the
manifest itself (its canonical JSON with ``format.sha256`` left out). A manifest whose
seal does not match was edited, cut short or written by another abcde, and is refused
in one sentence; the files it lists are then trusted through their digests. Format
version 1: every text value of a CSV written for people that a spreadsheet would read
as a formula (it starts with =, +, -, @, a tab or a carriage return), or that starts
with a single quote, starts with one more single quote (OWASP's advice on CSV
injection); `restore` takes exactly that quote off again.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlglot import exp

from abcde.engines.base import categorise
from abcde.errors import InputError
from abcde.inputs.records import load_json
from abcde.outputs import OutputDir, output_dir, output_files

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
LOG_NAME = "verdicts.jsonl"
# a pair sample directory; the verdict log goes too (a log beside a new sample would
# name the old sample's pairs)
SAMPLE_FILES = ("questions.csv", "questions.jsonl", "draws.parquet", "draws.csv",
                MANIFEST, LOG_NAME, "model_questions.jsonl", "model_verdicts.jsonl")
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "'")


def neutralised(value: Any) -> Any:
    """A value as a CSV for people holds it (module docstring)."""
    return f"'{value}" if isinstance(value, str) and value.startswith(_FORMULA) else value


def neutralised_query(relation: str, columns: Sequence[tuple[str, str]]) -> exp.Select:
    """`relation` as a CSV for people holds it: `neutralised` in SQL, on its text
    columns (`columns`: name and engine type)."""
    quote = exp.Literal.string("'")

    def cell(name: str, type_name: str) -> exp.Expression:
        col = exp.column(name, quoted=True)
        if categorise(type_name) != "string":
            return col
        first = exp.Substring(this=col, start=exp.Literal.number(1),
                              length=exp.Literal.number(1))
        return exp.Case().when(first.isin(*map(exp.Literal.string, _FORMULA)),
                               exp.DPipe(this=quote, expression=col)).else_(col)

    return exp.select(*(cell(n, t).as_(n, quoted=True) for n, t in columns)).from_(relation)


def restore(value: Any) -> Any:
    """The value `neutralised` was given."""
    return value[1:] if isinstance(value, str) and value.startswith("'") else value


def digest(path: Path, rows: int) -> dict[str, Any]:
    """What a manifest records of a file: its rows, size and sha256."""
    return {"rows": int(rows), "bytes": path.stat().st_size, "sha256": _sha256(path)}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _seal(manifest: Mapping[str, Any]) -> str:
    body = {**manifest, "format": {"version": manifest["format"]["version"]}}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """`manifest` sealed (module docstring) into `path`, the last file of a sample."""
    text = json.dumps(manifest, indent=2, default=str)
    manifest.clear()
    manifest.update(load_json(text))  # what a reader will see: texts for Paths, ...
    manifest["format"] = {"version": FORMAT_VERSION}
    manifest["format"]["sha256"] = _seal(manifest)
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def not_as_written(path: Path, command: str, why: str = "") -> InputError:
    """The one refusal of a file abcde wrote that is no longer as it wrote it."""
    carry = " (verdicts keyed by item_1,item_2 carry over)" if command == "sample-pairs" else ""
    return InputError(f"{path} is not as `abcde {command}` wrote it{why}",
                      hint=f"Run `abcde {command}` again: the same inputs and seed give the "
                           f"same sample{carry}; or restore the file as it was written.")


def read_manifest(path: Path, command: str) -> dict[str, Any]:
    """A sealed manifest of the current format, else `not_as_written`."""
    try:
        manifest = load_json(path.read_bytes())
        version = manifest["format"]["version"]
        why = (" (it was edited)" if manifest["format"]["sha256"] != _seal(manifest) else
               f" (format {version!r}; this abcde reads format {FORMAT_VERSION})"
               if version != FORMAT_VERSION else "")
    except (OSError, ValueError, TypeError, KeyError):
        why = " (edited, cut short, or written by an earlier abcde)"
    if why:
        raise not_as_written(path, command, why)
    return manifest


def verified(path: Path, manifest: Mapping[str, Any], command: str,
             name: str | None = None) -> Path:
    """`path`, once its sha256 is the one the manifest records for it (or for `name`)."""
    want = manifest.get("digests", {}).get(name or path.name, {}).get("sha256")
    if not path.is_file() or _sha256(path) != want:
        raise not_as_written(path, command, " (it is missing)" if not path.is_file()
                             else " (edited, cut short, or another sample's)")
    return path


def stamp(path: Path) -> tuple[int, ...] | None:
    """What tells a file from its replacement (outputs are renamed into place: a new
    inode); None when it is gone."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _verdicts(questions: Path) -> int:
    try:
        with questions.open(newline="", encoding="utf-8-sig", errors="replace") as f:
            return sum(bool((r.get("verdict") or "").strip()) for r in csv.DictReader(f))
    except (OSError, csv.Error):
        return 0


@contextlib.contextmanager
def sample_output(out: Path | None, overwrite: bool, inputs: Sequence[Path] = (),
                  ) -> Iterator[OutputDir | None]:
    """The directory a pair sample is written to (None without `out`): one that holds a
    sample is refused unless `overwrite`, whose sample files are replaced once the new
    ones are complete (`abcde.outputs.output_dir`; other files are kept)."""
    if out is None:
        yield None
        return
    with output_dir(out, replaces=SAMPLE_FILES, inputs=inputs) as od:
        present = [name for name in SAMPLE_FILES if (out / name).exists()]
        if present and not overwrite:
            judged = _verdicts(out / "questions.csv")
            raise InputError(
                f"--out {out} already holds a sample ({', '.join(present)})"
                + (f" — its questions.csv holds {judged:,} verdict(s)" if judged else ""),
                hint="Choose a new directory (a larger --budget with the same seed extends "
                     "this sample, and `abcde estimate NEW --judgements OLD/questions.csv` "
                     "carries its verdicts over), or pass --overwrite to replace those "
                     "files once the new sample is complete (verdicts in them would then "
                     "be lost).")
        yield od


@contextlib.contextmanager
def file_output(paths: Sequence[Path] | None, overwrite: bool, inputs: Sequence[Path] = (),
                ) -> Iterator[list[Path] | None]:
    """Temporary paths for an item sample and its manifest, renamed over them (the
    manifest last) once both are complete; existing files are refused unless
    `overwrite`. None without paths."""
    if paths is None:
        yield None
        return
    with output_files(*paths, what="the sample", inputs=inputs) as temps:
        present = [str(p) for p in paths if p.exists()]
        if present and not overwrite:
            raise InputError(f"{', '.join(present)} already exist(s)",
                             hint="Choose another --out, or pass --overwrite to replace "
                                  "them once the new sample is complete.")
        yield temps
