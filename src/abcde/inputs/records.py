"""Small files of records the user gives (judgement files, docs/method.md §8.1; per-case
score files, §9.1): CSV with a header, read by DuckDB as the engines read inputs, or
JSONL. Decoded here as spreadsheets save them (UTF-8 with or without a byte-order mark,
UTF-16, Windows-1252; gzip), every problem named by file and line.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import shutil
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from abcde.engines.files import csv_problem, private_dir, utf16
from abcde.errors import InputError
from abcde.sql.quoting import literal

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
MAX_JSON_BYTES = 1 << 28
_BREAK = re.compile(r"\r\n|\r|\n")


def load_json(data: bytes | str) -> Any:
    """`json.loads` of a document a user hands abcde, bounded: larger than MAX_JSON_BYTES
    or nested too deeply is a `json.JSONDecodeError`, never a RecursionError. Bytes are
    decoded as JSON allows (`json.detect_encoding`)."""
    if len(data) > MAX_JSON_BYTES:
        raise json.JSONDecodeError(f"larger than {MAX_JSON_BYTES >> 20} MiB", "", 0)
    if isinstance(data, bytes):
        data = data.decode(json.detect_encoding(data))
    try:
        return json.loads(data)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", "", 0) from None


@dataclass(frozen=True)
class Records:
    """A file's columns and its rows with their line numbers; `where` names the file in
    messages (with the encoding when it was not UTF-8)."""

    columns: list[str]
    rows: list[tuple[int, dict[str, Any]]]
    where: str
    jsonl: bool
    delimiter: str = ","


def record_suffix(path: str | Path) -> str:
    """The suffix telling a record file's format (.csv of x.csv.gz), lower case."""
    p = Path(path)
    return (p.with_suffix("") if p.suffix.lower() == ".gz" else p).suffix.lower()


