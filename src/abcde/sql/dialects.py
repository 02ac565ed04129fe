"""Every difference between engines, in one place: one class per target.

Templates are parsed in DuckDB's dialect; `to_sql` rewrites the placeholder helpers of
`abcde.sql.helpers` (`ABCDE_FDIV`, `ABCDE_UNIFORM`, ...) into the expression that keeps
its meaning on the target, then lets sqlglot write the rest. A dialect is a table and a
few hooks, as sqlglot's generators are: `REWRITES` maps each placeholder to the function
that writes it (a target that needs another extends the table, as sqlglot's generators
extend `TRANSFORMS`); what differs as data is a class attribute; a method only where an
entry cannot say it. The traps these avoid, measured on real engines: docs/method.md §11;
the md5 recipe of the uniform: §10.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, NoReturn

import sqlglot
from sqlglot import exp

from abcde.errors import TemplateError

_DOUBLE = exp.DataType.build("DOUBLE")
_VARCHAR = exp.DataType.build("VARCHAR")


def _double(e: exp.Expression) -> exp.Expression:
    return exp.Cast(this=e, to=_DOUBLE.copy())


def key_string(seed: exp.Expression, *keys: exp.Expression) -> exp.Expression:
    """'<seed>:<key1>:<key2>...' — keys must be integers or strings (a double prints
    differently per engine)."""
    parts: list[exp.Expression] = []
    for k in (seed, *keys):
        parts += [exp.Literal.string(":")] if parts else []
        parts.append(exp.Cast(this=k, to=_VARCHAR.copy()))
    return exp.Concat(expressions=parts, safe=True, coalesce=False)


# The rewrites of the placeholders: (dialect, the placeholder's arguments) -> expression.
Rewrite = Callable[..., exp.Expression]


def _fdiv(_: Dialect, a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), 0): Snowflake keeps 6 decimals and
    Spark/Postgres divide integers and decimals exactly otherwise; 1/0 is NULL, not inf."""
    return exp.Div(this=_double(a),
                   expression=exp.Nullif(this=_double(b),
                                         expression=_double(exp.Literal.number(0))))


def _ln(_: Dialect, x: exp.Expression) -> exp.Expression:
    """LN(CAST(x AS DOUBLE)): `LOG(x)` is log10 on DuckDB and ln elsewhere."""
    return exp.Ln(this=_double(x))


def _is_finite(_: Dialect, x: exp.Expression) -> exp.Expression:
    """x - x = 0 is FALSE (or NULL, hence the COALESCE) for NULL, NaN and ±inf on every
    engine; NaN = NaN is TRUE on DuckDB, Spark and Postgres, so no test of NaN itself
    can be trusted."""
    d = _double(x)
    finite = exp.EQ(this=exp.Sub(this=d, expression=d.copy()),
                    expression=_double(exp.Literal.number(0)))
    return exp.Coalesce(this=finite, expressions=[exp.false()])


@functools.cache
def _parsed(recipe: str, sqlglot_name: str) -> exp.Expression:
    return sqlglot.parse_one(recipe, read=sqlglot_name)


def _recipe(dialect: Dialect, recipe: str, k: exp.Expression) -> exp.Expression:
    """A recipe of the target's SQL over a column K, with K replaced by k."""
    return _parsed(recipe, dialect.sqlglot_name).transform(
        lambda node: k.copy() if isinstance(node, exp.Column) and node.name == "K" else node)


def _uniform(dialect: Dialect, seed: exp.Expression, *keys: exp.Expression) -> exp.Expression:
    """u = (2n + 1) / 2^53, strictly inside (0, 1), exact in a double; n = the first 13
    hex digits (52 bits) of md5('<seed>:<key>...') by the target's `md5_52_bits`
    (docs/method.md §10). Never the engine's RANDOM(): no seed is portable (§11)."""
    n = _recipe(dialect, dialect.md5_52_bits, key_string(seed, *keys))
    two_n_plus_1 = exp.Add(this=exp.Mul(this=exp.paren(n), expression=exp.Literal.number(2)),
                           expression=exp.Literal.number(1))
    return exp.paren(exp.Div(this=_double(two_n_plus_1),
                             expression=_double(exp.Literal.number(2**53))))


