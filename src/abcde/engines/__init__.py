"""Engines run SQL and register/read tables; everything else is shared."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from contextlib import contextmanager

from abcde.engines.base import Engine, TypeCategory
from abcde.errors import InputError

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

    Raises
    ------
    InputError
        An unknown engine name, or an option the engine does not take.
    """
    if not isinstance(name, str) or name not in _ENGINE_CLASSES:
        raise unknown_engine(name)
    module, cls = _ENGINE_CLASSES[name]
    engine_class: type[Engine] = getattr(importlib.import_module(module), cls)
    accepted = [p.name for p in inspect.signature(engine_class).parameters.values()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [o for o in options if o not in accepted]
    if unknown:  # the constructor's TypeError named a class the caller never saw
        raise InputError(f"abcde.connect({name!r}) takes no option "
                         f"{', '.join(map(repr, unknown))}; its options are "
                         f"{', '.join(accepted)}")
    return engine_class(**options)  # type: ignore[arg-type]


def unknown_engine(name: object) -> InputError:
    """The refusal of an engine name that is none of `ENGINES` (abcde.connect, engine=
    of the Python API, --engine), one message everywhere."""
    hint = "The names are lower case." if isinstance(name, str) and name.lower() in ENGINES \
        else None
    return InputError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}", hint=hint)


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


__all__ = ["ENGINES", "Engine", "TypeCategory", "connect", "engine_for", "unknown_engine"]
