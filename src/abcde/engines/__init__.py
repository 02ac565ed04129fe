"""Engines run SQL and register/read tables; everything else is shared."""

from __future__ import annotations

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


__all__ = ["ENGINES", "Engine", "TypeCategory", "connect"]