def _md5_hex(dialect: Dialect, *parts: exp.Expression) -> exp.Expression:
    """md5('<part1>:<part2>...') as 32 lower-case hex digits: an id computed in SQL (a
    sample's id) that is the same on every engine."""
    return _recipe(dialect, dialect.md5_hex, key_string(*parts))


def _no_form(helper: str, dialect: Dialect) -> NoReturn:
    raise TemplateError(f"{helper} has no {dialect.title} form (docs/method.md §2.5, §11)")


def _id_hash(dialect: Dialect, x: exp.Expression) -> exp.Expression:
    """The target's `id_hash` of x (`abcde.sql.helpers.id_hash`)."""
    return _recipe(dialect, dialect.id_hash or _no_form("ABCDE_ID_HASH", dialect), x)


def _fail(dialect: Dialect, message: exp.Expression) -> exp.Expression:
    """Stops the statement with `message` when evaluated: a cast of the text to an
    integer, which every strict engine refuses with the message in its error (Spark
    without ANSI mode casts it to NULL: its `fail` raises)."""
    if dialect.fail is None:
        return exp.Cast(this=message, to=exp.DataType.build("INT"))
    return _recipe(dialect, dialect.fail, message)


def _table_exists(dialect: Dialect, *names: exp.Expression) -> exp.Expression:
    """TRUE when the table (catalog, schema, table: string literals, '' for the current
    one) exists, by the target's information_schema (`Dialect.table_exists`)."""
    catalog, schema, table = (n.name or None for n in names)
    sql = dialect.table_exists(catalog, schema, table) or _no_form("ABCDE_TABLE_EXISTS", dialect)
    return exp.paren(sqlglot.parse_one(sql, read=dialect.sqlglot_name)
                     if isinstance(sql, str) else sql)


def _text(value: str, dialect: Dialect) -> str:
    """A string literal of the target's SQL."""
    return exp.Literal.string(value).sql(dialect=dialect.sqlglot_name)


def _slice_text(dialect: Dialect, x: exp.Expression) -> exp.Expression:
    """A slice attribute's value as the text `abcde impact` gives it in JSON."""
    return _recipe(dialect, dialect.slice_text, x)


_ORDER_FREE_AGGREGATES = (exp.Sum, exp.Count, exp.Min, exp.Max)


def _mirror_following_frame(window: exp.Window) -> exp.Window:
    """`AGG(x) OVER (… ORDER BY k ROWS BETWEEN n FOLLOWING AND UNBOUNDED FOLLOWING)` as its
    mirror (every key reversed, NULLs too; `… UNBOUNDED PRECEDING AND n PRECEDING`): the
    same rows in a frame every engine computes in one pass. Only for order-free aggregates
    over orders without ties (abcde's keys are unique); edits `window` in place."""
    spec, order = window.args.get("spec"), window.args.get("order")
    if (spec is None or order is None or not isinstance(window.this, _ORDER_FREE_AGGREGATES)
            or str(spec.args.get("kind", "")).upper() != "ROWS"
            or str(spec.args.get("end", "")).upper() != "UNBOUNDED"
            or str(spec.args.get("end_side", "")).upper() != "FOLLOWING"):
        return window
    start, side = spec.args.get("start"), str(spec.args.get("start_side") or "").upper()
    if isinstance(start, exp.Literal) and side == "FOLLOWING":
        end, end_side = start.copy(), "PRECEDING"
    elif str(start).upper() == "CURRENT ROW":
        end, end_side = "CURRENT ROW", None
    else:
        return window
    for ordered in order.expressions:
        ordered.set("desc", not ordered.args.get("desc"))
        ordered.set("nulls_first", not ordered.args.get("nulls_first"))
    window.set("spec", exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING",
                                      end=end, end_side=end_side))
    return window


