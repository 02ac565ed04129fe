"""Every difference between engines, in one place: one class per target.

Templates are parsed in DuckDB's dialect; `to_sql` rewrites the placeholder helpers of
`abcde.sql.helpers` (`ABCDE_FDIV`, `ABCDE_LN`, `ABCDE_UNIFORM`, `ABCDE_IS_FINITE`,
`ABCDE_MD5_HEX`) into
the expression that keeps its meaning on the target, then lets sqlglot write the rest.

A dialect is a table and a few hooks, as sqlglot's generators are: `Dialect.REWRITES`
maps each placeholder to the function that writes it (a target that needs another
writes `REWRITES = {**Dialect.REWRITES, "ABCDE_X": ...}`, as sqlglot's generators extend
`TRANSFORMS`); what differs as data is a class attribute (the md5 parse of `uniform`, the
sqlglot dialect, whether a dbt source names a database); a method only where a table entry
cannot say it (`write_identifier`: Snowflake's rule for names). The traps these avoid,
measured on real engines: docs/method.md §11; the md5 recipe of `uniform`: §10.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import ClassVar

import sqlglot
from sqlglot import exp

from abcde.errors import TemplateError

_TWO_POW_53 = 9007199254740992

_DOUBLE = exp.DataType.build("DOUBLE")
_VARCHAR = exp.DataType.build("VARCHAR")


def _double(e: exp.Expression) -> exp.Expression:
    return exp.Cast(this=e, to=_DOUBLE.copy())


def key_string(seed: exp.Expression, *keys: exp.Expression) -> exp.Expression:
    """'<seed>:<key1>:<key2>...' — keys must be integers or strings (a double prints
    differently per engine)."""
    parts: list[exp.Expression] = []
    for k in (seed, *keys):
        if parts:
            parts.append(exp.Literal.string(":"))
        parts.append(exp.Cast(this=k, to=_VARCHAR.copy()))
    return exp.Concat(expressions=parts, safe=True, coalesce=False)


# The rewrites of the placeholders: (dialect, the placeholder's arguments) -> expression.
Rewrite = Callable[..., exp.Expression]


def _fdiv(_: Dialect, a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), 0): Snowflake keeps 6 decimals and
    Spark/Postgres divide integers and decimals exactly otherwise; 1/0 is NULL, not inf."""
    return exp.Div(
        this=_double(a),
        expression=exp.Nullif(this=_double(b), expression=_double(exp.Literal.number(0))),
    )


def _ln(_: Dialect, x: exp.Expression) -> exp.Expression:
    """LN(CAST(x AS DOUBLE)): `LOG(x)` is log10 on DuckDB and ln elsewhere, and PostgreSQL
    rejects the form sqlglot writes for it."""
    return exp.Ln(this=_double(x))


def _is_finite(_: Dialect, x: exp.Expression) -> exp.Expression:
    """x - x = 0 is FALSE (or NULL, hence the COALESCE) for NULL, NaN and ±inf on every
    engine; NaN = NaN is TRUE on DuckDB, Spark and Postgres, so no test of NaN itself
    can be trusted."""
    d = _double(x)
    finite = exp.EQ(this=exp.Sub(this=d, expression=d.copy()),
                    expression=_double(exp.Literal.number(0)))
    return exp.Coalesce(this=finite, expressions=[exp.false()])


def _recipe(dialect: Dialect, recipe: str, k: exp.Expression) -> exp.Expression:
    """A dialect's recipe (SQL in the target's dialect over a column K: `md5_52_bits`,
    `md5_hex`, `id_hash`) with K replaced by the expression k."""
    tree = sqlglot.parse_one(recipe, read=dialect.sqlglot_name)
    return tree.transform(
        lambda node: k.copy() if isinstance(node, exp.Column) and node.name == "K" else node
    )


