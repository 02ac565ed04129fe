"""The judging app over HTTP (Starlette's TestClient): the token guard refuses every
request without the exact token (403), hostile input is refused or escaped, nothing but
the fixed static files is served, and the verdict/undo flow writes the log
(docs/method.md §12)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from resealed import reseal
from starlette.testclient import TestClient

from abcde.judge.app import PageOptions, judge_app
from abcde.judge.questions import load_questions
from abcde.judge.session import JudgeSession
from abcde.server.app import allowed_hosts
from abcde.server.run import new_token

PORT = 8123
BASE = f"http://127.0.0.1:{PORT}"


def make_client(sample_dir: Path, judge: str = "ana", token: str | None = None,
                **options: object) -> tuple[TestClient, JudgeSession, str]:
    token = token or new_token()
    session = JudgeSession(load_questions(sample_dir), judge,
                           float(options.pop("overlap", 0.0)))  # type: ignore[arg-type]
    app = judge_app(session, token, allowed_hosts("127.0.0.1", PORT),
                    PageOptions(**options))  # type: ignore[arg-type]
    return TestClient(app, base_url=BASE, follow_redirects=False), session, token


@pytest.fixture
def client(sample_dir: Path) -> tuple[TestClient, JudgeSession, str]:
    return make_client(sample_dir, image_cols=("thumb",), link_cols=("page",))


def log_lines(sample_dir: Path) -> list[dict]:
    path = sample_dir / "verdicts.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


PATHS = ["/", "/pair/1", "/done", "/api/status", "/static/judge.js", "/static/judge.css",
         "/static/favicon.svg", "/nope", "/static/../manifest.json"]


@pytest.mark.parametrize("path", PATHS)
def test_no_token_wrong_token_403(client: tuple[TestClient, JudgeSession, str],
                                  path: str) -> None:
    c, _, token = client
    bad = ["", "?token=", "?token=x", f"?token={token[:-1]}", f"?token={token}x",
           f"?token={token.upper()}", f"?token=x&token={token}",
           f"?token={token}&token=x", f"?Token={token}"]
    for query in bad:
        r = c.get(path + query)
        assert r.status_code == 403, (path, query)
        assert "token" in r.text and token not in r.text
    r = c.post("/verdict" + bad[2], data={"pair_id": "1", "verdict": "equivalent"})
    assert r.status_code == 403
    assert c.post("/undo").status_code == 403
    r = c.get(path, headers={"X-Abcde-Token": "wrong"})
    assert r.status_code == 403


def test_the_token_in_the_query_or_header_opens_the_page(
        client: tuple[TestClient, JudgeSession, str]) -> None:
    c, _, token = client
    r = c.get(f"/?token={token}")
    assert r.status_code == 303
    assert re.fullmatch(rf"/pair/\d+\?token={re.escape(token)}", r.headers["location"])
    assert c.get("/api/status", headers={"X-Abcde-Token": token}).status_code == 200
    assert c.get(f"/static/judge.js?token={token}").headers["content-type"].startswith(
        "text/javascript")


def test_another_host_header_is_refused_even_with_the_token(
        client: tuple[TestClient, JudgeSession, str]) -> None:
    """DNS rebinding: a page of evil.example resolving itself to 127.0.0.1 sends
    Host: evil.example."""
    c, _, token = client
    for host in ("evil.example", f"evil.example:{PORT}", f"127.0.0.1:{PORT + 1}"):
        assert c.get(f"/api/status?token={token}", headers={"host": host}).status_code == 403
    for host in (f"localhost:{PORT}", f"127.0.0.1:{PORT}", "127.0.0.1"):
        assert c.get(f"/api/status?token={token}", headers={"host": host}).status_code == 200


def test_security_headers_on_every_answer(client: tuple[TestClient, JudgeSession, str]
                                          ) -> None:
    c, _, token = client
    for r in (c.get("/"), c.get(f"/pair/1?token={token}"), c.get(f"/nope?token={token}"),
              c.get(f"/static/judge.css?token={token}"), c.get(f"/?token={token}")):
        h = r.headers
        assert h["x-content-type-options"] == "nosniff"
        assert h["referrer-policy"] == "same-origin"  # the token never leaves the site
        assert h["x-frame-options"] == "DENY"
        assert h["cache-control"] == "no-store"
        csp = h["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp
        assert "img-src 'self' http: https:" in csp  # --image-col given
        assert "unsafe-inline" not in csp


def test_images_from_the_web_only_with_image_col(sample_dir: Path) -> None:
    c, _, token = make_client(sample_dir)
    csp = c.get(f"/pair/1?token={token}").headers["content-security-policy"]
    assert "img-src 'self';" in csp and "http:" not in csp


@pytest.mark.parametrize("path", [
    "/static/..%2fmanifest.json", "/static/%2e%2e%2fmanifest.json",
    "/static/..%2F..%2Fetc%2Fpasswd",
    "/static/judge.js%2f..%2f..%2fmanifest.json", "/manifest.json", "/draws.parquet",
    "/verdicts.jsonl", "/questions.csv", "/pair/..%2fmanifest.json", "/pair/%2e%2e",
    "/static/__init__.py", "/static/app.py", "/static/", "/templates/pair.html",
    "/static/judge.js/", "//etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
])
def test_path_traversal_serves_nothing_outside_the_fixed_map(
        client: tuple[TestClient, JudgeSession, str], sample_dir: Path, path: str) -> None:
    c, _, token = client
    (sample_dir / "verdicts.jsonl").write_text("")  # a file that exists in DIR
    r = c.get(f"{path}?token={token}")
    assert r.status_code in (404, 405, 307), (path, r.status_code)
    body = r.text
    assert "population" not in body and "root:" not in body and "import" not in body


def test_a_verdict_is_on_disk_before_the_redirect_and_undo_retracts_it(
        client: tuple[TestClient, JudgeSession, str], sample_dir: Path) -> None:
    c, session, token = client
    first = c.get(f"/?token={token}").headers["location"]
    pid = first.split("/pair/")[1].split("?")[0]
    r = c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})
    assert r.status_code == 303
    lines = log_lines(sample_dir)
    assert [(x["judge"], x["pair_id"], x["verdict"]) for x in lines] == \
        [("ana", pid, "equivalent")]
    q = session.sample.questions[pid]
    assert lines[0]["sample_id"] == session.sample.sample_id
    assert (lines[0]["item_1"], lines[0]["item_2"]) == (str(q.item_1), str(q.item_2))
    second = r.headers["location"].split("/pair/")[1].split("?")[0]
    assert second != pid and second == session.assignment.order[1]
    page = c.get(f"/pair/{pid}?token={token}").text
    assert "Your verdict: <strong>equivalent</strong>" in page
    r = c.post(f"/undo?token={token}", data={})
    assert r.status_code == 303 and f"/pair/{pid}?" in r.headers["location"]
    assert log_lines(sample_dir)[-1]["verdict"] is None
    assert "Your verdict" not in c.get(f"/pair/{pid}?token={token}").text
    status = c.get(f"/api/status?token={token}").json()
    assert status["progress"]["judged"] == 0 and status["next_pair"] == pid
    r = c.post(f"/undo?token={token}", data={})  # nothing left to undo
    assert r.status_code == 303 and r.headers["location"] == f"/?token={token}"
    assert len(log_lines(sample_dir)) == 2


def test_hostile_posts_are_refused_and_write_nothing(
        client: tuple[TestClient, JudgeSession, str], sample_dir: Path) -> None:
    c, _, token = client
    url = f"/verdict?token={token}"
    cases = [
        ({"pair_id": "1", "verdict": "maybe"}, 400),
        ({"pair_id": "1", "verdict": "EQUIVALENT"}, 400),
        ({"pair_id": "1"}, 400),
        ({"pair_id": "999999", "verdict": "equivalent"}, 400),
        ({"pair_id": "../manifest.json", "verdict": "equivalent"}, 400),
        ({"pair_id": "", "verdict": "equivalent"}, 400),
    ]
    for data, status in cases:
        assert c.post(url, data=data).status_code == status, data
    assert c.post(url, content=b"pair_id=1&verdict=equivalent&verdict=unknown",
                  headers={"content-type": "application/x-www-form-urlencoded"}
                  ).status_code == 400
    assert c.post(url, json={"pair_id": "1", "verdict": "equivalent"}).status_code == 415
    assert c.post(url, content=b"\xff\xfe", headers={
        "content-type": "application/x-www-form-urlencoded"}).status_code == 400
    big = b"pair_id=1&verdict=equivalent&x=" + b"a" * 20_000
    assert c.post(url, content=big, headers={
        "content-type": "application/x-www-form-urlencoded"}).status_code == 413

    def chunks():  # no Content-Length: the guard counts the bytes
        for _ in range(10):
            yield b"a" * 4000

    assert c.post(url, content=chunks(), headers={
        "content-type": "application/x-www-form-urlencoded"}).status_code == 413
    assert c.get(url).status_code == 405
    assert c.put(url, data={"pair_id": "1", "verdict": "equivalent"}).status_code == 405
    assert c.delete(f"/pair/1?token={token}").status_code == 405
    assert c.get(f"/pair/999999?token={token}").status_code == 404
    assert not (sample_dir / "verdicts.jsonl").exists()


HOSTILE = {
    "script": "<script>alert(1)</script>",
    "quote": '"><img src=x onerror=alert(1)>',
}


def test_values_are_escaped_and_only_http_urls_become_images_or_links(
        sample_dir: Path) -> None:
    """Rewrite two questions with hostile values: text is escaped, a javascript: or
    data: URL in an image or link column stays text."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[0].update(provenance_1=HOSTILE["script"], provenance_2=HOSTILE["quote"],
                   thumb_1="javascript:alert(1)", thumb_2="data:image/svg+xml,<svg/>",
                   page_1="javascript:alert(2)", page_2='https://ok.example/"x')
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    c, _, token = make_client(sample_dir, image_cols=("thumb",), link_cols=("page",))
    page = c.get(f"/pair/{rows[0]['pair_id']}?token={token}").text
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in page and "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert 'src="javascript:' not in page and 'href="javascript:' not in page
    assert 'src="data:' not in page
    assert "javascript:alert(1)" in page  # shown as text
    assert 'href="https://ok.example/&#34;x"' in page
    assert 'rel="noopener noreferrer"' in page
    second = c.get(f"/pair/{rows[1]['pair_id']}?token={token}").text
    assert re.search(r'<img src="http://127\.0\.0\.1:\d+/img_\d+\.svg"', second)
    assert re.search(r'<a href="https://images\.example/img_\d+"', second)


