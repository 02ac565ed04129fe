"""Exploring the impact from an importance-weighted sample of affected items
(ABCDE §4.1.1; docs/method.md §7): the interactive slicing and dicing of §4.1.1.

`explore` groups a `sample_items` sample by attribute values (optionally filtered) and
ranks the groups by estimated contribution Σ_{i ∈ group} w(i)·m(i), with example items.
Its standard errors treat the Σdc draws as independent draws from q, each contributing
x = JD(T)·m(i)/JD(i)·1(i ∈ group): SE = sd(x)/√Σdc. A group too thin for that
(fewer than MIN_DRAWS draws or MIN_EFFECTIVE_DRAWS effective ones) is listed in its
place but marked `conclusive: false` (`conclusiveness`).

The sample is read once into a table of an in-memory DuckDB and checked before any
number is computed (`_open_sample`): a file edited in a spreadsheet (an empty cell, a
NaN or negative importance weight, a word in a number column, an item twice, an
importance weight that no longer fits its draw count) is refused naming the file, the
column and example rows, never summed into a wrong estimate."""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from abcde.cells import IMPACT_METRICS
from abcde.engines.base import categorise
from abcde.engines.files import file_format, strict_csv_problem
from abcde.errors import InputError, Shown
from abcde.inputs.spec import parse_slicings
from abcde.results import plain_row
from abcde.sampling.exported import snowflake_renames
from abcde.sql.helpers import rank_value
from abcde.sql.quoting import ident, table_ref

#: The columns of a sample that explore reads as numbers, and every column it needs.
NUMBER_COLUMNS = ("draw_count", "first_draw", "importance_weight", *IMPACT_METRICS)
REQUIRED_COLUMNS = ("item_id", *NUMBER_COLUMNS)
#: Id columns a CSV sample holds as text (007 is not 7).
ID_COLUMNS = ("item_id", "base_cluster", "exp_cluster")
#: Fields of a group in explore's output: no group column may have one of these names.
OUTPUT_FIELDS = ("items", "draws", "weight_share", "se", "contribution", "examples",
                 "effective_draws", "conclusive", "caveat",
                 *(f"contribution_{m}" for m in IMPACT_METRICS))
#: A group of fewer draws than MIN_DRAWS, or whose draws count as fewer equal ones than
#: MIN_EFFECTIVE_DRAWS, is not conclusive: its contribution ± 1.96·SE and its metric can
#: be badly wrong (docs/method.md §7.3 gives the coverage measured for the choice).
MIN_DRAWS = 10
MIN_EFFECTIVE_DRAWS = 5
#: The checked sample, a table of explore's own in-memory DuckDB.
SAMPLE_TABLE = "abcde_sample"
REDRAW = ("Draw the sample again rather than editing it: `abcde sample-items ... --out "
          "FILE --overwrite` (the same inputs and seed give the same sample), or run the "
          "`abcde sql sample-items` script again; to leave items out, use --where.")
PAIRS_GIVEN = ("explore reads the item sample of `abcde sample-items --out FILE` (affected "
               "items with importance weights); a pair sample is judged (`abcde judge DIR`) "
               "and estimated (`abcde estimate DIR`).")
EXAMPLES = 5
# |importance_weight·jaccard_distance/draw_count − its median| allowed, relative: the
# weights are double-precision quotients (12 significant digits of JD(T) at least)
RATIO_TOLERANCE = 1e-6
# |split_distance + merge_distance − jaccard_distance| and |jaccard_index +
# jaccard_distance − 1| allowed: each is a quotient of the same cell's weights
IDENTITY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class OpenedSample:
    """A sample read into `SAMPLE_TABLE` and checked (`_open_sample`)."""

    label: str  # how messages name it: "sample (items.csv)"
    columns: dict[str, str]  # name -> DuckDB type, in the sample's order
    rows: int


def _where(where: str | None, columns: Sequence[str] = ()) -> exp.Expression | None:
    """A user's filter: one boolean SQL expression over the sample's columns (DuckDB
    syntax), parsed so that nothing but an expression gets through."""
    if not where:
        return None
    hint = ("Write one condition over the sample's columns in DuckDB SQL, e.g. --where "
            "\"weight > 1 AND provenance = 'upload'\"; text values go in single quotes."
            + (f" The sample's columns are {', '.join(columns)}." if columns else ""))
    try:
        cond = sqlglot.parse_one(where, read="duckdb", into=exp.Condition)
    except sqlglot.errors.SqlglotError as err:
        raise InputError(f"--where {where!r} is not an SQL condition: {_parse_problem(err)}",
                         hint=hint) from None
    if cond.find(exp.Query, exp.Command, exp.Create, exp.Drop, exp.Insert, exp.Delete):
        raise InputError("--where must be a condition over the sample's columns, not a "
                         "query", hint=hint)
    return cond


def _parse_problem(err: Exception) -> str:
    """Where and why sqlglot could not parse a filter, in words: its messages name its
    own classes ("Required keyword: 'expression' missing for <class ...GT>")."""
    found = getattr(err, "errors", None) or [{}]
    first = found[0]
    token = first.get("highlight") or ""
    description = first.get("description") or ""
    if not token or not first.get("col"):  # a tokenizer error: no position is given
        return "it cannot be read as SQL (an unclosed quote?)"
    # sqlglot's col is where the token ends (1-based)
    at = f"at character {int(first['col']) - len(token) + 1}"
    if int(first.get("line") or 1) > 1:
        at = f"on line {first['line']}, {at}"
    if description.startswith("Required keyword"):
        return f"{token!r} {at} lacks what should follow it (a value or a column)"
    if description.startswith("Expecting "):
        return f"{description.removeprefix('Expecting ')!r} expected {at}, before {token!r}"
    return f"{token!r} {at} is not expected there"


