"""The exploration page over HTTP (Starlette's TestClient): the token guard of
abcde.server, the groups equal to `explore()` of the same query, and form values that
reach the query only as checked column names or bound parameters."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from duck import duck
from starlette.testclient import TestClient
from structures import same

from abcde.explorer.app import explore_app
from abcde.explorer.groups import explore
from abcde.server.app import allowed_hosts

from .conftest import EXAMPLES

TOKEN = "t" * 43


@pytest.fixture(scope="module")
def client(item_sample: Path) -> TestClient:
    app = explore_app(item_sample, TOKEN, allowed_hosts("127.0.0.1", 8000))
    return TestClient(app, base_url="http://127.0.0.1:8000")


def q(**params: object) -> dict[str, object]:
    return {"token": TOKEN, **params}


def test_the_token_is_required(client: TestClient) -> None:
    assert client.get("/").status_code == 403
    assert client.get("/", params={"token": "x" * 43}).status_code == 403
    assert client.get("/api/groups").status_code == 403
    assert client.get("/", params=q()).status_code == 200
    r = client.get("/", params=q(), headers={"host": "evil.example"})
    assert r.status_code == 403


def test_groups_equal_explore(client: TestClient, item_sample: Path) -> None:
    params = q(group_by=["provenance", "size_class"], col=["country", "jaccard_distance"],
               op=["!=", ">="], val=["US", "0.2"], metric="merge_rate", top="7",
               examples="2")
    got = client.get("/api/groups", params=params).json()
    want = explore(item_sample, ["provenance", "size_class"], metric="merge_rate", top=7,
                   examples=2, filters=[("country", "!=", "US"),
                                        ("jaccard_distance", ">=", "0.2")])
    same(got, want)  # two DuckDB runs: floats equal to rounding
    assert 0 < want["filtered_draws"] < want["sample_draws"]
    assert len(want["groups"]) == 7
    # the groups not shown are counted, by a brute-force count of the filtered draws
    rows = duck(f"SELECT provenance, size_class FROM read_parquet('{item_sample}') "
                "WHERE country <> 'US' AND jaccard_distance >= 0.2")
    assert want["total_groups"] == got["total_groups"] == len(set(rows)) > 7
    where = explore(item_sample, ["provenance", "size_class"], metric="merge_rate", top=7,
                    examples=2, where="country <> 'US' AND jaccard_distance >= 0.2")
    assert [g["contribution"] for g in where["groups"]] == \
        [g["contribution"] for g in want["groups"]]
    page = client.get("/", params=params)
    assert page.status_code == 200
    assert f"the top 7 of {len(set(rows))} groups by" in page.text
    # what the sample was drawn from, as its manifest records it
    inputs = json.loads(Path(f"{item_sample}.manifest.json").read_text())["inputs"]
    assert f"Sampled from base <bdi>{EXAMPLES / 'base.csv'}</bdi>; exp <bdi>" in page.text
    assert f"weights <bdi>{html.escape(inputs['weights'])}</bdi>" in page.text
    for g in want["groups"]:
        assert f'<td class="key">{g["provenance"]}</td>' in page.text
        for e in g["examples"]:
            assert e in page.text


@pytest.mark.parametrize("value", ["US' OR 1=1 --", "US\"; DROP TABLE x; --", "%", "' OR ''='"])
def test_values_are_parameters(client: TestClient, value: str) -> None:
    got = client.get("/api/groups", params=q(col="country", op="=", val=value)).json()
    assert got["filtered_draws"] == 0 and got["groups"] == []


@pytest.mark.parametrize(("params", "message"), [
    ({"group_by": "provenance; DROP"}, "no column 'provenance; DROP' to group by"),
    ({"col": "country) OR (1=1", "op": "=", "val": "x"}, "the column must be one of"),
    ({"col": "country", "op": "LIKE", "val": "x"}, "the operator one of"),
    ({"col": "jaccard_distance", "op": ">", "val": "abc"}, "is not a value of"),
    ({"metric": "evil"}, "metric"),
    ({"top": "-1"}, "top must be"),
    ({"top": "0"}, "top must be an integer from 1"),  # explore's "all": every group
    ({"examples": "\u00b2"}, "examples must be"),  # "²".isdigit(), but not int()'s
    ({"top": "\u0663"}, "top must be"),  # ARABIC-INDIC DIGIT THREE: not typed in the form
    ({"col": ["country", "country"], "op": "=", "val": "x"}, "needs a column"),
])
def test_bad_queries_are_400_with_the_reason(client: TestClient, params: dict[str, object],
                                            message: str) -> None:
    r = client.get("/api/groups", params=q(**params))
    assert r.status_code == 400 and message in r.json()["error"]
    page = client.get("/", params=q(**params))
    assert page.status_code == 400 and 'class="error"' in page.text


RLO = "\u202e"
UNMARK = str.maketrans("", "", "«»")


def test_each_example_and_group_column_is_isolated(rlo_sample: Path) -> None:
    """An id with a bidi control reorders no other id of its cell: each is a <bdi>."""
    client = TestClient(explore_app(rlo_sample, TOKEN, allowed_hosts("127.0.0.1", 8000)),
                        base_url="http://127.0.0.1:8000")
    want = explore(rlo_sample, ["country", "provenance"], examples=3)
    page = client.get("/", params=q(group_by=["country", "provenance"], examples="3")).text
    cells = re.findall(r'<td class="examples">(.*?)</td>', page)
    assert len(cells) == len(want["groups"]) and all(g["examples"] for g in want["groups"])
    for cell, g in zip(cells, want["groups"], strict=True):
        assert RLO in g["examples"][0]
        assert cell == ", ".join(f"<bdi>{e}</bdi>" for e in g["examples"])
    assert "by <bdi>country</bdi>, <bdi>provenance</bdi>, ranked" in page
    assert '<bdi class="muted">items.parquet</bdi>' in page
    assert "<title>\u2068items.parquet\u2069 · abcde explore</title>" in page


def shown(message: str) -> str:
    """The message as the page escapes it, user values (marked «…») in <bdi>."""
    text = html.escape(message, quote=True).replace("&#x27;", "&#39;")
    return text.replace("«", "<bdi>").replace("»", "</bdi>")


@pytest.mark.parametrize(("col", "val", "kind"), [
    ("weight", "abc", "DOUBLE"), ("first_draw", "2.5x", "BIGINT"),
    ("first_draw", "9" * 30, "BIGINT"),
    # digits of other scripts are numbers to Python, not to DuckDB
    ("first_draw", "\uff11", "BIGINT"), ("weight", "\u0663", "DOUBLE"),
])
def test_a_value_not_of_the_columns_type_is_said_plainly(
        client: TestClient, col: str, val: str, kind: str) -> None:
    """Not DuckDB's "Conversion Error: Could not convert string ..." followed by the
    sample's columns, which are beside the point: the value, the column and its type."""
    message = f"the filter value «{val!r}» is not a value of «{col!r}», a {kind} column"
    params = q(col=col, op=">", val=val)
    r = client.get("/api/groups", params=params)
    assert r.status_code == 400 and r.json() == {"error": message.translate(UNMARK)}
    page = client.get("/", params=params)
    assert page.status_code == 400
    assert f'<p class="error" role="alert">{shown(message)}</p>' in page.text
    assert client.get("/api/groups", params=q(col=col, op="contains", val=val)
                      ).status_code == 200  # contains compares text: any value