@dataclass(frozen=True)
class Dialect:
    """How one target writes abcde's SQL. A dialect holds no state (instances of one class
    are equal): `get_dialect` gives it by name, and an engine holds its own."""

    name: ClassVar[str]  # abcde's name of the target (--dialect, tests/golden/<name>/)
    title: ClassVar[str]  # its name in messages
    sqlglot_name: ClassVar[str]  # the sqlglot dialect that writes (and reads) its SQL
    # n = the first 13 hex digits (52 bits) of md5(K) as an integer, K the key string
    md5_52_bits: ClassVar[str]
    md5_hex: ClassVar[str] = "MD5(K)"  # md5(K) as 32 lower-case hex digits
    dbt_source_has_database: ClassVar[bool] = True
    tables_need_schema: ClassVar[bool] = False
    column_name_forbidden: ClassVar[frozenset[str]] = frozenset()  # even quoted
    # a 64-bit hash of the id K as a number the target sums exactly; None where the one
    # pass keeps its FULL JOIN: the warehouses and Spark (docs/method.md §2.5)
    id_hash: ClassVar[str | None] = None
    # header lines on how to run a script, where the usual client goes on past an error
    run_advice: ClassVar[tuple[str, ...]] = ()
    # how the target stops a statement with the message K; None: a cast to an integer
    fail: ClassVar[str | None] = None
    # A slice attribute K of any type as the text `abcde impact` gives in JSON (1.0, -0.0,
    # 1e+16, NaN, Infinity, true, 2024-01-05). A plain cast gives it for text, integers,
    # booleans and dates; a float keeps the target's own text where no form here can
    # tell a column's type (BigQuery, Snowflake, Spark).
    slice_text: ClassVar[str] = "CAST(K AS VARCHAR)"

    REWRITES: ClassVar[dict[str, Rewrite]] = {
        "ABCDE_FDIV": _fdiv, "ABCDE_LN": _ln, "ABCDE_IS_FINITE": _is_finite,
        "ABCDE_UNIFORM": _uniform, "ABCDE_MD5_HEX": _md5_hex, "ABCDE_ID_HASH": _id_hash,
        "ABCDE_FAIL": _fail, "ABCDE_TABLE_EXISTS": _table_exists,
        "ABCDE_SLICE_TEXT": _slice_text,
    }

    def write_identifier(self, node: exp.Identifier) -> exp.Identifier:
        """A name of the parsed tree as the target writes it (quoted names stay quoted)."""
        return node

    def write_window(self, window: exp.Window) -> exp.Window:
        """A window of the parsed tree as the target writes it."""
        return window

    def name_rule(self, name: str, kind: str) -> str | None:
        """Why the target cannot create a table (`kind` 'table') or hold a schema
        ('schema') of this name, even quoted, in words; None if it can."""
        return None

    def input_table_rule(self, parts: Sequence[str]) -> str | None:
        """Why an input table named by `parts` cannot exist on the target; None if it can."""
        return None

    def table_exists(self, catalog: str | None, schema: str | None,
                     table: str) -> str | exp.Expression | None:
        """A boolean of the target's SQL: whether `table` exists in `schema` (None: the
        current one) of `catalog` (None: the current database); None where the target
        has no information_schema (Spark)."""
        return None

    def rewrite(self, tree: exp.Expression, *, copy: bool = True) -> exp.Expression:
        """`tree` with every placeholder rewritten by `REWRITES`, every name by
        `write_identifier` and every window by `write_window` (in place when copy=False)."""
        rewrites = self.REWRITES
        if copy:
            tree = tree.copy()
        # innermost helpers first (reversed pre-order): sqlglot's transform does not
        # descend into the arguments of a node it has just replaced
        helpers = [n for n in tree.find_all(exp.Anonymous) if n.name.upper() in rewrites]
        for node in reversed(helpers):
            new = rewrites[node.name.upper()](self, *node.expressions)
            if node is tree:
                tree = new
                continue
            # an operand of an operator needs parentheses: `x * FDIV(a, b)` is not `x * a / b`
            if isinstance(node.parent, exp.Binary | exp.Unary) and isinstance(new, exp.Binary):
                new = exp.paren(new, copy=False)
            node.replace(new)

        def write(n: exp.Expression) -> exp.Expression:
            if isinstance(n, exp.Identifier):
                return self.write_identifier(n)
            return self.write_window(n) if isinstance(n, exp.Window) else n

        return tree.transform(write, copy=False)

    def sql(self, tree: exp.Expression, *, pretty: bool = False, copy: bool = True) -> str:
        """`tree` rewritten and written in the target's SQL."""
        # the rewritten tree is private: the generator need not copy it again (a deep
        # copy of every query, a third of the generation's time)
        return self.rewrite(tree, copy=copy).sql(dialect=self.sqlglot_name, pretty=pretty,
                                                 copy=False)

    def __str__(self) -> str:
        return self.name