#: Operators of `filters` → their SQL (the only SQL a filter brings; its value is a
#: bound parameter and its column one of the sample's, quoted). `!=` keeps the rows whose
#: value is NULL: the page shows them as a group of their own, "(none)", which `<>`
#: dropped unseen ("provenance != crawl" lost the (none) group with crawl).
FILTER_OPS = {"=": "=", "!=": "IS DISTINCT FROM", "<": "<", "<=": "<=", ">": ">",
              ">=": ">=", "contains": "contains"}


def _filter_sql(filters: Sequence[tuple[str, str, Any]], types: dict[str, str]
                ) -> tuple[list[str], list[Any]]:
    """SQL conditions with ? placeholders, and their parameters, for (column, operator,
    value) filters: the column must be one of the sample's, the operator one of
    :data:`FILTER_OPS`; the value is cast in SQL to the column's type."""
    conds, params = [], []
    for column, op, value in filters:
        if column not in types:
            raise InputError(f"filter on {column!r}: the sample has no such column; its "
                             f"columns are {', '.join(types)}")
        if op not in FILTER_OPS:
            raise InputError(f"filter on {column!r}: unknown operator {op!r} (one of "
                             f"{', '.join(FILTER_OPS)})")
        if op == "contains":
            conds.append(f"contains(CAST({ident(column)} AS VARCHAR), CAST(? AS VARCHAR))")
        else:  # the type comes from DESCRIBE, never from the user
            conds.append(f"{ident(column)} {FILTER_OPS[op]} CAST(? AS {types[column]})")
        params.append(value)
    return conds, params


_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                  "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT")
#: DuckDB's physical type names, as its conversion errors give them → the SQL names
_SQL_TYPES = {"INT8": "TINYINT", "INT16": "SMALLINT", "INT32": "INTEGER", "INT64": "BIGINT",
              "INT128": "HUGEINT", "UINT8": "UTINYINT", "UINT16": "USMALLINT",
              "UINT32": "UINTEGER", "UINT64": "UBIGINT", "UINT128": "UHUGEINT"}


def _a(kind: str) -> str:
    """"a DOUBLE", "an INTEGER"."""
    return f"{'an' if kind[:1] in 'AEIOU' else 'a'} {kind}"


def _not_a(value: Any, sql_type: str) -> str:
    """Why `value` does not convert to a column of `sql_type`, in words: "is not a
    number", rather than DuckDB's "Conversion Error: Could not convert string ..."."""
    kind = sql_type.upper()
    text = str(value).strip()
    numeric = kind in ("DOUBLE", "FLOAT", "REAL") or kind.startswith("DECIMAL")
    if (kind in _INTEGER_TYPES or numeric) and any(
            c.isdigit() and not c.isascii() for c in text):
        # "１", "٣": digits to Python's int() (which took "１" for 1: "out of range"),
        # not to the engine
        return "is not a number (write it with the digits 0-9)"
    if kind in _INTEGER_TYPES:
        try:
            int(text)
        except ValueError:
            try:
                float(text)
            except ValueError:
                return "is not a number"
            return "is not a whole number"
        return f"is out of the range of {_a(kind)}"
    if numeric:
        return "is not a number"
    if kind == "BOOLEAN":
        return "is not true or false"
    if kind == "DATE":
        return "is not a date (e.g. 2024-01-31)"
    if kind.startswith("TIMESTAMP"):
        return "is not a date and time (e.g. 2024-01-31 12:30:00)"
    return f"cannot be read as {_a(kind)}"


def _check_filter_values(con: duckdb.DuckDBPyConnection,
                         filters: Sequence[tuple[str, str, Any]], types: dict[str, str]
                         ) -> None:
    """Refuse a filter value that does not convert to its column's type (a word where a
    number is compared), naming the value, the column and its type; run before the
    query, whose error would be DuckDB's. `contains` compares text: any value does."""
    for column, op, value in filters:
        if op == "contains" or value is None:
            continue
        bad = con.execute(f"SELECT TRY_CAST(? AS {types[column]}) IS NULL",
                          [value]).fetchone()
        if bad is not None and bad[0]:
            raise InputError(f"the filter value {value!r} {_not_a(value, types[column])}; "
                             f"{column} is {_a(types[column])} column")


def _group_columns(group_by: str | Sequence[str]) -> list[str]:
    """--group-by's columns: "" (the default) is none; an empty name ("a,", "a,,b") or a
    name given twice is refused, as --slice-by's are."""
    if isinstance(group_by, str):
        groups = parse_slicings(group_by, option="--group-by")[0] if group_by else []
    elif not isinstance(group_by, Iterable):
        raise InputError(f"--group-by takes column names, not {group_by!r}",
                         hint="e.g. --group-by provenance or --group-by provenance,country.")
    else:
        names = list(group_by)
        groups = parse_slicings([names], option="--group-by")[0] if names else []
    return groups


def _sample_path(sample: str | Path, db: str | Path | None) -> Path | None:
    """The sample's file, refused with what to do when it is not one; None when, with
    `db`, the name is a table of that database (a name without a file suffix, as for
    every input of abcde: abcde.inputs.sources.names_a_file)."""
    path = Path(sample)
    fmt = file_format(path)
    if db is not None and fmt is None:
        if not str(sample) or not all(str(sample).split(".")):
            raise InputError(f"{str(sample)!r} is not a table name",
                             hint="Name the table of --db that holds the sample, e.g. "
                                  "item_sample or main.item_sample.")
        return None
    give = ("Give the file `abcde sample-items --out` wrote (items.parquet or items.csv)"
            + ("" if db is not None else ", or with --db FILE the name of a table of that "
               "DuckDB database") + ".")
    if not path.exists():
        raise InputError(f"sample file {path} does not exist", hint=give)
    if path.is_dir():
        if (path / "draws.parquet").exists() or (path / "questions.csv").exists():
            raise InputError(f"sample {path} is the directory of a pair sample of `abcde "
                             "sample-pairs`, not an item sample file", hint=PAIRS_GIVEN)
        raise InputError(f"sample {path} is a directory, not a sample file", hint=give)
    if fmt is None:
        raise InputError(f"sample {path}: cannot tell the format; a sample file is named "
                         ".parquet or .csv", hint=give)
    return path


