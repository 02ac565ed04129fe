"""The user's files, read and written through an in-process DuckDB for every engine:
DuckDB reads an input where it runs (the DuckDB engine) or copies it for the engine
(PostgreSQL's COPY, Spark's Parquet or Arrow), so every engine sees the same rows, types
and errors (`read_error`). Paths reach DuckDB literally (`literal_path`), and the private
temporary items abcde makes are named so that a later run removes those a killed run
left (`private_dir`)."""

from __future__ import annotations

import atexit
import contextlib
import gzip
import os
import re
import secrets
import shutil
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from abcde.engines.base import categorise, select_all, sql_type_of
from abcde.errors import AbcdeError, EngineError, InputError, ResourceError
from abcde.outputs import remove_orphans
from abcde.sql.quoting import ident, literal

FILE_FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".parquet": "parquet",
                ".pq": "parquet", ".parq": "parquet"}
CSV_COMPRESSIONS = (".gz", ".zst")  # DuckDB reads a CSV through them (x.csv.gz)
DELIMITERS = ",\t;|"  # those DuckDB's sniffer chooses from
WORDED_ROWS = 100_000
DAMAGED = "The file is damaged (cut short or corrupt): write it again from its source."
SINGLE_QUOTE_HINT = (
    "The file seems to quote values with ' (single quotes): abcde reads CSV quoted with "
    "\" (RFC 4180), so a ' is part of the value and a delimiter inside '...' splits it. "
    "Quote with \" (export the file again with double quotes), or give the input as "
    "Parquet.")
NOT_UTF8_HINT = ("Save the file as UTF-8: re-encode it from the encoding it was written in, "
                 "e.g. iconv -f WINDOWS-1252 -t UTF-8 old.csv > new.csv.")
UTF16_HINT = ("The file is UTF-16 (what Excel saves as \"Unicode text\"): save it as UTF-8, "
              "e.g. iconv -f UTF-16 -t UTF-8 old.csv > new.csv, or in Excel as CSV UTF-8.")


def file_format(path: Path) -> str | None:
    """'csv' or 'parquet' by the file name's suffix (x.csv.gz is a CSV); None if unknown."""
    suffixes = [s.lower() for s in path.suffixes]
    if len(suffixes) >= 2 and suffixes[-1] in CSV_COMPRESSIONS:
        return "csv" if FILE_FORMATS.get(suffixes[-2]) == "csv" else None
    return FILE_FORMATS.get(path.suffix.lower())


_SWEPT: list[bool] = []
_LINK_DIR: list[Path] = []
_LINKS: dict[str, str] = {}  # link -> the user's path it stands for
_GLOB = re.compile(r"[*?\[\]{}\\]")


def private_dir(what: str) -> Path:
    """A new private directory abcde-<pid>-<what>-<random> in the temporary directory;
    the first a process makes removes those of processes that no longer run (a run
    killed with SIGKILL never reached its clean-up)."""
    if not _SWEPT:
        _SWEPT.append(True)
        remove_orphans(Path(tempfile.gettempdir()), re.compile(r"abcde-(\d+)-"))
    return Path(tempfile.mkdtemp(prefix=f"abcde-{os.getpid()}-{what}-"))


def literal_path(path: Path) -> Path:
    """A name of `path` no reader expands as a pattern (DuckDB and Spark expand * ? [...]
    {a,b}: `base [v2].csv` read `base 2.csv`): a link of a plain name in a private
    directory, removed at exit, named as the file in messages (`shown`)."""
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


def shown(text: str) -> str:
    """`text` with the links of `literal_path` named as the files they stand for."""
    for link, path in _LINKS.items():
        text = text.replace(link, path)
    return text


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "unknown error"


def file_source(path: Path, fmt: str, string_columns: Sequence[str] = ()) -> str:
    """DuckDB's table function reading a CSV/Parquet file; `string_columns` of a CSV are
    read as text (ids such as 007 must not become 7). The quote is RFC 4180's, not
    sniffed: a sample without quotes made `"b,1` the id `"b`."""
    p = literal(str(literal_path(path)))
    if fmt == "parquet":
        return f"read_parquet({p})"
    types = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in string_columns)
    return f"read_csv({p}, header = true, quote = '\"'" + (
        f", types = {{{types}}})" if types else ")")