def _uniform(dialect: Dialect, seed: exp.Expression, *keys: exp.Expression) -> exp.Expression:
    """u = (2n + 1) / 2^53, strictly inside (0, 1), exact in a double; n = the first 13
    hex digits (52 bits) of md5('<seed>:<key>...'), parsed by the target's
    `md5_52_bits` (docs/method.md §10). Never the engine's RANDOM(): Snowflake's is a
    64-bit integer, and no seed is portable (§11)."""
    n = _recipe(dialect, dialect.md5_52_bits, key_string(seed, *keys))
    two_n_plus_1 = exp.Add(
        this=exp.Mul(this=exp.paren(n), expression=exp.Literal.number(2)),
        expression=exp.Literal.number(1),
    )
    return exp.paren(exp.Div(this=_double(two_n_plus_1),
                             expression=_double(exp.Literal.number(_TWO_POW_53))))


def _md5_hex(dialect: Dialect, *parts: exp.Expression) -> exp.Expression:
    """The md5 of '<part1>:<part2>...' as 32 lower-case hex digits, by the target's
    `md5_hex`: an id computed in SQL (a sample's id) that is the same on every engine.
    Parts must be integers or strings, as for `_uniform`."""
    return _recipe(dialect, dialect.md5_hex, key_string(*parts))


def _id_hash(dialect: Dialect, x: exp.Expression) -> exp.Expression:
    """The target's `id_hash` of x (`abcde.sql.helpers.id_hash`); a target without one
    cannot run the SQL that needs it (docs/method.md §2.5)."""
    if dialect.id_hash is None:
        raise TemplateError(f"ABCDE_ID_HASH has no {dialect.title} form (only DuckDB and "
                            "PostgreSQL run it: docs/method.md §2.5)")
    return _recipe(dialect, dialect.id_hash, x)


def _fail(dialect: Dialect, message: exp.Expression) -> exp.Expression:
    """An expression that stops the statement with `message` (text) when it is
    evaluated: the target's `fail` recipe, by default a cast of the message to an
    integer, which every strict engine refuses with the message in its error. Spark with
    spark.sql.ansi.enabled=false casts it to NULL instead and goes on: it raises."""
    if dialect.fail is None:
        return exp.Cast(this=message, to=exp.DataType.build("INT"))
    return _recipe(dialect, dialect.fail, message)


def _table_exists(dialect: Dialect, catalog: exp.Expression, schema: exp.Expression,
                  table: exp.Expression) -> exp.Expression:
    """TRUE when the table `catalog`.`schema`.`table` exists (string literals, '' for a
    part not given: the current database or schema), by the target's information_schema
    (`Dialect.table_exists`); a target without one (Spark) cannot write it."""
    parts = [p.name if isinstance(p, exp.Literal) and p.is_string else None
             for p in (catalog, schema, table)]
    if parts[2] is None or any(p is None for p in parts):
        raise TemplateError("ABCDE_TABLE_EXISTS takes three string literals")
    sql = dialect.table_exists(parts[0] or None, parts[1] or None, parts[2])
    if sql is None:
        raise TemplateError(f"ABCDE_TABLE_EXISTS has no {dialect.title} form (no "
                            "information_schema)")
    if isinstance(sql, str):
        sql = sqlglot.parse_one(sql, read=dialect.sqlglot_name)
    return exp.paren(sql)


def _text(value: str, dialect: Dialect) -> str:
    """A string literal of the target's SQL."""
    return exp.Literal.string(value).sql(dialect=dialect.sqlglot_name)


def _slice_text(dialect: Dialect, x: exp.Expression) -> exp.Expression:
    """A slice attribute's value as the text `abcde impact` gives it in JSON, the same on
    every target that can tell a column's type (`Dialect.slice_text`)."""
    return _recipe(dialect, dialect.slice_text, x)


_ORDER_FREE_AGGREGATES = (exp.Sum, exp.Count, exp.Min, exp.Max)


def _mirror_following_frame(window: exp.Window) -> exp.Window:
    """`AGG(x) OVER (… ORDER BY k ROWS BETWEEN n FOLLOWING AND UNBOUNDED FOLLOWING)` as
    its mirror `AGG(x) OVER (… ORDER BY k DESC NULLS FIRST ROWS BETWEEN UNBOUNDED
    PRECEDING AND n PRECEDING)`: the same rows (every key reversed, NULLs too), in a
    frame that grows from the partition's start, which every engine computes in one
    pass. Any other window is returned as it is. Only for aggregates whose value does
    not depend on the order of the rows (a floating-point SUM may round differently in
    the last bit, as any change of summation order does). The rows after a row are
    defined only when the order has no ties: abcde's windows order by unique keys. Edits
    `window` in place, so that a transform goes on into its children."""
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