def _examples_of(con: duckdb.DuckDBPyConnection, kind: str, cond: str,
                 shown: Sequence[str], table: str = SAMPLE_TABLE) -> list[Shown]:
    """The first rows of `table` meeting `cond`, each as "line N: item 'x', column
    value"."""
    cols = ", ".join(ident(c) for c in shown)
    rows = con.execute(f"SELECT rowid, item_id, {cols} FROM {ident(table)} "
                       f"WHERE {cond} ORDER BY rowid LIMIT {EXAMPLES}").fetchall()
    return [Shown(_row_name(kind, r[0]) + ("" if r[1] is None else f": item {r[1]!r}")
                  + "".join(f", {c} {_value(v)}" for c, v in zip(shown, r[2:], strict=True)
                            if c != "item_id"))
            for r in rows]


def _row_name(kind: str, rowid: int) -> str:
    # a CSV's header is line 1; a spreadsheet numbers its rows alike
    return f"line {rowid + 2}" if kind == "csv" else f"row {rowid + 1}"


def _value(v: object) -> str:
    return "(empty)" if v is None else repr(v) if isinstance(v, str) else f"{v}"


def _check_values(con: duckdb.DuckDBPyConnection, label: str, kind: str) -> None:
    """Refuse a sample whose values `abcde sample-items` cannot have written: the first
    failing check names its column and example rows (docs/method.md §7.3)."""
    whole = "NOT (isfinite({c}) AND {c} >= 1 AND {c} = floor({c}))"
    checks: list[tuple[str, str, str, tuple[str, ...]]] = [
        ("item_id", "item_id IS NULL", "{n} row(s) have no item id", ("item_id",))]
    checks += [(c, f"{ident(c)} IS NULL", "{n} row(s) have no value (an empty cell)", (c,))
               for c in NUMBER_COLUMNS]
    checks += [
        ("importance_weight", "NOT (isfinite(importance_weight) AND importance_weight > 0)",
         "{n} value(s) are NaN, infinite, zero or negative; an importance weight is a "
         "finite number > 0", ("importance_weight",)),
        ("draw_count", whole.format(c="draw_count"), "{n} value(s) are not whole numbers "
         ">= 1 (how often the item was drawn)", ("draw_count",)),
        ("first_draw", whole.format(c="first_draw"), "{n} value(s) are not whole numbers "
         ">= 1 (the rank of the item's first draw)", ("first_draw",)),
        ("jaccard_distance", "NOT (jaccard_distance > 0 AND jaccard_distance <= 1)",
         "{n} value(s) are outside (0, 1]; only affected items (jaccard_distance > 0) are "
         "drawn", ("jaccard_distance",))]
    checks += [(m, f"NOT ({ident(m)} >= 0 AND {ident(m)} <= 1)",  # NaN fails both
                "{n} value(s) are outside [0, 1]", (m,))
               for m in IMPACT_METRICS if m != "jaccard_distance"]
    checks += [
        ("split_distance", "abs(split_distance + merge_distance - jaccard_distance) > "
         f"{IDENTITY_TOLERANCE}", "{n} row(s) have split_distance + merge_distance other "
         "than jaccard_distance", ("split_distance", "merge_distance", "jaccard_distance")),
        ("jaccard_index", f"abs(jaccard_index + jaccard_distance - 1) > {IDENTITY_TOLERANCE}",
         "{n} row(s) have jaccard_index other than 1 - jaccard_distance",
         ("jaccard_index", "jaccard_distance"))]
    counts = con.execute("SELECT " + ", ".join(f"COUNT(*) FILTER (WHERE {cond})"
                                               for _, cond, _, _ in checks)
                         + f" FROM {ident(SAMPLE_TABLE)}").fetchone()
    for (column, cond, message, shown), n in zip(checks, counts, strict=True):
        if n:
            raise InputError(message.format(n=f"{n:,}"), table=label, column=column,
                             examples=_examples_of(con, kind, cond, shown), hint=REDRAW)
    (n,) = con.execute(f"SELECT COUNT(*) - COUNT(DISTINCT item_id) FROM "
                       f"{ident(SAMPLE_TABLE)}").fetchone()
    if n:
        twice = con.execute(
            f"SELECT item_id, list(rowid ORDER BY rowid), COUNT(*) OVER () FROM "
            f"{ident(SAMPLE_TABLE)} GROUP BY item_id HAVING COUNT(*) > 1 ORDER BY min(rowid) "
            f"LIMIT {EXAMPLES}").fetchall()
        raise InputError(
            f"{twice[0][2]:,} item id(s) are on more than one row; a sample holds each "
            "item once, with how often it was drawn (draw_count)", table=label,
            column="item_id", hint=REDRAW, examples=[
                Shown(f"{r[0]!r} ({', '.join(_row_name(kind, k) for k in r[1])})")
                for r in twice])
    # w(i) = dc(i)/Σdc · JD(T)/JD(i): w·JD/dc is JD(T)/Σdc on every row (§7.3), so an
    # edited weight, draw count or distance shows as a row off the others' value
    ratio = "importance_weight * jaccard_distance / draw_count"
    (median,) = con.execute(f"SELECT median({ratio}) FROM {ident(SAMPLE_TABLE)}").fetchone()
    off = f"abs({ratio} - $m) > {RATIO_TOLERANCE} * $m"
    (n,) = con.execute(f"SELECT COUNT(*) FROM {ident(SAMPLE_TABLE)} WHERE {off}",
                       {"m": median}).fetchone()
    if n:
        rows = con.execute(
            f"SELECT rowid, item_id, importance_weight, draw_count, jaccard_distance, "
            f"$m * draw_count / jaccard_distance FROM {ident(SAMPLE_TABLE)} "
            f"WHERE {off} ORDER BY rowid LIMIT {EXAMPLES}", {"m": median}).fetchall()
        raise InputError(
            f"{n:,} importance weight(s) do not fit their row's draw_count and "
            "jaccard_distance: w(i) = dc(i)/Σdc·JD(T)/JD(i), so importance_weight · "
            "jaccard_distance / draw_count is the same on every row (docs/method.md §7.3)",
            table=label, column="importance_weight", hint=REDRAW, examples=[
                Shown(f"{_row_name(kind, r[0])}: item {r[1]!r}, importance_weight {r[2]:.6g},"
                      f" draw_count {r[3]:g}, jaccard_distance {r[4]:.6g} (the other rows "
                      f"give importance_weight {r[5]:.6g})") for r in rows])


