"""Small local files of records, read in Python: judgement files (docs/method.md §8.1) and
per-case score files (§9.1). CSV with a header line or JSONL (one JSON object a line),
as spreadsheets and editors save them: UTF-8 with or without a byte-order mark, UTF-16
(Excel's "Unicode text"), Windows-1252 (Excel in Western Europe), each also
gzip-compressed (x.csv.gz, as clusterings may be); the CSV delimiter , ; tab or | is
sniffed from the header (European Excel writes ;). Every problem is
named by file and line. Large inputs — clusterings, weights, attributes — are read by
the engine instead (`abcde.inputs.sources`).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abcde.engines.files import single_quote_hint
from abcde.errors import InputError

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
DELIMITERS = (",", ";", "\t", "|")
UTF8 = ("utf-8", "utf-8-sig")


MAX_JSON_BYTES = 1 << 28


def load_json(data: bytes | str) -> Any:
    """`json.loads` for a document a user may hand abcde (a manifest, a saved result, a
    line of a JSONL file), bounded: one larger than MAX_JSON_BYTES or nested deeper
    than Python's recursion allows is a `json.JSONDecodeError` (a ValueError), as
    malformed JSON is, never a RecursionError. Bytes are decoded as JSON allows (UTF-8
    with or without a byte-order mark, UTF-16, UTF-32: `json.detect_encoding`)."""
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
    """What a record file holds: its columns (the CSV header, or the keys of the JSONL
    objects in the order first seen) and its rows with their line numbers (blank lines
    skipped). `where` names the file in messages, with the encoding when it was not
    UTF-8."""

    path: Path
    columns: list[str]
    rows: list[tuple[int, dict[str, Any]]]
    jsonl: bool
    encoding: str = "utf-8"
    delimiter: str = ","

    @property
    def where(self) -> str:
        """The file's name for messages ("x.csv (read as cp1252)")."""
        return _where(self.path, self.encoding)


def _where(path: Path, encoding: str) -> str:
    return str(path) if encoding in UTF8 else f"{path} (read as {encoding})"


def record_suffix(path: str | Path) -> str:
    """The suffix that tells a record file's format, after a compression's (.csv of
    x.csv.gz), lower case."""
    p = Path(path)
    if p.suffix.lower() == ".gz":
        p = p.with_suffix("")
    return p.suffix.lower()


def is_jsonl(path: str | Path) -> bool:
    """Whether a file is read as JSONL (by its suffix); anything else is CSV."""
    return record_suffix(path) in JSONL_SUFFIXES