class Dialect:
    """How one target writes abcde's SQL. A dialect holds no state (instances of one
    class are equal): `get_dialect` gives it by name, and an engine holds its own
    (`engine.dialect`)."""

    name: ClassVar[str]
    """abcde's name of the target (`--dialect`, tests/golden/<name>/)."""
    title: ClassVar[str]
    """The target's name in messages."""
    sqlglot_name: ClassVar[str]
    """The sqlglot dialect that writes (and reads) the target's SQL."""
    md5_52_bits: ClassVar[str]
    """n = the first 13 hex digits (52 bits) of md5(K) as an integer, in the target's SQL;
    `K` stands for the key string (docs/method.md §10)."""
    md5_hex: ClassVar[str] = "MD5(K)"
    """md5(K) as 32 lower-case hex digits, in the target's SQL (`K`: the key string)."""
    dbt_source_has_database: ClassVar[bool] = True
    """Whether a dbt source of the target can name a database (database.schema.table)."""
    tables_need_schema: ClassVar[bool] = False
    """Whether a table name needs its schema (dataset) to be valid on the target."""
    column_name_forbidden: ClassVar[frozenset[str]] = frozenset()
    """Characters a column name cannot hold on the target, even quoted."""
    id_hash: ClassVar[str | None] = None
    """A 64-bit hash of the id K (an integer or a string) as a number the target sums
    exactly, in the target's SQL; None where the one pass keeps its FULL JOIN: the
    warehouse targets, and Spark (docs/method.md §2.5)."""
    run_advice: ClassVar[tuple[str, ...]] = ()
    """Lines of a script's header on how to run it, where the target's usual client
    does not stop at a failing statement by default."""
    fail: ClassVar[str | None] = None
    """How the target stops a statement with the message K (`_fail`); None: a cast of K
    to an integer, an error on every target whose casts are strict."""
    slice_text: ClassVar[str] = "CAST(K AS VARCHAR)"
    """A slice attribute K of any type as text (`abcde.sql.helpers.slice_text`), in the
    target's SQL: the text `abcde impact` gives in JSON (a float as Python writes it,
    1.0 and -0.0 and 1e+16; NaN, Infinity, -Infinity; true/false; 2024-01-05). The
    default, a plain cast, gives it for text, integers, booleans and dates; a float
    keeps the target's own text where no form here tells a column's type: BigQuery has
    no typeof, Snowflake's SYSTEM$TYPEOF runs on no local engine, and Spark's text of a
    double is Java's (1.0E16; before Java 19 not always the shortest digits, 4.9E-324)."""
    mirror_following_frames: ClassVar[bool] = False
    """Whether a window frame that runs to UNBOUNDED FOLLOWING is written as its mirror
    (`_mirror_following_frame`): Spark and PostgreSQL recompute such a frame for every
    row, O(n²) in the rows of a partition (docs/method.md §11.1)."""

    REWRITES: ClassVar[dict[str, Rewrite]] = {
        "ABCDE_FDIV": _fdiv,
        "ABCDE_LN": _ln,
        "ABCDE_IS_FINITE": _is_finite,
        "ABCDE_UNIFORM": _uniform,
        "ABCDE_MD5_HEX": _md5_hex,
        "ABCDE_ID_HASH": _id_hash,
        "ABCDE_FAIL": _fail,
        "ABCDE_TABLE_EXISTS": _table_exists,
        "ABCDE_SLICE_TEXT": _slice_text,
    }

    def write_identifier(self, node: exp.Identifier) -> exp.Identifier:
        """A name of the parsed tree as the target writes it; as sqlglot writes it by
        default (quoted names stay quoted)."""
        return node

    def name_rule(self, name: str, kind: str) -> str | None:
        """Why the target cannot create a table (`kind` 'table') or hold a schema
        ('schema') of this name, even quoted (the rule, in words); None if it can."""
        return None

    def input_table_rule(self, parts: Sequence[str]) -> str | None:
        """Why an input table named by `parts` (split at '.') cannot exist on the target,
        in words; None if it can. Only where the target's rule holds for every table it
        reads (a Spark or Snowflake catalog may hold names its own tables cannot)."""
        return None

    def table_exists(self, catalog: str | None, schema: str | None,
                     table: str) -> str | exp.Expression | None:
        """A boolean of the target's SQL (text, or a tree where sqlglot would misread the
        text): whether table `table` exists in `schema` (None: the current schema) of
        `catalog` (None: the current database), by its information_schema; None where
        the target has none (Spark)."""
        return None

    def uniform(self, seed: exp.Expression, *keys: exp.Expression) -> exp.Expression:
        """The expression of `ABCDE_UNIFORM(seed, keys...)` on this target."""
        return self.REWRITES["ABCDE_UNIFORM"](self, seed, *keys)

    def rewrite(self, tree: exp.Expression, *, copy: bool = True) -> exp.Expression:
        """`tree` with every placeholder helper rewritten by `REWRITES` and every name by
        `write_identifier` (in place when copy=False)."""
        rewrites = self.REWRITES
        if copy:
            tree = tree.copy()
        # Innermost helpers first (reversed pre-order), so that a helper nested in another
        # one — fdiv(ln(x), y) — is rewritten too: sqlglot's transform does not descend
        # into the arguments of a node it has just replaced.
        helpers = [n for n in tree.find_all(exp.Anonymous) if n.name.upper() in rewrites]
        for node in reversed(helpers):
            new = rewrites[node.name.upper()](self, *node.expressions)
            if node is tree:
                tree = new
            else:
                # A helper is one operand: as one of an operator it needs parentheses,
                # or `x * FDIV(a, b)` would be written `x * a / b` and read `(x * a) / b`
                if (isinstance(node.parent, exp.Binary | exp.Unary)
                        and isinstance(new, exp.Binary)):
                    new = exp.paren(new, copy=False)
                node.replace(new)
        mirror = self.mirror_following_frames

        def write(n: exp.Expression) -> exp.Expression:
            if isinstance(n, exp.Identifier):
                return self.write_identifier(n)
            if mirror and isinstance(n, exp.Window):
                return _mirror_following_frame(n)
            return n

        return tree.transform(write, copy=False)

    def sql(self, tree: exp.Expression, *, pretty: bool = False, copy: bool = True) -> str:
        """`tree` rewritten and written in the target's SQL."""
        # the rewritten tree is private (copied here, or the caller's own with
        # copy=False): sqlglot's generator need not copy it again (a deep copy of
        # every query, a third of the SQL generation's time)
        return self.rewrite(tree, copy=copy).sql(dialect=self.sqlglot_name, pretty=pretty,
                                                 copy=False)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dialect):
            return NotImplemented
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))