def read_source(con: duckdb.DuckDBPyConnection, path: Path, fmt: str,
                string_columns: Sequence[str] = ()) -> str:
    """`file_source` as the engines read a file: besides `string_columns`, a CSV's
    columns that DuckDB types BOOLEAN but that hold other words (yes/no: "yes" became
    true, where Spark kept the word) are text, as written; looked for in the first
    WORDED_ROWS rows, as the sniffer types from a sample."""
    if fmt != "csv":
        return file_source(path, fmt)
    with contextlib.suppress(duckdb.Error):  # a file DuckDB cannot read: its read says why
        flags = [str(r[0]) for r in con.execute(
            f"DESCRIBE SELECT * FROM {file_source(path, fmt, string_columns)}").fetchall()
            if str(r[1]) == "BOOLEAN"]
        if flags:
            worded = ", ".join(f"bool_or(lower(trim({ident(c)})) NOT IN ('true', 'false'))"
                               for c in flags)
            row = con.execute(f"SELECT {worded} FROM (SELECT * FROM "
                              f"{file_source(path, fmt, (*string_columns, *flags))} "
                              f"LIMIT {WORDED_ROWS})").fetchone() or ()
            string_columns = (*string_columns, *(c for c, w in zip(flags, row, strict=False) if w))
    return file_source(path, fmt, string_columns)


def read_error(err: duckdb.Error, labels: dict[str, str], spill: Path | None = None
               ) -> AbcdeError | None:
    """What a DuckDB error means for the user, or None when it is abcde's: running out
    of memory or disk (which option gives more; what is full), a CSV line it cannot
    parse, an input it cannot read (a damaged Parquet page fails only when a query
    reaches it), named by `labels` (file path -> how messages name the input)."""
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
        problem = strict_csv_problem(Path(sniffed[1]))  # an unclosed quote, no line named
    if problem is not None:
        return InputError(problem.message(), table=labels.get(problem.file or ""),
                          column=problem.column, hint=problem.hint)
    for path, label in labels.items():
        if f'"{path}"' in message or f"'{path}'" in message:
            reason = re.sub(r'^.*?Error: (Failed to read file ".*?": )?', "",
                            first_line(message))
            return InputError(f"cannot read {path}: {reason}", table=label, hint=DAMAGED)
    if isinstance(err, duckdb.ParserException | duckdb.BinderException
                  | duckdb.CatalogException):
        return None
    for path, label in labels.items():  # which Parquet file? each is read whole
        if file_format(Path(path)) == "parquet":
            con = duckdb.connect(":memory:")
            try:
                con.execute("SELECT min(hash(COLUMNS(*))) FROM "
                            f"{file_source(Path(path), 'parquet')}").fetchall()
            except duckdb.Error as probe:
                return InputError(f"cannot read {path}: {first_line(shown(str(probe)))}",
                                  table=label, hint=DAMAGED)
            finally:
                con.close()
    return None


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
# a ' opening a field: at the start of the line or after a delimiter (spaces between)
_SINGLE_QUOTED_FIELD = re.compile(rf"(?:^|[{re.escape(DELIMITERS)}])[ ]*'")
_REASONS = (  # DuckDB's words -> ours, and what to do
    (re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)"),
     lambda m: (f"more fields than the {m[1]} of the header" if int(m[2]) > int(m[1])
                else f"{m[2]} field(s) where the header has {m[1]}"),
     "Every line needs as many fields as the header; quote values holding the delimiter."),
    (re.compile(r"unterminated quote"), lambda m: "a quoted value is never closed",
     "Close the quote; a quote inside a quoted value is written twice (\"\")."),
    (re.compile(r"Invalid unicode"), lambda m: "the text is not valid UTF-8", NOT_UTF8_HINT),
    (re.compile(r"Maximum line size of (\d+) bytes exceeded"),
     lambda m: f"longer than {m[1]} bytes (an unclosed quote?)", "Fix the line."),
)


