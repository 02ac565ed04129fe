"""Inputs: files (CSV, Parquet), tables of a database, DataFrames or Python mappings,
registered with the engine and checked for the columns and id types abcde needs.

What the user names is `abcde.inputs.spec`; `abcde.inputs.session` opens a whole
specification; row-level checks run in SQL: `abcde.inputs.checks`.
"""

from __future__ import annotations

import functools
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from abcde.engines.base import Engine, TypeCategory, categorise, plain
from abcde.engines.files import (
    CSV_COMPRESSIONS,
    SINGLE_QUOTE_HINT,
    file_format,
    header_line,
    repeated_header_names,
    strict_csv_problem,
    utf16_without_bom,
)
from abcde.errors import EngineError, InputError, Shown
from abcde.inputs.spec import Columns
from abcde.sql.quoting import ident
from abcde.sql.templates import render

# The SQL type each id category is normalised to.
ID_TYPES: dict[str, str] = {"integer": "BIGINT", "string": "VARCHAR"}
# Integer types BIGINT cannot hold (64-bit hashes are often UBIGINT): such ids are
# compared as text, in every input alike, so that they match exactly.
WIDE_INTEGERS = ("UBIGINT", "HUGEINT", "UHUGEINT")
ATTRIBUTE_TYPES: dict[str, str] = {"integer": "BIGINT", "string": "VARCHAR", "float": "DOUBLE",
                                   "decimal": "DOUBLE", "boolean": "BOOLEAN"}


@dataclass
class Source:
    """One registered input."""

    role: str  # base, exp, weights, attributes, truth, actual, ...
    label: str  # how messages name it, e.g. "base (examples/base.csv)"
    relation: str  # a quoted reference usable after FROM
    columns: dict[str, str] = field(default_factory=dict)  # name -> engine type
    path: Path | None = None  # of a file input
    fmt: str | None = None  # csv or parquet, for a file input
    index: tuple[str, ...] = ()  # the names of a pandas DataFrame's index (not read)
    pandas: bool = False  # a pandas DataFrame (hints say what to do in pandas)

    @functools.cached_property
    def repeated_header(self) -> dict[str, list[int]]:
        """The names a CSV's header holds more than once (`repeated_header_names`), read
        once for every column `require` checks."""
        if self.fmt != "csv" or self.path is None:
            return {}
        return repeated_header_names(self.path)

    def category(self, column: str) -> TypeCategory:
        return categorise(self.columns[column])

    def has(self, column: str) -> bool:
        return column in self.columns

    def require(self, column: str, option: str, purpose: str,
                shared_by: Sequence[Source] = ()) -> None:
        """Refuse a missing column, naming the columns there are. `shared_by`: the other
        inputs the option names a column of; those that have it make the hint say to
        rename this one's, since changing the option would lose theirs."""
        twice = self.repeated_header.get(column.strip().lower())
        if twice:
            # an export of a join (item_id,cluster_id,cluster_id): which one?
            raise InputError(
                f"the header names column {column!r} {len(twice)} times (fields "
                f"{', '.join(map(str, twice))}, names compared ignoring case, as DuckDB "
                "reads them); only the first would be read", table=self.label,
                column=column, hint="Rename or drop the others, so that the header names "
                                    "each column once.")
        if column in self.columns:
            return
        if self.fmt == "csv" and self.path is not None:
            # a malformed CSV is sniffed as one column per line: say what is wrong
            problem = strict_csv_problem(self.path)
            if problem is not None:
                raise InputError(problem.message(), table=self.label, hint=problem.hint)
        shown = ", ".join(repr(c) for c in self.columns) or "(none)"
        having = [o.label for o in shared_by if o.has(column)]
        hint = (f"Name the column with {option}." if not having else
                f"{option} names it in every input at once, and {' and '.join(having)} "
                f"{'has' if len(having) == 1 else 'have'} {column!r}: rename the column of "
                f"{self.label} to {column!r} too.")
        if self.fmt == "csv" and len(self.columns) == 1:
            # e.g. `item_id:cluster_id`: a delimiter no engine sniffs
            hint += (" The file was read as one column: its fields must be separated by a "
                     "comma, a tab, ; or | (the one its header line holds).")
        if self.fmt == "csv" and f"'{column}'" in self.columns:  # quoted with ', read as is
            hint = SINGLE_QUOTE_HINT
        cased = [c for c in self.columns if c.strip().lower() == column.lower()]
        if cased:  # ITEM_ID, 'item_id ': names are matched exactly
            hint = (f"It has {cased[0]!r}, which differs in case or spaces: column names "
                    f"must match exactly. {hint}")
        if column in self.index:  # df.set_index('item_id'): the ids are not a column
            hint = (f"{column!r} is the DataFrame's index, which is not read: pass "
                    "df.reset_index().")
        raise InputError(
            f"no column {column!r} ({purpose}); its columns are {shown}",
            table=self.label,
            column=column,
            hint=hint,
        )

    def require_scalar(self, column: str) -> None:
        """Ids, weights and slice values are single values, not lists, structs or maps."""
        if self.category(column) == "nested":
            raise InputError(
                f"has type {self.columns[column]}; ids, weights and slice columns must hold "
                "single values (not lists, structs or maps)", table=self.label, column=column,
                hint="Extract the value into a column of its own.")


