"""A pipeline of named SQL steps (after Splink's CTEPipeline).

Each step is a query that may read earlier steps by name. The pipeline compiles either
to one WITH query (for display and for engines that optimise across steps) or to
statements that materialise chosen steps as real tables — required where a result is
reused or must not be re-evaluated (samples: a view re-evaluates its randomness).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlglot import exp

from abcde import progress
from abcde.sql.dialects import Dialect, to_sql
from abcde.sql.quoting import CANONICAL_DIALECT, ident, table_ref


def retarget(query: exp.Query, table_of: Callable[[str], exp.Table | None], *,
             copy: bool = True) -> exp.Query:
    """`query` reading every unqualified table `table_of` gives a new table for from that
    table, aliased by its old name (so that its column references stay valid)."""
    def visit(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and not node.db:
            table = table_of(node.name)
            if table is not None:
                table.set("alias", node.args.get("alias") or exp.TableAlias(
                    this=exp.to_identifier(node.name)))
                return table
        return node

    return query.transform(visit, copy=copy)


class Runner(Protocol):
    """What a pipeline needs of an engine (a protocol: engines/ depends on sql/)."""

    dialect: Any

    def execute(self, sql: str) -> None: ...

    def fetch(self, sql: str) -> list[dict[str, Any]]: ...


log = logging.getLogger("abcde")


@dataclass
class Step:
    name: str
    query: exp.Query
    materialise: bool = False
    dialects: frozenset[str] | None = None  # the targets that run it; None: every one

    def runs_on(self, dialect: str | Dialect) -> bool:
        name = dialect if isinstance(dialect, str) else dialect.name
        return self.dialects is None or name in self.dialects


@dataclass
class Pipeline:
    """Steps in order; `prefix` names the physical tables of materialised steps, in
    `schema` if given (quoted, as every user-given name)."""

    prefix: str = "abcde_"
    schema: str | None = None
    steps: dict[str, Step] = field(default_factory=dict)
    # materialised steps placed elsewhere (a workspace): step -> relation, DuckDB SQL
    tables: dict[str, str] = field(default_factory=dict)
    provided: set[str] = field(default_factory=set)  # tables that exist: never run
    built: set[str] = field(default_factory=set)  # tables made or provided: `fetch` reads them

    def copy(self) -> Pipeline:
        """A pipeline with the same steps and tables, to extend without changing this one."""
        return Pipeline(prefix=self.prefix, schema=self.schema, steps=dict(self.steps),
                        tables=dict(self.tables), provided=set(self.provided),
                        built=set(self.built))

    def place(self, name: str, relation: str) -> None:
        """Materialise step `name` as `relation` (DuckDB SQL, quoted) when it runs."""
        step = self.steps[name]
        self.steps[name] = Step(name, step.query, True)
        self.tables[name] = relation

    def provide(self, name: str, relation: str) -> None:
        """Step `name` is the existing table `relation`: read, never run."""
        self.place(name, relation)
        self.provided.add(name)
        self.built.add(name)
        log.info("step %s: read from the workspace (%s)", name, relation)

    def digest(self, name: str, replace: dict[str, str] | None = None) -> str:
        """A hash of what step `name` computes: its query and those of the steps it reads,
        recursively (not the tables' names); `replace` maps relation texts of the inputs
        to stable names (a random view name must not change the hash)."""
        import hashlib

        seen: dict[str, str] = {}

        def visit(step: str) -> str:
            if step not in seen:
                query = self.steps[step].query
                text = query.sql(CANONICAL_DIALECT)
                for old, new in (replace or {}).items():
                    text = text.replace(old, new)
                deps = "".join(visit(d) for d in self._dependencies(query))
                seen[step] = hashlib.sha256(f"{step}\n{text}\n{deps}".encode()).hexdigest()
            return seen[step]

        return visit(name)

    def add(self, name: str, query: exp.Query, *, materialise: bool = False,
            dialects: frozenset[str] | None = None) -> str:
        assert name not in self.steps, f"duplicate pipeline step {name!r}"
        self.steps[name] = Step(name, query, materialise, dialects)
        return name

    def physical_name(self, name: str) -> str:
        """The table of step `name` as a relation in DuckDB SQL, every part quoted."""
        if name in self.tables:
            return self.tables[name]
        table = f"{self.prefix}{name}"
        return table_ref(f"{self.schema}.{table}") if self.schema else ident(table)

    def table(self, name: str) -> exp.Table:
        """The table of step `name`, to be written for a dialect with `to_sql`."""
        return exp.to_table(self.physical_name(name), dialect=CANONICAL_DIALECT)

    def relation_names(self) -> set[str]:
        """Every name the queries give a relation of their own (steps and CTEs): an
        unqualified user table so named would be read as abcde's relation."""
        names = set(self.steps)
        for step in self.steps.values():
            names |= {cte.alias for cte in step.query.find_all(exp.CTE)}
        return names

    def _dependencies(self, query: exp.Query) -> list[str]:
        """Earlier steps a query reads, in pipeline order."""
        cte_names = {cte.alias for cte in query.find_all(exp.CTE)}
        used = {t.name for t in query.find_all(exp.Table) if not t.db and t.name not in cte_names}
        return [n for n in self.steps if n in used]

    def _inline(self, name: str) -> exp.Query:
        return self.rewrite_query(self.steps[name].query)

    def rewrite_query(self, query: exp.Query) -> exp.Query:
        """A query over step names made runnable: unmaterialised steps it reads become
        CTEs (one flat WITH list: nested WITH is not portable), materialised ones are
        renamed to their physical tables."""
        ctes: list[tuple[str, exp.Query]] = []
        seen: set[str] = set()

        def hoist(q: exp.Query) -> exp.Query:
            """Move q's own CTEs into `ctes`; return q without its WITH."""
            q = q.copy()  # the one copy: everything below edits it in place
            with_ = q.args.get("with_") or q.args.get("with")
            if not with_:
                return q
            for cte in with_.expressions:
                add(cte.alias, cte.this)
            q.set("with_" if "with_" in q.args else "with", None)
            return q

        def add(name: str, q: exp.Query) -> None:
            assert name not in seen, f"CTE name {name!r} used twice in one pipeline query"
            seen.add(name)
            ctes.append((name, q))

        def collect(q: exp.Query) -> None:
            for dep in self._dependencies(q):
                if dep in seen or self.steps[dep].materialise:
                    continue
                dep_query = self.steps[dep].query
                collect(dep_query)
                add(dep, hoist(dep_query))

        collect(query)
        main = hoist(query)
        for cte_name, cte_query in ctes:
            main = main.with_(cte_name, as_=cte_query, copy=False)
        return self._rename(main)

    def _rename(self, query: exp.Query) -> exp.Query:
        materialised = {n for n, s in self.steps.items() if s.materialise}
        # rewrite_query made a private copy
        return retarget(query, lambda n: self.table(n) if n in materialised else None,
                        copy=False)

    def query(self, name: str) -> exp.Query:
        """One query computing step `name`."""
        return self._inline(name)

    def create_statements(self, name: str, dialect: str | Dialect, *,
                          pretty: bool = False, query: exp.Query | None = None) -> list[str]:
        """DROP TABLE IF EXISTS, then CREATE TABLE ... AS (CREATE OR REPLACE is not
        portable), of one step, or of `query` in its place (`run_as`)."""
        table = self.table(name)
        drop = exp.Drop(tables=[table.copy()], kind="TABLE", exists=True)
        body = self._inline(name) if query is None else self.rewrite_query(query)
        create = exp.Create(this=table.copy(), kind="TABLE", expression=body)
        return [to_sql(drop, dialect, pretty=pretty),
                to_sql(create, dialect, pretty=pretty, copy=False)]

    def statements(self, dialect: str | Dialect, *,
                   pretty: bool = False) -> list[tuple[str, str]]:
        """(step name, SQL) for every materialised step not `provided` that `dialect`
        runs, in order."""
        return [(name, sql) for name, step in self.steps.items()
                if step.materialise and name not in self.provided and step.runs_on(dialect)
                for sql in self.create_statements(name, dialect, pretty=pretty)]

    def run(self, engine: Runner, *names: str) -> None:
        """Materialise steps on an engine."""
        for name in names:
            if name not in self.provided and self.steps[name].runs_on(engine.dialect):
                self._materialise(engine, name, None)

    def run_as(self, engine: Runner, name: str, query: exp.Query, why: str) -> None:
        """Materialise step `name` from `query`, which gives the same rows for the inputs
        at hand (`why`, in the log); the step keeps its query and so its `digest`."""
        self._materialise(engine, name, query, f" ({why})")

    def _materialise(self, engine: Runner, name: str, query: exp.Query | None,
                     note: str = "") -> None:
        start = time.perf_counter()
        with progress.step(name):
            for sql in self.create_statements(name, engine.dialect, query=query):
                log.debug("%s", sql)
                engine.execute(sql)
        self.built.add(name)
        log.info("step %s: %.2f s%s", name, time.perf_counter() - start, note)

    def fetch(self, engine: Runner, name: str) -> list[dict[str, Any]]:
        """Run step `name` as one query and return its rows."""
        start = time.perf_counter()
        query = (exp.select("*").from_(self.table(name)) if name in self.built
                 and self.steps[name].materialise else self.query(name))
        sql = to_sql(query, engine.dialect, copy=False)
        log.debug("%s", sql)
        with progress.step(name):
            rows = engine.fetch(sql)
        log.info("query %s: %.2f s", name, time.perf_counter() - start)
        return rows