@pytest.mark.parametrize(("group_by", "message"), [
    (["country", "country"], "group by names «'country'» twice"),
    (["provenance", "country", "provenance", "provenance"],
     "group by names «'provenance'» three times"),
    (["jaccard_distance"], "group by «'jaccard_distance'»: the table of groups has a "
                           "column of that name (the group's own numbers)\n  Rank by another "
                           "metric, or group by a copy of the column under another name."),
])
def test_group_by_mistakes_are_worded_for_the_form(client: TestClient, group_by: list[str],
                                                   message: str) -> None:
    """The page and /api word them for the form, not with the CLI's --group-by."""
    params = q(group_by=group_by)
    r = client.get("/api/groups", params=params)
    assert r.status_code == 400 and r.json() == {"error": message.translate(UNMARK)}
    page = client.get("/", params=params)
    assert page.status_code == 400 and "--group-by" not in page.text
    assert shown(message) in page.text


def test_user_values_in_an_error_are_isolated_and_escaped_once(client: TestClient) -> None:
    """A column name or a value the page quotes in its error is a <bdi>, as the page's
    other user values are; its <, & and quotes are escaped once (never &amp;lt;). /api
    keeps the plain message."""
    col = "x<b>&amp;'\u202e"
    params = q(col=col, op="=", val="v")
    r = client.get("/api/groups", params=params)
    message = f"filter ({col!r}, '=', …): the column must be one of"
    assert r.status_code == 400 and r.json()["error"].startswith(message)
    page = client.get("/", params=params).text
    assert ('<p class="error" role="alert">filter (<bdi>&#34;x&lt;b&gt;&amp;amp;&#39;'
            '\\u202e&#34;</bdi>, ') in page
    assert "&amp;lt;" not in page and "<b>" not in page
    params = q(col="first_draw", op="<", val="\u05e9\u05dc\u05d5\u05dd 7")
    page = client.get("/", params=params).text
    assert ("the filter value <bdi>&#39;\u05e9\u05dc\u05d5\u05dd 7&#39;</bdi> is not a "
            "value of <bdi>&#39;first_draw&#39;</bdi>, a BIGINT column") in page


