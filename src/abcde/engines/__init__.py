"""Engines run SQL and register/read tables; everything else is shared."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from abcde.engines.base import Engine, TypeCategory
from abcde.errors import EngineError

ENGINES = ("duckdb", "spark", "postgres")


def connect(name: str = "duckdb", **options: object) -> Engine:
    """An engine by name; optional engines tell which extra to install when missing."""
    if name == "duckdb":
        from abcde.engines.duckdb import DuckDBEngine

        return DuckDBEngine(**options)  # type: ignore[arg-type]
    if name == "spark":
        from abcde.engines.spark import SparkEngine

        return SparkEngine(**options)  # type: ignore[arg-type]
    if name == "postgres":
        from abcde.engines.postgres import PostgresEngine

        return PostgresEngine(**options)  # type: ignore[arg-type]
    raise EngineError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")


@contextmanager
def engine_for(engine: Engine | None, **duckdb_options: object) -> Iterator[Engine]:
    """The caller's engine, left open; else an in-process DuckDB (with `duckdb_options`:
    db, memory_limit, threads) opened for the block and closed after it."""
    if engine is not None:
        yield engine
        return
    own = connect("duckdb", **duckdb_options)
    try:
        yield own
    finally:
        own.close()


__all__ = ["ENGINES", "Engine", "TypeCategory", "connect", "engine_for"]