def test_the_page_is_blind_and_shows_every_attribute(client: tuple[TestClient,
                                                                   JudgeSession, str],
                                                     base_sample: Path) -> None:
    """Nothing on the page tells how the clusterings treat the pair: no class word, no
    cluster id of either clustering; every attribute is there, differing ones marked."""
    import csv

    c, session, token = client
    with (base_sample / "draws.csv").open(newline="") as f:
        draws = {r["pair_id"]: r for r in csv.DictReader(f)}
    for pid in list(session.sample.questions)[:15]:
        page = c.get(f"/pair/{pid}?token={token}").text
        text = re.sub(r"<[^>]+>", " ", page)
        for word in ("split", "merge", "stable", "pair_class", "cluster", "label"):
            assert word not in text.lower(), (pid, word)
        d = draws[pid]
        for col in ("base_cluster_i", "exp_cluster_i", "base_cluster_j", "exp_cluster_j"):
            if d.get(col):
                assert f">{d[col]}<" not in page
        q = session.sample.questions[pid]
        for name, a, b in q.attributes:
            assert f'<th scope="row"><bdi>{name}</bdi>' in page
            row = re.search(rf'<tr class="(\w+)">\s*<th scope="row"><bdi>{name}\b', page)
            assert row is not None
            text = name not in ("thumb", "page")  # images and links: not highlighted
            assert row.group(1) == ("differs" if text and str(a) != str(b) else "same")