class DuckDB(Dialect):
    name = "duckdb"
    title = "DuckDB"
    sqlglot_name = "duckdb"
    md5_52_bits = "CAST('0x' || SUBSTR(MD5(K), 1, 13) AS BIGINT)"
    # a UBIGINT; its SUM is a HUGEINT
    id_hash = "HASH(K)"
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

    def table_exists(self, catalog: str | None, schema: str | None, table: str) -> str | None:
        """DuckDB matches names case-insensitively; information_schema.tables lists the
        tables of every attached database."""
        in_schema = _text(schema, self) if schema else "CURRENT_SCHEMA()"
        where = [f"LOWER(table_name) = LOWER({_text(table, self)})",
                 f"LOWER(table_schema) = LOWER({in_schema})"]
        if catalog or not schema:
            where.append(f"LOWER(table_catalog) = LOWER("
                         f"{_text(catalog, self) if catalog else 'CURRENT_DATABASE()'})")
        return f"(SELECT COUNT(*) FROM information_schema.tables WHERE {' AND '.join(where)}) > 0"


class BigQuery(Dialect):
    name = "bigquery"
    title = "BigQuery"
    sqlglot_name = "bigquery"
    md5_52_bits = "CAST(CONCAT('0x', SUBSTR(TO_HEX(MD5(K)), 1, 13)) AS INT64)"
    md5_hex = "TO_HEX(MD5(K))"
    # a table lives in a dataset; `CREATE TABLE t` without one is refused
    tables_need_schema = True
    # even a flexible column name: '.' would read as a path into a STRUCT (BigQuery
    # documentation, "Flexible column names")
    column_name_forbidden = frozenset('!"$()*,./;?@[\\]^`{}~')

    def table_exists(self, catalog: str | None, schema: str | None,
                     table: str) -> str | exp.Expression | None:
        """A dataset's own INFORMATION_SCHEMA.TABLES, named as BigQuery documents it,
        `proj`.`ds`.INFORMATION_SCHEMA.TABLES: built as a tree, since sqlglot reads that
        text as the table `proj`.`ds`.`INFORMATION_SCHEMA.TABLES`, which BigQuery does not
        find. BigQuery has no current dataset (`abcde sql` requires --schema there); a
        pipeline without one looks nothing up: TRUE, and a missing table is the
        warehouse's own error."""
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
        """BigQuery's documented rules: a table name of letters, marks, numbers,
        connectors (_), dashes and spaces, up to 1,024 bytes; a dataset name of letters,
        digits and _ only."""
        if kind == "schema":
            if not _WORD.fullmatch(name):
                return "BigQuery dataset names hold only ASCII letters, digits and _"
            return None
        if any(unicodedata.category(c)[0] not in "LMN"
               and unicodedata.category(c) not in ("Pc", "Pd", "Zs") for c in name):
            return ("BigQuery table names hold only letters, marks, digits, _, dashes and "
                    "spaces")
        if len(name.encode()) > 1024:
            return "BigQuery table names are at most 1,024 bytes"
        return None

    def input_table_rule(self, parts: Sequence[str]) -> str | None:
        """`proj:ds.t`, the bq tool's form, would be read as the dataset `proj:ds`, which
        cannot exist (datasets hold letters, digits and _). Only the colon is refused: a
        dbt package for every adapter checks a PostgreSQL schema `raw-data` here too."""
        if len(parts) < 2 or ":" not in parts[-2]:
            return None
        return (f"{self.name_rule(parts[-2], 'schema')}: {parts[-2]!r} is the bq tool's "
                f"PROJECT:DATASET, written {parts[-2].replace(':', '.')} in SQL")


