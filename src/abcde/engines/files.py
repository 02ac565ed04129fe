"""The user's files, read and written through an in-process DuckDB for every engine:
DuckDB reads an input where it runs (the DuckDB engine) or copies it for the engine
(PostgreSQL's COPY, Spark's Parquet or Arrow), so every engine sees the same rows, types
and errors (`read_error`). Paths reach DuckDB literally (`literal`), and the private
temporary items abcde makes are named so that a later run removes those a killed run
left (`private_dir`)."""

from __future__ import annotations

import atexit
import contextlib
import csv
import gzip
import os
import re
import secrets
import shutil
import tempfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from abcde.engines.base import categorise, select_all, sql_type_of
from abcde.errors import AbcdeError, EngineError, InputError, ResourceError
from abcde.outputs import remove_orphans
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


_PRIVATE = re.compile(r"abcde-(\d+)-")


def private_dir(what: str) -> Path:
    """A new private directory in the system's temporary directory, named
    abcde-<pid>-<what>-<random>: the first one a process makes removes those of
    processes that no longer run (a run killed with SIGKILL never reached its clean-up)."""
    if not _SWEPT:
        _SWEPT.append(True)
        remove_orphans(Path(tempfile.gettempdir()), _PRIVATE)
    return Path(tempfile.mkdtemp(prefix=f"abcde-{os.getpid()}-{what}-"))


_SWEPT: list[bool] = []
_LINKS: dict[str, str] = {}  # link -> the user's path it stands for
_GLOB = re.compile(r"[*?\[\]{}\\]")


def literal_path(path: Path) -> Path:
    """A name of `path` that no reader expands as a pattern. DuckDB's readers (and
    Spark's, and Hadoop's {a,b}) expand * ? [...] in a file name, so `base [v2].csv`
    read `base 2.csv`: such a name is read through a link of a plain name in a private
    directory (removed at exit), which stands for the file in messages (`shown`)."""
    if not _GLOB.search(str(path)):
        return path
    if not _LINK_DIR:
        _LINK_DIR.append(private_dir("links"))
        atexit.register(shutil.rmtree, _LINK_DIR[0], True)
    compressed = path.suffix.lower() if path.suffix.lower() in CSV_COMPRESSIONS else ""
    link = _LINK_DIR[0] / f"{len(_LINKS)}.{file_format(path) or 'csv'}{compressed}"
    os.symlink(os.path.abspath(path), link)
    _LINKS[str(link)] = str(path)
    return link


_LINK_DIR: list[Path] = []


def shown(text: str) -> str:
    """`text` with the links of `literal_path` named as the files they stand for."""
    for link, path in _LINKS.items():
        text = text.replace(link, path)
    return text