def test_status_progress_counts_no_classes(client: tuple[TestClient, JudgeSession, str]
                                          ) -> None:
    c, _, token = client
    s = c.get(f"/api/status?token={token}").json()
    assert s["progress"] == {"assigned": 40, "judged": 0, "left": 40, "round_pairs": 40,
                             "round_judged": 0}
    assert "class" not in json.dumps(s)


def test_estimates_panel_only_when_asked(sample_dir: Path) -> None:
    c, session, token = make_client(sample_dir)
    assert 'id="estimates"' not in c.get(f"/pair/1?token={token}").text
    c, session, token = make_client(sample_dir, show_estimates=True)
    page = c.get(f"/pair/1?token={token}").text
    assert 'id="estimates"' in page and "no verdicts yet" in page
    for pid in session.assignment.order[:25]:
        c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})
    page = c.get(f"/pair/1?token={token}").text
    assert "ΔPrecision" in page and "GoodSplitRate" in page and "ABCDE §5.8" in page
    # and what they are computed from, as the sample's manifest records it
    inputs = json.loads((sample_dir / "manifest.json").read_text())["inputs"]
    said = re.search(r'<p class="muted" id="inputs">(.*?)</p>', page).group(1)
    shown = {k: v if k == "weights" else v[v.index("(") + 1:-1]  # "base (path)": the path
             for k, v in inputs.items() if v}
    assert said == "Computed from " + "; ".join(
        f"{k} <bdi>{html.escape(v, quote=True).replace('&#x27;', '&#39;')}</bdi>"
        for k, v in shown.items()) + "."
    assert set(shown) == {"base", "exp", "weights", "attributes"}


def test_a_replaced_sample_gets_no_verdict_of_the_old_one(sample_dir: Path,
                                                          tmp_path: Path) -> None:
    """`sample-pairs --overwrite` renames a new sample into the directory a server is
    judging: the server's next verdict would go into the new sample's log under the old
    sample_id (and the new sample's estimate would then be refused). It answers 409 with
    what to do, and writes nothing."""
    from abcde.sampling.pairs import sample_pairs

    from .judge_support import EXAMPLES

    c, _, token = make_client(sample_dir)
    r = c.post(f"/verdict?token={token}", data={"pair_id": "1", "verdict": "equivalent"})
    assert r.status_code == 303
    assert len(log_lines(sample_dir)) == 1
    sample_pairs(str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
                 str(EXAMPLES / "weights.csv"), budget=30, seed=6, out=sample_dir,
                 overwrite=True)
    assert not (sample_dir / "verdicts.jsonl").exists()  # --overwrite replaced the log
    for method, path, data in [("post", "/verdict", {"pair_id": "1", "verdict": "equivalent"}),
                               ("post", "/undo", {}), ("get", "/", None),
                               ("get", "/pair/1", None), ("get", "/api/status", None)]:
        send = getattr(c, method)
        r = send(f"{path}?token={token}", **({"data": data} if data is not None else {}))
        assert r.status_code == 409, (path, r.status_code)
        assert "no longer holds sample" in r.text and "abcde judge" in r.text
    assert not (sample_dir / "verdicts.jsonl").exists()


def test_a_log_removed_or_edited_while_serving_is_what_the_page_shows(
        sample_dir: Path) -> None:
    """A judge removes verdicts.jsonl (to start over) or edits a verdict in it while the
    server runs: the server went on from its byte offset into the old file, so it still
    counted the removed verdicts, and a verdict appended to the new, shorter file was on
    disk but never counted (the page offered that pair again)."""
    c, session, token = make_client(sample_dir)
    first, second = session.assignment.order[:2]
    for pid in (first, second):
        c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})
    (sample_dir / "verdicts.jsonl").unlink()
    status = c.get(f"/api/status?token={token}").json()
    assert status["progress"]["judged"] == 0 and status["next_pair"] == first
    r = c.post(f"/verdict?token={token}", data={"pair_id": second, "verdict": "unknown"})
    assert r.status_code == 303
    status = c.get(f"/api/status?token={token}").json()
    assert status["progress"]["judged"] == 1 and status["next_pair"] == first
    # the judge changes that verdict by hand in an editor (which saves a new file)
    path = sample_dir / "verdicts.jsonl"
    line = json.loads(path.read_text())
    tmp = sample_dir / "verdicts.jsonl.new"
    tmp.write_text(json.dumps({**line, "verdict": "not_equivalent"}) + "\n")
    tmp.replace(path)
    page = c.get(f"/pair/{second}?token={token}").text
    assert "Your verdict: <strong>not equivalent</strong>" in page