def _check_manifest(con: duckdb.DuckDBPyConnection, path: Path, label: str,
                    rows: int) -> None:
    """A sample file beside its manifest (`<file>.manifest.json`, abcde sample-items)
    holds the items and draws the manifest records: rows deleted in a spreadsheet leave
    every row valid, and the estimates silently short of the deleted items' share."""
    import json

    from abcde.sampling.items import manifest_path

    where = manifest_path(path)
    try:
        manifest = json.loads(where.read_text(encoding="utf-8"))
        items, draws = int(manifest["unique_items"]), float(manifest["draws"])
    except (OSError, ValueError, TypeError, KeyError):
        return  # no manifest (an exported table) or not one: nothing to compare
    (total,) = con.execute(f"SELECT SUM(draw_count) FROM {ident(SAMPLE_TABLE)}").fetchone()
    if items != rows or not math.isclose(total, draws, rel_tol=1e-12):
        raise InputError(f"holds {rows:,} items and {total:,.0f} draws, but its manifest "
                         f"{where} records {items:,} and {draws:,.0f}: rows were removed "
                         "or added after it was drawn (or the manifest is another "
                         "sample's)", table=label, hint=REDRAW)


def _number_types(con: duckdb.DuckDBPyConnection, columns: dict[str, str], label: str,
                  kind: str, table: str = "TEMP TABLE") -> None:
    """Refuse a number column of the sample that holds other values (a word typed into a
    CSV makes DuckDB read its column as text); one of text that all reads as numbers
    (blank cells, padded numbers) is made DOUBLE."""
    cast = []
    for c in NUMBER_COLUMNS:
        category = categorise(columns[c])
        if category in ("integer", "float", "decimal"):
            continue
        if category != "string":
            raise InputError(f"has type {columns[c]}, not a number", table=label, column=c,
                             hint=REDRAW)
        cond = f"{ident(c)} IS NOT NULL AND TRY_CAST({ident(c)} AS DOUBLE) IS NULL"
        (n,) = con.execute(f"SELECT COUNT(*) FROM {ident(SAMPLE_TABLE)} "
                           f"WHERE {cond}").fetchone()
        if n:
            raise InputError(f"{n:,} value(s) are not numbers", table=label, column=c,
                             hint=REDRAW, examples=_examples_of(con, kind, cond, (c,)))
        cast.append(f"CAST({ident(c)} AS DOUBLE) AS {ident(c)}")
    if cast:  # in the same order: rowid still names the row
        con.execute(f"CREATE OR REPLACE {table} {ident(SAMPLE_TABLE)} AS SELECT * "
                    f"REPLACE ({', '.join(cast)}) FROM {ident(SAMPLE_TABLE)}")
        columns.update((r[0], r[1]) for r in con.execute(
            f"DESCRIBE {ident(SAMPLE_TABLE)}").fetchall())


@contextmanager
def _open_sample(sample: str | Path | Sequence[dict[str, Any]], db: str | Path | None,
                 engine: Any) -> Iterator[tuple[duckdb.DuckDBPyConnection, OpenedSample]]:
    """An in-memory DuckDB holding the sample, checked, as the table `SAMPLE_TABLE`
    (`_load_sample`), closed on leaving."""
    con = duckdb.connect(":memory:")
    try:
        yield con, _load_sample(con, sample, db, engine)
    finally:
        con.close()


def _sample_of(sample: Any) -> Any:
    """What `sample_items` returned (an ItemSample) as the sample it holds: its file when
    it wrote one without fetching the rows, else its rows; anything else as it is."""
    from abcde.sampling.items import ItemSample
    from abcde.sampling.pairs import PairSample

    if isinstance(sample, PairSample):
        raise InputError("is a pair sample (sample_pairs), not an item sample",
                         table="sample (PairSample)", hint=PAIRS_GIVEN)
    if not isinstance(sample, ItemSample):
        return sample
    if not sample.rows and sample.files.get("sample"):
        return Path(sample.files["sample"])
    return sample.rows