def file_source(path: Path, fmt: str, string_columns: Sequence[str] = ()) -> str:
    """DuckDB's table function reading a CSV/Parquet file; `string_columns` of a CSV are
    read as text (ids such as 007 must not become 7)."""
    p = literal(str(literal_path(path)))
    if fmt == "parquet":
        return f"read_parquet({p})"
    types = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in string_columns)
    # The quote is RFC 4180's, not sniffed: on a file whose sample holds no quote, or
    # an unclosed one, the sniffer settles on no quoting, and `"b,1` became the id
    # `"b` (a sniff that fails then is located by `strict_csv_problem`).
    return (f"read_csv({p}, header = true, quote = '\"'"
            + (f", types = {{{types}}})" if types else ")"))


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
    than true and false (yes/no, T/F): read as a boolean, "yes" became true, where Spark
    kept the word. Such a column is text, as written. Looked for in the first
    WORDED_ROWS rows, as the sniffer types a column from a sample; a file DuckDB cannot
    read gives none (its read says why)."""
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


def read_error(err: duckdb.Error, labels: dict[str, str], spill: Path | None = None
               ) -> AbcdeError | None:
    """What a DuckDB error means for the user, or None when it is abcde's. A line of an
    input CSV DuckDB cannot parse, and an input it cannot read (a damaged Parquet file
    fails only when a query reaches the broken page), are the user's to fix, named by
    `labels` (file path -> how messages name the input); so is running out of memory or
    disk (which option gives more; what is full)."""
    message = shown(str(err))
    if isinstance(err, duckdb.OutOfMemoryException) or message.startswith(
            "Out of Memory Error"):
        return ResourceError(
            f"DuckDB ran out of memory: {first_line(message)}",
            hint="Give it more with --memory-limit (e.g. --memory-limit 8GB; the default "
                 "is 80% of the machine's memory), run fewer --threads (each holds its "
                 "own buffers, e.g. --threads 2), or use a machine with more memory.")
    if "No space left on device" in message or "Disk quota exceeded" in message:
        where = re.search(r'\\?"(/[^"\\]+)\\?"', message)
        spilled = spill is not None and (where is None or where[1].startswith(str(spill)))
        what = (f"for DuckDB's temporary files in {spill.parent} (set by TMPDIR)" if spilled
                else f"writing {re.sub(r'[.]tmp-[0-9]+-[0-9a-f]{8}', '', where[1])}"
                if where else "")
        return ResourceError(f"no space left on the device {what}",
                             hint="Free space there, or write elsewhere; earlier outputs "
                                  "were left as they were.")
    problem = csv_problem(message)
    sniffed = re.search(r'Error when sniffing file "(.*?)"', message)
    if problem is None and sniffed is not None and sniffed[1] in labels:
        # the sniffer gives up on a file with an unclosed quote in its sample, and
        # names no line: a strict read finds it
        problem = strict_csv_problem(Path(sniffed[1]))
    if problem is not None:
        return InputError(problem.message(), table=labels.get(problem.file or ""),
                          column=problem.column, hint=problem.hint)
    for path, label in labels.items():
        if f'"{path}"' in message or f"'{path}'" in message:
            reason = re.sub(r'^.*?Error: (Failed to read file ".*?": )?', "",
                            first_line(message))
            return InputError(f"cannot read {path}: {reason}", table=label, hint=DAMAGED)
    if isinstance(err, duckdb.ParserException | duckdb.BinderException |
                  duckdb.CatalogException):
        return None
    return _damaged_parquet(labels)


DAMAGED = "The file is damaged (cut short or corrupt): write it again from its source."


def _damaged_parquet(labels: dict[str, str]) -> InputError | None:
    """The input Parquet file a read error comes from, when DuckDB's message does not
    name it (a damaged page, a failed decompression): each is read whole until one fails."""
    for path, label in labels.items():
        if file_format(Path(path)) != "parquet":
            continue
        con = duckdb.connect(":memory:")
        try:
            source = file_source(Path(path), "parquet")
            con.execute(f"SELECT min(hash(COLUMNS(*))) FROM {source}").fetchall()
        except duckdb.Error as probe:
            return InputError(f"cannot read {path}: {first_line(shown(str(probe)))}",
                              table=label, hint=DAMAGED)
        finally:
            con.close()
    return None


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "unknown error"


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
_FIELDS_HINT = ("Every line needs as many fields as the header; quote values holding the "
                "delimiter.")
NOT_UTF8_HINT = ("Save the file as UTF-8: re-encode it from the encoding it was written in, "
                 "e.g. iconv -f WINDOWS-1252 -t UTF-8 old.csv > new.csv.")
UTF16_HINT = ("The file is UTF-16 (what Excel saves as \"Unicode text\"): save it as UTF-8, "
              "e.g. iconv -f UTF-16 -t UTF-8 old.csv > new.csv, or in Excel as CSV UTF-8.")
_FIELDS = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")
_REASONS = (
    (_FIELDS, lambda m: (f"more fields than the {m[1]} of the header" if int(m[2]) > int(m[1])
                         else f"{m[2]} field(s) where the header has {m[1]}"), _FIELDS_HINT),
    (re.compile(r"unterminated quote"), lambda m: "a quoted value is never closed",
     "Close the quote; a quote inside a quoted value is written twice (\"\")."),
    (re.compile(r"Invalid unicode"), lambda m: "the text is not valid UTF-8", NOT_UTF8_HINT),
    (re.compile(r"Maximum line size of (\d+) bytes exceeded"),
     lambda m: f"longer than {m[1]} bytes (an unclosed quote?)", "Fix the line."),
)


def csv_problem(text: str) -> CsvProblem | None:
    """A DuckDB 'CSV Error on Line: N' message, parsed; None for any other error. A line
    with more fields than the header in a file that seems quoted with ' says so."""
    line = re.search(r"CSV Error on Line: (\d+)", text)
    if line is None:
        return None
    file = re.search(r"^\s*file = (.*)$", text, re.MULTILINE)
    name = shown(file[1].strip()) if file else None
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
                hint = single_quote_hint(*_lines(Path(name), n)) or hint
            if hint is NOT_UTF8_HINT and name is not None and _utf16(_head(Path(name))):
                hint = UTF16_HINT
            return CsvProblem(name, n, reason(m), hint=hint)
    return CsvProblem(name, n, "malformed line")


