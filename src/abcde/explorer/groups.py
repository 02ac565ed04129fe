"""Exploring the impact from an importance-weighted sample of affected items (ABCDE
§4.1.1; docs/method.md §7.3): the top groups of attribute values by estimated
contribution Σ_{i ∈ group} w(i)·m(i), with example items.

Its standard errors treat the Σdc draws as independent draws from q, each contributing
x = JD(T)·m(i)/JD(i)·1(i ∈ group): SE = sd(x)/√Σdc. A group too thin for that (fewer
than MIN_DRAWS draws or MIN_EFFECTIVE_DRAWS effective ones) is listed in its place but
marked `conclusive: false` (`conclusiveness`).

The sample is read once into an in-memory DuckDB. A file of `abcde sample-items`
beside its manifest is trusted through its digest; any other sample (a warehouse table,
rows, a DataFrame) is checked for what would make a number wrong (an empty cell, a value
out of range, an item twice, a weight that does not fit its draw count).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping, Sequence
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
from abcde.params import TOP, OneOf, checked
from abcde.results import plain_row
from abcde.sample_files.exported import snowflake_renames
from abcde.sample_files.items import manifest_path, trusted_item_sample
from abcde.sample_files.layout import MANIFEST, stamp
from abcde.sql.helpers import rank_value
from abcde.sql.quoting import ident, table_ref

NUMBER_COLUMNS = ("draw_count", "first_draw", "importance_weight", *IMPACT_METRICS)
ID_COLUMNS = ("item_id", "base_cluster", "exp_cluster")  # text in a CSV: 007 is not 7
#: Fields of a group in explore's output: no group column may have one of these names.
OUTPUT_FIELDS = ("items", "draws", "weight_share", "se", "contribution", "examples",
                 "effective_draws", "conclusive", "caveat",
                 *(f"contribution_{m}" for m in IMPACT_METRICS))
#: Below these, a group's contribution ± 1.96·SE and its metric can be badly wrong
#: (docs/method.md §7.3 gives the coverage measured for the choice).
MIN_DRAWS = 10
MIN_EFFECTIVE_DRAWS = 5
#: Operators of `filters` → their SQL; `!=` keeps the rows whose value is NULL (the page
#: shows them as a group of their own, "(none)").
FILTER_OPS = {"=": "=", "!=": "IS DISTINCT FROM", "<": "<", "<=": "<=", ">": ">",
              ">=": ">=", "contains": "contains"}
SAMPLE_TABLE = "abcde_sample"
EXAMPLES = 5
REDRAW = ("Draw the sample again rather than editing it: `abcde sample-items ... --out "
          "FILE --overwrite` (the same inputs and seed give the same sample), or run the "
          "`abcde sql sample-items` script again; to leave items out, use --where.")
PAIRS_GIVEN = ("explore reads the item sample of `abcde sample-items --out FILE` (affected "
               "items with importance weights); a pair sample is judged (`abcde judge DIR`) "
               "and estimated (`abcde estimate DIR`).")
FILTERS_HINT = "e.g. filters=[('provenance', '=', 'upload')]"


@dataclass(frozen=True)
class OpenedSample:
    """A sample read into `SAMPLE_TABLE`: its label, columns (name → type) and rows."""

    label: str
    columns: dict[str, str]
    rows: int


def _query_groups(group_by: str | Sequence[str], metric: str) -> list[str]:
    if isinstance(group_by, str) or not isinstance(group_by, Iterable):
        given: Any = group_by or ""  # parse_slicings refuses what names no column
    else:
        given = [list(group_by)] if list(group_by) else ""
    groups = parse_slicings(given, option="--group-by")[0] if given else []
    clash = [g for g in groups if g in (*OUTPUT_FIELDS, metric)]
    if clash:
        raise InputError(f"{{option}} {clash[0]!r}: the table of groups has a column of "
                         "that name (the group's own numbers)", option="group_by",
                         hint="Rank by another metric, or group by a copy of the column "
                         "under another name.")
    return groups


def _checked_filters(filters: Any) -> list[tuple[str, str, Any]]:
    if isinstance(filters, str) or not isinstance(filters, Sequence) or any(
            isinstance(f, str) or not isinstance(f, Sequence) or len(f) != 3 for f in filters):
        raise InputError(f"filters takes a list of (column, operator, value), got "
                         f"{filters!r}", hint=FILTERS_HINT)
    return [(f[0], f[1], f[2]) for f in filters]


def _filtered(opened: OpenedSample, where: str | None,
              filters: Sequence[tuple[str, str, Any]]) -> tuple[str, list[Any]]:
    """The query of the rows `where` (parsed: one condition only) and the filters keep
    (values bound, cast to the column's type), and its parameters."""
    columns = opened.columns
    base = exp.select("*").from_(exp.maybe_parse(ident(SAMPLE_TABLE), dialect="duckdb"))
    if where:
        hint = ("Write one condition over the sample's columns in DuckDB SQL, e.g. --where "
                "\"weight > 1 AND provenance = 'upload'\"; text values go in single quotes. "
                f"The sample's columns are {', '.join(columns)}.")
        try:
            cond = sqlglot.parse_one(where, read="duckdb", into=exp.Condition)
        except sqlglot.errors.SqlglotError:
            cond = None
        if cond is None or cond.find(exp.Query, exp.Command, exp.Create, exp.Drop,
                                     exp.Insert, exp.Delete):
            raise InputError(f"--where {where!r} is not one SQL condition over the "
                             "sample's columns", hint=hint)
        base = base.where(cond)
    conds, params = [], []
    for column, op, value in filters:
        if column not in columns or op not in FILTER_OPS:
            raise InputError(f"filter ({column!r}, {op!r}, …): the column must be one of "
                             f"{', '.join(columns)}, the operator one of "
                             f"{', '.join(FILTER_OPS)}", hint=FILTERS_HINT)
        conds.append(f"contains(CAST({ident(column)} AS VARCHAR), CAST(? AS VARCHAR))"
                     if op == "contains" else  # the type comes from DESCRIBE
                     f"{ident(column)} {FILTER_OPS[op]} CAST(? AS {columns[column]})")
        params.append(value)
    sql = base.sql("duckdb")
    if conds:
        sql = f"SELECT * FROM ({sql}) AS f WHERE {' AND '.join(conds)}"
    return sql, params


def _sample_of(sample: Any) -> Any:
    """The file or rows of what `sample_items` returned; a pair sample refused."""
    from abcde.sampling.items import ItemSample
    from abcde.sampling.pairs import PairSample

    if isinstance(sample, PairSample):
        raise InputError("is a pair sample (sample_pairs), not an item sample",
                         table="sample (PairSample)", hint=PAIRS_GIVEN)
    if isinstance(sample, ItemSample):
        return Path(sample.files["sample"]) if not sample.rows and sample.files.get(
            "sample") else sample.rows
    return sample


def _refuse_name(sample: str | Path, db: str | Path | None) -> None:
    """Refuse by its name a pair sample's file, or with `db` what is no table name."""
    path = Path(sample)
    if db is not None and file_format(path) is None and not all(str(sample).split(".")):
        raise InputError(f"{str(sample)!r} is not a table name",
                         hint="Name the table of --db that holds the sample, e.g. "
                              "item_sample or main.item_sample.")
    if (path / MANIFEST).exists() or ((path.parent / MANIFEST).exists() and path.name in (
            "draws.parquet", "draws.csv", "questions.csv", "questions.jsonl")):
        raise InputError(f"sample {path} is a pair sample of `abcde sample-pairs`, not an "
                         "item sample", hint=PAIRS_GIVEN)


def _examples(con: duckdb.DuckDBPyConnection, kind: str, cond: str,
              shown: Sequence[str]) -> list[Shown]:
    """The first rows meeting `cond`, as "line N: item 'x', column value"."""
    rows = con.execute(f"SELECT rowid, item_id, {', '.join(ident(c) for c in shown)} "
                       f"FROM {ident(SAMPLE_TABLE)} WHERE {cond} ORDER BY rowid "
                       f"LIMIT {EXAMPLES}").fetchall()
    return [Shown((f"line {r[0] + 2}" if kind == "csv" else f"row {r[0] + 1}")
                  + ("" if r[1] is None else f": item {r[1]!r}")
                  + "".join(f", {c} {'(empty)' if v is None else repr(v)}"
                            for c, v in zip(shown, r[2:], strict=True) if c != "item_id"))
            for r in rows]


def _checks(columns: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(column, the condition a bad row meets, what is wrong) (docs/method.md §7.3)."""
    x = {c: f"TRY_CAST({ident(c)} AS DOUBLE)" for c in NUMBER_COLUMNS}
    whole = "NOT ({0} >= 1 AND {0} = floor({0}))"
    # w(i) = dc(i)/Σdc·JD(T)/JD(i): w·JD/dc is JD(T)/Σdc on every row (§7.3)
    ratio = f"{x['importance_weight']} * {x['jaccard_distance']} / {x['draw_count']}"
    return [
        ("item_id", "item_id IS NULL", "row(s) have no item id"),
        *((c, f"NOT COALESCE(isfinite({x[c]}), FALSE)",
           "value(s) are empty, not numbers, NaN or infinite") for c in NUMBER_COLUMNS),
        ("importance_weight", f"{x['importance_weight']} <= 0",
         "value(s) are zero or negative; an importance weight is > 0"),
        *((c, whole.format(x[c]), "value(s) are not whole numbers >= 1")
          for c in ("draw_count", "first_draw")),
        ("jaccard_distance", f"NOT ({x['jaccard_distance']} > 0 AND "
         f"{x['jaccard_distance']} <= 1)", "value(s) are outside (0, 1]; only affected "
         "items (jaccard_distance > 0) are drawn"),
        *((m, f"NOT ({x[m]} BETWEEN 0 AND 1)", "value(s) are outside [0, 1]")
          for m in IMPACT_METRICS if m != "jaccard_distance"),
        ("split_distance", f"abs({x['split_distance']} + {x['merge_distance']} - "
         f"{x['jaccard_distance']}) > 1e-9", "row(s) have split_distance + merge_distance "
         "other than jaccard_distance"),
        ("jaccard_index", f"abs({x['jaccard_index']} + {x['jaccard_distance']} - 1) > 1e-9",
         "row(s) have jaccard_index other than 1 - jaccard_distance"),
        ("importance_weight", f"abs({ratio} - (SELECT median({ratio}) FROM "
         f"{ident(SAMPLE_TABLE)})) > 1e-6 * (SELECT median({ratio}) FROM "
         f"{ident(SAMPLE_TABLE)})", "importance weight(s) do not fit their row's "
         "draw_count and jaccard_distance: importance_weight · jaccard_distance / "
         "draw_count is the same on every row (docs/method.md §7.3)"),
        ("item_id", f"item_id IN (SELECT item_id FROM {ident(SAMPLE_TABLE)} GROUP BY "
         "item_id HAVING COUNT(*) > 1)", "row(s) hold an item id that is on more than one "
         "row; a sample holds each item once, with how often it was drawn (draw_count)"),
        *([("input_valid", "NOT COALESCE(TRY_CAST(input_valid AS BOOLEAN), FALSE)",
            "row(s) were drawn from input that failed the script's checks: read its "
            "validation table and run it again")] if "input_valid" in columns else [])]


def _check(con: duckdb.DuckDBPyConnection, opened: OpenedSample, kind: str,
           table: str) -> None:
    """Refuse a sample without abcde's digest that would give a wrong number; then make
    its number columns of text DOUBLE."""
    label, columns = opened.label, opened.columns
    for c in ("item_id", *NUMBER_COLUMNS):
        kind_of = categorise(columns[c])
        if kind_of == "nested" or (c != "item_id" and kind_of not in (
                "integer", "float", "decimal", "string")):
            raise InputError(f"has type {columns[c]}, not a "
                             f"{'single value' if c == 'item_id' else 'number'}",
                             table=label, column=c, hint=REDRAW)
    checks = _checks(columns)
    counts = con.execute("SELECT " + ", ".join(f"COUNT(*) FILTER (WHERE {cond})"
                                               for _, cond, _ in checks)
                         + f" FROM {ident(SAMPLE_TABLE)}").fetchone()
    for (column, cond, what), n in zip(checks, counts, strict=True):
        if n:
            shown = ("importance_weight", "draw_count", "jaccard_distance") \
                if "median" in cond else (column,)
            raise InputError(f"{n:,} {what}", table=label, column=column, hint=REDRAW,
                             examples=_examples(con, kind, cond, shown))
    text = [c for c in NUMBER_COLUMNS if categorise(columns[c]) == "string"]
    if text:  # in the same order: rowid still names the row
        con.execute(f"CREATE OR REPLACE {table} {ident(SAMPLE_TABLE)} AS SELECT * REPLACE ("
                    + ", ".join(f"CAST({ident(c)} AS DOUBLE) AS {ident(c)}" for c in text)
                    + f") FROM {ident(SAMPLE_TABLE)}")


def _load(con: duckdb.DuckDBPyConnection, sample: Any, db: str | Path | None, engine: Any,
          table: str = "TEMP TABLE") -> OpenedSample:
    """Read the sample into `SAMPLE_TABLE` of `con`, checked unless abcde wrote it;
    `table` "TABLE" for one every cursor sees."""
    from abcde.engines.duckdb import DuckDBEngine
    from abcde.inputs.sources import open_source

    con.execute("SET enable_progress_bar = false")
    duck = DuckDBEngine(db=db, connection=con)  # --db read-only; its failures worded
    sample, kind, trusted, label = _sample_of(sample), "rows", None, "sample (rows)"
    if engine is not None:  # a table of a warehouse the engine reaches: the rows, once
        name, label = table_ref(str(sample)), f"sample ({sample})"
        if not engine.table_exists(name):
            raise InputError(f"no table {sample}", hint="Name the table the `abcde sql "
                             "sample-items` script wrote (<prefix>item_sample).")
        sample = engine.fetch(engine.select_sql(name))
    elif isinstance(sample, str | Path):
        _refuse_name(sample, db)
        kind = file_format(Path(sample)) or "table"
        trusted = trusted_item_sample(Path(sample)) if kind != "table" else None
    elif isinstance(sample, Sequence | Mapping) or not (
            hasattr(sample, "columns") or hasattr(sample, "column_names")):
        sample = [dict(r) for r in sample]  # rows; a DataFrame or Arrow table is read in place
    if isinstance(sample, list):
        if not sample:
            return OpenedSample(label, {}, 0)
        duck.register_rows("abcde_src_sample", list(sample[0]),
                           [tuple(r.values()) for r in sample])
        relation = ident("abcde_src_sample")
    else:
        src = open_source(duck, "sample", sample if not isinstance(sample, Path)
                          else str(sample), string_columns=ID_COLUMNS)
        relation, label = src.relation, src.label
    # an item_sample table unloaded from Snowflake names its columns in upper case
    typed = duck.columns(relation)
    renames = snowflake_renames([c for c, _ in typed], "item_id")
    restored = (trusted or {}).get("neutralised")  # the text as it was (layout.restore)
    duck.execute(f"CREATE {table} {ident(SAMPLE_TABLE)} AS SELECT " + ", ".join(
        (f"CASE WHEN starts_with({ident(c)}, '''') THEN {ident(c)}[2:] ELSE {ident(c)} END"
         if restored and categorise(t) == "string" else ident(c))
        + f" AS {ident(renames.get(c, c))}" for c, t in typed) + f" FROM {relation}")
    columns = dict(duck.columns(ident(SAMPLE_TABLE)))
    missing = [c for c in ("item_id", *NUMBER_COLUMNS) if c not in columns]
    if missing and "pair_id" in columns:
        raise InputError(f"is a pair sample of `abcde sample-pairs` (its columns are "
                         f"{', '.join(columns)}), not an item sample", table=label,
                         hint=PAIRS_GIVEN)
    problem = strict_csv_problem(Path(sample)) if missing and kind == "csv" else None
    if problem is not None:  # a malformed CSV is sniffed as one column per line
        raise InputError(problem.message(), table=label, hint=problem.hint)
    if missing:
        raise InputError(f"lacks the column(s) {', '.join(missing)} of an item sample; "
                         f"its columns are {', '.join(columns) or '(none)'}", table=label,
                         hint=REDRAW)
    (count,) = con.execute(f"SELECT COUNT(*) FROM {ident(SAMPLE_TABLE)}").fetchone()
    opened = OpenedSample(label, columns, count)
    if count and trusted is None:  # an empty CSV's columns read as text: nothing to check
        _check(con, opened, kind, table)
        opened = OpenedSample(label, dict(duck.columns(ident(SAMPLE_TABLE))), count)
    return opened


def _top_groups(con: duckdb.DuckDBPyConnection, opened: OpenedSample, groups: list[str], *,
                where: str | None, metric: str, top: int, examples: int,
                filters: Sequence[tuple[str, str, Any]]) -> dict[str, Any]:
    """`explore`'s document for a sample in `SAMPLE_TABLE` and checked options."""
    head = {"metric": metric, "group_by": groups, "where": where}
    if not opened.rows:
        return {**head, "sample_draws": 0, "filtered_draws": 0, "total_groups": 0,
                "groups": []}
    for c in groups:
        if c not in opened.columns:
            raise InputError(f"the sample has no column {c!r} to group by; its columns "
                             f"are {', '.join(opened.columns)}", table=opened.label)
    filtered, params = _filtered(opened, where, filters)
    for column, op, value in filters:  # compared as the column's type: say which
        kind = opened.columns[column]
        if op != "contains" and value is not None and con.execute(
                f"SELECT TRY_CAST(? AS {kind}) IS NULL", [value]).fetchone()[0]:
            raise InputError(f"the filter value {value!r} is not a value of {column!r}, "
                             f"a {kind} column")
    try:  # the one query that first applies the user's condition to every row
        (kept,) = con.execute(f"SELECT SUM(draw_count) FROM ({filtered}) AS s",
                              params).fetchone()
    except duckdb.Error as err:
        what = " and ".join(w for w in (where and f"--where {where!r}",
                                        filters and "the filters") if w)
        raise InputError(f"{what} cannot be applied to the sample: "
                         f"{str(err).splitlines()[0]}",
                         hint=f"The sample's columns are {', '.join(opened.columns)}.") \
            from None
    (all_draws,) = con.execute(f"SELECT SUM(draw_count) FROM {ident(SAMPLE_TABLE)}").fetchone()
    # a BLOB group value (or item id) as DuckDB's text of it: printable, and what a
    # filter's value casts back to
    blobs = [c for c in dict.fromkeys([*groups, "item_id"])
             if opened.columns[c].upper() == "BLOB"]
    if blobs:
        texts = ", ".join(f"CAST({ident(c)} AS VARCHAR) AS {ident(c)}" for c in blobs)
        filtered = f"SELECT * REPLACE ({texts}) FROM ({filtered}) AS b"
    g = ", ".join(ident(c) for c in groups)
    contribs = ", ".join(f"SUM(importance_weight * {m}) AS {ident('contribution_' + m)}"
                         for m in IMPACT_METRICS)
    # x = JD(T)/JD(i)·m(i) per draw = importance_weight·m(i)·Σdc/dc(i)
    x = f"importance_weight * {metric} * CAST(? AS DOUBLE) / draw_count"
    # the most drawn items of each group (the first drawn first), in the one query
    most = (f", arg_max(item_id, {{'d': draw_count, 'f': -first_draw}}, "
            f"{int(examples)}) AS examples" if examples else "")
    cur = con.execute(
        f"SELECT {g + ', ' if groups else ''}COUNT(*) AS items, CAST(SUM(draw_count) AS "
        f"BIGINT) AS draws, SUM(importance_weight) AS weight_share, {contribs}, "
        f"SUM(draw_count * ({x}) * ({x})) AS sum_x2{most} FROM ({filtered}) AS s "
        f"{'GROUP BY ' + g if groups else ''}", [all_draws, all_draws, *params])
    names = [d[0] for d in cur.description]
    out = []
    n = max(int(all_draws), 1)
    for r in (dict(zip(names, row, strict=True)) for row in cur.fetchall()):
        if not r["items"]:  # no group by and nothing passed the filter: no group
            continue
        est = float(r[f"contribution_{metric}"] or 0.0)
        sum_x2 = float(r.pop("sum_x2") or 0.0)
        r["se"] = math.sqrt(max(sum_x2 / n - est * est, 0.0) / (n - 1)) if n > 1 else None
        share = float(r["weight_share"] or 0.0)
        r[metric] = est / share if share > 0 else None
        r["contribution"] = est
        r.update(conclusiveness(int(r["draws"]), n * est, sum_x2, metric))
        if examples:
            r["examples"] = list(r.pop("examples"))
        out.append(plain_row(r, groups))
    out.sort(key=lambda r: (-rank_value(abs(r["contribution"])), *(str(r[c]) for c in groups)))
    return {**head, "filters": [list(f) for f in filters], "sample_draws": int(all_draws),
            "filtered_draws": int(kept or 0), "total_groups": len(out),
            "groups": out[:top] if top else out}


def conclusiveness(draws: int, sum_x: float, sum_x2: float, metric: str) -> dict[str, Any]:
    """Whether a group's estimates can be trusted as printed (docs/method.md §7.3):
    `effective_draws` = (Σ dc·x)²/Σ dc·x²; under MIN_DRAWS draws or MIN_EFFECTIVE_DRAWS
    effective ones, `conclusive: false` with a `caveat`."""
    effective = sum_x * sum_x / sum_x2 if sum_x2 > 0 else 0.0
    # at most draws, equal to it up to rounding when x is the same on every draw
    effective = float(draws) if effective > draws * (1 - 1e-9) else effective
    caveat = None
    if draws < MIN_DRAWS:
        caveat = f"{draws:,} draw{'' if draws == 1 else 's'}, fewer than {MIN_DRAWS}"
    elif effective == 0:
        caveat = f"none of its {draws:,} draws has a {metric} above 0"
    elif effective < MIN_EFFECTIVE_DRAWS:  # rounded down: 4.97 must not read as 5.0
        caveat = (f"its {draws:,} draws count as {math.floor(effective * 10) / 10} "
                  f"(fewer than {MIN_EFFECTIVE_DRAWS}): a few items carry its {metric}")
    return {"effective_draws": effective, "conclusive": caveat is None, "caveat": caveat}


def thin_note(groups: int, metric: str) -> str:
    """The footnote under a table of groups of which `groups` are not conclusive."""
    return (f"not conclusive ({groups:,} group{'' if groups == 1 else 's'}): fewer than "
            f"{MIN_DRAWS} draws, or draws that count as fewer than {MIN_EFFECTIVE_DRAWS} "
            f"equal ones since a few items carry the {metric}; such a group's contribution "
            f"± SE and {metric} can be badly wrong. Draw a larger sample (`abcde "
            f"sample-items --size`) or group more coarsely (fewer --group-by columns).")


QUERY = {"metric": OneOf(IMPACT_METRICS), "top": TOP, "examples": TOP}


@checked(**QUERY)
def explore(sample: str | Path | Sequence[dict[str, Any]] | Any,
            group_by: str | Sequence[str] = (), *, where: str | None = None,
            metric: str = "jaccard_distance", top: int = 20, examples: int = 3,
            filters: Sequence[tuple[str, str, Any]] = (), db: str | Path | None = None,
            engine: Any = None) -> dict[str, Any]:
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
    filters
        (column, operator, value) conditions applied with `where`: a column of the
        sample, an operator of :data:`FILTER_OPS`, a value bound as a query parameter
        (never written into the SQL) — what the exploration page sends.
    db, engine
        A DuckDB database file (opened read-only), or an open engine (PostgreSQL,
        Spark), holding the sample as the table `sample` (schema.table).

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
        For a file of `abcde sample-items` that is not as it wrote it, a sample of
        another origin that would give a wrong number (naming the column and example
        rows), or a group column or condition the sample cannot take.

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals.
    Google LLC, §4.1.1. Importance weights: docs/method.md §7.3.
    """
    groups = _query_groups(group_by, metric)
    filters = _checked_filters(filters)
    con = duckdb.connect(":memory:")
    try:
        return _top_groups(con, _load(con, sample, db, engine), groups, where=where,
                           metric=metric, top=top, examples=examples, filters=filters)
    finally:
        con.close()


class SampleChanged(InputError):
    """The sample file changed under a `CheckedSample` and its new content is refused."""


@dataclass(frozen=True)
class _Loaded:
    """The sample as read at `stamp`: its connection, or why it was refused."""

    stamp: tuple[Any, ...]
    con: duckdb.DuckDBPyConnection | None
    opened: OpenedSample | None
    refused: InputError | None = None


class CheckedSample:
    """An item sample file read once for the exploration server's many queries
    (docs/method.md §13.2), each on its own cursor; a file changed since is read again,
    or refused (`SampleChanged`)."""

    def __init__(self, sample: str | Path) -> None:
        self.path = Path(sample)
        self._lock = threading.Lock()
        self._loaded = self._load(self._stamp())
        if self._loaded.refused is not None:
            raise self._loaded.refused
        self._good = self._loaded  # the last content read whole: its columns fill the form

    @property
    def columns(self) -> dict[str, str]:
        assert self._good.opened is not None
        return dict(self._good.opened.columns)

    def _stamp(self) -> tuple[Any, ...]:
        return stamp(self.path), stamp(manifest_path(self.path))

    def _load(self, when: tuple[Any, ...]) -> _Loaded:
        # the stamp is taken before the read: a file changed during it is read again
        con = duckdb.connect(":memory:")
        try:
            return _Loaded(when, con, _load(con, self.path, None, None, table="TABLE"))
        except InputError as err:
            con.close()
            return _Loaded(when, None, None, err)
        except BaseException:
            con.close()
            raise

    def _current(self) -> _Loaded:
        """The sample as the file is now; the caller holds the lock."""
        when = self._stamp()
        if when != self._loaded.stamp:
            self._loaded = self._load(when)  # the old connection closes with its queries
            if self._loaded.refused is None:
                self._good = self._loaded
        if self._loaded.refused is not None:
            raise SampleChanged(f"the sample file {self.path} changed since the server "
                                f"started and is refused: {self._loaded.refused}",
                                hint="Put back a sample that `abcde sample-items` wrote, "
                                "or restart `abcde explore --serve` on another.")
        return self._loaded

    def refresh(self) -> dict[str, str]:
        with self._lock:  # one thread reads a changed file; the others wait for it
            opened = self._current().opened
        assert opened is not None
        return dict(opened.columns)

    @checked(**QUERY)
    def explore(self, group_by: str | Sequence[str] = (), *, where: str | None = None,
                metric: str = "jaccard_distance", top: int = 20, examples: int = 3,
                filters: Sequence[tuple[str, str, Any]] = ()) -> dict[str, Any]:
        """`explore` of the sample for one query."""
        groups = _query_groups(group_by, metric)
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
