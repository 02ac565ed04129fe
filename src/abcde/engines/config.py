"""Where the SQL runs, as one value: `EngineConfig` names an engine and its options, is
checked once when it is made (from the CLI's options or the Python API's keywords), and
opens the engine (`open`). Every command and function takes one, or an engine already
open, and hands it down: nothing below builds a second.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abcde.engines.base import Engine
from abcde.errors import InputError
from abcde.params import THREADS

# engine name -> (module, class), imported when asked for: the optional engines need
# their extras, and say which to install when it is missing
ENGINE_CLASSES = {"duckdb": ("abcde.engines.duckdb", "DuckDBEngine"),
                  "spark": ("abcde.engines.spark", "SparkEngine"),
                  "postgres": ("abcde.engines.postgres", "PostgresEngine")}
ENGINES = tuple(ENGINE_CLASSES)
# the options of each engine, as the CLI spells them
_OWN = {"duckdb": {"db": "--db", "memory_limit": "--memory-limit", "threads": "--threads"},
        "postgres": {"dsn": "--dsn"},
        "spark": {"spark": "spark=", "spark_master": "--spark-master",
                  "spark_remote": "--spark-remote", "spark_conf": "--spark-conf"}}


@dataclass(frozen=True)
class EngineConfig:
    """An engine and its options: DuckDB in-process on `db` (a database of input tables,
    opened read-only) with `memory_limit` and `threads`; PostgreSQL at `dsn`; Spark in
    the session `spark` (a SparkSession of the caller's), else a Spark Connect client of
    `spark_remote`, else a classic session on `spark_master` (default local[2]) with the
    settings `spark_conf`. `name` defaults to the engine the options belong to."""

    name: str | None = None
    db: str | Path | None = None
    memory_limit: str | None = None
    threads: int | None = None
    dsn: str | None = None
    spark: Any = None
    spark_master: str | None = None
    spark_remote: str | None = None
    spark_conf: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        given = {k for k, v in vars(self).items() if k != "name" and v not in (None, ())}
        name = self.name or next((n for n, own in _OWN.items() if given & set(own)), "duckdb")
        if not isinstance(name, str) or name not in ENGINE_CLASSES:
            hint = "The names are lower case." if str(name).lower() in ENGINES else None
            raise InputError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}",
                             option="engine", hint=hint)
        foreign = sorted(given - set(_OWN[name]))
        if foreign:
            spelled = [next(own[o] for own in _OWN.values() if o in own) for o in foreign]
            raise InputError(f"{', '.join(spelled)} {'is' if len(spelled) == 1 else 'are'} "
                             f"not an option of the {name} engine", option=spelled[0])
        if sum(bool(v) for v in (self.spark, self.spark_master, self.spark_remote)) > 1:
            raise InputError("give one of a SparkSession, --spark-master and --spark-remote",
                             option="--spark-remote")
        if self.spark_remote and not self.spark_remote.startswith("sc://"):
            raise InputError(f"--spark-remote {self.spark_remote!r} is not a Spark Connect "
                             "URL", option="--spark-remote",
                             hint="Write sc://HOST:PORT (the server's port is 15002 by "
                                  "default).")
        object.__setattr__(self, "name", name)
        if self.threads is not None:
            object.__setattr__(self, "threads", THREADS.check("--threads", self.threads))

    def connect(self) -> Engine:
        """A new engine of this configuration (closed by the caller)."""
        module, cls = ENGINE_CLASSES[str(self.name)]
        engine_class = getattr(importlib.import_module(module), cls)
        # each engine's constructor takes its own options (spark_master as master, ...)
        return engine_class(**{o.removeprefix("spark_"): vars(self)[o]
                               for o in _OWN[str(self.name)]})


EngineLike = Engine | EngineConfig | str | None
"""What the Python API takes as `engine=`: an open engine (left open), a configuration
or an engine's name (opened for the call and closed after it), or None (DuckDB)."""


def engine_config(engine: EngineLike = None, **options: Any) -> Engine | EngineConfig:
    """The open engine given, else the configuration of `engine` (a name or an
    EngineConfig) with the Python API's DuckDB keywords `options` (db, memory_limit,
    threads; None when not given)."""
    given = {k: v for k, v in options.items() if v is not None}
    if isinstance(engine, Engine):
        if given:
            raise InputError(f"{', '.join(given)} configure an engine abcde opens; the "
                             "engine given as engine= is open already", option=next(iter(given)))
        if engine.closed:  # its connection is gone: its own error came from deep in a run
            raise InputError("the engine given as engine= is closed", option="engine",
                             hint="Open another with abcde.connect(...).")
        return engine
    if isinstance(engine, EngineConfig):
        if given:
            raise InputError(f"give {', '.join(given)} inside the EngineConfig",
                             option=next(iter(given)))
        return engine
    if engine is not None and not isinstance(engine, str):
        kind = f"{type(engine).__module__}.{type(engine).__qualname__}"
        raise InputError(f"engine= takes an engine of abcde.connect(...), an EngineConfig "
                         f"or an engine's name, not a {kind}", option="engine",
                         hint="abcde.connect('spark', spark=session) wraps a SparkSession.")
    return EngineConfig(engine, **given)


@contextmanager
def opened(engine: Engine | EngineConfig) -> Iterator[Engine]:
    """An open engine, left open; a configuration's engine, opened for the block."""
    if isinstance(engine, Engine):
        yield engine
        return
    own = engine.connect()
    try:
        yield own
    finally:
        own.close()


def parse_conf(pairs: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """`--spark-conf KEY=VALUE` values as (key, value) pairs."""
    out = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--spark-conf {pair!r} is not KEY=VALUE", option="--spark-conf",
                             hint="e.g. --spark-conf spark.driver.memory=4g (repeat the "
                                  "option for several settings).")
        out.append((key.strip(), value.strip()))
    return tuple(out)
