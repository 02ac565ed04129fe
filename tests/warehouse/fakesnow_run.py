"""Run Snowflake SQL on fakesnow (an in-process Snowflake emulator over DuckDB), in its own
virtualenv (tests/warehouse/test_fakesnow.py): fakesnow pins a sqlglot older than
abcde's, so it cannot share .venv.

Reads a JSON job on stdin — `tables` ({name: {"columns": [...], "rows": [...]}}, each
created as VARCHAR/DOUBLE columns and filled by multi-row INSERTs of literals: fakesnow
translates every statement it runs, so `executemany` of one row at a time took ~40 s for
the examples), `statements` (run in order) and
`queries` ({name: sql}) — and prints {name: rows} as JSON. One construct fakesnow does
not implement is rewritten before running, and only it: the hex parse of the md5
uniform, `TO_NUMBER(x, 'XXXXXXXXXXXXX')` (docs/method.md §10.2), becomes the same
number by DuckDB's own parse (`CAST('0x' || x AS BIGINT)`), which fakesnow passes
through."""

from __future__ import annotations

import json
import math
import sys

import fakesnow
import snowflake.connector

FORMAT = ", 'XXXXXXXXXXXXX')"
ROWS_PER_INSERT = 500


def literal(value: object) -> str:
    """A Snowflake literal of a JSON value of a VARCHAR or DOUBLE column."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    number = float(value)  # type: ignore[arg-type]
    return repr(number) if math.isfinite(number) else f"CAST('{number}' AS DOUBLE)"


def rewrite(sql: str) -> str:
    """`TO_NUMBER(x, 'XXXXXXXXXXXXX')` -> `CAST('0x' || x AS BIGINT)`, x any expression."""
    out, pos = [], 0
    while (start := sql.find("TO_NUMBER(", pos)) >= 0:
        depth, k = 0, start + len("TO_NUMBER")
        while True:
            depth += {"(": 1, ")": -1}.get(sql[k], 0)
            if depth == 0:
                break
            k += 1
        inner = sql[start + len("TO_NUMBER("):k + 1]
        if inner.endswith(FORMAT):
            out += [sql[pos:start], f"CAST('0x' || {inner[:-len(FORMAT)]} AS BIGINT)"]
        else:
            out.append(sql[pos:k + 1])
        pos = k + 1
    return "".join(out) + sql[pos:]


def main() -> None:
    job = json.load(sys.stdin)
    out: dict[str, object] = {}
    with fakesnow.patch():
        con = snowflake.connector.connect()
        cur = con.cursor()
        for db in job.get("databases", []):
            cur.execute(f"CREATE DATABASE {db}")
        for schema in job.get("schemas", []):
            cur.execute(f"CREATE SCHEMA {schema}")
        for name, table in job.get("tables", {}).items():
            cols = ", ".join(f"{c} {t}" for c, t in table["columns"])
            cur.execute(f"CREATE TABLE {name} ({cols})")
            rows = table["rows"]
            for start in range(0, len(rows), ROWS_PER_INSERT):
                values = ", ".join("(" + ", ".join(literal(v) for v in row) + ")"
                                   for row in rows[start:start + ROWS_PER_INSERT])
                cur.execute(f"INSERT INTO {name} VALUES {values}")
        for k, sql in enumerate(job["statements"]):
            try:
                cur.execute(rewrite(sql))
            except Exception as err:  # report which statement, then stop
                print(json.dumps({"error": f"statement {k}: {err}", "sql": sql}))
                return
        for name, sql in job.get("queries", {}).items():
            cur.execute(sql)
            cols = [d[0].lower() for d in cur.description]
            out[name] = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
