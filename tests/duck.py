"""DuckDB for test set-up and checks, on a private connection.

DuckDB 2 refuses relational calls (``duckdb.sql``) on a connection whose last
``execute`` result was not read to the end, and the module-level functions share one
default connection per process. Under pytest-xdist the tests a worker runs before
another depend on scheduling, so one test's half-read ``execute(...).fetchone()`` broke
another's ``duckdb.sql`` on CI only. Each call here opens and closes its own connection.
"""

from __future__ import annotations

import duckdb


def duck(sql: str, params: list | None = None) -> list[tuple]:
    """All rows of one statement, run on a fresh in-memory connection."""
    with duckdb.connect() as con:
        return con.execute(sql, params).fetchall()
