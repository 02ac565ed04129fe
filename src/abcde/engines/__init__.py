"""Engines run SQL and register/read tables; everything else is shared."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

from abcde.engines.base import Engine, TypeCategory
from abcde.errors import EngineError

# engine name -> (module, class), imported when asked for: the optional engines need
# their extras, and say which to install when it is missing
_ENGINE_CLASSES = {"duckdb": ("abcde.engines.duckdb", "DuckDBEngine"),
                   "spark": ("abcde.engines.spark", "SparkEngine"),
                   "postgres": ("abcde.engines.postgres", "PostgresEngine")}
ENGINES = tuple(_ENGINE_CLASSES)


def connect(name: str = "duckdb", **options: object) -> Engine:
    """An engine by name.

    Parameters
    ----------
    name
        'duckdb' (in-process; options `db`, `memory_limit`, `threads`), 'postgres'
        (option `dsn`; needs abcde[postgres]) or 'spark' (option `spark`, a
        SparkSession; needs abcde[spark]).
    **options
        Passed to the engine's constructor.

    Returns
    -------
    Engine
        The engine; an optional engine whose extra is missing says which to install.
    """
    if not isinstance(name, str) or name not in _ENGINE_CLASSES:
        raise EngineError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    module, cls = _ENGINE_CLASSES[name]
    engine_class: type[Engine] = getattr(importlib.import_module(module), cls)
    return engine_class(**options)  # type: ignore[arg-type]


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
