"""Files read and written through an in-process DuckDB, for engines whose server cannot
see the caller's files (PostgreSQL) or would write a directory of parts (Spark)."""

from __future__ import annotations

import contextlib
import csv
import gzip
import re
import secrets
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import duckdb

from abcde.engines.base import categorise, select_all, sql_type_of
from abcde.errors import EngineError
from abcde.sql.quoting import ident, literal

FILE_FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".parquet": "parquet",
                ".pq": "parquet", ".parq": "parquet"}
# compressions DuckDB reads a CSV through, told by the last suffix (x.csv.gz)
CSV_COMPRESSIONS = (".gz", ".zst")

#: The delimiters DuckDB's sniffer chooses from (its error "Delimiter Candidates").
DELIMITERS = ",\t;|"


def file_format(path: Path) -> str | None:
    """'csv' or 'parquet' by the file name's suffix (x.csv.gz is a CSV); None if unknown."""
    suffixes = [s.lower() for s in path.suffixes]
    if len(suffixes) >= 2 and suffixes[-1] in CSV_COMPRESSIONS:
        return "csv" if FILE_FORMATS.get(suffixes[-2]) == "csv" else None
    return FILE_FORMATS.get(path.suffix.lower())


def file_source(path: Path, fmt: str, string_columns: Sequence[str] = ()) -> str:
    """DuckDB's table function reading a CSV/Parquet file; `string_columns` of a CSV are
    read as text (ids such as 007 must not become 7)."""
    p = literal(str(path))
    if fmt == "parquet":
        return f"read_parquet({p})"
    if fmt == "csv":
        types = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in string_columns)
        # The quote is RFC 4180's, not sniffed: on a file whose sample holds no quote, or
        # an unclosed one, the sniffer settles on no quoting, and `"b,1` became the id
        # `"b` (a sniff that fails then is located by `strict_csv_problem`).
        return (f"read_csv({p}, header = true, quote = '\"'"
                + (f", types = {{{types}}})" if types else ")"))
    raise EngineError(f"{path}: unsupported file format {fmt!r} (use CSV or Parquet)")


def read_source(con: duckdb.DuckDBPyConnection, path: Path, fmt: str,
                string_columns: Sequence[str] = ()) -> str:
    """`file_source` as the engines read a file: `string_columns`, and the CSV's columns
    of worded booleans (`worded_booleans`, found on `con`), read as text."""
    if fmt == "csv":
        string_columns = (*string_columns, *worded_booleans(con, path, string_columns))
    return file_source(path, fmt, string_columns)


WORDED_ROWS = 100_000


def worded_booleans(con: duckdb.DuckDBPyConnection, path: Path,
                    string_columns: Sequence[str] = ()) -> tuple[str, ...]:
    """The columns of a CSV that DuckDB's sniffer types BOOLEAN but that hold other words
    than true and false (yes/no, T/F, any case): read as a boolean, "yes" became true on
    every page and in every output, where Spark (which infers a boolean from true/false
    only) kept the word. Such a column is text, as written. A file DuckDB cannot read
    gives none: its read says why. The words are looked for in the first WORDED_ROWS
    rows, as DuckDB's sniffer types a column from a sample: reading the whole file for
    them was one more pass over it (~2 s for 5M rows) before the work."""
    try:
        described = con.execute(
            f"DESCRIBE SELECT * FROM {file_source(path, 'csv', string_columns)}").fetchall()
        flags = [str(r[0]) for r in described if str(r[1]) == "BOOLEAN"]
        if not flags:
            return ()
        worded = ", ".join(f"bool_or(lower(trim({ident(c)})) NOT IN ('true', 'false'))"
                           for c in flags)
        head = (f"(SELECT * FROM {file_source(path, 'csv', (*string_columns, *flags))} "
                f"LIMIT {WORDED_ROWS})")
        row = con.execute(f"SELECT {worded} FROM {head}").fetchone()
    except duckdb.Error:
        return ()
    return tuple(c for c, other in zip(flags, row or (), strict=False) if other)


