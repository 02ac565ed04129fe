"""Every difference between engines, in one place.

Templates are parsed in DuckDB's dialect; `to_sql` rewrites the placeholder helpers of
`abcde.templates` (`ABCDE_FDIV`, `ABCDE_LN`, `ABCDE_UNIFORM`, `ABCDE_IS_FINITE`) into
the expression that keeps its meaning on the target, then lets sqlglot write the rest.
The traps these avoid were measured on real engines (../shared/ENGINES.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.dialects.snowflake import Snowflake

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
_SNOWFLAKE_KEYWORDS = {k.upper() for k in Snowflake.Tokenizer.KEYWORDS}


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
    """Snowflake folds unquoted names to UPPER case and matches quoted names exactly, so a
    quoted "item_id" misses the column ITEM_ID of `CREATE TABLE t (item_id ...)`. A
    lower-case name that is not a keyword is written unquoted (matched case-insensitively,
    as a user typing it would); any other name stays quoted, exactly as given."""
    name = node.this
    if (node.quoted and isinstance(name, str) and _SIMPLE_NAME.fullmatch(name)
            and name.upper() not in _SNOWFLAKE_KEYWORDS):
        return exp.to_identifier(name, quoted=False)
    return node


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


def to_sql(tree: exp.Expression, dialect: str, *, pretty: bool = False,
           copy: bool = True) -> str:
    """Write a parsed template for `dialect`, helpers rewritten (in place when the
    caller passes a private tree with copy=False)."""
    d = get_dialect(dialect)
    return d.rewrite(tree, copy=copy).sql(dialect=d.name, pretty=pretty)