# Snowflake's reserved and limited keywords: the table of
# https://docs.snowflake.com/en/sql-reference/reserved-keywords, plus ASC, DESC and OUTER,
# which its text names too. A name in this list cannot be written unquoted.
SNOWFLAKE_RESERVED = frozenset({
    "ACCOUNT", "ALL", "ALTER", "AND", "ANY", "AS", "ASC", "BETWEEN", "BY", "CASE", "CAST",
    "CHECK", "COLUMN", "CONNECT", "CONNECTION", "CONSTRAINT", "CREATE", "CROSS", "CURRENT",
    "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_USER", "DATABASE",
    "DELETE", "DESC", "DISTINCT", "DROP", "ELSE", "EXISTS", "FALSE", "FOLLOWING", "FOR",
    "FROM", "FULL", "GRANT", "GROUP", "GSCLUSTER", "HAVING", "ILIKE", "IN", "INCREMENT",
    "INNER", "INSERT", "INTERSECT", "INTO", "IS", "ISSUE", "JOIN", "LATERAL", "LEFT",
    "LIKE", "LOCALTIME", "LOCALTIMESTAMP", "MINUS", "NATURAL", "NOT", "NULL", "OF", "ON",
    "OR", "ORDER", "ORGANIZATION", "OUTER", "QUALIFY", "REGEXP", "REVOKE", "RIGHT", "RLIKE",
    "ROW", "ROWS", "SAMPLE", "SCHEMA", "SELECT", "SET", "SOME", "START", "TABLE",
    "TABLESAMPLE", "THEN", "TO", "TRIGGER", "TRUE", "TRY_CAST", "UNION", "UNIQUE", "UPDATE",
    "USING", "VALUES", "VIEW", "WHEN", "WHENEVER", "WHERE", "WITH",
})