def test_a_line_edited_into_the_log_while_serving_is_a_409_until_fixed(
        sample_dir: Path) -> None:
    """A line that is not an event (or one of another sample) written into the log while
    the server runs was a 500 with a traceback; the reader had already moved past it, so
    the next request silently skipped the line, and the good lines read with it were
    lost from memory (a verdict on disk that the page no longer counted)."""
    c, session, token = make_client(sample_dir)
    first, second = session.assignment.order[:2]
    c.post(f"/verdict?token={token}", data={"pair_id": first, "verdict": "equivalent"})
    path = sample_dir / "verdicts.jsonl"
    good = {**log_lines(sample_dir)[0], "pair_id": second, "verdict": "unknown"}
    q = session.sample.questions[second]
    good["item_1"], good["item_2"] = str(q.item_1), str(q.item_2)
    with path.open("a") as f:
        f.write(json.dumps(good) + "\n" + '{"note": "checked by hand"}\n')
    before = path.read_bytes()
    for _ in range(2):  # the second request meets the same line again
        r = c.get(f"/api/status?token={token}")
        assert r.status_code == 409
        assert "verdicts.jsonl: line 3 is not a line" in r.text
    r = c.post(f"/verdict?token={token}", data={"pair_id": first, "verdict": "unknown"})
    assert r.status_code == 409 and path.read_bytes() == before  # nothing recorded
    path.write_bytes(before[:before.rindex(b'{"note"')])  # the judge removes the line
    status = c.get(f"/api/status?token={token}").json()
    assert status["progress"]["judged"] == 2
    with path.open("a") as f:  # a line of another sample
        f.write(json.dumps({**good, "sample_id": "s-other"}) + "\n")
    for _ in range(2):
        r = c.get(f"/pair/{second}?token={token}")
        assert r.status_code == 409 and "another sample" in r.text and "line 3" in r.text


def test_a_sample_with_attributes_has_no_note_about_them(
        client: tuple[TestClient, JudgeSession, str]) -> None:
    c, _, token = client
    assert 'id="no-attributes"' not in c.get(f"/pair/1?token={token}").text


def test_the_done_page_names_the_estimate_command_of_this_sample(tmp_path: Path,
                                                                 sample_dir: Path) -> None:
    """The done page tells the command to run next with this sample's directory, quoted
    for a shell (it said `abcde estimate DIR`), and says when the round is complete."""
    import shlex
    import shutil

    spaced = Path(shutil.copytree(sample_dir, tmp_path / "round 1"))
    c, session, token = make_client(spaced)
    command = f"abcde estimate {shlex.quote(str(spaced))}"
    assert command.endswith("/round 1'")
    shown = command.replace("'", "&#39;")  # as the page escapes it
    page = c.get(f"/done?token={token}").text
    assert f"When the round is complete, estimate from the verdicts with <code><bdi>" \
           f"{shown}</bdi></code>" in page
    for pid in session.sample.pair_ids:
        session.record(pid, "unknown")
    page = c.get(f"/done?token={token}").text
    assert f"Estimate from the verdicts with <code><bdi>{shown}</bdi></code>" in page


def test_questions_edited_after_sampling_are_refused(sample_dir: Path) -> None:
    """questions.jsonl is trusted through the manifest's digest: an edited one (here a
    value holding half a character, which no page could show) is refused in one
    sentence naming the file, before anyone judges."""
    from abcde.errors import InputError

    path = sample_dir / "questions.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"item_2": ', '"item_2": "\\udc00", "y": ', 1)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        load_questions(sample_dir)
    assert str(err.value).startswith(f"{path} is not as `abcde sample-pairs` wrote it")


def test_a_tab_closed_in_the_middle_of_a_verdict_is_no_traceback(sample_dir: Path) -> None:
    """The browser goes away after half the form: the verdict never arrived, so nothing
    is recorded; the server printed a traceback ("Exception in ASGI application",
    ClientDisconnect) in the judge's terminal."""
    import asyncio

    c, _, token = make_client(sample_dir)
    body = b"pair_id=1&verdict=equivalent"
    incoming = [{"type": "http.request", "body": body[:10], "more_body": True},
                {"type": "http.disconnect"}]
    sent: list[dict] = []

    async def receive() -> dict:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/verdict", "raw_path": b"/verdict",
             "root_path": "", "query_string": f"token={token}".encode(),
             "server": ("127.0.0.1", PORT), "client": ("127.0.0.1", 50000),
             "headers": [(b"host", f"127.0.0.1:{PORT}".encode()),
                         (b"content-type", b"application/x-www-form-urlencoded"),
                         (b"content-length", str(len(body)).encode())]}
    asyncio.run(c.app(scope, receive, send))  # raised ClientDisconnect
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 400
    assert not (sample_dir / "verdicts.jsonl").exists()


