"""Engines run SQL and register/read tables; everything else is shared."""

from __future__ import annotations

import importlib
import inspect

from abcde.engines.base import Engine, TypeCategory
from abcde.engines.config import ENGINE_CLASSES, ENGINES, EngineConfig
from abcde.errors import InputError


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
    EngineConfig(name if isinstance(name, str) else repr(name))  # refuses an unknown name
    module, cls = ENGINE_CLASSES[name]
    engine_class: type[Engine] = getattr(importlib.import_module(module), cls)
    accepted = [p.name for p in inspect.signature(engine_class).parameters.values()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [o for o in options if o not in accepted]
    if unknown:  # the constructor's TypeError named a class the caller never saw
        raise InputError(f"abcde.connect({name!r}) takes no option "
                         f"{', '.join(map(repr, unknown))}; its options are "
                         f"{', '.join(accepted)}", option=unknown[0])
    return engine_class(**options)  # type: ignore[arg-type]


__all__ = ["ENGINES", "Engine", "EngineConfig", "TypeCategory", "connect"]