def _load_sample(con: duckdb.DuckDBPyConnection,
                 sample: str | Path | Sequence[dict[str, Any]], db: str | Path | None,
                 engine: Any, table: str = "TEMP TABLE") -> OpenedSample:
    """Read the sample into the table `SAMPLE_TABLE` of `con` (an in-memory DuckDB;
    a CSV's ids read as text) and check it. Every way the sample cannot be read or is
    not one is an InputError naming it, with what to do. `table`: "TEMP TABLE", or
    "TABLE" for one that every cursor of `con` sees (a TEMP table is its connection's
    own)."""
    from abcde.engines.duckdb import DuckDBEngine
    from abcde.inputs.sources import open_source

    con.execute("SET enable_progress_bar = false")  # no bar beside the table
    duck = DuckDBEngine(db=db, connection=con)  # --db read-only; its failures worded
    kind, path, frame = "rows", None, None
    sample = _sample_of(sample)
    if engine is not None:  # a table of a warehouse the engine reaches: the rows, once
        name = table_ref(str(sample))
        if not engine.table_exists(name):
            raise InputError(f"no table {sample}", hint="Name the table the `abcde sql "
                             "sample-items` script wrote (<prefix>item_sample).")
        rows = [plain_row(r) for r in engine.fetch(engine.select_sql(name))]
        label = f"sample ({sample})"
    elif isinstance(sample, str | Path):
        path = _sample_path(sample, db)
        kind = file_format(path) if path is not None else "table"
        rows = None
    elif not isinstance(sample, Sequence | Mapping) and (
            hasattr(sample, "columns") or hasattr(sample, "column_names")):
        frame, rows = sample, None  # a DataFrame or an Arrow table, read in place
    else:
        rows, label = [dict(r) for r in sample], "sample (rows)"
    if rows is not None:
        if not rows:
            return OpenedSample(label, {}, 0)
        duck.register_rows("abcde_src_sample", list(rows[0]),
                           [tuple(r.values()) for r in rows])
        relation = ident("abcde_src_sample")
    else:
        src = open_source(duck, "sample", frame if frame is not None else
                          str(sample) if path is None else path, string_columns=ID_COLUMNS)
        relation, label = src.relation, src.label
    # one read of the file, in its order (rowid + 1 is the row); read errors worded
    # (a CSV value past the rows DuckDB sniffed that is not of its column's type)
    # an item_sample table unloaded from Snowflake names its columns in upper case
    renames = snowflake_renames([c for c, _ in duck.columns(relation)], "item_id")
    select = ", ".join(f"{ident(c)} AS {ident(renames[c])}" if c in renames else ident(c)
                       for c, _ in duck.columns(relation)) if renames else "*"
    duck.execute(f"CREATE {table} {ident(SAMPLE_TABLE)} AS SELECT {select} FROM {relation}")
    columns = dict(duck.columns(ident(SAMPLE_TABLE)))
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing and kind == "csv" and path is not None:
        # a malformed CSV is sniffed as one column per line: say what is wrong
        problem = strict_csv_problem(path)
        if problem is not None:
            raise InputError(problem.message(), table=label, hint=problem.hint)
    if missing and "pair_id" in columns and ({"item_i", "item_j"} <= set(columns)
                                             or {"item_1", "item_2"} <= set(columns)):
        # the files of `abcde sample-pairs` (draws: item_i/item_j, questions:
        # item_1/item_2) were refused as an edited item sample ("Draw the sample again
        # rather than editing it"), for a file nobody edited
        raise InputError("is a pair sample of `abcde sample-pairs` (its columns are "
                         f"{', '.join(columns)}), not an item sample", table=label,
                         hint=PAIRS_GIVEN)
    if missing:
        raise InputError(f"lacks the column(s) {', '.join(missing)} of an item sample; "
                         f"its columns are {', '.join(columns) or '(none)'}", table=label,
                         hint=REDRAW)
    (count,) = con.execute(f"SELECT COUNT(*) FROM {ident(SAMPLE_TABLE)}").fetchone()
    if not count:  # nothing was affected; an empty CSV's columns would read as text
        return OpenedSample(label, columns, 0)
    _number_types(con, columns, label, kind, table)
    if categorise(columns["item_id"]) == "nested":
        raise InputError(f"has type {columns['item_id']}; an item id is one value",
                         table=label, column="item_id", hint=REDRAW)
    if "input_valid" in columns and con.execute(
            f"SELECT COUNT(*) FROM {ident(SAMPLE_TABLE)} "
            "WHERE NOT COALESCE(TRY_CAST(input_valid AS BOOLEAN), FALSE)").fetchone()[0]:
        raise InputError("the sample was drawn from input that failed its checks "
                         "(input_valid is FALSE)", table=label, hint="Read the script's "
                         "validation table, fix the input and run the script again.")
    _check_values(con, label, kind)
    if path is not None:
        _check_manifest(con, path, label, count)
    described = con.execute(f"DESCRIBE {ident(SAMPLE_TABLE)}").fetchall()
    return OpenedSample(label, {r[0]: r[1] for r in described}, count)


def sample_columns(sample: str | Path, db: str | Path | None = None) -> list[str]:
    """The columns of an item sample, once it is read and checked as `explore` checks
    it (refused, with the reason, when it is not a sample)."""
    with _open_sample(sample, db, None) as (_, opened):
        return list(opened.columns)