def _describe(source: object) -> str:
    if isinstance(source, str | Path):
        return str(source)
    return type(source).__name__


def names_a_file(path: Path, *, database: bool) -> bool:
    """Whether a name given as an input is a file (else a table of the engine): a known
    file suffix (.csv, .csv.gz, .parquet, ...) makes it a file; so does existing, unless a
    database was given (`--db`), where a file or directory of the same name in the
    working directory must not shadow the table."""
    return file_format(path) is not None or (path.exists() and not database)


def open_source(engine: Engine, role: str, source: object, *,
                string_columns: Sequence[str] = (),
                mapping_columns: Sequence[str] = ("item_id", "value"),
                id_values: bool = False) -> Source:
    """Register `source` under a private name and read its columns. A str/Path is a file
    (`names_a_file`), else a table of the engine; `string_columns` (the ids) of a CSV are
    read as text (007 is not 7), and of a DataFrame hold one Python type; a mapping
    {item: value} is a table of `mapping_columns` (ids when `id_values`), {item: {column:
    value}} keeps its column names."""
    name = f"abcde_src_{role}"
    label = f"{role} ({_describe(source)})"
    path: Path | None = None
    fmt: str | None = None
    if isinstance(source, Mapping):
        value_cols = _mapping_columns(source) or list(mapping_columns[1:])
        rows = _mapping_rows(source, label, mapping_columns[0],
                             mapping_columns[1] if id_values else None)
        engine.register_rows(name, [mapping_columns[0], *value_cols], rows)
        relation = ident(name)
    elif isinstance(source, str | Path):
        path = Path(source)
        fmt = file_format(path)
        if names_a_file(path, database=engine.user_db is not None):
            relation = _register_file(engine, name, path, fmt, label, string_columns)
        else:
            relation = _existing_table(engine, str(source), label)
    elif engine.reads_frames:
        _refuse_no_table(source, label, mapping_columns)
        try:
            engine.register_relation(name, _one_type_per_column(source, label,
                                                                string_columns))
        except InputError as err:  # the engine's reason, for the input it concerns
            if err.table is not None:
                raise
            raise InputError(str(err), table=label) from err
        relation = ident(name)
    else:
        raise InputError(f"cannot read a {type(source).__name__} on this engine", table=label)
    try:
        columns = dict(engine.columns(relation))
    except EngineError as err:
        raise InputError(f"cannot be read: {err}", table=label) from err
    return Source(role, label, relation, columns, path if fmt else None, fmt,
                  _index_names(source), _is_pandas_frame(source))