def csv_problem(text: str) -> CsvProblem | None:
    """A DuckDB 'CSV Error on Line: N' message, parsed; None for any other error. A line
    of more fields in a file whose fields open with ' says the file is quoted with '."""
    line = re.search(r"CSV Error on Line: (\d+)", text)
    if line is None:
        return None
    file = re.search(r"^\s*file = (.*)$", text, re.MULTILINE)
    name, n = (shown(file[1].strip()) if file else None), int(line[1])
    if (m := _CONVERT.search(text)) is not None:
        return CsvProblem(
            name, n, f"the value {m['value']!r} of column {m['col']!r} is not {m['type']}",
            column=m["col"], hint=f"DuckDB typed column {m['col']!r} {m['type']} from the "
            "first rows of the file. Fix the value, or give the input as Parquet with the "
            "column's intended type.")
    for pattern, reason, hint in _REASONS:
        if (m := pattern.search(text)) is not None:
            if pattern is _REASONS[0][0] and name is not None and any(
                    s is not None and _SINGLE_QUOTED_FIELD.search(s) for s in
                    _lines(Path(name), n)):
                hint = SINGLE_QUOTE_HINT
            if hint is NOT_UTF8_HINT and name is not None and utf16(_head(Path(name))):
                hint = UTF16_HINT
            return CsvProblem(name, n, reason(m), hint=hint)
    return CsvProblem(name, n, "malformed line")


def _head(path: Path) -> bytes:
    """The first 4096 bytes of a plain or .gz file (b"" for .zst or what cannot be read)."""
    with contextlib.suppress(OSError, EOFError, zlib.error):
        if path.suffix.lower() != ".zst":
            with (gzip.open if path.suffix.lower() == ".gz" else open)(path, "rb") as f:
                return f.read(4096)
    return b""


def utf16(head: bytes) -> str | None:
    """'UTF-16LE'/'UTF-16BE' for text in UTF-16 (a byte-order mark, or a zero byte beside
    nearly every other one, as ASCII in UTF-16 has), else None."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16LE" if head.startswith(b"\xff\xfe") else "UTF-16BE"
    evens, odds = head[0::2].count(0), head[1::2].count(0)
    if len(head) >= 4 and odds > len(head) // 4 and evens <= odds // 8:
        return "UTF-16LE"
    if len(head) >= 4 and evens > len(head) // 4 and odds <= evens // 8:
        return "UTF-16BE"
    return None


def utf16_without_bom(path: Path) -> str | None:
    """The UTF-16 of a CSV without a byte-order mark, which DuckDB reads as UTF-8 with
    zero bytes, its error saying nothing of the encoding."""
    head = _head(path)
    return None if head.startswith((b"\xff\xfe", b"\xfe\xff")) else utf16(head)


def _lines(path: Path, number: int = 1) -> tuple[str | None, str | None]:
    """The header and line `number` of a CSV, decompressed (by DuckDB: Python has no
    zstd before 3.14); None for what cannot be read."""
    con = duckdb.connect(":memory:")
    try:
        lines = [r[0] for r in con.execute(
            f"SELECT line FROM read_csv({literal(str(literal_path(path)))}, header = false, "
            f"auto_detect = false, delim = {literal(chr(1))}, quote = '', escape = '', "
            "columns = {'line': 'VARCHAR'}, strict_mode = false, ignore_errors = true) "
            f"LIMIT {number}").fetchall()]
    except duckdb.Error:
        return None, None
    finally:
        con.close()
    return (lines[0] if lines else None), (lines[number - 1] if len(lines) >= number else None)


def header_line(path: Path) -> str | None:
    """The first line of a CSV (decompressed), None when it has none."""
    return _lines(path)[0]


def repeated_header_names(path: Path) -> dict[str, list[int]]:
    """Names the header of a CSV holds more than once, ignoring case and spaces as DuckDB
    does, with their 1-based positions: DuckDB renames the later ones (cluster_id_1),
    and the first would be used without a word."""
    header = header_line(path) or ""
    positions: dict[str, list[int]] = {}
    for k, name in enumerate(header.split(max(DELIMITERS, key=header.count)), start=1):
        positions.setdefault(name.strip().strip('"').strip().lower(), []).append(k)
    return {name: ks for name, ks in positions.items() if len(ks) > 1}


def strict_csv_problem(path: Path) -> CsvProblem | None:
    """The first malformed line of a CSV whose header was not understood, read strictly
    with the delimiter its header holds most of; None when it parses (then the header
    lacks a column). The sniffer settles otherwise on one value a line."""
    header = header_line(path) or ""
    delim = max(DELIMITERS, key=header.count)
    if not header.count(delim):
        return None
    columns = ", ".join(f"'c{k}': 'VARCHAR'" for k in range(header.count(delim) + 1))
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
def reading(labels: dict[str, str]) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-process DuckDB reading the user's files, its errors worded (`read_error`)."""
    con = duckdb.connect(":memory:")
    try:
        yield con
    except duckdb.Error as err:
        raise (read_error(err, labels) or EngineError(shown(str(err)))) from err
    finally:
        con.close()