@dataclass(frozen=True)
class CsvProblem:
    """Where and why DuckDB could not parse a CSV file, worded for a user."""

    file: str | None  # as named in read_csv
    line: int
    reason: str
    column: str | None = None
    hint: str = "Fix the line (or give the input as Parquet)."

    def message(self) -> str:
        return f"cannot parse {self.file}: line {self.line}: {self.reason}"


_CONVERT = re.compile(r'Error when converting column "(?P<col>.*?)"\. Could not convert string '
                      r'"(?P<value>.*?)" to \'(?P<type>.*?)\'')


def _fields_reason(header: int, found: int) -> str:
    return (f"more fields than the {header} of the header" if found > header
            else f"{found} field(s) where the header has {header}")


_FIELDS_HINT = ("Every line needs as many fields as the header; quote values holding the "
                "delimiter.")
UNCLOSED_QUOTE = "a quoted value is never closed"
NOT_UTF8 = "the text is not valid UTF-8"
NOT_UTF8_HINT = ("Save the file as UTF-8: re-encode it from the encoding it was written in, "
                 "e.g. iconv -f WINDOWS-1252 -t UTF-8 old.csv > new.csv.")
UTF16_HINT = ("The file is UTF-16 (what Excel saves as \"Unicode text\"): save it as UTF-8, "
              "e.g. iconv -f UTF-16 -t UTF-8 old.csv > new.csv, or in Excel as CSV UTF-8.")


def _head(path: Path) -> bytes:
    """The first 4096 bytes of a plain or .gz file (b"" for a .zst or what cannot be read
    here)."""
    if path.suffix.lower() == ".zst":
        return b""
    with contextlib.suppress(OSError, EOFError, zlib.error):
        opener = gzip.open if path.suffix.lower() == ".gz" else open
        with opener(path, "rb") as f:
            return f.read(4096)
    return b""


def utf16_without_bom(path: Path) -> str | None:
    """'UTF-16LE' or 'UTF-16BE' for a CSV in UTF-16 without a byte-order mark (a zero
    byte beside nearly every other one, as ASCII text has in UTF-16), else None. DuckDB
    reads such a file as UTF-8 with zero bytes, and its error (too few fields on a last
    line holding one zero byte, a missing column named '\\x00i\\x00t…', a sniffer that
    gives up) says nothing of the encoding."""
    head = _head(path)
    if len(head) < 4 or head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    evens, odds = head[0::2].count(0), head[1::2].count(0)
    if odds > len(head) // 4 and evens <= odds // 8:
        return "UTF-16LE"
    if evens > len(head) // 4 and odds <= evens // 8:
        return "UTF-16BE"
    return None