def explore(sample: str | Path | Sequence[dict[str, Any]] | Any, group_by: str | Sequence[str] = (),
            *, where: str | None = None, metric: str = "jaccard_distance", top: int = 20,
            examples: int = 3, filters: Sequence[tuple[str, str, Any]] = (),
            db: str | Path | None = None, engine: Any = None) -> dict[str, Any]:
    """Top groups of a `sample_items` sample by estimated contribution to `metric`(T)
    (ABCDE §4.1.1).

    Parameters
    ----------
    sample
        The sample file (.parquet or .csv), what `sample_items` returned, or the rows
        (a list of dicts, a DataFrame, an Arrow table) — e.g. `abcde sql sample-items`'s
        table `<prefix>item_sample` exported from a warehouse — or, with `db` or
        `engine`, the name of that table (with `db`, a name with a .parquet or .csv
        suffix is a file).
    group_by
        Attribute column(s) to group by ("a,b" or a list); none: one group.
    where
        A boolean SQL condition over the sample's columns, applied first.
    metric
        The impact metric whose contribution ranks the groups.
    top, examples
        Groups to return (0: all; the document's `total_groups` says how many there
        are); example items per group (the most drawn).
    db, engine
        A DuckDB database file (opened read-only), or an open engine (PostgreSQL,
        Spark), holding the sample as the table `sample` (schema.table).
    filters
        (column, operator, value) conditions applied with `where`: a column of the
        sample, an operator of :data:`FILTER_OPS`, a value bound as a query parameter
        (never written into the SQL) — what the exploration page sends.

    Returns
    -------
    dict
        Per group of attribute values: Σ w(i)·m(i) for every impact metric
        (`contribution_<metric>`), the estimated weight share Σ w(i), the estimated
        metric of the group's affected items, the sampled items and draws, an SE of the
        contribution to `metric`, and the example items; `effective_draws`,
        `conclusive` and `caveat` (`conclusiveness`) flag a group too thin for its
        numbers to be trusted as printed (shown, ranked as the others).

    Raises
    ------
    InputError
        For a sample that cannot be read or is not one as `abcde sample-items` writes
        it (a missing column, an empty cell, a value that is not a number or out of its
        range, an item twice, an importance weight that does not fit its draw count),
        naming the column and example rows; for a group column or condition the sample
        cannot take.

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals.
    Google LLC, §4.1.1. Importance weights: docs/method.md §7.3.
    """
    groups = _query_groups(group_by, metric, top, examples)
    filters = _checked_filters(filters)
    with _open_sample(sample, db, engine) as (con, opened):
        return _top_groups(con, opened, groups, where=where, metric=metric, top=top,
                           examples=examples, filters=filters)


def _checked_filters(filters: Any) -> list[tuple[str, str, Any]]:
    """`filters` as a list of (column, operator, value) triples, before the sample is
    read: one triple given alone, or a pair, failed with 'not enough values to unpack'."""
    if isinstance(filters, str) or not isinstance(filters, Sequence) or (
            len(filters) == 3 and isinstance(filters[0], str)
            and isinstance(filters[1], str) and filters[1] in FILTER_OPS):
        raise InputError(f"filters takes a list of (column, operator, value), got "
                         f"{filters!r}", hint="e.g. filters=[('provenance', '=', 'upload')]")
    out = []
    for f in filters:
        if isinstance(f, str) or not isinstance(f, Sequence) or len(f) != 3:
            raise InputError(f"a filter is (column, operator, value), got {f!r}",
                             hint="e.g. filters=[('provenance', '=', 'upload')]")
        out.append((f[0], f[1], f[2]))
    return out