def variant_client(item_sample: Path, path: Path, select: str) -> TestClient:
    """A client of the page of a copy of the session's sample made by `select` (the
    sample as {sample}), written to `path` (without a manifest: a user's own file)."""
    source = f"read_parquet('{item_sample}')"
    duck(f"COPY ({select.format(sample=source)}) TO '{path}'")
    return TestClient(explore_app(path, TOKEN, allowed_hosts("127.0.0.1", 8000)),
                      base_url="http://127.0.0.1:8000")


def test_not_equal_keeps_the_none_group(item_sample: Path, tmp_path: Path) -> None:
    """`provenance != crawl` leaves out crawl only: the items without a provenance (the
    group "(none)" the page shows) stay, as every other group does. SQL's `<>` dropped
    them with crawl."""
    client = variant_client(item_sample, tmp_path / "holes.parquet",
                            "SELECT * REPLACE (CASE WHEN country = 'US' THEN NULL ELSE "
                            "provenance END AS provenance) FROM {sample}")
    every = {g["provenance"]: g["draws"] for g in client.get(
        "/api/groups", params=q(group_by="provenance", top="200")).json()["groups"]}
    assert None in every and "crawl" in every
    got = client.get("/api/groups", params=q(group_by="provenance", top="200",
                                             col="provenance", op="!=", val="crawl")).json()
    assert {g["provenance"]: g["draws"] for g in got["groups"]} == \
        {k: v for k, v in every.items() if k != "crawl"}
    assert got["filtered_draws"] == sum(every.values()) - every["crawl"]


def test_groups_of_a_date_attribute_as_json(item_sample: Path, tmp_path: Path) -> None:
    """A DATE (or TIMESTAMP, INTERVAL, UUID) attribute's groups come back from /api/groups
    as text, as `explore --format json` prints them, and each taken back as a filter value
    gets its group again. JSONResponse's encoder refused a date: a 500."""
    dated = tmp_path / "dated.parquet"
    client = variant_client(item_sample, dated,
                            "SELECT *, CASE WHEN country = 'US' THEN DATE '2024-01-31' ELSE "
                            "DATE '2023-12-01' END AS taken FROM {sample}")
    want = dict(duck(f"SELECT CAST(taken AS VARCHAR), SUM(draw_count) FROM "
                     f"read_parquet('{dated}') GROUP BY ALL"))
    r = client.get("/api/groups", params=q(group_by="taken", top="200"))
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    got = {g["taken"]: g["draws"] for g in r.json()["groups"]}
    assert got == want == {"2024-01-31": got["2024-01-31"], "2023-12-01": got["2023-12-01"]}
    for value, draws in want.items():
        one = client.get("/api/groups", params=q(col="taken", op="=", val=value)).json()
        assert one["filtered_draws"] == draws