def not_utf8_hint(path: Path | None) -> str:
    """How to make the file UTF-8: from UTF-16 when it is UTF-16 (a byte-order mark, or
    a zero byte beside every ASCII one), else from Windows-1252 (the usual other
    encoding), which is no advice for UTF-16."""
    head = _head(path) if path is not None else b""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or (
            len(head) >= 4 and max(head[0::2].count(0), head[1::2].count(0)) > len(head) // 4):
        return UTF16_HINT
    return NOT_UTF8_HINT
_UNCLOSED_HINT = "Close the quote; a quote inside a quoted value is written twice (\"\")."
_FIELDS = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")
_REASONS = (
    (_FIELDS,
     lambda m: _fields_reason(int(m[1]), int(m[2])), _FIELDS_HINT),
    (re.compile(r"unterminated quote"), lambda m: UNCLOSED_QUOTE, _UNCLOSED_HINT),
    (re.compile(r"Invalid unicode"), lambda m: NOT_UTF8, NOT_UTF8_HINT),
    (re.compile(r"Maximum line size of (\d+) bytes exceeded"),
     lambda m: f"longer than {m[1]} bytes (an unclosed quote?)", "Fix the line."),
)


SINGLE_QUOTE_HINT = (
    "The file seems to quote values with ' (single quotes): abcde reads CSV quoted with "
    "\" (RFC 4180), so a ' is part of the value and a delimiter inside '...' splits it. "
    "Quote with \" (export the file again with double quotes), or give the input as "
    "Parquet.")
# a ' opening a field: at the start of the line or after a delimiter (spaces between)
_SINGLE_QUOTED_FIELD = re.compile(rf"(?:^|[{re.escape(DELIMITERS)}])[ ]*'")


def single_quote_hint(*lines: str | None) -> str | None:
    """:data:`SINGLE_QUOTE_HINT` when a field of one of the lines (the header, the line
    that failed) opens with ``'``: a file quoted with ' is the likely cause of a line
    with more fields than the header (a delimiter inside '...'); else None.

    Examples
    --------
    >>> single_quote_hint("'item_id','cluster_id'", None) == SINGLE_QUOTE_HINT
    True
    >>> single_quote_hint("item_id,name", "7,O'Brien, Pat") is None
    True
    """
    if any(line is not None and _SINGLE_QUOTED_FIELD.search(line) for line in lines):
        return SINGLE_QUOTE_HINT
    return None


def _header_and_line(path: Path, number: int) -> tuple[str | None, str | None]:
    """The header and line `number` (the header is 1) of a local plain or .gz CSV, as
    text; None for what cannot be read here."""
    header = line = None
    if path.suffix.lower() == ".zst":
        return None, None
    try:
        with _text_lines(path) as f:
            for n, text in enumerate(f, start=1):
                if n == 1:
                    header = text.rstrip("\r\n")
                if n == number:
                    line = text.rstrip("\r\n")
                    break
    except OSError:
        pass
    return header, line


def csv_problem(text: str) -> CsvProblem | None:
    """A DuckDB 'CSV Error on Line: N' message, parsed; None for any other error. A line
    with more fields than the header in a file that seems quoted with ' says so
    (:func:`single_quote_hint`)."""
    line = re.search(r"CSV Error on Line: (\d+)", text)
    if line is None:
        return None
    file = re.search(r"^\s*file = (.*)$", text, re.MULTILINE)
    name = file[1].strip() if file else None
    n = int(line[1])
    if (m := _CONVERT.search(text)) is not None:
        return CsvProblem(
            name, n, f"the value {m['value']!r} of column {m['col']!r} is not "
            f"{m['type']}", column=m["col"],
            hint=f"DuckDB typed column {m['col']!r} {m['type']} from the first rows of the "
                 "file. Fix the value, or give the input as Parquet with the column's "
                 "intended type.")
    for pattern, reason, hint in _REASONS:
        if (m := pattern.search(text)) is not None:
            if pattern is _FIELDS and name is not None:
                hint = single_quote_hint(*_header_and_line(Path(name), n)) or hint
            if hint is NOT_UTF8_HINT:
                hint = not_utf8_hint(Path(name) if name is not None else None)
            return CsvProblem(name, n, reason(m), hint=hint)
    return CsvProblem(name, n, "malformed line")


def _text_lines(path: Path) -> TextIO:
    """A plain or .gz CSV file opened as text (undecodable bytes replaced), for reading
    its lines in Python; not a .zst (Python has no zstd before 3.14)."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    return opener(path, "rt", encoding="utf-8", errors="replace", newline="")


def _header_line(con: duckdb.DuckDBPyConnection, path: Path) -> str | None:
    """The first line of a CSV file (.gz and .zst decompressed), None if unreadable."""
    if path.suffix.lower() != ".zst":
        try:
            with _text_lines(path) as f:
                return f.readline().rstrip("\r\n")
        except OSError:
            return None
    # Python has no zstd before 3.14: DuckDB decompresses it, the line one value
    # (a control character as delimiter, no quoting); its error then names the line
    # in the decompressed text as it does a plain CSV's
    try:
        row = con.execute(f"SELECT line FROM read_csv({literal(str(path))}, header = false, "
                          f"auto_detect = false, delim = {literal(chr(1))}, quote = '', "
                          "escape = '', columns = {'line': 'VARCHAR'}) LIMIT 1").fetchone()
    except duckdb.Error:
        return None
    return row[0] if row and row[0] is not None else None


def line_problem(line: str, width: int, delimiter: str = ",") -> tuple[str, str]:
    """Why one line of a CSV whose header has `width` fields split at `delimiter` is
    malformed (a line an engine refused without saying why), in `csv_problem`'s words:
    (reason, hint)."""
    try:
        fields = next(csv.reader([line], delimiter=delimiter, strict=True), [])
    except csv.Error:  # "unexpected end of data": a quote open at the line's end
        return UNCLOSED_QUOTE, _UNCLOSED_HINT
    hint = single_quote_hint(line) if len(fields) > width else None
    return _fields_reason(width, len(fields)), hint or _FIELDS_HINT


def line_number(path: Path, line: str) -> int | None:
    """The number (the header is 1) of the first line of the file that reads `line`
    (without its line break), or None when there is none or the file cannot be read
    here (e.g. a path of a Spark Connect server)."""
    if path.suffix.lower() == ".zst":
        return None
    try:
        with _text_lines(path) as f:
            for number, text in enumerate(f, start=1):
                if text.rstrip("\r\n") == line:
                    return number
    except OSError:
        return None
    return None


def header_delimiter(header: str) -> str | None:
    """The delimiter a CSV's header line suggests: of `DELIMITERS`, the most frequent in
    it that splits it into two or more distinct names; None when none does."""
    for delim in sorted(DELIMITERS, key=lambda d: -header.count(d)):
        names = next(csv.reader([header], delimiter=delim))
        if len(names) >= 2 and len(set(names)) == len(names):
            return delim
    return None


def repeated_header_names(path: Path) -> dict[str, list[int]]:
    """Names the header line of a local CSV holds more than once, ignoring case and
    surrounding spaces as DuckDB does, with their 1-based positions ({} when none or
    when the file cannot be read here). DuckDB reads such a file with the later ones
    renamed (cluster_id_1), so the first would be used without a word."""
    if path.suffix.lower() == ".zst":
        con = duckdb.connect(":memory:")
        try:
            header = _header_line(con, path)
        finally:
            con.close()
    else:
        header = _header_line(None, path)  # type: ignore[arg-type]  # not used for these
    if not header:
        return {}
    delim = max(DELIMITERS, key=header.count)
    positions: dict[str, list[int]] = {}
    for k, name in enumerate(next(csv.reader([header], delimiter=delim), []), start=1):
        positions.setdefault(name.strip().lower(), []).append(k)
    return {name: ks for name, ks in positions.items() if len(ks) > 1}


def csv_delimiter(path: Path) -> str | None:
    """The delimiter DuckDB reads a CSV with (its sniffer, with `file_source`'s quote
    and header), else the one its header line suggests (the sniffer gives up on a file
    whose sample has an unclosed quote or a byte that is not UTF-8; the strict read
    then finds that line); None when the file cannot be read here (e.g. a path of a
    Spark Connect server) or its header suggests none."""
    con = duckdb.connect(":memory:")
    try:
        row = con.execute("SELECT Delimiter FROM sniff_csv(?, header = true, quote = '\"')",
                          [str(path)]).fetchone()
        if row and row[0] in DELIMITERS:
            return row[0]
    except duckdb.Error:
        pass
    try:
        header = _header_line(con, path)
    finally:
        con.close()
    return header_delimiter(header) if header is not None else None


def strict_csv_problem(path: Path, delimiter: str | None = None) -> CsvProblem | None:
    """Read a CSV whose header was not understood with the delimiter its header line
    suggests (or `delimiter`, the one an engine read it with), strictly: the first
    malformed line, or None when it parses (then the header simply lacks a column).
    DuckDB's sniffer otherwise settles on a dialect in which every line is one value,
    and the file seems to lack its columns."""
    con = duckdb.connect(":memory:")
    try:
        header = _header_line(con, path)
        if header is None:
            return None
        delim = delimiter or header_delimiter(header)
        if delim is not None:
            names = next(csv.reader([header], delimiter=delim))
            columns = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in names)
            try:
                con.execute(f"SELECT COUNT(*) FROM read_csv({literal(str(path))}, header = true, "
                            f"auto_detect = false, delim = {literal(delim)}, quote = '\"', "
                            f"escape = '\"', columns = {{{columns}}})").fetchall()
            except duckdb.Error as err:
                return csv_problem(str(err))
        return None
    finally:
        con.close()


def file_columns(path: Path, fmt: str) -> list[str]:
    """The column names DuckDB reads from a CSV/Parquet file (a CSV's sniffed header),
    without reading its rows."""
    con = duckdb.connect(":memory:")
    try:
        cur = con.execute(f"SELECT * FROM {file_source(path, fmt)} LIMIT 0")
        return [d[0] for d in cur.description]
    except duckdb.Error as err:
        raise EngineError(f"cannot read {path}: {err}") from err
    finally:
        con.close()


def write_copy_csv(path: Path, fmt: str, out: Path, string_columns: Sequence[str] = (),
                   ) -> list[tuple[str, str]]:
    """Write the rows of a CSV/Parquet file to `out` as CSV that PostgreSQL's COPY ...
    (FORMAT csv) reads back to the values DuckDB reads, and return its (column name,
    DuckDB type): every engine sees the same input. DuckDB writes the file in bulk:
    handing a server the rows one Python tuple at a time took seconds per million rows.
    Every value but NULL is quoted (COPY reads "" as the empty string and an unquoted
    empty field as NULL); a float is written as a DOUBLE (a FLOAT's 0.1 is
    0.10000000149011612, as Python reads it), in the shortest text that reads back to the
    same bits (nan, inf, -inf, which PostgreSQL reads);
    a list, struct or map as JSON."""
    con = duckdb.connect(":memory:")
    try:
        source = read_source(con, path, fmt, string_columns)
        cur = con.execute(f"SELECT * FROM {source} LIMIT 0")
        columns = [(d[0], str(d[1])) for d in cur.description]
        exprs = []
        for name, type_name in columns:
            kind = categorise(type_name)
            cast = "JSON" if kind == "nested" else "DOUBLE" if kind == "float" else None
            exprs.append(f"CAST({ident(name)} AS {cast}) AS {ident(name)}" if cast
                         else ident(name))
        con.execute(f"COPY (SELECT {', '.join(exprs)} FROM {source}) TO {literal(str(out))} "
                    "(FORMAT CSV, HEADER false, FORCE_QUOTE *)")
        return columns
    except duckdb.Error as err:
        raise EngineError(f"cannot read {path}: {err}") from err
    finally:
        con.close()


def create_table(con: duckdb.DuckDBPyConnection, name: str, columns: Sequence[str],
                 rows: Sequence[Sequence[object]], *, temp: bool = False,
                 types: Sequence[str | None] | None = None, keep_nan: bool = False) -> None:
    """CREATE [TEMP] TABLE `name` from Python rows, each column of its DuckDB type in
    `types`, else (None) of the SQL type of its values (`sql_type_of`), rows in the given
    order. The rows are scanned as numpy arrays: DuckDB's executemany takes seconds per
    thousand rows. The scan reads a float NaN as NULL (as pandas means it); with
    `keep_nan` it stays NaN (an engine's result, where NaN is a value)."""
    import numpy as np  # here: `abcde impact` on files never needs it

    given = list(types) if types is not None else [None] * len(columns)
    inferred = [sql_type_of(row[k] for row in rows) if given[k] is None else None
                for k in range(len(columns))]
    types = [g or t for g, t in zip(given, inferred, strict=True)]
    convert = {"VARCHAR": str, "DOUBLE": float}
    arrays = {}
    for k, t in enumerate(types):
        # a given type casts DuckDB's own reading of the values (dates, decimals, ...)
        conv = convert.get(t) if inferred[k] else None
        if categorise(t) == "decimal":
            # as text: DuckDB scans Decimal objects as the DECIMAL of the first one's
            # digits, and a wider value after it failed ("1234.50" to DECIMAL(3,2))
            conv = str
        if keep_nan and categorise(t) == "float":
            # as text, which DuckDB casts back exactly: nan, inf, -inf, 0.1 (repr)
            conv = _float_text
        values = [None if r[k] is None else conv(r[k]) if conv else r[k] for r in rows]
        arrays[f"c{k}"] = np.array(values, dtype=object)
    scan = f"abcde_rows_{secrets.token_hex(6)}"
    con.register(scan, arrays)
    try:
        select = ", ".join(f"CAST(c{k} AS {t}) AS {ident(c)}"
                           for k, (c, t) in enumerate(zip(columns, types, strict=True)))
        con.execute(f"CREATE {'TEMP ' if temp else ''}TABLE {ident(name)} AS "
                    f"SELECT {select} FROM {scan}")
    finally:
        con.unregister(scan)


def _float_text(value: object) -> str:
    return repr(float(value))  # type: ignore[arg-type]


def copy_query(relation: str, columns: Sequence[tuple[str, str]], fmt: str,
               order_by: Sequence[str] = ()) -> str:
    """The query DuckDB's COPY writes a table's file from (rows in `order_by` order).
    In CSV a NaN or infinite float is spelled NaN, Infinity, -Infinity, as abcde's JSON
    and the slice keys of its warehouse scripts spell them (DuckDB writes nan, inf);
    other floats as DuckDB writes them. `columns`: (name, DuckDB type) of `relation`."""
    if fmt == "parquet" or not any(categorise(t) == "float" for _, t in columns):
        return select_all(relation, order_by)
    exprs = []
    for name, type_name in columns:
        col = f"t.{ident(name)}"
        if categorise(type_name) == "float":
            col = (f"CASE WHEN isnan({col}) THEN 'NaN' "
                   f"WHEN {col} = CAST('Infinity' AS DOUBLE) THEN 'Infinity' "
                   f"WHEN {col} = CAST('-Infinity' AS DOUBLE) THEN '-Infinity' "
                   f"ELSE CAST({col} AS VARCHAR) END")
        exprs.append(f"{col} AS {ident(name)}")
    # qualified: the keys are the table's columns (numbers), not the texts selected
    order = f" ORDER BY {', '.join(f't.{ident(c)}' for c in order_by)}" if order_by else ""
    return f"SELECT {', '.join(exprs)} FROM {relation} AS t{order}"


def write_rows(columns: Sequence[str], rows: Sequence[tuple], path: Path, fmt: str,
               types: Sequence[str | None] | None = None) -> None:
    """Write rows to one Parquet or CSV file, in the given order; `types`: the DuckDB
    type of each column where the engine's type says more than the Python values do
    (`create_table`): a date stays a DATE, as the DuckDB engine writes it, not text."""
    con = duckdb.connect(":memory:")
    try:
        create_table(con, "t", columns, rows, types=types, keep_nan=True)
        _write_table(con, path, fmt)
    finally:
        con.close()


def write_copied_csv(data: Path, columns: Sequence[tuple[str, str]], path: Path,
                     fmt: str) -> None:
    """Write one Parquet or CSV file from `data`, rows as PostgreSQL's COPY ... TO
    (FORMAT csv, FORCE_QUOTE *) writes them (every value but NULL quoted, so "" is the
    empty string), in the given order; `columns`: (name, DuckDB type) of each field."""
    con = duckdb.connect(":memory:")
    try:
        spec = ", ".join(f"{literal(n)}: {literal(t)}" for n, t in columns)
        con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv({literal(str(data))}, "
                    "header = false, delim = ',', quote = '\"', escape = '\"', "
                    f"allow_quoted_nulls = false, auto_detect = false, columns = {{{spec}}})")
        _write_table(con, path, fmt)
    finally:
        con.close()


def _write_table(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> None:
    """COPY table t of `con` to a Parquet or CSV file (`copy_query`)."""
    option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
    described = [(r[0], r[1]) for r in con.execute("DESCRIBE t").fetchall()]
    con.execute(f"COPY ({copy_query('t', described, fmt)}) TO {literal(str(path))} "
                f"({option})")
