"""Small local files of records, read in Python: judgement files (docs/method.md §8.1) and
per-case score files (§9.1). CSV with a header line (tab-separated for .tsv) or JSONL
(one JSON object a line); every problem is named by file and line. Large inputs —
clusterings, weights, attributes — are read by the engine instead (`abcde.inputs.sources`).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abcde.errors import InputError

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
CSV_SUFFIXES = (".csv", ".tsv", ".txt")


@dataclass(frozen=True)
class Records:
    """What a record file holds: its columns (the CSV header, or the keys of the JSONL
    objects in the order first seen) and its rows with their line numbers (blank lines
    skipped)."""

    path: Path
    columns: list[str]
    rows: list[tuple[int, dict[str, Any]]]
    jsonl: bool


def is_jsonl(path: str | Path) -> bool:
    """Whether a file is read as JSONL (by its suffix); anything else is CSV."""
    return Path(path).suffix.lower() in JSONL_SUFFIXES


def read_records(path: str | Path, *, what: str = "file") -> Records:
    """Read a CSV or JSONL file of records.

    Parameters
    ----------
    path
        The file: `.jsonl`, `.ndjson` or `.json` is one JSON object a line; anything else
        is CSV with a header (tab-separated for `.tsv`). UTF-8, with or without the
        byte-order mark spreadsheets write.
    what
        How messages name the file ("judgement file", "score file").

    Returns
    -------
    Records
        Header names are stripped of surrounding spaces; CSV values are strings as
        written, JSONL values as parsed.

    Raises
    ------
    InputError
        Naming the file (and the line): missing, a directory, unreadable, not UTF-8, no
        header, a CSV row with more or fewer fields than the header, a line that is not
        a JSON object.
    """
    p = Path(path)
    try:
        return _read_jsonl(p, what) if is_jsonl(p) else _read_csv(p, what)
    except FileNotFoundError:
        raise InputError(f"{what} {p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{what} {p} is a directory, not a file") from None
    except UnicodeDecodeError as err:
        raise InputError(
            f"{what} {p}: not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset "
            f"{err.start})", hint="Save the file as UTF-8.") from None
    except OSError as err:
        raise InputError(f"{what} {p}: cannot be read ({err.strerror or err})") from None


def _read_csv(path: Path, what: str) -> Records:
    with path.open(newline="", encoding="utf-8-sig") as fh:  # -sig: a spreadsheet's BOM
        reader = csv.reader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
        header = next(reader, None)
        if not header:
            raise InputError(f"{what} {path}: empty file, expected a header line")
        columns = [h.strip() for h in header]
        rows: list[tuple[int, dict[str, Any]]] = []
        for fields in reader:
            line = reader.line_num
            if not any(f.strip() for f in fields):
                continue  # a blank line
            if len(fields) != len(columns):
                extra = fields[len(columns):]
                detail = (f" (extra value(s) {', '.join(repr(v) for v in extra[:3])}); quote "
                          "values that contain commas" if extra else "")
                count = f"{len(fields)} fields" if extra else f"{len(fields)} field(s)"
                raise InputError(f"{what} {path}, line {line}: {count}, but the header has "
                                 f"{len(columns)}{detail}")
            rows.append((line, dict(zip(columns, fields, strict=True))))
    return Records(path, columns, rows, jsonl=False)


def _read_jsonl(path: Path, what: str) -> Records:
    columns: dict[str, None] = {}
    rows: list[tuple[int, dict[str, Any]]] = []
    with path.open(encoding="utf-8-sig") as fh:
        for line, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as err:
                raise InputError(f"{what} {path}, line {line}: invalid JSON ({err.msg})") \
                    from None
            if not isinstance(record, dict):
                raise InputError(f"{what} {path}, line {line}: expected a JSON object")
            columns.update(dict.fromkeys(record))
            rows.append((line, record))
    return Records(path, list(columns), rows, jsonl=True)