def test_serve_opens_on_the_query_of_the_options(item_sample: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """`explore --serve --group-by a,b --metric m --top n` opens the page on that query;
    --where (SQL, which the page does not take) and --format json are refused (exit 2).
    Each was silently ignored: the page opened on the default query."""
    from urllib.parse import parse_qs, urlsplit

    from click.testing import CliRunner

    from abcde.cli import main

    monkeypatch.setattr("abcde.server.run.serve", lambda app, sock, **kw: sock.close())
    run = CliRunner().invoke(main, ["explore", str(item_sample), "--serve", "--group-by",
                                    "provenance, size_class", "--metric", "merge_rate",
                                    "--top", "7", "--examples", "2"])
    assert run.exit_code == 0, run.output
    url = re.search(r"Open (\S+)", run.output).group(1)
    query = parse_qs(urlsplit(url).query)
    token = query.pop("token")[0]
    assert query == {"group_by": ["provenance", "size_class"], "metric": ["merge_rate"],
                     "top": ["7"], "examples": ["2"]}
    client = TestClient(explore_app(item_sample, token, allowed_hosts("127.0.0.1", 8000)),
                        base_url="http://127.0.0.1:8000")
    got = client.get("/api/groups", params={"token": token, **query}).json()
    want = explore(item_sample, ["provenance", "size_class"], metric="merge_rate", top=7,
                   examples=2)
    same(got, want)
    for extra, word in ((["--where", "weight > 1"], "--where is SQL"),
                        (["--format", "json"], "--format is for the printed groups"),
                        (["--top", "0"], "--top is a number from 1 to 200"),
                        # these started a server whose page opened on an error
                        (["--examples", "11"], "--examples is a number from 0 to 10"),
                        (["--group-by", "nope"], "no column 'nope' to group by"),
                        (["--group-by", "country,country"], "names 'country' more than "
                                                            "once")):
        run = CliRunner().invoke(main, ["explore", str(item_sample), "--serve", *extra])
        assert run.exit_code == 2 and word in run.output, run.output
    # without those options, the address is the token's alone (it ended in a bare "&")
    run = CliRunner().invoke(main, ["explore", str(item_sample), "--serve"])
    assert run.exit_code == 0, run.output
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{43}",
                        re.search(r"Open (\S+)", run.output).group(1))
    # the page's options without --serve printed a table and exited
    run = CliRunner().invoke(main, ["explore", str(item_sample), "--open", "--port", "0"])
    assert run.exit_code == 2 and "--open only with --serve" in run.output, run.output
    run = CliRunner().invoke(main, ["explore", str(item_sample), "--host", "::1"])
    assert run.exit_code == 2 and "--host only with --serve" in run.output, run.output
    # the printed table says how many groups it leaves out
    run = CliRunner().invoke(main, ["explore", str(item_sample), "--group-by",
                                    "provenance, size_class", "--top", "3"])
    total = len(set(duck(f"SELECT DISTINCT provenance, size_class FROM "
                         f"read_parquet('{item_sample}')")))
    assert run.exit_code == 0 and f"top 3 of {total} groups (--top 0 shows all)" in \
        run.output, run.output


@pytest.mark.parametrize("mistake", [{"top": "2000"}, {"examples": "x"},
                                     {"metric": "nope"}])