def decode_text(path: Path, what: str = "file") -> tuple[str, str]:
    """The text of a small file saved by whatever program, and the encoding it was read
    with: a byte-order mark says UTF-8 or UTF-16/32 (Excel's "Unicode text"); UTF-16
    without one is told by its zero bytes; other text is UTF-8 if it decodes, else
    Windows-1252 (Excel and Windows editors in Western Europe). gzip is decompressed; a
    workbook saved under a .csv name, zstd and other binary files are refused, naming
    the file (docs/method.md §8.1)."""
    data = path.read_bytes()
    if data.startswith(b"\x1f\x8b"):  # gzip: its bytes would read as binary ("zero bytes")
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise InputError(f"{what} {path} is gzip-compressed but cannot be decompressed "
                             f"({err})", hint="Check the file (gzip -t).") from None
    elif data.startswith(b"\x28\xb5\x2f\xfd"):
        raise InputError(f"{what} {path} is zstd-compressed", hint=f"Decompress it first "
                         f"(zstd -d {path}), or compress it with gzip instead.")
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        raise InputError(f"{what} {path} is a spreadsheet workbook (Excel .xlsx/.xls), "
                         "not a CSV file", hint="In Excel, save it with File > Save As > "
                         "CSV UTF-8 (comma delimited).")
    boms = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"),
            (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
    encoding = next((enc for bom, enc in boms if data.startswith(bom)), "")
    if not encoding:
        encoding = "utf-8"
        head = data[:4096]
        if head and b"\x00" in head:
            evens, odds = head[0::2].count(0), head[1::2].count(0)
            if odds > len(head) // 4 and evens <= odds // 8:
                encoding = "utf-16-le"
            elif evens > len(head) // 4 and odds <= evens // 8:
                encoding = "utf-16-be"
            else:
                raise InputError(f"{what} {path} is not a text file (it holds zero bytes)",
                                 hint="Give a CSV or JSONL file.")
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as err:
        if encoding != "utf-8":
            raise InputError(f"{what} {path} starts like {encoding} text but byte "
                             f"{err.start} is not", hint="Save it again as CSV UTF-8.") from None
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def sniff_delimiter(header: str, expected: Sequence[Collection[str]] = (),
                    default: str = ",") -> str:
    """The delimiter of a CSV header line: the first of , ; tab | that splits it into one
    of the `expected` column sets, else the one it holds most of, else `default`.

    >>> sniff_delimiter("pair_id;verdict", [{"pair_id", "verdict"}]), sniff_delimiter("a,b")
    (';', ',')
    """
    for d in DELIMITERS:
        try:
            fields = {f.strip() for f in next(csv.reader([header], delimiter=d), [])}
        except csv.Error:  # e.g. a quote never closed: _parse_csv says where
            continue
        if any(set(want) <= fields for want in expected):
            return d
    best = max(DELIMITERS, key=lambda d: (header.count(d), d == default))
    return best if header.count(best) else default


def read_records(path: str | Path, *, what: str = "file",
                 expected: Sequence[Collection[str]] = ()) -> Records:
    """The records of a CSV or JSONL file (`.jsonl`, `.ndjson`, `.json`: one JSON object
    a line; else CSV with a header, tab-separated for `.tsv`, else the delimiter sniffed
    by `expected`), decoded as `decode_text` tells; header names stripped, CSV values as
    written, JSONL values as parsed. Every problem is an InputError naming the file `what`
    and the line."""
    p = Path(path)
    try:
        text, encoding = decode_text(p, what)
    except FileNotFoundError:
        raise InputError(f"{what} {p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{what} {p} is a directory, not a file") from None
    except OSError as err:
        raise InputError(f"{what} {p}: cannot be read ({err.strerror or err})") from None
    where = _where(p, encoding)
    text = text.removeprefix("\ufeff")
    if is_jsonl(p):
        columns, rows = _parse_jsonl(text, what, where)
        return Records(p, columns, rows, jsonl=True, encoding=encoding)
    first = re.split(r"\r\n?|\n", text, maxsplit=1)[0]  # CR alone ends a line (old Mac CSV)
    delimiter = "\t" if record_suffix(p) == ".tsv" else sniff_delimiter(first, expected)
    columns, rows = _parse_csv(text, delimiter, what, where)
    return Records(p, columns, rows, jsonl=False, encoding=encoding, delimiter=delimiter)


def _parse_csv(text: str, delimiter: str, what: str, where: str
               ) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if not header:
            raise InputError(f"{what} {where}: empty file, expected a header line")
        columns = [h.strip() for h in header]
        twice = sorted({c for c in columns if columns.count(c) > 1})
        if twice:
            raise InputError(f"{what} {where}: column(s) {', '.join(map(repr, twice))} appear "
                             "more than once in the header (spaces around names are ignored)")
        rows: list[tuple[int, dict[str, Any]]] = []
        for fields in reader:
            line = reader.line_num
            if not any(f.strip() for f in fields):
                continue  # a blank line
            if len(fields) != len(columns):
                extra = fields[len(columns):]
                detail = (f" (extra value(s) {', '.join(repr(v) for v in extra[:3])}); quote "
                          f"values that contain the delimiter {delimiter!r}" if extra else "")
                count = f"{len(fields)} fields" if extra else f"{len(fields)} field(s)"
                # the header's or this line's fields opening with ': quoted with ' (the
                # line's raw text is not kept by csv.reader: its fields, joined, stand in)
                hint = single_quote_hint(delimiter.join(header), delimiter.join(fields)) \
                    if extra else None
                raise InputError(f"{what} {where}, line {line}: {count}, but the header has "
                                 f"{len(columns)}{detail}", hint=hint)
            rows.append((line, dict(zip(columns, fields, strict=True))))
    except csv.Error as err:
        raise InputError(f"{what} {where}, line {reader.line_num}: not valid CSV ({err})",
                         hint="Save the file again as CSV UTF-8.") from None
    return columns, rows


def _parse_jsonl(text: str, what: str, where: str
                 ) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    columns: dict[str, None] = {}
    rows: list[tuple[int, dict[str, Any]]] = []
    if text.lstrip().startswith("["):
        # json.dump(records) or df.to_json(orient="records"): one array, not a line per
        # object; its first line failed as "invalid JSON" or "expected a JSON object"
        try:
            whole = load_json(text)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, list):
            raise InputError(f"{what} {where} holds one JSON array, not one JSON object a "
                             "line (JSONL)", hint="Write one object a line: pandas "
                             "df.to_json(path, orient='records', lines=True), or "
                             "jq -c '.[]' file.json > file.jsonl; or give a CSV file.")
    for line, chunk in enumerate(text.split("\n"), start=1):  # not at U+2028 (JSON allows it)
        if not chunk.strip():
            continue
        try:
            record = load_json(chunk)
        except json.JSONDecodeError as err:
            raise InputError(f"{what} {where}, line {line}: invalid JSON ({err.msg})",
                             hint="A JSONL file holds one JSON object a line.") from None
        if not isinstance(record, dict):
            raise InputError(f"{what} {where}, line {line}: expected a JSON object")
        columns.update(dict.fromkeys(record))
        rows.append((line, record))
    return list(columns), rows