_SIMPLE_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_WORD = re.compile(r"[A-Za-z0-9_]+")


def _snowflake_identifier(node: exp.Identifier) -> exp.Identifier:
    """Snowflake stores a name created unquoted in UPPER case and matches quoted names
    exactly, so a quoted "item_id" misses the column ITEM_ID of `CREATE TABLE t (item_id
    ...)`. A name all in lower case (letters, digits, _) therefore stands for its upper-case
    form, as if typed unquoted: it is written unquoted, or as "UPPER" when it is a reserved
    word (`order` -> "ORDER": the same name, and valid SQL). Any other name (capitals,
    other characters) stays quoted and is matched exactly as given."""
    name = node.this
    if not (isinstance(name, str) and _SIMPLE_NAME.fullmatch(name)):
        return node
    if name.upper() in SNOWFLAKE_RESERVED:
        return exp.to_identifier(name.upper(), quoted=True)
    return exp.to_identifier(name, quoted=False)


class Snowflake(Dialect):
    name = "snowflake"
    title = "Snowflake"
    sqlglot_name = "snowflake"
    # Σ digit·16^(13-i) over the first 13 hex digits, each digit's value its 1-based
    # CHARINDEX in '0123456789abcdef' less one: MD5 gives 32 lower-case hex digits
    # (https://docs.snowflake.com/en/sql-reference/functions/md5, whose example is
    # edf1439075a83a447fb8b630ddc9c8de), CHARINDEX the 1-based position of its first
    # argument in its second (…/functions/charindex), and the integer arithmetic is exact
    # in NUMBER(38,0) (n < 2^52). Not TO_NUMBER(…, 'XXX…'), whose hex format element
    # (…/sql-format-models) is documented for one case of digits and which fakesnow
    # cannot run; nor FLOOR(MD5_NUMBER_UPPER64(K) / 4096), documented too but which
    # fakesnow cannot run either (its sqlglot writes DuckDB's m_d5_number_upper64).
    md5_52_bits = " + ".join(
        f"(CHARINDEX(SUBSTRING(MD5(K), {i}, 1), '0123456789abcdef') - 1)"
        + (f" * {16 ** (13 - i)}" if i < 13 else "") for i in range(1, 14))

    def write_identifier(self, node: exp.Identifier) -> exp.Identifier:
        """By `_snowflake_identifier`: a lower-case name is its upper-case form."""
        return _snowflake_identifier(node)

    def table_exists(self, catalog: str | None, schema: str | None, table: str) -> str | None:
        """INFORMATION_SCHEMA.TABLES of the database, which holds names as stored (a
        lower-case name written unquoted is stored in upper case: `write_identifier`)."""

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
    name = "spark"
    title = "Spark"
    sqlglot_name = "spark"
    md5_52_bits = "CAST(CONV(SUBSTRING(MD5(K), 1, 13), 16, 10) AS BIGINT)"
    # dbt-spark sources have a schema but no database
    dbt_source_has_database = False
    mirror_following_frames = True
    # a cast is strict only under ANSI mode (the default since Spark 4, off before it
    # and on clusters that turn it off)
    fail = "RAISE_ERROR(K)"

    def name_rule(self, name: str, kind: str) -> str | None:
        """Spark's session catalog refuses any other name, quoted or not
        (INVALID_SCHEMA_OR_RELATION_NAME)."""
        if not _WORD.fullmatch(name):
            return "Spark table and schema names hold only ASCII letters, digits and _"
        return None
    # No id_hash: Spark keeps the FULL JOIN of the one pass (docs/method.md §2.5). With
    # the inner join, Spark plans the weights' join on the same key into the same stage,
    # and at 100M items (local[2], 4 shuffle partitions, 4 GB driver) its SparkContext
    # died, where the FULL JOIN completes (benchmarks/RESULTS.md).