def _decoded(path: Path, what: str) -> tuple[str, str]:
    """The text of a file and its encoding: a byte-order mark or UTF-16's zero bytes say
    which, else UTF-8 if it decodes, else Windows-1252."""
    try:
        data = path.read_bytes()
        if data.startswith(b"\x1f\x8b"):
            data = gzip.decompress(data)
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise InputError(f"{what} {path} is gzip-compressed but cannot be decompressed "
                         f"({err})", hint="Check the file (gzip -t).") from None
    except OSError as err:
        raise InputError(f"{what} {path}: " + ("no such file" if isinstance(
            err, FileNotFoundError) else "is a directory, not a file" if isinstance(
            err, IsADirectoryError) else f"cannot be read ({err.strerror or err})")) from None
    kind = ("is zstd-compressed" if data.startswith(b"\x28\xb5\x2f\xfd") else
            "is a spreadsheet workbook (Excel .xlsx/.xls), not a CSV file"
            if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")) else None)
    if kind:
        raise InputError(f"{what} {path} {kind}", hint="Save it as CSV UTF-8 (or gzip it).")
    boms = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"),
            (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
    encoding = next((e for bom, e in boms if data.startswith(bom)), None) or (
        utf16(data[:4096]) or "utf-8").lower()
    if encoding == "utf-8" and b"\x00" in data[:4096]:
        raise InputError(f"{what} {path} is not a text file (it holds zero bytes)",
                         hint="Give a CSV or JSONL file.")
    codec = encoding
    if encoding == "utf-8":
        with contextlib.suppress(UnicodeDecodeError):
            return data.decode(codec).removeprefix("\ufeff"), codec
        codec = "cp1252"
    try:
        return data.decode(codec).removeprefix("\ufeff"), codec
    except UnicodeDecodeError as err:
        raise InputError(f"{what} {path} starts like {codec} text but byte {err.start} is "
                         "not", hint="Save it again as CSV UTF-8.") from None


def read_records(path: str | Path, *, what: str = "file",
                 expected: Sequence[Collection[str]] = ()) -> Records:
    """The records of a CSV file (tab-separated for .tsv, else the first of , ; tab |
    splitting the header into an `expected` column set, else the most frequent) or of a
    JSONL file (.jsonl, .ndjson, .json): header names stripped, CSV values as written,
    JSONL values as parsed, blank lines skipped."""
    p = Path(path)
    text, encoding = _decoded(p, what)
    where = f"{p}" + ("" if encoding.startswith("utf-8") else f" (read as {encoding})")
    if record_suffix(p) in JSONL_SUFFIXES:
        return Records(*_jsonl(text, f"{what} {where}"), where=where, jsonl=True)
    header = next((line for line in _BREAK.split(text) if line), "")
    delim = "\t" if record_suffix(p) == ".tsv" else next(
        (d for d in ",;\t|" if any(set(want) <= {f.strip().strip('"') for f in
                                                header.split(d)} for want in expected)),
        max(",;\t|", key=lambda d: (header.count(d), d == ",")))
    rows = _csv_rows(text, delim, header.count(delim) + 1, f"{what} {where}")
    if not rows:
        raise InputError(f"{what} {where}: empty file, expected a header line")
    columns = [c.strip() for c in rows[0][1]]
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if twice:
        raise InputError(f"{what} {where}: column(s) {', '.join(map(repr, twice))} appear "
                         "more than once in the header (spaces around names are ignored)")
    return Records(columns, [(n, dict(zip(columns, values, strict=True)))
                             for n, values in rows[1:] if any(v.strip() for v in values)],
                   where, jsonl=False, delimiter=delim)


def _csv_rows(text: str, delim: str, width: int, where: str
              ) -> list[tuple[int, list[str]]]:
    """DuckDB's rows of a CSV text of `width` fields, in order, each with the file line
    it starts on (DuckDB skips empty lines; a quoted line break spans lines)."""
    tmp = private_dir("records")
    con = duckdb.connect(":memory:")
    try:
        (tmp / "r.csv").write_text(text, encoding="utf-8", newline="")
        columns = ", ".join(f"'c{k}': 'VARCHAR'" for k in range(width))
        rows = con.execute(
            f"SELECT * FROM read_csv({literal(str(tmp / 'r.csv'))}, header = false, "
            f"auto_detect = false, delim = {literal(delim)}, quote = '\"', escape = '\"', "
            f"columns = {{{columns}}})").fetchall()
    except duckdb.Error as err:
        problem = csv_problem(str(err))
        fields = re.search(r"Expected Number of Columns: \d+ Found: (\d+)", str(err))
        if problem is not None and problem.line == 1 and fields:  # a quoted delimiter
            return _csv_rows(text, delim, int(fields[1]), where)
        # DuckDB counts a record spanning lines (a quoted line break) as one
        n = problem.line if problem else 0
        unit = "row" if any(line.count('"') % 2 for line in _BREAK.split(text)[:n - 1]) \
            else "line"
        reason = problem.reason if problem else str(err).strip().splitlines()[0]
        raise InputError(f"{where}, {unit} {n}: {reason}",
                         hint=problem.hint if problem else None) from None
    finally:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
    lines, at, out = _BREAK.split(text), 0, []
    for row in rows:
        values = ["" if v is None else v for v in row]
        while at < len(lines) and not lines[at]:
            at += 1
        out.append((at + 1, values))
        at += 1 + sum(len(_BREAK.findall(v)) for v in values)
    return out


def _jsonl(text: str, where: str) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    columns: dict[str, None] = {}
    rows: list[tuple[int, dict[str, Any]]] = []
    if text.lstrip().startswith("["):  # json.dump(records): one array, not JSONL
        try:
            whole = load_json(text)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, list):
            raise InputError(f"{where} holds one JSON array, not one JSON object a line "
                             "(JSONL)", hint="Write one object a line: pandas df.to_json("
                             "path, orient='records', lines=True), or jq -c '.[]' file.json "
                             "> file.jsonl; or give a CSV file.")
    for line, chunk in enumerate(text.split("\n"), start=1):  # not at U+2028 (JSON allows it)
        if not chunk.strip():
            continue
        try:
            record = load_json(chunk)
        except json.JSONDecodeError as err:
            raise InputError(f"{where}, line {line}: invalid JSON ({err.msg})",
                             hint="A JSONL file holds one JSON object a line.") from None
        if not isinstance(record, dict):
            raise InputError(f"{where}, line {line}: expected a JSON object")
        columns.update(dict.fromkeys(record))
        rows.append((line, record))
    return list(columns), rows