def _query_groups(group_by: str | Sequence[str], metric: str, top: int,
                  examples: int) -> list[str]:
    """The group columns of a query, once its options are checked (before the sample
    is read)."""
    if metric not in IMPACT_METRICS:
        raise InputError(f"--metric must be one of {', '.join(IMPACT_METRICS)}")
    for name, value, zero in (("--top", top, "all groups"), ("--examples", examples, "none")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{name} must be an integer >= 0 (0: {zero}), got {value!r}")
    groups = _group_columns(group_by)
    clash = [g for g in groups if g in (*OUTPUT_FIELDS, metric)]
    if clash:
        raise InputError(f"--group-by {clash[0]!r}: explore's output has a field of that "
                         "name (the group's own numbers)", hint="Rank by another --metric, "
                         "or group by a copy of the column under another name.")
    return groups


def _top_groups(con: duckdb.DuckDBPyConnection, opened: OpenedSample, groups: list[str], *,
                where: str | None, metric: str, top: int, examples: int,
                filters: Sequence[tuple[str, str, Any]]) -> dict[str, Any]:
    """`explore`'s document for a checked sample, the table `SAMPLE_TABLE` that `con`
    sees, and checked options (`_query_groups`)."""
    empty = {"metric": metric, "group_by": groups, "where": where, "sample_draws": 0,
             "filtered_draws": 0, "total_groups": 0, "groups": []}
    if not opened.rows:
        return empty
    columns = list(opened.columns)
    conds, params = _filter_sql(filters, opened.columns)
    _check_filter_values(con, filters, opened.columns)
    for c in groups:
        if c not in columns:
            raise InputError(f"the sample has no column {c!r} to group by; its columns "
                             f"are {', '.join(columns)}", table=opened.label)
    cond = _where(where, columns)
    base = exp.select("*").from_(exp.maybe_parse(ident(SAMPLE_TABLE), dialect="duckdb"))
    if cond is not None:
        base = base.where(cond)
    filtered = base.sql("duckdb")
    if conds:
        filtered = f"SELECT * FROM ({filtered}) AS f WHERE {' AND '.join(conds)}"
    try:  # the one query that first applies the user's condition to every row
        totals = con.execute(f"SELECT SUM(draw_count) FROM ({filtered}) AS s",
                             params).fetchone()
    except duckdb.Error as err:
        if cond is None and not conds:
            raise
        what = f"--where {where!r}" if cond is not None else "the filters"
        if conds and cond is not None:
            what = f"--where {where!r} or the filters"
        first = str(err).splitlines()[0]
        # a value of --where that does not convert (the filters' values are checked
        # above): said plainly; the list of columns would be beside the point
        value = re.match(r"Conversion Error: Could not convert string '(.*)' to (\w+)$",
                         first)
        if value is not None:
            kind = _SQL_TYPES.get(value.group(2), value.group(2))
            raise InputError(f"{what} cannot be applied to the sample: the value "
                             f"{value.group(1)!r} {_not_a(value.group(1), kind)}, and it "
                             f"is compared with {_a(kind)} column") from None
        raise InputError(f"{what} cannot be applied to the sample: {first}",
                         hint=f"The sample's columns are {', '.join(columns)}.") from None
    all_draws = con.execute(
        f"SELECT SUM(draw_count) FROM {ident(SAMPLE_TABLE)}").fetchone()[0]
    # a BLOB group value (or item id) is shown as DuckDB's text of it ('\xAB\x00z'):
    # printable, one text per value, and what a filter's value casts back to; as bytes
    # it reached the text table as b'..' (or a number: float(b'12') is 12.0)
    blobs = [c for c in dict.fromkeys([*groups, "item_id"])
             if opened.columns[c].upper() == "BLOB"]
    if blobs:
        texts = ", ".join(f"CAST({ident(c)} AS VARCHAR) AS {ident(c)}" for c in blobs)
        filtered = f"SELECT * REPLACE ({texts}) FROM ({filtered}) AS b"
    g = ", ".join(ident(c) for c in groups)
    key = f"{g}, " if groups else ""
    contribs = ", ".join(f"SUM(importance_weight * {m}) AS {ident('contribution_' + m)}"
                         for m in IMPACT_METRICS)
    # x = JD(T)/JD(i)·m(i) per draw = importance_weight·m(i)·Σdc/dc(i)
    x = f"importance_weight * {metric} * CAST(? AS DOUBLE) / draw_count"
    # the most drawn items of each group (the first drawn first), in the one query:
    # no group value is written into SQL (a NaN or a BLOB would not read back)
    most = (f", arg_max(item_id, {{'d': draw_count, 'f': -first_draw}}, "
            f"{int(examples)}) AS examples" if examples else "")
    # draw_count is checked whole (a CSV's or a DOUBLE column's too): its sum is a count
    sql = (f"SELECT {key}COUNT(*) AS items, CAST(SUM(draw_count) AS BIGINT) AS draws, "
           f"SUM(importance_weight) AS weight_share, {contribs}, "
           f"SUM(draw_count * ({x}) * ({x})) AS sum_x2{most} "
           f"FROM ({filtered}) AS s {'GROUP BY ' + g if groups else ''}")
    cur = con.execute(sql, [all_draws, all_draws, *params])
    names = [d[0] for d in cur.description]
    result_rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    out_rows = []
    for r in result_rows:
        if not r["items"]:  # no group by and nothing passed the filter: no group
            continue
        est = float(r[f"contribution_{metric}"] or 0.0)
        n = max(int(all_draws), 1)
        sum_x2 = float(r.pop("sum_x2") or 0.0)
        mean_x2 = sum_x2 / n
        var = max(mean_x2 - est * est, 0.0)
        r["se"] = math.sqrt(var / (n - 1)) if n > 1 else None
        share = float(r["weight_share"] or 0.0)
        r[metric] = est / share if share > 0 else None
        r["contribution"] = est
        r.update(conclusiveness(int(r["draws"]), n * est, sum_x2, metric))
        if examples:
            r["examples"] = list(r.pop("examples"))
        out_rows.append(plain_row(r, groups))
    out_rows.sort(key=lambda r: (-rank_value(abs(r["contribution"])),
                                 *(str(r[c]) for c in groups)))
    total = len(out_rows)  # said beside the top groups: the rest are not dropped unseen
    out_rows = out_rows[:top] if top else out_rows
    return {"metric": metric, "group_by": groups, "where": where,
            "filters": [list(f) for f in filters],
            "sample_draws": int(all_draws), "filtered_draws": int(totals[0] or 0),
            "total_groups": total, "groups": out_rows}


def conclusiveness(draws: int, sum_x: float, sum_x2: float, metric: str) -> dict[str, Any]:
    """Whether a group's estimates can be trusted as printed (docs/method.md §7.3).

    `effective_draws` = (Σ dc·x)²/Σ dc·x² over the group's draws (x as for the SE) is
    the number of equal draws with the same relative SE: `draws` for jaccard_distance
    (x = JD(T) on every draw), fewer when a few items carry the contribution, 0 when no
    draw has a nonzero metric (its SE of 0 then says nothing). A group of fewer than
    :data:`MIN_DRAWS` draws, or of fewer than :data:`MIN_EFFECTIVE_DRAWS` effective
    ones, is `conclusive: false` with a `caveat` saying why: there ± 1.96·SE covers the
    contribution less often than 95% says, and the group's metric rests on a few
    items."""
    effective = sum_x * sum_x / sum_x2 if sum_x2 > 0 else 0.0
    # (Σ dc·x)² ≤ Σdc·Σ dc·x² bounds it by draws, which it equals when x is the same on
    # every draw: up to rounding, which must not make 10 draws count as 9.999999
    if effective > draws * (1 - 1e-9):
        effective = float(draws)
    caveat = None
    if draws < MIN_DRAWS:
        caveat = f"{draws:,} draw{'' if draws == 1 else 's'}, fewer than {MIN_DRAWS}"
    elif effective == 0:
        caveat = f"none of its {draws:,} draws has a {metric} above 0"
    elif effective < MIN_EFFECTIVE_DRAWS:
        # rounded down: 4.97 must not read as 5.0, the bar it missed
        caveat = (f"its {draws:,} draws count as {math.floor(effective * 10) / 10} "
                  f"(fewer than {MIN_EFFECTIVE_DRAWS}): a few items carry its {metric}")
    return {"effective_draws": effective, "conclusive": caveat is None, "caveat": caveat}


def thin_note(groups: int, metric: str) -> str:
    """The footnote under a table of groups of which `groups` are not conclusive (the
    text table's and the page's): what it means and what to do."""
    return (f"not conclusive ({groups:,} group{'' if groups == 1 else 's'}): fewer than "
            f"{MIN_DRAWS} draws, or draws that count as fewer than {MIN_EFFECTIVE_DRAWS} "
            f"equal ones since a few items carry the {metric}; such a group's contribution "
            f"± SE and {metric} can be badly wrong. Draw a larger sample (`abcde "
            f"sample-items --size`) or group more coarsely (fewer --group-by columns).")


class SampleChanged(InputError):
    """The sample file changed under a `CheckedSample` and its new content is refused."""


@dataclass(frozen=True)
class _Loaded:
    """A check of the file whose (size, mtime_ns, inode) and its manifest's are `stamp`:
    the checked sample and the connection holding it, or the checks' refusal."""

    stamp: tuple[tuple[int, int, int] | None, ...]
    con: duckdb.DuckDBPyConnection | None
    opened: OpenedSample | None
    refused: InputError | None = None


class CheckedSample:
    """An item sample file read and checked once, as `explore` checks it, for many
    queries from many threads: the exploration server's (docs/method.md §13.2).

    The checked rows stay in a table of an in-memory DuckDB; each query runs on a
    cursor of its own (a DuckDB connection is not shared across threads). A query
    first compares the file's and its manifest's (size, mtime_ns, inode) with those
    it was checked at: a file replaced or rewritten since is read and checked again,
    and refused with the checks' reason (`SampleChanged`), never answered from the
    rows of the file it replaced.

    Parameters
    ----------
    sample : str or Path
        The sample file (.parquet or .csv) of `abcde sample-items`.

    Raises
    ------
    InputError
        When the sample cannot be read or fails the checks of `explore`.

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals.
    Google LLC, §4.1.1.
    """

    def __init__(self, sample: str | Path) -> None:
        self.path = Path(sample)
        self._lock = threading.Lock()
        self._loaded = self._load(self._stamp())
        if self._loaded.refused is not None:
            raise self._loaded.refused
        self._good = self._loaded  # the last check passed: its columns fill the form

    @property
    def columns(self) -> dict[str, str]:
        """The columns (name -> DuckDB type) of the last content that passed the checks."""
        assert self._good.opened is not None
        return dict(self._good.opened.columns)

    def _stamp(self) -> tuple[tuple[int, int, int] | None, ...]:
        from abcde.sampling.items import manifest_path

        stamps: list[tuple[int, int, int] | None] = []
        for p in (self.path, manifest_path(self.path)):
            try:
                st = p.stat()
            except OSError:  # gone (a missing sample is then refused by the checks)
                stamps.append(None)
            else:
                stamps.append((st.st_size, st.st_mtime_ns, st.st_ino))
        return tuple(stamps)

    def _load(self, stamp: tuple[tuple[int, int, int] | None, ...]) -> _Loaded:
        # the stamp is taken before the read: a file changed during it is read again
        con = duckdb.connect(":memory:")
        try:
            opened = _load_sample(con, self.path, None, None, table="TABLE")
        except InputError as err:
            con.close()
            return _Loaded(stamp, None, None, err)
        except BaseException:
            con.close()
            raise
        return _Loaded(stamp, con, opened)

    def _current(self) -> _Loaded:
        """The check of the file as it is now (checked again when it changed); the
        caller holds the lock."""
        stamp = self._stamp()
        if stamp != self._loaded.stamp:
            # the previous connection closes when no query holds it any more
            self._loaded = self._load(stamp)
            if self._loaded.refused is None:
                self._good = self._loaded
        if self._loaded.refused is not None:
            raise SampleChanged(f"the sample file {self.path} changed since the server "
                                f"started and is refused: {self._loaded.refused}",
                                hint="Put back a sample that `abcde sample-items` wrote, "
                                "or restart `abcde explore --serve` on another.")
        return self._loaded

    def refresh(self) -> dict[str, str]:
        """The sample's columns (name -> DuckDB type), once the file is read and checked
        again if it changed since its last check.

        Returns
        -------
        dict
            The columns of the sample as it is now.

        Raises
        ------
        SampleChanged
            When the file changed and its new content fails the checks.

        References
        ----------
        docs/method.md §13.2.
        """
        with self._lock:  # one thread re-checks a changed file; the others wait for it
            opened = self._current().opened
        assert opened is not None
        return dict(opened.columns)

    def explore(self, group_by: str | Sequence[str] = (), *, where: str | None = None,
                metric: str = "jaccard_distance", top: int = 20, examples: int = 3,
                filters: Sequence[tuple[str, str, Any]] = ()) -> dict[str, Any]:
        """`explore` of the sample for one query, without reading or checking the file
        again unless it changed.

        Parameters
        ----------
        group_by, where, metric, top, examples, filters
            As for `explore`.

        Returns
        -------
        dict
            The document `explore` returns for the same sample and query.

        Raises
        ------
        InputError
            For a query the sample cannot take; `SampleChanged` when the file changed
            and its new content fails the checks.

        References
        ----------
        van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff
        Evals. Google LLC, §4.1.1.
        """
        groups = _query_groups(group_by, metric, top, examples)
        with self._lock:
            loaded = self._current()
            assert loaded.con is not None and loaded.opened is not None
            cur, opened = loaded.con.cursor(), loaded.opened
        try:
            cur.execute("SET enable_progress_bar = false")
            return _top_groups(cur, opened, groups, where=where, metric=metric, top=top,
                               examples=examples, filters=filters)
        finally:
            cur.close()
