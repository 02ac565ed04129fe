"""Render the SQL templates of `sql_templates/` and parse them once, in DuckDB's dialect.

Templates hold only structure; what differs between engines is written through the
helpers of `abcde.sql.helpers` (placeholders `abcde.sql.dialects` rewrites per target),
and user-given names reach SQL only through `ident`/`table_ref` (`abcde.sql.quoting`).
"""

from __future__ import annotations

import contextlib
import hashlib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache
import sqlglot
from sqlglot import exp

from abcde.errors import TemplateError
from abcde.sql.helpers import HELPERS
from abcde.sql.quoting import CANONICAL_DIALECT, ident, literal, table_ref
from abcde.version import __version__


def template_dir() -> Path:
    """Templates ship inside the wheel as `abcde/sql_templates`; a source checkout has
    them at the repository's top level (editable installs map only `src/abcde`)."""
    packaged = Path(str(resources.files("abcde"))) / "sql_templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[3] / "sql_templates"


#: How templates are compiled; part of the cache's file names (below), so that compiled
#: code from other options (another abcde version) is never loaded.
_OPTIONS: dict[str, Any] = {"undefined": jinja2.StrictUndefined, "autoescape": False,
                            "trim_blocks": True, "lstrip_blocks": True,
                            "keep_trailing_newline": True}


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates (in its private per-user temporary directory):
    compiling them costs every command ~0.03 s. A cache that cannot be read or written
    is only a slower start, never an error."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError, ValueError, EOFError):
            super().load_bytecode(bucket)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    options = ",".join(f"{k}={getattr(v, '__name__', v)}" for k, v in sorted(_OPTIONS.items()))
    tag = hashlib.sha1(f"{__version__};{jinja2.__version__};{options}".encode()).hexdigest()
    try:
        return _BytecodeCache(pattern=f"__abcde_{tag[:12]}_%s.cache")
    except (OSError, RuntimeError):  # no safe private directory: compile every time
        return None


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template_dir())),
                             bytecode_cache=_bytecode_cache(), **_OPTIONS)
    env.globals.update(HELPERS)
    env.filters.update(ident=ident, table_ref=table_ref, literal=literal)
    return env


def render_text(name: str, **context: Any) -> str:
    """Render template `name` (e.g. "impact/cells.sql") to DuckDB SQL text."""
    return _environment().get_template(name).render(**context)


def render(name: str, **context: Any) -> exp.Query:
    """Render and parse once in DuckDB's dialect; a parse error names the template."""
    text = render_text(name, **context)
    try:
        return sqlglot.parse_one(text, read=CANONICAL_DIALECT)  # type: ignore[return-value]
    except sqlglot.errors.ParseError as err:
        raise TemplateError(f"template {name} does not parse: {err}\n{text}") from err