def _refuse_no_table(source: object, label: str, mapping_columns: Sequence[str]) -> None:
    """Refuse what is no table before the engine sees it: its error named abcde's
    private relation (abcde_src_base) and DuckDB's own API."""
    if hasattr(source, "to_frame") and not hasattr(source, "columns"):  # a pandas Series
        raise InputError(
            "a Series is no table: its index would not be read", table=label,
            hint=f"Pass series.rename_axis({mapping_columns[0]!r}).reset_index("
                 f"name={mapping_columns[1]!r}) (a DataFrame) or series.to_dict().")
    if hasattr(source, "read_all") and hasattr(source, "read_next_batch"):
        # a stream is read once, and abcde reads an input more than once: the second
        # read failed deep in the run (DuckDB: "already been consumed")
        raise InputError(f"a {type(source).__name__} can be read only once, and an input "
                         "is read more than once", table=label,
                         hint="Pass reader.read_all() (an Arrow table).")
    if source is None or isinstance(source, bytes | int | float | complex | bool
                                    | Sequence | set | frozenset):
        what = "None" if source is None else f"a {type(source).__name__}"
        raise InputError(f"{what} is no table", table=label,
                         hint="Give a CSV/Parquet path, a table, a DataFrame or a mapping "
                              "{item: value}.")
    names = [str(c) for c in getattr(source, "column_names", None) or
             (list(source.columns) if _is_pandas_frame(source) else [])]  # type: ignore[attr-defined]
    repeated = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    if repeated:
        # DuckDB renames the second 'cluster_id' to cluster_id_1 and abcde read the first:
        # which one was meant is the user's to say
        raise InputError(f"column names are repeated: {', '.join(map(repr, repeated))}; "
                         "only the first would be read", table=label, column=repeated[0],
                         hint="Drop or rename the repeated columns (pandas: "
                              "df.loc[:, ~df.columns.duplicated()] keeps the first).")


# pandas' names (infer_dtype) for an object column holding values of several types
MIXED_KINDS = ("mixed", "mixed-integer", "mixed-integer-float")
# the values a mixed column is made one type of (those a CSV spells)
SCALARS = (str, int, float, Decimal, bool)


def _one_type_per_column(frame: Any, label: str, id_columns: Sequence[str]) -> Any:
    """A pandas DataFrame whose object columns each hold one type (DuckDB types an object
    column from sampled rows and casts or fails the others): mixed ids are refused
    (`_check_ids`), another mixed column is DOUBLE if all numbers, else text."""
    if not _is_pandas_frame(frame):
        return frame
    from pandas.api.types import infer_dtype

    mixed = [c for c, dtype in frame.dtypes.items() if str(dtype) == "object"
             and infer_dtype(frame[c], skipna=True) in MIXED_KINDS]
    if not mixed:
        return frame
    frame = frame.copy(deep=False)  # the caller's frame is left as it was
    for column in mixed:
        values = [plain(v) for v in frame[column].tolist()]
        present = [v for v in values if missing_as_none(v) is not None]
        if column in id_columns:
            _check_ids(present, label, str(column))
        if not all(isinstance(v, SCALARS) for v in present):
            continue  # lists, dicts, dates: the engine reads (or refuses) them as before
        if all(isinstance(v, int | float | Decimal) and not isinstance(v, bool)
               for v in present):
            frame[column] = [None if missing_as_none(v) is None else float(v) for v in values]
            frame[column] = frame[column].astype("float64")
        else:
            frame[column] = [None if missing_as_none(v) is None else str(v) for v in values]
    return frame