def _postgres_slice_text() -> str:
    """PostgreSQL's `slice_text`. A float or numeric is read as a double through its text
    (no cast of every type to a double parses; a real through a real, so that it widens
    exactly), whose text (shortest round trip, as Python's) differs from Python's repr
    only in layout: 1 for 1.0, -0 for -0.0, and 1.5e+15 where Python writes positions up
    to 1e16 (1500000000000000.0: the numeric's text, then '.0'). NaN, Infinity and
    -Infinity are already JSON's."""
    kind = "CAST(PG_TYPEOF(K) AS TEXT)"
    d = (f"CAST(CASE WHEN {kind} = 'real' THEN CAST(CAST(CAST(K AS TEXT) AS REAL) AS "
         "DOUBLE PRECISION) ELSE CAST(CAST(K AS TEXT) AS DOUBLE PRECISION) END AS TEXT)")
    laid = f"CASE WHEN {d} LIKE '%e+15' THEN CAST(CAST({d} AS NUMERIC) AS TEXT) ELSE {d} END"
    return (f"CASE WHEN {kind} IN ('double precision', 'real', 'numeric') THEN "
            f"REGEXP_REPLACE({laid}, '^(-?[0-9]+)$', '\\1.0') ELSE CAST(K AS TEXT) END")


class Postgres(Dialect):
    name = "postgres"
    title = "PostgreSQL"
    # psql's default goes on after a failing statement: past a guard's stop (cells of
    # other inputs or none) to the statements that read what the guard refused
    run_advice = ("Run it with psql as `psql -v ON_ERROR_STOP=1 -f <this file>`: without",
                  "ON_ERROR_STOP, psql goes on after a failing statement (e.g. a --reuse-cells",
                  "guard's stop) and runs the rest of the script.")
    sqlglot_name = "postgres"
    md5_52_bits = ("CAST(CAST('x' || LPAD(SUBSTR(MD5(K), 1, 13), 16, '0') AS BIT(64)) "
                   "AS BIGINT)")
    mirror_following_frames = True
    # a bigint of the id's text (ids of both inputs have one type); its SUM is a numeric
    id_hash = "HASHTEXTEXTENDED(CAST(K AS TEXT), 0)"
    slice_text = _postgres_slice_text()

    def table_exists(self, catalog: str | None, schema: str | None, table: str) -> str | None:
        """Quoted names are matched exactly; an unqualified table is created in
        CURRENT_SCHEMA."""
        where = [f"table_name = {_text(table, self)}",
                 f"table_schema = {_text(schema, self) if schema else 'CURRENT_SCHEMA'}"]
        if catalog:
            where.append(f"table_catalog = {_text(catalog, self)}")
        return f"(SELECT COUNT(*) FROM information_schema.tables WHERE {' AND '.join(where)}) > 0"

    def name_rule(self, name: str, kind: str) -> str | None:
        """PostgreSQL cuts a longer name short (NAMEDATALEN), silently but for a notice:
        two tables could become one."""
        if len(name.encode()) > 63:
            return "PostgreSQL names are at most 63 bytes (longer ones are cut short)"
        return None


_BY_NAME: dict[str, Dialect] = {d.name: d for d in (DuckDB(), BigQuery(), Snowflake(),
                                                     Spark(), Postgres())}
DIALECTS = tuple(_BY_NAME)


def get_dialect(dialect: str | Dialect) -> Dialect:
    """The dialect of a name of `DIALECTS` (a Dialect is returned as is)."""
    if isinstance(dialect, Dialect):
        return dialect
    if isinstance(dialect, str) and dialect in _BY_NAME:
        return _BY_NAME[dialect]
    raise TemplateError(f"unknown dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")


def identifier(name: str, dialect: str | Dialect) -> exp.Identifier:
    """A user-given name as abcde writes it for `dialect`: quoted, but on Snowflake by
    the rule of `_snowflake_identifier`."""
    return get_dialect(dialect).write_identifier(exp.to_identifier(name, quoted=True))


def to_sql(tree: exp.Expression, dialect: str | Dialect, *, pretty: bool = False,
           copy: bool = True) -> str:
    """Write a parsed template for `dialect`, helpers rewritten (in place when the
    caller passes a private tree with copy=False)."""
    return get_dialect(dialect).sql(tree, pretty=pretty, copy=copy)