class DuckDB(Dialect):
    name, title, sqlglot_name = "duckdb", "DuckDB", "duckdb"
    md5_52_bits = "CAST('0x' || SUBSTR(MD5(K), 1, 13) AS BIGINT)"
    id_hash = "HASH(K)"  # a UBIGINT; its SUM is a HUGEINT
    # a float or decimal as a double (a FLOAT widened exactly, as `abcde impact` reads
    # it), whose text is Python's repr but for nan/-nan and inf; TRY_CAST binds for
    # every type (the branch runs only for floats and decimals)
    slice_text = (
        "CASE WHEN TYPEOF(K) IN ('DOUBLE', 'FLOAT') OR TYPEOF(K) LIKE 'DECIMAL%' THEN "
        "CASE WHEN CAST(TRY_CAST(K AS DOUBLE) AS VARCHAR) IN ('nan', '-nan') THEN 'NaN' "
        "WHEN CAST(TRY_CAST(K AS DOUBLE) AS VARCHAR) = 'inf' THEN 'Infinity' "
        "WHEN CAST(TRY_CAST(K AS DOUBLE) AS VARCHAR) = '-inf' THEN '-Infinity' "
        "ELSE CAST(TRY_CAST(K AS DOUBLE) AS VARCHAR) END "
        "ELSE CAST(K AS VARCHAR) END")

    def table_exists(self, catalog: str | None, schema: str | None, table: str) -> str:
        """DuckDB matches names case-insensitively; information_schema.tables lists the
        tables of every attached database."""
        in_schema = _text(schema, self) if schema else "CURRENT_SCHEMA()"
        where = [f"LOWER(table_name) = LOWER({_text(table, self)})",
                 f"LOWER(table_schema) = LOWER({in_schema})"]
        if catalog or not schema:
            where.append(f"LOWER(table_catalog) = LOWER("
                         f"{_text(catalog, self) if catalog else 'CURRENT_DATABASE()'})")
        return f"(SELECT COUNT(*) FROM information_schema.tables WHERE {' AND '.join(where)}) > 0"


_WORD = re.compile(r"[A-Za-z0-9_]+")


