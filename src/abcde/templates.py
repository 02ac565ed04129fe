"""Render the SQL templates of `sql_templates/` and parse them once, in DuckDB's dialect.

Templates hold only structure (column lists, slices, optional clauses). Everything that
differs between engines is written through the named helpers below, which emit
placeholder functions (`ABCDE_FDIV`, ...) that `abcde.dialects` rewrites per target in
the parsed tree. User-given names reach SQL only through `ident`/`table_ref`, which
quote them with sqlglot.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import sqlglot
from sqlglot import exp

from abcde.errors import TemplateError

CANONICAL_DIALECT = "duckdb"


def template_dir() -> Path:
    """Templates ship inside the wheel as `abcde/sql_templates`; a source checkout has
    them at the repository's top level (editable installs map only `src/abcde`)."""
    packaged = Path(str(resources.files("abcde"))) / "sql_templates"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "sql_templates"
    if checkout.is_dir():
        return checkout
    raise TemplateError(f"SQL templates not found (looked in {packaged} and {checkout})")


def ident(name: str) -> str:
    """A user-given column name as a quoted identifier (never pasted text)."""
    if not isinstance(name, str) or not name:
        raise TemplateError(f"not a column name: {name!r}")
    return exp.to_identifier(name, quoted=True).sql(CANONICAL_DIALECT)


def table_ref(name: str) -> str:
    """A possibly qualified table name (`db.schema.table`), every part quoted."""
    parts = name.split(".")
    if not all(parts):
        raise TemplateError(f"not a table name: {name!r}")
    return ".".join(ident(p) for p in parts)


def literal(value: object) -> str:
    """A Python value as a SQL literal (strings escaped by sqlglot)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return f"CAST({value!r} AS DOUBLE)" if isinstance(value, float) else str(value)
    return exp.Literal.string(str(value)).sql(CANONICAL_DIALECT)


# Placeholder helpers: rewritten per dialect by abcde.dialects (see ENGINES.md for why).
def fdiv(a: str, b: str) -> str:
    """Float division with a NULL (not an error, not inf) for a zero denominator."""
    return f"ABCDE_FDIV({a}, {b})"


def ln(x: str) -> str:
    """Natural logarithm (`LOG` means log10 on DuckDB and ln elsewhere)."""
    return f"ABCDE_LN({x})"


def uniform(seed: str, *keys: str) -> str:
    """Reproducible U(0,1) from md5('<seed>:<key1>:<key2>...'), identical on every engine."""
    return f"ABCDE_UNIFORM({', '.join((seed, *keys))})"


def order_key(*ids: str) -> str:
    """A sort key for ids that depends only on their text: the md5 uniform of
    ('order', ids...). The native order differs between types (9 < 10 but '9' > '10':
    one input as CSV text, the other as Parquet integers) and PostgreSQL orders text by
    its collation; this key is the same for 10 and '10' on every engine. Sort by it,
    then by the ids themselves (a tie-break only a 52-bit md5 collision reaches)."""
    return uniform(literal("order"), *ids)


def is_finite(x: str) -> str:
    """TRUE when x is a finite number (not NULL, NaN or ±inf)."""
    return f"ABCDE_IS_FINITE({x})"


# The weights abcde accepts (SPEC §1). Only ratios of weights matter, so any weights can
# be rescaled into this range; inside it every sum (of up to 1e10 items), product and
# ratio the metrics and estimators form is a normal double: no overflow to inf, no
# subnormal losing digits. One constant for every validation path (Python and SQL).
WEIGHT_MIN, WEIGHT_MAX = 1e-100, 1e100


def valid_weight(x: str) -> str:
    """TRUE when x is a weight abcde accepts: finite and in [WEIGHT_MIN, WEIGHT_MAX]."""
    return (f"({is_finite(x)} AND {x} >= CAST({WEIGHT_MIN!r} AS DOUBLE) "
            f"AND {x} <= CAST({WEIGHT_MAX!r} AS DOUBLE))")


# Significant digits at which two positive numbers count as equal when ranking.
RANK_DIGITS = 9


def rank_key(x: str) -> str:
    """A key that orders positive x like x, but is equal for values that agree to about
    RANK_DIGITS significant digits: k = floor(ln x + 1/2) and the mantissa x·e^−k ∈
    [e^−½, e^½) rounded to RANK_DIGITS decimals, packed into one exactly representable
    number. (The ½ keeps round numbers such as 1.0 off the boundaries between k's.)
    Mathematically equal values — the two halves of a cluster split in two contribute the
    same — differ in their last bits between engines and between parallel runs; ranked by
    this key, such ties are broken by id the same way everywhere. NULL for x ≤ 0.
    Python's twin: abcde.ranking.rank_key."""
    k = f"FLOOR({ln(x)} + CAST(0.5 AS DOUBLE))"
    scale = f"CAST({10 ** RANK_DIGITS} AS DOUBLE)"
    mantissa = f"FLOOR(CAST({x} AS DOUBLE) * EXP(-{k}) * {scale} + CAST(0.5 AS DOUBLE))"
    return (f"(CASE WHEN {x} > 0 THEN CAST({4 * 10 ** RANK_DIGITS} AS DOUBLE) * {k} "
            f"+ {mantissa} END)")


HELPERS = {"ident": ident, "table_ref": table_ref, "literal": literal, "fdiv": fdiv,
           "ln": ln, "uniform": uniform, "order_key": order_key, "is_finite": is_finite,
           "rank_key": rank_key, "valid_weight": valid_weight}


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(HELPERS)
    env.filters.update(ident=ident, table_ref=table_ref, literal=literal)
    return env


def render_text(name: str, **context: Any) -> str:
    """Render template `name` (e.g. "impact/cells.sql") to DuckDB SQL text."""
    try:
        return _environment().get_template(name).render(**context)
    except jinja2.TemplateError as err:
        raise TemplateError(f"template {name}: {err}") from err


def render(name: str, **context: Any) -> exp.Query:
    """Render and parse once in DuckDB's dialect; a parse error names the template."""
    text = render_text(name, **context)
    try:
        parsed = sqlglot.parse_one(text, read=CANONICAL_DIALECT)
    except sqlglot.errors.ParseError as err:
        raise TemplateError(f"template {name} does not parse: {err}\n{text}") from err
    if not isinstance(parsed, exp.Query):
        raise TemplateError(f"template {name} must hold one query, got {type(parsed).__name__}")
    return parsed
