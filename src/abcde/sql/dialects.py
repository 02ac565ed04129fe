"""Every difference between engines, in one place.

Templates are parsed in DuckDB's dialect; `to_sql` rewrites the placeholder helpers of
`abcde.sql.templates` (`ABCDE_FDIV`, `ABCDE_LN`, `ABCDE_UNIFORM`, `ABCDE_IS_FINITE`) into
the expression that keeps its meaning on the target, then lets sqlglot write the rest.
The traps these avoid were measured on real engines (../shared/ENGINES.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from abcde.errors import TemplateError

DIALECTS = ("duckdb", "bigquery", "snowflake", "spark", "postgres")

# n = the first 13 hex digits (52 bits) of md5(k), parsed to an integer, per engine
# (ENGINES.md, "Reproducible randomness"). `K` is the placeholder for the key string.
_MD5_52_BITS = {
    "duckdb": "CAST('0x' || SUBSTR(MD5(K), 1, 13) AS BIGINT)",
    "bigquery": "CAST(CONCAT('0x', SUBSTR(TO_HEX(MD5(K)), 1, 13)) AS INT64)",
    "snowflake": "TO_NUMBER(SUBSTR(MD5(K), 1, 13), 'XXXXXXXXXXXXX')",
    "spark": "CAST(CONV(SUBSTRING(MD5(K), 1, 13), 16, 10) AS BIGINT)",
    "postgres": "CAST(CAST('x' || LPAD(SUBSTR(MD5(K), 1, 13), 16, '0') AS BIT(64)) AS BIGINT)",
}
_TWO_POW_53 = 9007199254740992

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


_DOUBLE = exp.DataType.build("DOUBLE")
_VARCHAR = exp.DataType.build("VARCHAR")


def _double(e: exp.Expression) -> exp.Expression:
    return exp.Cast(this=e, to=_DOUBLE.copy())


def _fdiv(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), 0): Snowflake keeps 6 decimals and
    Spark/Postgres divide integers and decimals exactly otherwise; 1/0 is NULL, not inf."""
    return exp.Div(
        this=_double(a),
        expression=exp.Nullif(this=_double(b), expression=_double(exp.Literal.number(0))),
    )


def _ln(x: exp.Expression) -> exp.Expression:
    return exp.Ln(this=_double(x))


def _is_finite(x: exp.Expression) -> exp.Expression:
    """x - x = 0 is FALSE (or NULL, hence the COALESCE) for NULL, NaN and ±inf on every
    engine; NaN = NaN is TRUE on DuckDB, Spark and Postgres, so no test of NaN itself
    can be trusted."""
    d = _double(x)
    finite = exp.EQ(this=exp.Sub(this=d, expression=d.copy()),
                    expression=_double(exp.Literal.number(0)))
    return exp.Coalesce(this=finite, expressions=[exp.false()])


def key_string(seed: exp.Expression, *keys: exp.Expression) -> exp.Expression:
    """'<seed>:<key1>:<key2>...' — keys must be integers or strings (a double prints
    differently per engine)."""
    parts: list[exp.Expression] = []
    for k in (seed, *keys):
        if parts:
            parts.append(exp.Literal.string(":"))
        parts.append(exp.Cast(this=k, to=_VARCHAR.copy()))
    return exp.Concat(expressions=parts, safe=True, coalesce=False)


_SIMPLE_NAME = re.compile(r"[a-z_][a-z0-9_]*")


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


@dataclass(frozen=True)
class Dialect:
    """How one target writes the helpers."""

    name: str

    def uniform(self, seed: exp.Expression, *keys: exp.Expression) -> exp.Expression:
        """u = (2n + 1) / 2^53, strictly inside (0, 1), exact in a double."""
        n = sqlglot.parse_one(_MD5_52_BITS[self.name], read=self.name)
        key = key_string(seed, *keys)
        n = n.transform(
            lambda node: key.copy() if isinstance(node, exp.Column) and node.name == "K" else node
        )
        two_n_plus_1 = exp.Add(
            this=exp.Mul(this=exp.paren(n), expression=exp.Literal.number(2)),
            expression=exp.Literal.number(1),
        )
        return exp.paren(exp.Div(this=_double(two_n_plus_1),
                                 expression=_double(exp.Literal.number(_TWO_POW_53))))

    def rewrite(self, tree: exp.Expression, *, copy: bool = True) -> exp.Expression:
        rewrites: dict[str, Callable[..., exp.Expression]] = {
            "ABCDE_FDIV": _fdiv,
            "ABCDE_LN": _ln,
            "ABCDE_IS_FINITE": _is_finite,
            "ABCDE_UNIFORM": self.uniform,
        }

        if copy:
            tree = tree.copy()
        # Innermost helpers first (reversed pre-order), so that a helper nested in another
        # one — fdiv(ln(x), y) — is rewritten too: sqlglot's transform does not descend
        # into the arguments of a node it has just replaced.
        helpers = [n for n in tree.find_all(exp.Anonymous) if n.name.upper() in rewrites]
        for node in reversed(helpers):
            new = rewrites[node.name.upper()](*node.expressions)
            if node is tree:
                tree = new
            else:
                # A helper is one operand: as one of an operator it needs parentheses,
                # or `x * FDIV(a, b)` would be written `x * a / b` and read `(x * a) / b`
                if (isinstance(node.parent, exp.Binary | exp.Unary)
                        and isinstance(new, exp.Binary)):
                    new = exp.paren(new, copy=False)
                node.replace(new)
        if self.name == "snowflake":
            tree = tree.transform(
                lambda n: _snowflake_identifier(n) if isinstance(n, exp.Identifier) else n,
                copy=False)
        return tree


def get_dialect(name: str) -> Dialect:
    if name not in DIALECTS:
        raise TemplateError(f"unknown dialect {name!r}; choose one of {', '.join(DIALECTS)}")
    return Dialect(name)


def identifier(name: str, dialect: str) -> exp.Identifier:
    """A user-given name as abcde writes it for `dialect`: quoted, but on Snowflake by
    the rule of `_snowflake_identifier`."""
    return get_dialect(dialect).rewrite(exp.to_identifier(name, quoted=True), copy=False)


def to_sql(tree: exp.Expression, dialect: str, *, pretty: bool = False,
           copy: bool = True) -> str:
    """Write a parsed template for `dialect`, helpers rewritten (in place when the
    caller passes a private tree with copy=False)."""
    d = get_dialect(dialect)
    return d.rewrite(tree, copy=copy).sql(dialect=d.name, pretty=pretty)