class BigQuery(Dialect):
    name, title, sqlglot_name = "bigquery", "BigQuery", "bigquery"
    md5_52_bits = "CAST(CONCAT('0x', SUBSTR(TO_HEX(MD5(K)), 1, 13)) AS INT64)"
    md5_hex = "TO_HEX(MD5(K))"
    tables_need_schema = True  # `CREATE TABLE t` without a dataset is refused
    # even a flexible column name: '.' would read as a path into a STRUCT (BigQuery
    # documentation, "Flexible column names")
    column_name_forbidden = frozenset('!"$()*,./;?@[\\]^`{}~')

    def write_window(self, window: exp.Window) -> exp.Window:
        """An aggregate over a frame orders NULLs as BigQuery does (first when ascending):
        BigQuery cannot say NULLS LAST there, which sqlglot drops with a warning. Those
        windows order by keys that hold no NULL on valid input (ids, strata, md5 keys)."""
        if window.args.get("spec") and isinstance(window.this, exp.AggFunc):
            for ordered in (window.args.get("order") or exp.Order()).expressions:
                ordered.set("nulls_first", not ordered.args.get("desc"))
        return window

    def table_exists(self, catalog: str | None, schema: str | None,
                     table: str) -> str | exp.Expression:
        """A dataset's own view `proj`.`ds`.INFORMATION_SCHEMA.TABLES, as BigQuery
        documents it: built as a tree (sqlglot would read the text as the table
        `INFORMATION_SCHEMA.TABLES`). Without a dataset (no current one on BigQuery)
        nothing is looked up: TRUE, and a missing table is the warehouse's error."""
        if schema is None:
            return "TRUE"
        tree = sqlglot.parse_one(f"(SELECT COUNT(*) FROM t WHERE table_name = "
                                 f"{_text(table, self)}) > 0", read=self.sqlglot_name)
        view = exp.Dot(this=exp.to_identifier("INFORMATION_SCHEMA"),
                       expression=exp.to_identifier("TABLES"))
        tree.find(exp.Table).replace(exp.Table(
            this=view, db=exp.to_identifier(schema, quoted=True),
            catalog=exp.to_identifier(catalog, quoted=True) if catalog else None))
        return tree

    def name_rule(self, name: str, kind: str) -> str | None:
        """BigQuery's documented rules: a dataset of letters, digits and _; a table of
        letters, marks, numbers, connectors, dashes and spaces, up to 1,024 bytes."""
        if kind == "schema":
            return (None if _WORD.fullmatch(name)
                    else "BigQuery dataset names hold only ASCII letters, digits and _")
        if any(unicodedata.category(c)[0] not in "LMN"
               and unicodedata.category(c) not in ("Pc", "Pd", "Zs") for c in name):
            return "BigQuery table names hold only letters, marks, digits, _, dashes and spaces"
        return "BigQuery table names are at most 1,024 bytes" if len(name.encode()) > 1024 else None

    def input_table_rule(self, parts: Sequence[str]) -> str | None:
        """`proj:ds.t`, the bq tool's form, names the dataset `proj:ds`, which cannot
        exist (only the colon is refused: a package for every adapter may name a
        PostgreSQL schema `raw-data`)."""
        if len(parts) < 2 or ":" not in parts[-2]:
            return None
        return (f"{self.name_rule(parts[-2], 'schema')}: {parts[-2]!r} is the bq tool's "
                f"PROJECT:DATASET, written {parts[-2].replace(':', '.')} in SQL")


# Snowflake's reserved and limited keywords: the table of
# https://docs.snowflake.com/en/sql-reference/reserved-keywords, plus ASC, DESC and OUTER,
# which its text names too. A name in this list cannot be written unquoted.
_SNOWFLAKE_WORDS = """
    ACCOUNT ALL ALTER AND ANY AS ASC BETWEEN BY CASE CAST CHECK COLUMN CONNECT CONNECTION
    CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER
    DATABASE DELETE DESC DISTINCT DROP ELSE EXISTS FALSE FOLLOWING FOR FROM FULL GRANT GROUP
    GSCLUSTER HAVING ILIKE IN INCREMENT INNER INSERT INTERSECT INTO IS ISSUE JOIN LATERAL
    LEFT LIKE LOCALTIME LOCALTIMESTAMP MINUS NATURAL NOT NULL OF ON OR ORDER ORGANIZATION
    OUTER QUALIFY REGEXP REVOKE RIGHT RLIKE ROW ROWS SAMPLE SCHEMA SELECT SET SOME START
    TABLE TABLESAMPLE THEN TO TRIGGER TRUE TRY_CAST UNION UNIQUE UPDATE USING VALUES VIEW
    WHEN WHENEVER WHERE WITH"""
SNOWFLAKE_RESERVED = frozenset(_SNOWFLAKE_WORDS.split())

_SIMPLE_NAME = re.compile(r"[a-z_][a-z0-9_]*")