def file_columns(path: Path, fmt: str, labels: dict[str, str]) -> list[str]:
    """The column names DuckDB reads from a CSV/Parquet file, without reading its rows."""
    with reading(labels) as con:
        return [d[0] for d in con.execute(
            f"SELECT * FROM {file_source(path, fmt)} LIMIT 0").description]


def copy_file(path: Path, fmt: str, out: Path, string_columns: Sequence[str],
              labels: dict[str, str]) -> list[tuple[str, str]]:
    """Write the rows of a CSV/Parquet file as DuckDB reads them to `out` (Parquet for
    Spark; for PostgreSQL's COPY a CSV that reads back to the same values) and return
    their (column name, DuckDB type), so every engine sees the same input."""
    with reading(labels) as con:
        source = read_source(con, path, fmt, string_columns)
        columns = [(d[0], str(d[1])) for d in
                   con.execute(f"SELECT * FROM {source} LIMIT 0").description]
        if out.suffix == ".parquet":
            con.execute(f"COPY (SELECT * FROM {source}) TO {literal(str(out))} "
                        "(FORMAT PARQUET)")
            return columns
        casts = {"nested": "JSON", "float": "DOUBLE"}
        exprs = [f"CAST({ident(n)} AS {casts[categorise(t)]}) AS {ident(n)}"
                 if categorise(t) in casts else ident(n) for n, t in columns]
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
    arrays, select = {}, []
    for k, (column, t) in enumerate(zip(columns, given, strict=True)):
        kind = sql_type_of(row[k] for row in rows) if t is None else t
        # a decimal as text: DuckDB scans Decimals as the DECIMAL of the first one's
        # digits, and a wider value failed; a kept float as its repr (nan, inf, 0.1)
        conv = (str if categorise(kind) == "decimal" else _float_text
                if keep_nan and categorise(kind) == "float"
                else {"VARCHAR": str, "DOUBLE": float}.get(kind) if t is None else None)
        arrays[f"c{k}"] = np.array([None if r[k] is None else conv(r[k]) if conv else r[k]
                                    for r in rows], dtype=object)
        select.append(f"CAST(c{k} AS {kind}) AS {ident(column)}")
    scan = f"abcde_rows_{secrets.token_hex(6)}"
    con.register(scan, arrays)
    try:
        con.execute(f"CREATE {'TEMP ' if temp else ''}TABLE {ident(name)} AS "
                    f"SELECT {', '.join(select)} FROM {scan}")
    finally:
        con.unregister(scan)


def _float_text(value: object) -> str:
    return repr(float(value))  # type: ignore[arg-type]


def copy_query(relation: str, columns: Sequence[tuple[str, str]], fmt: str,
               order_by: Sequence[str] = ()) -> str:
    """The query DuckDB's COPY writes a table's file from, rows in `order_by` order; in
    CSV a NaN or infinite float is spelled NaN, Infinity, -Infinity, as abcde's JSON
    does. `columns`: (name, DuckDB type) of `relation`."""
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
               types: Sequence[str | None] | None = None, *, copied: Path | None = None
               ) -> None:
    """Write rows to one Parquet or CSV file, in order; `types` (`create_table`): a
    column's DuckDB type where the engine's says more than the Python values (a DATE
    stays a DATE). With `copied`, the rows are that CSV of PostgreSQL's COPY ... TO
    (FORMAT csv, FORCE_QUOTE *: "" is ''), each column of its type in `types`."""
    con = duckdb.connect(":memory:")
    try:
        if copied is None:
            create_table(con, "t", columns, rows, types=types, keep_nan=True)
        else:
            spec = ", ".join(f"{literal(n)}: {literal(str(t))}"
                             for n, t in zip(columns, types or (), strict=True))
            con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv({literal(str(copied))}, "
                        "header = false, delim = ',', quote = '\"', escape = '\"', "
                        f"allow_quoted_nulls = false, auto_detect = false, columns = {{{spec}}})")
        described = [(r[0], r[1]) for r in con.execute("DESCRIBE t").fetchall()]
        option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
        con.execute(f"COPY ({copy_query('t', described, fmt)}) TO {literal(str(path))} "
                    f"({option})")
    finally:
        con.close()