def test_each_id_and_value_is_isolated(sample_dir: Path) -> None:
    """A value holding a RIGHT-TO-LEFT OVERRIDE (U+202E) reorders no other text of the
    page: every id, attribute name and value is an element of its own (<bdi>), and the
    pair id in the <title> is between bidi isolates."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rlo = "\u202e"
    rows[0].update(item_1=f"img_{rlo}1", provenance_1=f"crawl{rlo}x", page_2=f"x{rlo}y")
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    c, session, token = make_client(sample_dir, image_cols=("thumb",), link_cols=("page",))
    pid = str(rows[0]["pair_id"])
    page = c.get(f"/pair/{pid}?token={token}").text
    q = session.sample.questions[pid]
    assert f'<bdi class="value">img_{rlo}1</bdi>' in page
    assert f'<bdi class="value">{q.item_2}</bdi>' in page
    for name, a, b in q.attributes:
        assert f'<th scope="row"><bdi>{name}</bdi>' in page
        for v in (a, b):
            if name not in ("thumb", "page") or rlo in str(v):
                assert f'<bdi class="value">{v}</bdi>' in page, (name, v)
    assert f'<bdi class="value">crawl{rlo}x</bdi>' in page
    assert re.search(r'<a href="https://[^"]+" target="_blank" rel="noopener noreferrer">'
                     r'<bdi>https://[^<]+</bdi></a>', page)
    assert f"· id <bdi>{pid}</bdi></span>" in page
    assert f"<title>Pair \u2068{pid}\u2069 · abcde judge</title>" in page
    assert (f"judge <strong><bdi>ana</bdi></strong> · sample <code><bdi>"
            f"{session.sample.sample_id}</bdi></code>") in page


@pytest.mark.parametrize(("headers", "status"), [
    ({}, 303),  # curl, a script: the token alone
    ({"origin": BASE}, 303),
    ({"origin": f"http://localhost:{PORT}"}, 303),  # another name of the allowed hosts
    ({"origin": f"http://[::1]:{PORT}"}, 303),
    ({"referer": f"{BASE}/pair/1?token=x"}, 303),
    ({"origin": "http://evil.example"}, 403),
    ({"origin": f"http://evil.example:{PORT}"}, 403),
    ({"origin": "null"}, 403),  # a sandboxed frame, a file:
    ({"origin": "http://127.0.0.1"}, 403),  # port 80: another server of the machine
    ({"origin": "http://127.0.0.1:9999"}, 403),
    ({"origin": f"https://127.0.0.1:{PORT}"}, 403),
    ({"origin": f"http://127.0.0.1:{PORT}@evil.example"}, 403),
    ({"origin": "http://127.0.0.1:99999"}, 403),
    ({"referer": "http://evil.example/page"}, 403),
    ({"origin": "http://evil.example", "referer": f"{BASE}/pair/1"}, 403),
])
def test_a_post_from_another_origin_is_refused(sample_dir: Path, headers: dict[str, str],
                                               status: int) -> None:
    """A page of another site that learnt the token cannot post a verdict or an undo."""
    c, session, token = make_client(sample_dir)
    pid = session.sample.pair_ids[0]
    r = c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"},
               headers=headers)
    assert r.status_code == status, r.text
    assert len(log_lines(sample_dir)) == (status == 303)
    assert c.post(f"/undo?token={token}", headers=headers).status_code == status
    assert len(log_lines(sample_dir)) == 2 * (status == 303)
    if status == 403:
        assert "another site" in r.text


def test_a_server_on_every_interface_takes_posts_from_the_host_it_was_sent_to(
        sample_dir: Path) -> None:
    token = new_token()
    session = JudgeSession(load_questions(sample_dir), "ana", 0.0)
    app = judge_app(session, token, allowed_hosts("0.0.0.0", PORT))
    c = TestClient(app, base_url="http://192.0.2.7:8123", follow_redirects=False)
    pid = session.sample.pair_ids[0]
    form = {"pair_id": pid, "verdict": "unknown"}
    url = f"/verdict?token={token}"
    assert c.post(url, data=form, headers={"origin": "http://192.0.2.7:8123"}
                  ).status_code == 303
    assert c.post(url, data=form, headers={"origin": "http://192.0.2.8:8123"}
                  ).status_code == 403
    assert c.post(url, data=form, headers={"origin": "http://192.0.2.7"}).status_code == 403


def test_a_log_replaced_by_a_symlink_while_serving_is_a_409_writing_nothing(
        sample_dir: Path, tmp_path: Path) -> None:
    c, session, token = make_client(sample_dir)
    pid = session.sample.pair_ids[0]
    form = {"pair_id": pid, "verdict": "equivalent"}
    assert c.post(f"/verdict?token={token}", data=form).status_code == 303
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_bytes((sample_dir / "verdicts.jsonl").read_bytes())
    before = elsewhere.read_bytes()
    (sample_dir / "verdicts.jsonl").unlink()
    (sample_dir / "verdicts.jsonl").symlink_to(elsewhere)
    r = c.post(f"/verdict?token={token}", data={**form, "verdict": "unknown"})
    assert r.status_code == 409
    # the server reads the log (what others appended) before it writes: the read refuses
    assert r.text.startswith(f"{sample_dir / 'verdicts.jsonl'} is a symbolic link (to "
                             f"{elsewhere}); verdicts are read only from a regular file")
    assert c.post(f"/undo?token={token}").status_code == 409
    assert c.get(f"/pair/{pid}?token={token}").status_code == 409
    assert elsewhere.read_bytes() == before


def damaged_rlo_sample(base_sample: Path, tmp_path: Path) -> Path:
    """A copy of the sample in a directory whose name holds a RIGHT-TO-LEFT OVERRIDE,
    its manifest given a slice by a column the draws lack (named with a Hebrew letter,
    an RLO and an &): the panel's estimate fails naming both. The directory."""
    import shutil

    where = Path(shutil.copytree(base_sample, tmp_path / "round\u202eRLO"))
    manifest = json.loads((where / "manifest.json").read_text())
    column = "\u05d0\u202ea&b"
    manifest["slices"] = [{column: "x", "weight": 1.0, "pairweight": 1.0}]
    (where / "manifest.json").write_text(json.dumps(manifest))
    reseal(where)
    return where