class Snowflake(Dialect):
    name, title, sqlglot_name = "snowflake", "Snowflake", "snowflake"
    # Σ digit·16^(13-i) over the first 13 hex digits, each digit's value its 1-based
    # CHARINDEX in '0123456789abcdef' less one: MD5 gives 32 lower-case hex digits
    # (https://docs.snowflake.com/en/sql-reference/functions/md5, whose example is
    # edf1439075a83a447fb8b630ddc9c8de), CHARINDEX the 1-based position of its first
    # argument in its second (…/functions/charindex), and the integer arithmetic is exact
    # in NUMBER(38,0) (n < 2^52). Not TO_NUMBER(…, 'XXX…'), whose hex format element
    # (…/sql-format-models) is documented for one case of digits and which fakesnow
    # cannot run; nor FLOOR(MD5_NUMBER_UPPER64(K) / 4096), which fakesnow cannot run either.
    md5_52_bits = " + ".join(
        f"(CHARINDEX(SUBSTRING(MD5(K), {i}, 1), '0123456789abcdef') - 1)"
        + (f" * {16 ** (13 - i)}" if i < 13 else "") for i in range(1, 14))

    def write_identifier(self, node: exp.Identifier) -> exp.Identifier:
        """Snowflake stores a name created unquoted in upper case and matches quoted names
        exactly (a quoted "item_id" misses the column ITEM_ID). A name all in lower case
        (letters, digits, _) therefore stands for its upper-case form, as if typed
        unquoted: written unquoted, or as "UPPER" when it is a reserved word. Any other
        name stays quoted and is matched exactly as given."""
        name = node.this
        if not (isinstance(name, str) and _SIMPLE_NAME.fullmatch(name)):
            return node
        if name.upper() in SNOWFLAKE_RESERVED:
            return exp.to_identifier(name.upper(), quoted=True)
        return exp.to_identifier(name, quoted=False)

    def table_exists(self, catalog: str | None, schema: str | None, table: str) -> str:
        """The database's INFORMATION_SCHEMA.TABLES, which holds names as stored."""

        def stored(name: str) -> str:
            node = self.write_identifier(exp.to_identifier(name, quoted=True))
            return node.this if node.quoted else node.this.upper()

        source = "INFORMATION_SCHEMA.TABLES"
        if catalog:
            source = (self.write_identifier(exp.to_identifier(catalog, quoted=True))
                      .sql(dialect="snowflake") + "." + source)
        where = _text(stored(schema), self) if schema else "CURRENT_SCHEMA()"
        return (f"(SELECT COUNT(*) FROM {source} WHERE TABLE_NAME = "
                f"{_text(stored(table), self)} AND TABLE_SCHEMA = {where}) > 0")

    def name_rule(self, name: str, kind: str) -> str | None:
        return "Snowflake names are at most 255 characters" if len(name) > 255 else None


class Spark(Dialect):
    name, title, sqlglot_name = "spark", "Spark", "spark"
    md5_52_bits = "CAST(CONV(SUBSTRING(MD5(K), 1, 13), 16, 10) AS BIGINT)"
    dbt_source_has_database = False  # dbt-spark sources have a schema only
    # a cast is strict only under ANSI mode (the default since Spark 4)
    fail = "RAISE_ERROR(K)"
    # No id_hash: with the inner join of the one pass Spark plans the weights' join into
    # the same stage, and at 100M items its SparkContext died where the FULL JOIN
    # completes (benchmarks/RESULTS.md; docs/method.md §2.5).

    def write_window(self, window: exp.Window) -> exp.Window:
        """Spark recomputes a frame that runs to UNBOUNDED FOLLOWING for every row, O(n²)
        in a partition's rows (docs/method.md §11.1): its mirror instead."""
        return _mirror_following_frame(window)

    def name_rule(self, name: str, kind: str) -> str | None:
        """Spark's session catalog refuses any other name, quoted or not."""
        return (None if _WORD.fullmatch(name)
                else "Spark table and schema names hold only ASCII letters, digits and _")


