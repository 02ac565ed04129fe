"""What `abcde explore` prints — its text table, its JSON and the exploration page — for
values a float or a number format would misprint: a group's draws are a count, a BLOB
value is DuckDB's text of it."""

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
    """The cells of the page's group table, as text (an example's <bdi> taken off)."""
    page = client.get("/", params={"token": TOKEN, **params})
    assert page.status_code == 200, page.text
    body = page.text.split('<tbody>')[1].split('</tbody>')[0]
    return [[html.unescape(re.sub(r"</?bdi>", "", c))
             for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


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
    # country, contribution, bar, ± SE, metric, weight share, items, draws, [note,] examples
    got = page_rows(client_of(item_sample), group_by="country", top="200")
    assert {r[0]: r[7] for r in got} == {c: f"{n:,}" for c, n in want.items()}


def test_blob_values_print_as_duckdb_writes_them(item_sample: Path, tmp_path: Path) -> None:
    """A BLOB group value (and item id) reads the same in the text table, the JSON and
    the page: DuckDB's text of it, which a filter's value casts back to — not b'..', nor
    a number (b'12' was 12.00)."""
    blob = tmp_path / "blob.parquet"
    con = duckdb.connect()
    con.execute(r"""COPY (SELECT * REPLACE (encode(item_id) AS item_id),
                           CASE country WHEN 'US' THEN '12'::BLOB
                                        WHEN 'IN' THEN '\xAB\x00z'::BLOB
                                        ELSE encode(country) END AS code
                    FROM read_parquet('""" + str(item_sample) + "')) TO '" + str(blob) + "'")
    want = dict(con.execute(f"SELECT CAST(code AS VARCHAR), CAST(SUM(draw_count) AS BIGINT) "
                            f"FROM read_parquet('{blob}') GROUP BY code").fetchall())
    ids = {r[0] for r in con.execute(f"SELECT CAST(item_id AS VARCHAR) FROM "
                                     f"read_parquet('{blob}')").fetchall()}
    assert {"12", r"\xAB\x00z", "BR"} <= set(want)
    rows = text_rows(cli(str(blob), "--group-by", "code", "--top", "0"))
    assert {r[0]: r[2] for r in rows} == {c: f"{n:,}" for c, n in want.items()}
    assert {e for r in rows for e in r[-1].split(", ")} <= ids
    doc = json.loads(cli(str(blob), "--group-by", "code", "--top", "0", "--format", "json"))
    assert {g["code"]: g["draws"] for g in doc["groups"]} == want
    assert {e for g in doc["groups"] for e in g["examples"]} <= ids
    client = client_of(blob)
    got = page_rows(client, group_by="code", top="200")
    assert {r[0]: r[7] for r in got} == {c: f"{n:,}" for c, n in want.items()}
    assert {e for r in got for e in r[-1].split(", ")} <= ids
    # the value shown, typed into the page's filter, finds its group
    one = client.get("/api/groups", params={"token": TOKEN, "group_by": "code", "col": "code",
                                            "op": "=", "val": r"\xAB\x00z"}).json()
    assert [(g["code"], g["draws"]) for g in one["groups"]] == \
        [(r"\xAB\x00z", want[r"\xAB\x00z"])]


def test_number_group_values_print_exactly(item_sample: Path, tmp_path: Path) -> None:
    """A number group value reads the same in the text table as on the page and in the
    JSON, and typed into the page's filter finds its group: -1.3371 and -1.3374 are two
    groups (both printed -1.34 before), the year 2024 is 2024 (not 2,024), 0.0 is 0.0 (not
    0.00)."""
    num = tmp_path / "num.parquet"
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT *, CASE country WHEN 'US' THEN -1.3371 WHEN 'IN' THEN -1.3374
                                                 ELSE 0.0 END::DOUBLE AS score,
                                 CASE country WHEN 'US' THEN 2024 ELSE 1999 END AS year
                          FROM read_parquet('{item_sample}')) TO '{num}'""")
    for col, want in (("score", {"-1.3371", "-1.3374", "0.0"}), ("year", {"2024", "1999"})):
        rows = text_rows(cli(str(num), "--group-by", col, "--top", "0"))
        assert {r[0] for r in rows} == want
        doc = json.loads(cli(str(num), "--group-by", col, "--top", "0", "--format", "json"))
        assert {str(g[col]) for g in doc["groups"]} == want
        client = client_of(num)
        assert {r[0] for r in page_rows(client, group_by=col, top="200")} == want
        for value in want:
            one = client.get("/api/groups", params={"token": TOKEN, "group_by": col,
                                                    "col": col, "op": "=", "val": value})
            assert [str(g[col]) for g in one.json()["groups"]] == [value]