def test_a_mistake_in_the_form_keeps_the_rest_of_it(client: TestClient,
                                                    mistake: dict[str, str]) -> None:
    """A top of 2000 (or another mistake the form's own check refuses) answered the
    error with a form reset to the defaults: the grouping and the filters the user had
    set were gone. The form now shows what was asked, the mistake included."""
    asked = {"group_by": ["country", "size_class"], "col": ["weight", "provenance"],
             "op": [">=", "!="], "val": ["1.5", "crawl"], "top": "7", "examples": "2",
             "metric": "merge_rate", **mistake}
    page = client.get("/", params=q(**asked))
    assert page.status_code == 400
    text = page.text
    checked = re.findall(r'name="group_by" value="([^"]+)" checked', text)
    assert sorted(checked) == sorted(asked["group_by"])
    cols = re.findall(r'<select name="col"[^>]*>.*?</select>', text, re.S)
    chosen = [re.findall(r'<option value="([^"]*)" selected>', s) for s in cols]
    assert chosen[:2] == [["weight"], ["provenance"]] and chosen[2:] == [[], []]
    ops = re.findall(r'<select name="op"[^>]*>.*?</select>', text, re.S)
    assert [re.findall(r'<option value="([^"]*)" selected>', s) for s in ops][:2] == \
        [[html.escape(">=")], ["!="]]
    assert re.findall(r'<input name="val" value="([^"]*)"', text)[:2] == ["1.5", "crawl"]
    assert f'<input name="top" value="{asked["top"]}"' in text
    assert f'<input name="examples" value="{asked["examples"]}"' in text
    if asked["metric"] == "merge_rate":
        assert '<option value="merge_rate" selected>' in text


def test_groups_of_a_boolean_attribute_read_true_and_false(item_sample: Path,
                                                           tmp_path: Path) -> None:
    """A boolean attribute's groups were shown as Python's True and False, where the
    sample, the JSON and the filter say true and false; the page now shows them as the
    data has them, and each taken back as a filter value gets its group again."""
    flagged = tmp_path / "flagged.parquet"
    client = variant_client(item_sample, flagged,
                            "SELECT *, country = 'US' AS domestic FROM {sample}")
    want = dict(duck(f"SELECT CAST(domestic AS VARCHAR), SUM(draw_count) FROM "
                     f"read_parquet('{flagged}') GROUP BY ALL"))
    assert set(want) == {"true", "false"}
    page = client.get("/", params=q(group_by="domestic", top="200")).text
    shown = re.findall(r'<td class="key">([^<]*)</td>.*?<td class="num">[^<]*</td>\s*'
                       r'<td class="num">[^<]*</td>\s*<td class="num">[^<]*</td>\s*'
                       r'<td class="num">([^<]*)</td>', page, re.S)
    assert {k: int(v.replace(",", "")) for k, v in shown} == want
    for value, draws in want.items():
        one = client.get("/api/groups", params=q(col="domestic", op="=", val=value)).json()
        assert one["filtered_draws"] == draws


def test_a_grouping_by_a_column_that_is_no_attribute_keeps_its_box(
        client: TestClient, item_sample: Path) -> None:
    """A page opened grouped by exp_cluster (a link, or `--serve --group-by exp_cluster`)
    showed those groups but offered boxes for the attributes only, so the next submit of
    the form silently dropped the grouping. Its box is now there, checked; the other
    sample columns are still not offered."""
    page = client.get("/", params=q(group_by=["exp_cluster", "country"]))
    assert page.status_code == 200, page.text
    boxes = re.findall(r'name="group_by" value="([^"]+)"( checked)?', page.text)
    assert ("exp_cluster", " checked") in boxes and ("country", " checked") in boxes
    offered = {name for name, _ in boxes}
    assert "base_cluster" not in offered and "item_id" not in offered
    # submitting the form as the page shows it asks for the same grouping (its columns
    # in the form's order: the same groups)
    again = client.get("/", params=q(group_by=[n for n, c in boxes if c]))

    def groups(text: str) -> list[tuple[str, ...]]:
        keys = re.findall(r'<td class="key">([^<]*)</td><td class="key">([^<]*)</td>', text)
        return sorted(tuple(sorted(k)) for k in keys)

    assert groups(again.text) == groups(page.text) and groups(page.text)