def _postgres_slice_text() -> str:
    """A float or numeric read as a double through its text (a real through a real, so
    that it widens exactly), whose text differs from Python's repr only in layout: 1 for
    1.0, -0 for -0.0, and 1.5e+15 where Python writes positions up to 1e16."""
    kind = "CAST(PG_TYPEOF(K) AS TEXT)"
    d = (f"CAST(CASE WHEN {kind} = 'real' THEN CAST(CAST(CAST(K AS TEXT) AS REAL) AS "
         "DOUBLE PRECISION) ELSE CAST(CAST(K AS TEXT) AS DOUBLE PRECISION) END AS TEXT)")
    laid = f"CASE WHEN {d} LIKE '%e+15' THEN CAST(CAST({d} AS NUMERIC) AS TEXT) ELSE {d} END"
    return (f"CASE WHEN {kind} IN ('double precision', 'real', 'numeric') THEN "
            f"REGEXP_REPLACE({laid}, '^(-?[0-9]+)$', '\\1.0') ELSE CAST(K AS TEXT) END")


class Postgres(Dialect):
    name, title, sqlglot_name = "postgres", "PostgreSQL", "postgres"
    # psql's default goes on after a failing statement: past a guard's stop
    run_advice = ("Run it with psql as `psql -v ON_ERROR_STOP=1 -f <this file>`: without",
                  "ON_ERROR_STOP, psql goes on after a failing statement (e.g. a --reuse-cells",
                  "guard's stop) and runs the rest of the script.")
    md5_52_bits = ("CAST(CAST('x' || LPAD(SUBSTR(MD5(K), 1, 13), 16, '0') AS BIT(64)) "
                   "AS BIGINT)")
    # a bigint of the id's text (ids of both inputs have one type); its SUM is a numeric
    id_hash = "HASHTEXTEXTENDED(CAST(K AS TEXT), 0)"
    slice_text = _postgres_slice_text()

    def write_window(self, window: exp.Window) -> exp.Window:
        """As Spark: PostgreSQL recomputes a frame to UNBOUNDED FOLLOWING for every row."""
        return _mirror_following_frame(window)

    def table_exists(self, catalog: str | None, schema: str | None, table: str) -> str:
        """Quoted names are matched exactly; an unqualified table is in CURRENT_SCHEMA."""
        where = [f"table_name = {_text(table, self)}",
                 f"table_schema = {_text(schema, self) if schema else 'CURRENT_SCHEMA'}"]
        if catalog:
            where.append(f"table_catalog = {_text(catalog, self)}")
        return f"(SELECT COUNT(*) FROM information_schema.tables WHERE {' AND '.join(where)}) > 0"

    def name_rule(self, name: str, kind: str) -> str | None:
        """PostgreSQL cuts a longer name short (NAMEDATALEN): two tables could become one."""
        return ("PostgreSQL names are at most 63 bytes (longer ones are cut short)"
                if len(name.encode()) > 63 else None)


_BY_NAME: dict[str, Dialect] = {d.name: d for d in (DuckDB(), BigQuery(), Snowflake(),
                                                     Spark(), Postgres())}
DIALECTS = tuple(_BY_NAME)


def get_dialect(dialect: str | Dialect) -> Dialect:
    """The dialect of a name of `DIALECTS` (a Dialect is returned as is)."""
    if isinstance(dialect, Dialect):
        return dialect
    if dialect not in _BY_NAME:
        raise TemplateError(f"unknown dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")
    return _BY_NAME[dialect]


def identifier(name: str, dialect: str | Dialect) -> exp.Identifier:
    """A user-given name as abcde writes it for `dialect`: quoted, but on Snowflake by
    its rule (`Snowflake.write_identifier`)."""
    return get_dialect(dialect).write_identifier(exp.to_identifier(name, quoted=True))


def to_sql(tree: exp.Expression, dialect: str | Dialect, *, pretty: bool = False,
           copy: bool = True) -> str:
    """Write a parsed template for `dialect`, helpers rewritten (in place when the
    caller passes a private tree with copy=False)."""
    return get_dialect(dialect).sql(tree, pretty=pretty, copy=copy)
