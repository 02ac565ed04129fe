"""Run a job of tests/warehouse/emulated_round.py on bqemulator (PyPI; BigQuery's REST API
over DuckDB), in its own virtualenv (tests/warehouse/test_bqemulator.py): it pins a
sqlglot older than abcde's, so it cannot share .venv.

The emulator serves on a random port of 127.0.0.1 for this process only; each script is
sent whole as one query job (`jobs.query`), as `bq query < script.sql` sends it, and
runs as a BigQuery multi-statement script. Nothing is rewritten. The DuckDB extension
the emulator loads at start (spatial) is installed from the PyPI wheel
duckdb-extension-spatial into $HOME/.duckdb (the test points HOME into the virtualenv),
so the emulator reaches no network. Writes {query: rows (values typed by the result's
schema), failing script: its error} as JSON to the file named by the first argument, or
{"error": ...} naming the step that failed."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
from bqemulator.config import PersistenceMode, Settings
from bqemulator.server import EmulatorServer

PROJECT = "proj"
TYPES = {"INTEGER": int, "INT64": int, "FLOAT": float, "FLOAT64": float,
         "NUMERIC": float, "BIGNUMERIC": float, "BOOLEAN": lambda v: v == "true",
         "BOOL": lambda v: v == "true"}


def _rows(response: dict[str, Any]) -> list[dict[str, Any]]:
    fields = response["schema"]["fields"]
    out = []
    for row in response.get("rows", []):
        values = [cell["v"] for cell in row["f"]]
        out.append({f["name"].lower(): None if v is None else TYPES.get(f["type"], str)(v)
                    for f, v in zip(fields, values, strict=True)})
    return out


async def _run(job: dict[str, Any]) -> dict[str, Any]:
    settings = Settings(persistence_mode=PersistenceMode.EPHEMERAL, rest_host="127.0.0.1",
                        rest_port=0, grpc_host="127.0.0.1", grpc_port=0,
                        enable_format_extensions=False, default_project_id=PROJECT,
                        log_level="error")
    server = EmulatorServer(settings)
    await server.start()
    out: dict[str, Any] = {}
    try:
        url = f"{server.rest_url}/bigquery/v2/projects/{PROJECT}"
        async with httpx.AsyncClient(timeout=1200) as client:
            async def query(sql: str) -> dict[str, Any]:
                r = await client.post(f"{url}/queries", json={
                    "query": sql, "useLegacySql": False, "timeoutMs": 1_200_000,
                    "maxResults": 100_000})
                body = r.json()
                errors = body.get("errors") or ([body["error"]] if "error" in body else [])
                if r.status_code != 200 or errors:
                    raise RuntimeError(f"HTTP {r.status_code}: {errors}")
                return body

            for dataset in ("raw", "abcde"):
                await client.post(f"{url}/datasets", json={"datasetReference": {
                    "projectId": PROJECT, "datasetId": dataset}})
            # streamed rows (tabledata.insertAll): no SQL to translate
            for role, table in job["inputs"].items():
                cols = ", ".join(f"{c} {'FLOAT64' if c == 'weight' else 'STRING'}"
                                 for c in table["columns"])
                await query(f"CREATE TABLE `{PROJECT}.raw.{role}` ({cols})")
                r = await client.post(f"{url}/datasets/raw/tables/{role}/insertAll", json={
                    "rows": [{"json": dict(zip(table["columns"], row, strict=True))}
                             for row in table["rows"]]})
                if r.status_code != 200 or r.json().get("insertErrors"):
                    return {"error": f"load {role}: {r.text[:2000]}"}
            for kind, name, text in job["steps"]:
                try:
                    body = await query(text)
                except RuntimeError as err:
                    if kind != "fails":  # report which step, then stop
                        return {"error": f"{kind} {name}: {err}"}
                    out[name] = str(err)
                    continue
                if kind == "fails":
                    out[name] = None
                if kind == "query":
                    out[name] = _rows(body)
    finally:
        await server.stop()
    return out


def main() -> None:
    out = asyncio.run(_run(json.load(sys.stdin)))
    with open(sys.argv[1], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