def test_user_values_in_the_panels_messages_are_isolated(base_sample: Path,
                                                         tmp_path: Path) -> None:
    """The sample's directory and the slice column the panel's error names are each a
    <bdi> (as the page's other user values are), escaped once."""
    where = damaged_rlo_sample(base_sample, tmp_path)
    c, session, token = make_client(where, show_estimates=True)
    for pid in session.assignment.order[:5]:
        c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})
    page = c.get(f"/pair/1?token={token}").text
    assert (f'<p class="muted"><bdi>{where}</bdi>: manifest slices by <bdi>&#39;\u05d0'
            "\\u202ea&amp;b&#39;</bdi> but draws have no such column") in page
    assert "&amp;amp;" not in page and "&amp;#39;" not in page


def test_a_hand_made_pair_id_with_a_slash_is_served(sample_dir: Path) -> None:
    """Pair ids written by hand (not by sample-pairs) may hold a `/`: the page of such a
    pair answered 404 (the route took one path segment), so the judge could never see
    it. Every pair is now reached from `/`, judged, and shown with its verdict."""
    from urllib.parse import quote

    path = sample_dir / "questions.jsonl"
    ids = ["batch/7", "a/../b", "x/", "/lead", "q?x=1#f", "50%/2"]
    rows = [json.loads(x) for x in path.read_text().splitlines()][:len(ids)]
    for row, pid in zip(rows, ids, strict=True):
        row["pair_id"] = pid
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    c, session, token = make_client(sample_dir)
    assert sorted(session.sample.pair_ids) == sorted(ids)
    for pid in ids:
        r = c.get(f"/pair/{quote(pid, safe='')}?token={token}")
        assert r.status_code == 200, (pid, r.status_code)
        assert f'<input type="hidden" name="pair_id" value="{pid}">' in r.text
    seen = []
    where = c.get(f"/?token={token}").headers["location"]
    while not where.startswith("/done"):
        page = c.get(where)
        assert page.status_code == 200, where
        pid = re.search(r'name="pair_id" value="([^"]*)"', page.text).group(1)
        seen.append(pid)
        where = c.post(f"/verdict?token={token}",
                       data={"pair_id": pid, "verdict": "unknown"}).headers["location"]
    assert sorted(seen) == sorted(ids)
    assert sorted(x["pair_id"] for x in log_lines(sample_dir)) == sorted(ids)
    page = c.get(f"/pair/{quote('batch/7', safe='')}?token={token}").text
    assert "Your verdict: <strong>unknown</strong>" in page


@pytest.mark.parametrize(("length", "status"), [
    *((x, 400) for x in ("\u00b2", "1\u00b3", "+5", " 5", "5 ", "-1", "0x10", "")),
    ("9" * 5000, 413), ("0" * 5000 + "7", 200)])
def test_a_content_length_not_of_ascii_digits_is_400(sample_dir: Path, length: str,
                                                     status: int) -> None:
    """The guard took any str.isdigit() length: a superscript two ("²", a digit to
    Python, which int() refuses) raised in the guard, an internal error (500) with a
    traceback, and so did a length of 5000 digits (int() refuses over 4300). A
    Content-Length must be ASCII digits (RFC 9110 §8.6): anything else is 400 before a
    route runs, whatever the HTTP server in front let through; a huge one is 413."""
    import asyncio

    c, _, token = make_client(sample_dir)
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/undo", "raw_path": b"/undo",
             "root_path": "", "query_string": f"token={token}".encode(),
             "server": ("127.0.0.1", PORT), "client": ("127.0.0.1", 50000),
             "headers": [(b"host", f"127.0.0.1:{PORT}".encode()),
                         (b"content-length", length.encode("latin-1"))]}
    asyncio.run(c.app(scope, receive, send))
    assert sent[0]["type"] == "http.response.start"
    if status == 200:  # leading zeros: a length of 7, within the limit; the route runs
        assert sent[0]["status"] == 303
        return
    assert sent[0]["status"] == status
    assert (b"bad Content-Length" if status == 400 else b"Too Large") in sent[1]["body"]
    assert not (sample_dir / "verdicts.jsonl").exists()


def test_plain_text_of_image_and_link_columns_is_marked_when_it_differs(
        sample_dir: Path) -> None:
    """A value of an --image-col/--link-col column that is no web address is shown as
    text, but was never marked as differing (only two images or two links are compared
    by eye): "no image" beside "pending" looked the same as two equal values."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[0].update(thumb_1="no image", thumb_2="pending", page_1="n/a", page_2="n/a")
    rows[1].update(thumb_1="no image", page_1=None)  # beside an image, a link
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    c, _, token = make_client(sample_dir, image_cols=("thumb",), link_cols=("page",))

    def marks(pid: object) -> dict[str, str]:
        page = c.get(f"/pair/{pid}?token={token}").text
        return dict((name, kind) for kind, name in re.findall(
            r'<tr class="(\w+)">\s*<th scope="row"><bdi>(\w+)</bdi>', page))

    first, second, third = (marks(r["pair_id"]) for r in rows[:3])
    assert (first["thumb"], first["page"]) == ("differs", "same")
    assert (second["thumb"], second["page"]) == ("differs", "differs")
    assert (third["thumb"], third["page"]) == ("same", "same")  # two images, two links


def test_a_pair_id_of_dots_is_a_name(sample_dir: Path) -> None:
    """A hand-made pair id of three dots is a name, served at its page."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[1]["pair_id"], rows[4]["pair_id"], rows[5]["pair_id"] = "p..", "p.", "..."
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    c, _, token = make_client(sample_dir)
    assert c.get(f"/pair/...?token={token}").status_code == 200