def _head(path: Path) -> bytes:
    """The first 4096 bytes of a plain or .gz file (b"" for a .zst or what cannot be
    read here)."""
    with contextlib.suppress(OSError, EOFError, zlib.error):
        if path.suffix.lower() != ".zst":
            opener = gzip.open if path.suffix.lower() == ".gz" else open
            with opener(path, "rb") as f:
                return f.read(4096)
    return b""


def _utf16(head: bytes) -> str | None:
    """'UTF-16LE'/'UTF-16BE' for text in UTF-16 (a byte-order mark, or a zero byte beside
    nearly every other one, as ASCII text has in UTF-16), else None."""
    if head.startswith(b"\xff\xfe"):
        return "UTF-16LE"
    if head.startswith(b"\xfe\xff"):
        return "UTF-16BE"
    evens, odds = head[0::2].count(0), head[1::2].count(0)
    if len(head) >= 4 and odds > len(head) // 4 and evens <= odds // 8:
        return "UTF-16LE"
    if len(head) >= 4 and evens > len(head) // 4 and odds <= evens // 8:
        return "UTF-16BE"
    return None


def utf16_without_bom(path: Path) -> str | None:
    """The UTF-16 of a CSV without a byte-order mark: DuckDB reads it as UTF-8 with zero
    bytes, and its error says nothing of the encoding."""
    head = _head(path)
    return None if head.startswith((b"\xff\xfe", b"\xfe\xff")) else _utf16(head)


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
    with more fields than the header.

    >>> single_quote_hint("'item_id','cluster_id'", None) == SINGLE_QUOTE_HINT
    True
    >>> single_quote_hint("item_id,name", "7,O'Brien, Pat") is None
    True
    """
    if any(line is not None and _SINGLE_QUOTED_FIELD.search(line) for line in lines):
        return SINGLE_QUOTE_HINT
    return None


def _lines(path: Path, number: int = 1) -> tuple[str | None, str | None]:
    """The header and line `number` (the header is 1) of a CSV (.gz and .zst
    decompressed, by DuckDB: Python has no zstd before 3.14), None for what cannot be
    read here."""
    con = duckdb.connect(":memory:")
    try:
        rows = con.execute(
            f"SELECT line FROM read_csv({literal(str(literal_path(path)))}, header = false, "
            f"auto_detect = false, delim = {literal(chr(1))}, quote = '', escape = '', "
            "columns = {'line': 'VARCHAR'}, strict_mode = false, ignore_errors = true) "
            f"LIMIT {number}").fetchall()
    except duckdb.Error:
        return None, None
    finally:
        con.close()
    lines = [r[0] for r in rows]
    return (lines[0] if lines else None), (lines[number - 1] if len(lines) >= number else None)


def header_line(path: Path) -> str | None:
    """The first line of a CSV (decompressed), None when it has none."""
    return _lines(path)[0]


def header_delimiter(header: str) -> str | None:
    """The delimiter a CSV's header line suggests: of `DELIMITERS`, the most frequent in
    it that splits it into two or more distinct names; None when none does."""
    for delim in sorted(DELIMITERS, key=lambda d: -header.count(d)):
        names = next(csv.reader([header], delimiter=delim))
        if len(names) >= 2 and len(set(names)) == len(names):
            return delim
    return None


def repeated_header_names(path: Path) -> dict[str, list[int]]:
    """Names the header line of a CSV holds more than once, ignoring case and
    surrounding spaces as DuckDB does, with their 1-based positions: DuckDB reads such
    a file with the later ones renamed (cluster_id_1), so the first would be used
    without a word."""
    header = header_line(path)
    if not header:
        return {}
    delim = max(DELIMITERS, key=header.count)
    positions: dict[str, list[int]] = {}
    for k, name in enumerate(next(csv.reader([header], delimiter=delim), []), start=1):
        positions.setdefault(name.strip().lower(), []).append(k)
    return {name: ks for name, ks in positions.items() if len(ks) > 1}


def strict_csv_problem(path: Path, delimiter: str | None = None) -> CsvProblem | None:
    """Read a CSV whose header was not understood with the delimiter its header line
    suggests, strictly: the first malformed line, or None when it parses (then the
    header simply lacks a column). DuckDB's sniffer otherwise settles on a dialect in
    which every line is one value, and the file seems to lack its columns."""
    header = _lines(path)[0]
    delim = delimiter or (header_delimiter(header) if header is not None else None)
    if delim is None or header is None:
        return None
    names = next(csv.reader([header], delimiter=delim))
    columns = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in names)
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"SELECT COUNT(*) FROM read_csv({literal(str(literal_path(path)))}, "
                    f"header = true, auto_detect = false, delim = {literal(delim)}, "
                    f"quote = '\"', escape = '\"', columns = {{{columns}}})").fetchall()
    except duckdb.Error as err:
        return csv_problem(str(err))
    finally:
        con.close()
    return None


@contextlib.contextmanager
def reading(labels: dict[str, str]):  # type: ignore[no-untyped-def]
    """An in-process DuckDB reading the user's files, its errors worded (`read_error`)."""
    con = duckdb.connect(":memory:")
    try:
        yield con
    except duckdb.Error as err:
        raise (read_error(err, labels) or EngineError(shown(str(err)))) from err
    finally:
        con.close()


