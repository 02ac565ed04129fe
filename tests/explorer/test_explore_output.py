"""What `abcde explore` prints — its text table, its JSON and the exploration page — for
values a float or a number format would misprint: a group's draws are a count."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import duckdb
from click.testing import CliRunner
from starlette.testclient import TestClient

from abcde.cli import main
from abcde.explorer.app import explore_app
from abcde.server.app import allowed_hosts

TOKEN = "t" * 43


def cli(*args: str) -> str:
    res = CliRunner().invoke(main, ["explore", *args])
    assert res.exit_code == 0, res.output
    return res.output


def text_rows(out: str) -> list[list[str]]:
    """The cells of the text table's rows (after the title, header and rule lines)."""
    return [re.split(r" {2,}", line.strip()) for line in out.splitlines()[3:]]


def page_rows(client: TestClient, **params: object) -> list[list[str]]:
    """The cells of the page's group table."""
    page = client.get("/", params={"token": TOKEN, **params})
    assert page.status_code == 200, page.text
    body = page.text.split('<tbody>')[1].split('</tbody>')[0]
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def client_of(sample: Path) -> TestClient:
    return TestClient(explore_app(sample, TOKEN, allowed_hosts("127.0.0.1", 8000)),
                      base_url="http://127.0.0.1:8000")


def test_draws_print_as_counts(item_sample: Path) -> None:
    con = duckdb.connect()
    (kind,) = con.execute(f"SELECT typeof(draw_count) FROM read_parquet('{item_sample}') "
                          "LIMIT 1").fetchone()
    assert kind == "DOUBLE"  # as sample-items writes it: the case that printed 3.0
    want = dict(con.execute(f"SELECT country, CAST(SUM(draw_count) AS BIGINT) FROM "
                            f"read_parquet('{item_sample}') GROUP BY country").fetchall())
    assert max(want.values()) >= 10_000  # a count the page's number format wrote 1.2e+04
    rows = text_rows(cli(str(item_sample), "--group-by", "country", "--top", "0"))
    # country, items, draws, ...
    assert {r[0]: r[2] for r in rows} == {c: f"{n:,}" for c, n in want.items()}
    doc = json.loads(cli(str(item_sample), "--group-by", "country", "--top", "0",
                         "--format", "json"))
    draws = {g["country"]: g["draws"] for g in doc["groups"]}
    assert draws == want and all(type(n) is int for n in draws.values()), draws
    # country, contribution, bar, ± SE, metric, weight share, items, draws, examples
    got = page_rows(client_of(item_sample), group_by="country", top="0")
    assert {r[0]: r[7] for r in got} == {c: f"{n:,}" for c, n in want.items()}