def test_a_boolean_value_is_shown_as_the_questions_write_it(sample_dir: Path) -> None:
    """A boolean attribute (a true/false column of the attributes) is true/false in
    questions.jsonl and questions.csv, but the page showed Python's True/False."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[0].update(provenance_1=True, provenance_2=False, country_1=True, country_2=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    assert '"provenance_1": true, "provenance_2": false' in path.read_text()
    c, _, token = make_client(sample_dir)
    page = c.get(f"/pair/{rows[0]['pair_id']}?token={token}").text
    values = re.findall(r'<bdi class="value">([^<]*)</bdi>', page)
    assert values[2:4] == ["true", "false"] and "True" not in values
    assert re.search(r'<tr class="same">\s*<th scope="row"><bdi>country</bdi>', page)


def test_the_panel_marks_each_metric_that_is_not_conclusive(sample_dir: Path) -> None:
    """The panel's table gave every metric's interval alike, a not-conclusive one (too
    few effective draws) as narrow-looking as any: only a long warning under the table
    said which. Each row whose estimate `abcde estimate DIR` flags not conclusive now
    says so beside its interval, with the reason; the others do not."""
    from .judge_support import run_cli

    c, session, token = make_client(sample_dir, show_estimates=True)
    for pid in session.assignment.order[:12]:
        c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})
    run = run_cli("estimate", str(sample_dir), "--format", "json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    page = c.get(f"/pair/1?token={token}").text
    panel = page[page.index('id="estimates"'):]
    rows = dict(re.findall(r'<tr><th scope="row">(\w+|ΔPrecision)</th>(.*?)</tr>', panel))
    names = {"ΔPrecision": "delta_precision", "GoodSplitRate": "good_split_rate",
             "BadSplitRate": "bad_split_rate", "GoodMergeRate": "good_merge_rate",
             "BadMergeRate": "bad_merge_rate"}
    assert set(rows) == set(names)
    flagged = {label for label, key in names.items() if doc[key].get("not_conclusive")}
    assert flagged and flagged != set(names)  # both kinds on this page
    for label, cells in rows.items():
        assert ("not conclusive" in cells) == (label in flagged), (label, cells)
        if label in flagged:
            reason = doc[names[label]]["not_conclusive"]
            assert f'title="{reason}"' in cells.replace("&lt;", "<")


def test_a_pair_id_with_a_tab_is_served(sample_dir: Path) -> None:
    """A hand-made pair id holding a tab is carried whole by the page and its form."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[6]["pair_id"] = "e\tf"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    c, _, token = make_client(sample_dir)
    assert c.get(f"/pair/e%09f?token={token}").status_code == 200
    r = c.post(f"/verdict?token={token}", data={"pair_id": "e\tf", "verdict": "unknown"})
    assert r.status_code == 303 and log_lines(sample_dir)[-1]["pair_id"] == "e\tf"


def test_a_full_disk_is_said_and_records_nothing(sample_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk is full when a verdict is written: the page answered "Internal Server
    Error" (500) and the server printed a traceback. It now answers 503 saying the
    verdict was not recorded and why, and the same verdict is taken once there is room."""
    import errno
    import os

    c, session, token = make_client(sample_dir)
    pid = session.sample.pair_ids[0]
    real = os.write

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("abcde.sample_files.verdicts.os.write", full)
    form = {"pair_id": pid, "verdict": "equivalent"}
    r = c.post(f"/verdict?token={token}", data=form)
    assert r.status_code == 503, r.text
    assert r.text == (f"the verdict was not recorded ({sample_dir / 'verdicts.jsonl'}: "
                      f"{os.strerror(errno.ENOSPC)}); nothing was lost: give it again once "
                      "the problem is fixed")
    assert c.post(f"/undo?token={token}").status_code == 303  # nothing to undo: no write
    monkeypatch.setattr("abcde.sample_files.verdicts.os.write", real)
    assert c.post(f"/verdict?token={token}", data=form).status_code == 303
    monkeypatch.setattr("abcde.sample_files.verdicts.os.write", full)
    r = c.post(f"/undo?token={token}")
    assert r.status_code == 503 and r.text.startswith("the undo was not recorded (")
    assert [(x["pair_id"], x["verdict"]) for x in log_lines(sample_dir)] == \
        [(pid, "equivalent")]


def test_a_huge_whole_float_is_shown_as_written_not_with_invented_digits(
        sample_dir: Path) -> None:
    """A float value of 1e300 (as questions.jsonl writes it) was shown as a 301-digit
    integer, its last 285 digits invented by the binary double (…5250476025520442…);
    a whole float beyond 2**53 is now shown as Python and the questions write it
    (1e+300), one within stays a plain integer (3, 9007199254740992)."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[0].update(provenance_1=1e300, provenance_2=-1e20, country_1=3.0,
                   country_2=float(2 ** 53))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    assert '"provenance_1": 1e+300, "provenance_2": -1e+20' in path.read_text()
    c, _, token = make_client(sample_dir)
    page = c.get(f"/pair/{rows[0]['pair_id']}?token={token}").text
    values = re.findall(r'<bdi class="value">([^<]*)</bdi>', page)
    assert values[2:4] == ["1e+300", "-1e+20"]
    assert values[6:8] == ["3", str(2 ** 53)]  # country, after size_class