def file_columns(path: Path, fmt: str, labels: dict[str, str]) -> list[str]:
    """The column names DuckDB reads from a CSV/Parquet file (a CSV's sniffed header),
    without reading its rows."""
    with reading(labels) as con:
        cur = con.execute(f"SELECT * FROM {file_source(path, fmt)} LIMIT 0")
        return [d[0] for d in cur.description]


def copy_file(path: Path, fmt: str, out: Path, string_columns: Sequence[str],
              labels: dict[str, str]) -> list[tuple[str, str]]:
    """Write the rows of a CSV/Parquet file as DuckDB reads them to `out`, and return
    their (column name, DuckDB type): every engine sees the same input. Parquet for
    Spark; a CSV that PostgreSQL's COPY ... (FORMAT csv) reads back to the same values:
    every value but NULL quoted (COPY reads "" as the empty string and an unquoted empty
    field as NULL), a float as a DOUBLE in the shortest text that reads back to the
    same bits (a FLOAT's 0.1 is 0.10000000149011612), a list, struct or map as JSON."""
    with reading(labels) as con:
        source = read_source(con, path, fmt, string_columns)
        cur = con.execute(f"SELECT * FROM {source} LIMIT 0")
        columns = [(d[0], str(d[1])) for d in cur.description]
        if out.suffix == ".parquet":
            con.execute(f"COPY (SELECT * FROM {source}) TO {literal(str(out))} "
                        "(FORMAT PARQUET)")
            return columns
        exprs = []
        for name, type_name in columns:
            kind = categorise(type_name)
            cast = "JSON" if kind == "nested" else "DOUBLE" if kind == "float" else None
            exprs.append(f"CAST({ident(name)} AS {cast}) AS {ident(name)}" if cast
                         else ident(name))
        con.execute(f"COPY (SELECT {', '.join(exprs)} FROM {source}) TO {literal(str(out))} "
                    "(FORMAT CSV, HEADER false, FORCE_QUOTE *)")
        return columns


def create_table(con: duckdb.DuckDBPyConnection, name: str, columns: Sequence[str],
                 rows: Sequence[Sequence[object]], *, temp: bool = False,
                 types: Sequence[str | None] | None = None, keep_nan: bool = False) -> None:
    """CREATE [TEMP] TABLE `name` from Python rows, in order, each column of its DuckDB
    type in `types`, else of its values' (`sql_type_of`); scanned as numpy arrays
    (executemany took seconds per thousand rows). A float NaN reads as NULL, unless
    `keep_nan` (an engine's result, where NaN is a value)."""
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
    """The query DuckDB's COPY writes a table's file from (rows in `order_by` order); in
    CSV a NaN or infinite float is spelled NaN, Infinity, -Infinity, as abcde's JSON
    spells them. `columns`: (name, DuckDB type) of `relation`."""
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
    """Write rows to one Parquet or CSV file, in order; `types` (`create_table`): a
    column's DuckDB type where the engine's says more than the Python values (a DATE
    stays a DATE)."""
    con = duckdb.connect(":memory:")
    try:
        create_table(con, "t", columns, rows, types=types, keep_nan=True)
        _write_table(con, path, fmt)
    finally:
        con.close()


def write_copied_csv(data: Path, columns: Sequence[tuple[str, str]], path: Path,
                     fmt: str) -> None:
    """Write one Parquet or CSV file from `data`, the CSV of PostgreSQL's COPY ... TO
    (FORMAT csv, FORCE_QUOTE *: "" is the empty string), in order; `columns`: (name,
    DuckDB type) of each field."""
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
