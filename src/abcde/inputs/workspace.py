"""A workspace keeps the cell tables of a round between commands (`--workspace`;
docs/method.md §2.6, docs/warehouse.md): the first command on some inputs builds the cells
and stores them, the next on the same inputs reads them instead of joining the population
again. A stored table is named `abcde_<key>_<writer>_<step>`, the key hashing the inputs'
fingerprints (`input_fingerprint`: a file's identity in the file system and a hash of its
ends, a table's row count and row-hash sums) and the SQL that computed it
(`Pipeline.digest`). A writer marks each finished table with `<name>_ok`, and readers use
only marked tables: never stale, never half-written; cells of inputs that fail the checks
are never marked.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import sqlglot
from sqlglot import exp

from abcde.engines.base import Engine
from abcde.errors import WorkspaceBusy
from abcde.inputs.sources import Source
from abcde.sql.dialects import to_sql
from abcde.sql.pipeline import Pipeline
from abcde.sql.quoting import CANONICAL_DIALECT, ident, table_ref

log = logging.getLogger("abcde")


class Stored(Protocol):
    """What `run_stored` needs of the opened inputs (`abcde.inputs.session.Inputs`)."""

    workspace: Workspace | None

    @property
    def sources(self) -> list[Source | None]: ...

_EDGE = 64 * 1024


def file_identity(path: Path) -> list[Any]:
    """What tells a file apart from every other version of it, without reading it all
    (see the module's docstring)."""
    st = path.stat()
    digest = hashlib.sha256()
    with path.open("rb") as f:
        digest.update(f.read(_EDGE))
        if st.st_size > _EDGE:
            f.seek(max(_EDGE, st.st_size - _EDGE))
            digest.update(f.read(_EDGE))
    return [str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
            st.st_dev, digest.hexdigest()]


def table_identity(engine: Engine, source: Source) -> list[Any]:
    """Row count and hash aggregates of a relation (see the module's docstring)."""
    dialect = engine.dialect.sqlglot_name
    cols = sorted(source.columns)
    parts = [f"COALESCE(CAST({ident(c)} AS VARCHAR), '~')" for c in cols]
    key = " || '|' || ".join(parts) if parts else "''"
    key_sql = sqlglot.transpile(key, read=CANONICAL_DIALECT, write=dialect)[0]
    inner = engine.select_sql(source.relation)
    row = engine.fetch(f"SELECT COUNT(*) AS n, SUM(h) AS s, MIN(h) AS lo, MAX(h) AS hi "
                       f"FROM (SELECT {engine.row_hash.format(key=key_sql)} AS h "
                       f"FROM ({inner}) AS t) AS hashed")[0]
    return [cols, *(None if v is None else int(v) for v in row.values())]


def input_fingerprint(engine: Engine, sources: list[Source | None]) -> str:
    """A hash identifying the contents of the inputs `sources` (see the module's
    docstring for what is read)."""
    ident_parts: list[Any] = []
    for source in sources:
        if source is None:
            ident_parts.append(None)
        elif source.path is not None:
            ident_parts.append([source.role, "file", source.fmt, *file_identity(source.path)])
        else:
            ident_parts.append([source.role, "table", *table_identity(engine, source)])
    text = json.dumps(ident_parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Workspace:
    """The tables of one workspace on an engine (see the module's docstring). Without a
    `location` it is the memory of one `abcde.Comparison`: its tables live in the
    engine's work schema while the comparison is open, found by the SQL that made them
    (the inputs cannot change under an open comparison), and are dropped at its end."""

    engine: Engine
    location: str | None
    schema: str | None
    writer: str = field(default_factory=lambda: secrets.token_hex(3))
    _tables: set[str] | None = None
    _fingerprints: dict[str, str] = field(default_factory=dict)
    _marks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def persistent(self) -> bool:
        return self.location is not None

    @classmethod
    @contextmanager
    def opened(cls, engine: Engine, location: str | os.PathLike[str] | None,
               ) -> Iterator[Workspace]:
        """The workspace at `location` on `engine` for the block; without a location, or
        when a DuckDB file stays held by another process (with a warning), the memory of
        the block."""
        if location is None:
            yield from cls._memory(engine)
            return
        try:
            schema = engine.attach_workspace(str(location))
        except WorkspaceBusy as err:
            log.warning("%s; running without the workspace", err)
            yield from cls._memory(engine)
            return
        try:
            yield cls(engine, str(location), schema)
        finally:
            engine.detach_workspace()

    @classmethod
    def _memory(cls, engine: Engine) -> Iterator[Workspace]:
        ws = cls(engine, None, engine.work_schema)
        try:
            yield ws
        finally:
            if not engine.closed:
                for table in ws._marks:
                    with contextlib.suppress(Exception):
                        engine.execute(to_sql(exp.Drop(
                            tables=[exp.to_table(table, dialect=CANONICAL_DIALECT)],
                            kind="TABLE", exists=True), engine.dialect))

    def fingerprint(self, sources: list[Source | None]) -> str:
        """`input_fingerprint`, computed once per set of sources."""
        key = "\n".join(f"{s.role}:{s.relation}" if s else "-" for s in sources)
        if key not in self._fingerprints:
            start = time.perf_counter()
            self._fingerprints[key] = input_fingerprint(self.engine, sources)
            tables = sum(s is not None and s.path is None for s in sources)
            # a table input costs a scan (-v shows where a round's time goes)
            log.info("query input_fingerprint: %.2f s (%s)", time.perf_counter() - start,
                     f"{tables} table input(s) hashed row by row" if tables
                     else "files by their identity")
        return self._fingerprints[key]

    def key(self, sources: list[Source | None], pipeline: Pipeline, step: str) -> str:
        """The key of step `step` of `pipeline` on the inputs `sources`."""
        if not self.persistent:  # these very sources, registered once for the session
            held = ",".join(str(id(s)) for s in sources)
            return hashlib.sha256(f"{held}:{pipeline.digest(step)}".encode()).hexdigest()[:16]
        stable = {s.relation: f"<{s.role}>" for s in sources if s is not None}
        text = f"{self.fingerprint(sources)}:{pipeline.digest(step, stable)}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def tables(self) -> set[str]:
        if self._tables is None:
            self._tables = set(self.engine.list_tables(self.schema))
        return self._tables

    def relation(self, table: str) -> str:
        return table_ref(f"{self.schema}.{table}") if self.schema else ident(table)

    def find(self, key: str, step: str) -> tuple[str, dict[str, Any]] | None:
        """The relation of a finished table of `step` under `key` and what its marker
        holds, or None."""
        if not self.persistent:
            table = self.target(key, step)
            return (table, self._marks[table]) if table in self._marks else None
        head, tail = f"abcde_{key}_", f"_{step}_ok"
        marks = sorted(t for t in self.tables() if t.startswith(head) and t.endswith(tail)
                       and t[:-3] in self.tables())
        if not marks:
            return None
        mark = marks[0]
        rows = self.engine.fetch(self.engine.select_sql(self.relation(mark)))
        info = json.loads(rows[0]["info"]) if rows else {}
        return self.relation(mark[:-3]), info

    def target(self, key: str, step: str) -> str:
        """The relation a new table of `step` under `key` is written to."""
        return self.relation(f"abcde_{key}_{self.writer}_{step}")

    def mark(self, key: str, step: str, info: dict[str, Any] | None = None) -> None:
        """Mark the table of `step` under `key` written by this writer as finished."""
        if not self.persistent:
            self._marks[self.target(key, step)] = dict(info or {})
            return
        name = f"abcde_{key}_{self.writer}_{step}_ok"
        text = json.dumps(info or {}, sort_keys=True, default=str)
        create = exp.Create(this=exp.to_table(self.relation(name), dialect=CANONICAL_DIALECT),
                            kind="TABLE", expression=exp.select(
                                exp.alias_(exp.Literal.string(text), "info")))
        self.engine.execute(to_sql(create, self.engine.dialect))
        if self._tables is not None:
            self._tables |= {name, name[:-3]}


def run_stored(engine: Engine, pipeline: Pipeline, inputs: Stored, *steps: str) -> None:
    """Materialise `steps` of `pipeline`, each read from the workspace of `inputs` when
    it holds the step for these inputs, else computed (into the workspace, marked)."""
    ws = inputs.workspace
    if ws is None:
        pipeline.run(engine, *steps)
        return
    for step in steps:
        key = ws.key(inputs.sources, pipeline, step)
        found = ws.find(key, step)
        if found is not None:
            pipeline.provide(step, found[0])
            continue
        pipeline.place(step, ws.target(key, step))
        pipeline.run(engine, step)
        ws.mark(key, step)


__all__ = ["Stored", "Workspace", "file_identity", "input_fingerprint", "run_stored",
           "table_identity"]