def test_a_judge_who_started_with_another_overlap_records_nothing(sample_dir: Path) -> None:
    """Two judges start at once on an empty log with different --overlap values (so
    neither is refused at start): the first verdict fixes the round's overlap, and the
    other server then answers 409, naming both values, and records nothing."""
    a, ana, ta = make_client(sample_dir, "ana", overlap=0.25)
    b, bo, tb = make_client(sample_dir, "bo", overlap=0.75)
    pid = ana.assignment.order[0]
    r = a.post(f"/verdict?token={ta}", data={"pair_id": pid, "verdict": "equivalent"})
    assert r.status_code == 303
    before = (sample_dir / "verdicts.jsonl").read_bytes()
    r = b.post(f"/verdict?token={tb}", data={"pair_id": bo.assignment.order[0],
                                              "verdict": "unknown"})
    assert r.status_code == 409
    assert "records --overlap 0.25 for this round (line 1" in r.text
    assert "started with --overlap 0.75" in r.text
    assert (sample_dir / "verdicts.jsonl").read_bytes() == before
    assert a.get(f"/api/status?token={ta}").status_code == 200


def test_values_that_differ_unseen_say_why(sample_dir: Path) -> None:
    """Two values marked ≠ that look the same (a zero-width space, a no-break space, é
    written as e + a combining accent) left the judge guessing whether the difference
    matters: the row now says what differs. A visible difference gets no such note."""
    import html
    import unicodedata

    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    cafe = "Café Müller"
    rows[0].update(country_1="Acme", country_2="Acme\u200b")
    rows[1].update(country_1=cafe, country_2=unicodedata.normalize("NFD", cafe))
    rows[2].update(country_1="Acme", country_2="Acne")
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    reseal(path.parent, path.name)
    c, _, token = make_client(sample_dir)

    def country_row(pid: object) -> str:
        page = c.get(f"/pair/{pid}?token={token}").text
        return html.unescape(re.search(r'<tr class="(\w+)">\s*<th scope="row"><bdi>country'
                                       r'</bdi>(.*?)</th>', page, re.S).group(0))

    first, second, third = (country_row(r["pair_id"]) for r in rows[:3])
    assert 'class="differs"' in first and "U+200B ZERO WIDTH SPACE" in first
    assert 'class="differs"' in second and "other Unicode code points" in second
    assert 'class="differs"' in third and "unseen" not in third


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(categories=["L", "N", "P", "Zs"]), min_size=1, max_size=12),
       st.sampled_from(["\u200b", "\u00ad", "\ufeff", "\u2060", "\u200d"]),
       st.integers(0, 12))
def test_an_unseen_character_is_named_and_a_seen_one_is_not(
        text: str, unseen: str, at: int) -> None:
    """Inserted anywhere into a value, a character that does not show is named by its
    code point, as is a space swapped for another kind (a no-break space); a changed
    letter is no unseen difference."""
    import unicodedata

    from abcde.judge.cells import unseen_difference

    def named(ch: str) -> str:
        return f"U+{ord(ch):04X} {unicodedata.name(ch)}"

    if not text.strip():
        return  # a blank value shows as no value
    other = text[:at] + unseen + text[at:]
    assert named(unseen) in unseen_difference(text, other)
    assert unseen_difference(text, text) is None
    if " " in text.strip():
        swapped = text.replace(" ", "\u00a0")
        assert named("\u00a0") in unseen_difference(text, swapped)
    last = len(text.rstrip()) - 1
    changed = text[:last] + ("x" if text[last] != "x" else "y") + text[last + 1:]
    assert unseen_difference(text, changed) is None


def test_the_panel_shows_where_the_pairs_without_a_verdict_could_take_each_metric(
        sample_dir: Path) -> None:
    """With some pairs judged, each row also gives the estimate if the pairs without a
    verdict were all equivalent / all not equivalent (docs/method.md §8.11). Checked by
    judging them: once every pair is judged equivalent, the estimates are the first ends
    shown before, and the column is gone (no unknown pair left)."""
    c, session, token = make_client(sample_dir, show_estimates=True)
    order = session.assignment.order
    for pid in order[:12]:
        c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})

    def rows() -> tuple[str, dict[str, list[str]]]:
        page = c.get(f"/pair/1?token={token}").text
        panel = page[page.index('id="estimates"'):]
        cells = re.findall(r'<tr><th scope="row">(\w+|ΔPrecision)</th>(.*?)</tr>', panel)
        return panel, {label: re.findall(r"<td>([^<]*)", row) for label, row in cells}

    panel, before = rows()
    unknown = len(order) - 12
    assert "if unknowns all equiv / not" in panel
    assert f"if the {unknown} pairs without a verdict were all equivalent" in panel
    for pid in order[12:]:
        c.post(f"/verdict?token={token}", data={"pair_id": pid, "verdict": "equivalent"})
    panel, after = rows()
    assert "if unknowns all equiv / not" not in panel
    assert set(before) == set(after) == {"ΔPrecision", "GoodSplitRate", "BadSplitRate",
                                         "GoodMergeRate", "BadMergeRate"}
    for label, cells in before.items():
        ends = cells[-2]  # the column before the pairs' count
        assert ends.split(" / ")[0] == after[label][0], (label, cells, after[label])


def test_the_restart_command_of_a_replaced_sample_can_be_pasted(
        sample_dir: Path, tmp_path: Path) -> None:
    """The command a replaced sample's server names is quoted for the shell, as the
    other commands it names are: `abcde judge round 1` would judge directory "round"."""
    import shlex
    import shutil

    from abcde.judge.session import SampleReplaced

    spaced = Path(shutil.copytree(sample_dir, tmp_path / "round 1"))
    session = JudgeSession(load_questions(spaced), "ana")
    manifest = spaced / "manifest.json"
    manifest.write_text(manifest.read_text() + " ")  # a new file in its place
    with pytest.raises(SampleReplaced) as caught:
        session.refresh()
    assert f"`abcde judge {shlex.quote(str(spaced))}` again" in str(caught.value.hint)
    assert "'" in shlex.quote(str(spaced))