def missing_as_none(value: Any) -> Any:
    """None for a missing value of a pandas column (None, a float NaN, pd.NA, NaT), as
    a file's NULL reads; else the value."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    return None if type(value).__name__ in ("NAType", "NaTType") else value


def _is_pandas_frame(source: object) -> bool:
    return type(source).__module__.startswith("pandas") and hasattr(source, "columns")


def _index_names(source: object) -> tuple[str, ...]:
    """The names of a pandas DataFrame's index levels: a column set as the index is no
    column of the table the engine reads."""
    if not _is_pandas_frame(source):
        return ()
    return tuple(str(n) for n in source.index.names if n is not None)  # type: ignore[attr-defined]


def _register_file(engine: Engine, name: str, path: Path, fmt: str | None, label: str,
                   string_columns: Sequence[str]) -> str:
    try:
        info = path.stat()
    except OSError as err:  # ENOENT, ELOOP (a symbolic link loop), EACCES, ...
        raise InputError(f"file {path} does not exist" if isinstance(err, FileNotFoundError)
                         else f"cannot open {path}: {err.strerror or err}",
                         table=label) from None
    problem = (f"{path} is a directory, not a file" if stat.S_ISDIR(info.st_mode) else
               # a named pipe or <(command): the engines read a file more than once
               f"{path} is not a regular file (a pipe or a device)"
               if not stat.S_ISREG(info.st_mode) else
               f"cannot tell the format of {path}: name it .csv (.csv.gz, .csv.zst) or "
               ".parquet" if fmt is None else
               f"{path} is empty (0 bytes)" if info.st_size == 0 else
               f"{path} holds no header line once decompressed (an empty file, compressed)"
               if fmt == "csv" and path.suffix.lower() in CSV_COMPRESSIONS
               and header_line(path) is None else None)
    hint = ("Write the data to a CSV or Parquet file and give that file."
            if problem is not None and "regular" in problem else None)
    if problem is None and fmt == "csv" and (utf16 := utf16_without_bom(path)) is not None:
        problem = (f"{path} is {utf16} text without a byte-order mark (a zero byte beside "
                   "every character), not UTF-8")
        hint = (f"Save it as UTF-8: iconv -f {utf16} -t UTF-8 old.csv > new.csv, or in "
                "Excel as CSV UTF-8.")
    if problem is not None:
        raise InputError(problem, table=label, hint=hint)
    labels = engine.file_labels  # for the engines' errors on lines past the sniffed rows
    known = labels.get(str(path))
    labels[str(path)] = label if known in (None, label) else f"{known} and {label}"
    try:
        # a CSV's id columns are read as text: those of its columns, which the engine
        # tells from the header (where registering copies the rows) or from a first
        # registration
        known = engine.csv_columns(path) if fmt == "csv" and string_columns else None
        if known is None:
            engine.register_file(name, path, fmt)
            known = [c for c, _ in engine.columns(ident(name))]
            wanted = [c for c in string_columns if c in known]
            if fmt == "csv" and wanted:
                engine.register_file(name, path, fmt, wanted)
        else:
            engine.register_file(name, path, fmt, [c for c in string_columns if c in known])
        engine.columns(ident(name))  # reading the schema fails here for an unreadable file
    except EngineError as err:
        raise InputError(f"cannot read {path} as {fmt.upper()}: {_first_line(err)}",
                         table=label) from err
    return ident(name)


def _existing_table(engine: Engine, table: str, label: str) -> str:
    relation = engine.user_table(table)
    if not engine.table_exists(relation):
        problem, hint = engine.missing_table(table, relation)
        raise InputError(problem, table=label, hint=hint)
    return relation


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    line = text.splitlines()[0] if text else type(err).__name__
    for prefix in ("DuckDB refused a statement: ", "DuckDB refused a query: "):
        line = line.removeprefix(prefix)
    return line


def _mapping_columns(mapping: Mapping[Any, Any]) -> list[str]:
    """Column names of a {item: {column: value}} mapping; [] for {item: value}."""
    names: dict[str, None] = {}
    for value in mapping.values():
        if not isinstance(value, Mapping):
            return []
        names.update(dict.fromkeys(value))
    return list(names)


INT64 = (-(2**63), 2**63 - 1)


def _check_ids(values: Sequence[Any], label: str, column: str) -> None:
    """Ids of a mapping: of one type (1 and '1' must not become one id in SQL), and
    integers that BIGINT holds."""
    kinds: dict[str, Any] = {}  # type name -> its first id
    for v in values:
        if v is not None:
            kinds.setdefault(type(v).__name__, v)
    if len(kinds) > 1:
        raise InputError(f"ids of mixed Python types ({', '.join(sorted(kinds))}): 1 and "
                         "'1' would be one id", table=label, column=column,
                         examples=[Shown(f"{v!r} ({k})") for k, v in sorted(kinds.items())],
                         hint="Give every id with one type, e.g. all strings.")
    wide = [v for v in values if isinstance(v, int) and not isinstance(v, bool)
            and not INT64[0] <= v <= INT64[1]]
    if wide:
        raise InputError("integer ids must fit in 64 bits (signed)", table=label,
                         column=column, examples=list(dict.fromkeys(wide)),
                         hint="Give the ids as strings.")


def _mapping_rows(mapping: Mapping[Any, Any], label: str, key_column: str,
                  id_column: str | None) -> list[tuple]:
    cols = _mapping_columns(mapping)
    items = [(plain(k), {c: plain(x) for c, x in v.items()} if cols else plain(v))
             for k, v in mapping.items()]
    _check_ids([k for k, _ in items], label, key_column)
    if not cols:
        if id_column is not None:
            _check_ids([v for _, v in items], label, id_column)
            return items
        return [(k, _number(v)) for k, v in items]
    return [(k, *(_number(v.get(c)) for c in cols)) for k, v in items]


def _number(value: Any) -> Any:
    """An integer weight or attribute BIGINT cannot hold, as a float."""
    if isinstance(value, int) and not INT64[0] <= value <= INT64[1]:
        return float(value)
    return value


def id_type(sources: Sequence[Source], item_col: str) -> str:
    """The one SQL type of item ids across inputs; refuses mixed or unusable types."""
    cats = {s.label: _id_category(s, item_col) for s in sources}
    for s in sources:
        if cats[s.label] not in ID_TYPES:
            raise InputError(
                f"item ids have type {cats[s.label]} ({s.columns[item_col]}); ids must be "
                "integers or strings", table=s.label, column=item_col,
                hint=_id_hint(s, item_col))
    if len(set(cats.values())) > 1:
        shown = "; ".join(f"{label}: {cat}" for label, cat in cats.items())
        texts = [s.label for s in sources if s.fmt == "csv" and cats[s.label] == "string"]
        hint = "Store the ids with one type in every input (e.g. all strings)."
        if texts:
            hint = (f"CSV ids are read as text (so that 007 stays 007): {', '.join(texts)}. "
                    "Store the ids of the other inputs as strings too (e.g. CAST(item_id "
                    "AS VARCHAR) into a new Parquet file), or give every input as Parquet "
                    "with integer ids.")
        raise InputError(
            f"item ids have different types in the inputs ({shown}), so no id could match",
            column=item_col, hint=hint)
    if any(_wide(s, item_col) for s in sources):
        return "VARCHAR"
    return ID_TYPES[next(iter(cats.values()))]


# a decimal of scale 0 (PostgreSQL's numeric(20,0), the usual column for unsigned 64-bit
# keys; a Parquet DECIMAL(20,0)) holds whole numbers: an integer id
_WHOLE_DECIMAL = re.compile(r"(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*,\s*0\s*\)")


def _id_category(source: Source, column: str) -> str:
    """The kind of id a column holds. A UUID (a PostgreSQL uuid, a Parquet UUID) is an id
    of text, compared by its canonical text (lower-case hex with dashes, as DuckDB and
    PostgreSQL write it), so it matches the same UUIDs stored as text elsewhere; a
    decimal of scale 0 is an integer id."""
    type_name = source.columns[column].strip().upper()
    if type_name == "UUID":
        return "string"
    if _WHOLE_DECIMAL.fullmatch(type_name):
        return "integer"
    return source.category(column)


def _wide(source: Source, column: str) -> bool:
    """Integer ids BIGINT may not hold (compared as text in every input alike)."""
    type_name = source.columns[column].strip().upper()
    whole = _WHOLE_DECIMAL.fullmatch(type_name)
    return type_name in WIDE_INTEGERS or (whole is not None and int(whole[1]) > 18)


def cluster_type(source: Source, cluster_col: str) -> str:
    cat = _id_category(source, cluster_col)
    if cat not in ID_TYPES:
        raise InputError(f"cluster ids have type {cat} ({source.columns[cluster_col]}); they "
                         "must be integers or strings", table=source.label, column=cluster_col,
                         hint=_id_hint(source, cluster_col))
    return "VARCHAR" if _wide(source, cluster_col) else ID_TYPES[cat]


def _id_hint(source: Source, column: str) -> str:
    """What to do about ids of another type; for float ids of a DataFrame, why they are
    floats: pandas stores an integer column holding a missing value (NaN) as float."""
    if source.category(column) == "float" and source.pandas:
        return (f"Cast the ids to integers or strings. A pandas integer column with a "
                f"missing value is float: df[{column!r}].astype('Int64') keeps the integers "
                "(an item needs its id and a cluster: drop or fill the rows of NaN).")
    return "Cast the ids to integers or strings in the input."


# 0,75 or 1.234,5 (a thousands point): a number as European spreadsheets write it
_DECIMAL_COMMA = re.compile(r"[+-]?\d{1,3}(?:\.\d{3})*,\d+|[+-]?\d*,\d+")


def check_weight_column(engine: Engine, source: Source, columns: Columns) -> None:
    """Weights are numbers. When they are not, say whether the input is empty (a header
    alone reads as text) or which values are not numbers (the failure path only)."""
    source.require_scalar(columns.weight)
    if source.category(columns.weight) in ("integer", "float", "decimal"):
        return
    rows = _fetch(engine, render("inputs/non_numeric.sql", relation=source.relation,
                                 item_col=columns.item, weight_col=columns.weight,
                                 text=source.category(columns.weight) == "string"))
    if rows and int(rows[0]["input_rows"]) == 0:
        raise InputError("is empty (no rows)", table=source.label,
                         hint="Check the file or table name.")
    examples = [Shown(f"{r['item_id']!r}: {r['weight']!r}") for r in rows or []
                if r["item_id"] is not None or r["weight"] is not None]
    n = int(rows[0]["non_numeric"]) if rows else 0
    what = f"; {n} value(s) are not numbers (item id: value)" if n else ""
    as_text = (rows is not None and not n and int(rows[0]["present"]) > 0
               and source.category(columns.weight) == "string")
    if as_text:  # e.g. a DataFrame's object column holding '2' among numbers
        what = "; every value reads as a number, but some are stored as text"
    comma = next((r["weight"] for r in rows or [] if isinstance(r["weight"], str)
                  and _DECIMAL_COMMA.fullmatch(r["weight"].strip())), None)
    plain = ("Write weights as plain numbers (e.g. 1.5); text such as NULL or n/a is not "
             "a number.")
    if comma is not None:  # a European spreadsheet's export: say so, not just "not numbers"
        plain = (f"{comma!r} is written with a decimal comma, as European spreadsheets "
                 "export numbers: export the weights with a decimal point (in Excel, File > "
                 "Options > Advanced, untick 'Use system separators' and set the decimal "
                 "separator to '.').")
    raise InputError(
        f"weights must be numbers, but the column has type {source.columns[columns.weight]}"
        f"{what}", table=source.label, column=columns.weight, examples=examples,
        hint=(f"Store them as numbers (SQL: CAST({columns.weight} AS DOUBLE); pandas: "
              f"df[{columns.weight!r}] = pd.to_numeric(df[{columns.weight!r}]))." if as_text
              else plain) + (" An item without a weight has no row (then --missing-weight "
                              "W gives it W)." if source.role == "weights" else ""))


def _fetch(engine: Engine, query: Any) -> list[dict[str, Any]] | None:
    """Rows of a diagnostic query (failure path); None if the engine cannot run it."""
    from abcde.sql.dialects import to_sql

    try:
        return engine.fetch(to_sql(query, engine.dialect))
    except EngineError:
        return None


def attribute_type(source: Source, column: str) -> str:
    return ATTRIBUTE_TYPES.get(source.category(column), "VARCHAR")


