"""Run a job of tests/warehouse/emulated_round.py on fakesnow (an in-process Snowflake
emulator over DuckDB), in its own virtualenv (tests/warehouse/test_fakesnow.py): fakesnow
pins a sqlglot older than abcde's, so it cannot share .venv.

Each script runs whole, as `snowsql -f` would run the file: the connector's
`execute_string` splits it into statements and runs them in order. Every statement runs
as abcde wrote it for Snowflake: nothing is rewritten. Writes {query: rows, failing
script: its error} as JSON to the file named by the first argument, or {"error": ...}
naming the step that failed."""

from __future__ import annotations

import json
import math
import sys
from decimal import Decimal

import fakesnow
import snowflake.connector

ROWS_PER_INSERT = 500


def literal(value: object) -> str:
    """A Snowflake literal of a JSON value of a VARCHAR or DOUBLE column."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    number = float(value)  # type: ignore[arg-type]
    return repr(number) if math.isfinite(number) else f"CAST('{number}' AS DOUBLE)"


def plain(value: object) -> object:
    """A NUMBER's Decimal as an int when whole, else a float; anything else as text."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return str(value)


def main() -> None:
    job = json.load(sys.stdin)
    out: dict[str, object] = {}
    with fakesnow.patch():
        con = snowflake.connector.connect()
        cur = con.cursor()
        for sql in ("CREATE DATABASE db", "CREATE SCHEMA db.raw", "CREATE SCHEMA db.abcde"):
            cur.execute(sql)
        # multi-row INSERTs of literals: fakesnow translates every statement it runs, so
        # `executemany` of one row at a time took ~40 s for the examples
        for role, table in job["inputs"].items():
            cols = ", ".join(f"{c} {'DOUBLE' if c == 'weight' else 'VARCHAR'}"
                             for c in table["columns"])
            cur.execute(f"CREATE TABLE db.raw.{role} ({cols})")
            rows = table["rows"]
            for start in range(0, len(rows), ROWS_PER_INSERT):
                values = ", ".join("(" + ", ".join(literal(v) for v in row) + ")"
                                   for row in rows[start:start + ROWS_PER_INSERT])
                cur.execute(f"INSERT INTO db.raw.{role} VALUES {values}")
        for kind, name, text in job["steps"]:
            try:
                if kind == "script":
                    for _ in con.execute_string(text):
                        pass
                elif kind == "fails":
                    try:
                        for _ in con.execute_string(text):
                            pass
                        out[name] = None
                    except snowflake.connector.errors.Error as err:
                        out[name] = str(err)
                else:
                    cur.execute(text)
                    cols = [d[0].lower() for d in cur.description]
                    out[name] = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
            except Exception as err:  # report which step, then stop
                out = {"error": f"{kind} {name}: {err}"}
                break
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, default=plain)


if __name__ == "__main__":
    main()
