"""`abcde judge` as a real process: it listens on loopback only, on a free port unless
told, refuses what the guard refuses over a real socket (raw request lines, which no
client normalises) and stops cleanly on Ctrl-C; and it refuses bad input (run in this
process, `run_judge`) with exit code 2 and a message — never a traceback
(docs/method.md §12.1)."""

from __future__ import annotations

import contextlib
import http.client
import json
import shutil
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .judge_support import Ran, Server, run_cli, start_server


def raw_get(server: Server, target: str, host: str | None = None) -> tuple[int, bytes]:
    """Send a request line exactly as given (no client-side normalisation of ../)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{server.port}'}\r\n"
                  "Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def listening_addresses(port: int) -> set[str]:
    """Local addresses of the sockets LISTENing on `port`, from /proc/net/tcp{,6}."""
    out = set()
    for name in ("tcp", "tcp6"):
        path = Path(f"/proc/net/{name}")
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:  # 0A = LISTEN
                out.add(address)
    return out


def test_listens_on_loopback_only_and_refuses_without_token(
        sample_dir: Path, servers: list[Server]) -> None:
    server = start_server(sample_dir, "--judge", "ana")
    servers.append(server)
    assert server.url.startswith("http://127.0.0.1:")
    assert listening_addresses(server.port) == {"0100007F"}  # 127.0.0.1, nothing else
    others = set()
    with contextlib.suppress(OSError):
        others = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None,
                                                       socket.AF_INET)}
    for address in others - {"127.0.0.1"}:
        if address.startswith("127."):
            continue
        with pytest.raises(OSError), socket.create_connection((address, server.port),
                                                             timeout=3):
            pass
    assert raw_get(server, "/")[0] == 403
    assert raw_get(server, "/?token=wrong")[0] == 403
    status, _ = raw_get(server, f"/?token={server.token}")
    assert status == 303
    assert raw_get(server, f"/?token={server.token}", host="evil.example")[0] == 403


@pytest.fixture(scope="module")
def traversal_server(base_sample: Path, tmp_path_factory: pytest.TempPathFactory,
                     ) -> Iterator[Server]:
    """One server for every traversal case (they only read), its verdicts.jsonl there
    to be leaked."""
    where = Path(shutil.copytree(base_sample, tmp_path_factory.mktemp("traversal") / "r"))
    (where / "verdicts.jsonl").write_text("")
    server = start_server(where, "--judge", "ana")
    try:
        yield server
    finally:
        server.stop(signal.SIGKILL)


@pytest.mark.parametrize("target", [
    "/static/../../manifest.json", "/static/../manifest.json", "/../manifest.json",
    "/static/%2e%2e/%2e%2e/manifest.json", "/static/..%2f..%2fmanifest.json",
    "/../../../../etc/passwd", "/static/../../../../../../etc/passwd",
    "/verdicts.jsonl", "/questions.jsonl", "/static/..\\..\\manifest.json",
])
def test_raw_path_traversal_over_a_socket(traversal_server: Server, target: str) -> None:
    server = traversal_server
    sep = "&" if "?" in target else "?"
    status, body = raw_get(server, f"{target}{sep}token={server.token}")
    assert status in (400, 404), (target, status)
    assert b"population" not in body and b"root:" not in body
    assert raw_get(server, target)[0] in (400, 403)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_cleanly_and_says_where_the_verdicts_are(
        sample_dir: Path, servers: list[Server], sig: int) -> None:
    server = start_server(sample_dir, "--judge", "ana")
    servers.append(server)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    conn.request("POST", f"/verdict?token={server.token}", body="pair_id=1&verdict=unknown",
                 headers={"content-type": "application/x-www-form-urlencoded"})
    assert conn.getresponse().status == 303
    conn.close()
    out = server.stop(sig)
    assert server.proc.returncode == 0, out
    assert "stopped: 1 verdicts of 'ana'" in out and "Traceback" not in out
    # what to run next, with this sample's directory (40 pairs, one judged)
    assert "the round has a verdict on 1 of 40 pairs" in out
    assert f"When the round is complete, estimate with: abcde estimate {sample_dir}\n" in out
    assert json.loads((sample_dir / "verdicts.jsonl").read_text())["verdict"] == "unknown"


def run_judge(*args: str) -> Ran:
    return run_cli("judge", *args)


def test_port_in_use_is_exit_2(sample_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        run = run_judge(str(sample_dir), "--port", str(port))
    assert run.returncode == 2, run.stderr
    assert f"port {port} on 127.0.0.1 is in use" in run.stderr
    assert "Traceback" not in run.stderr


def test_bad_input_is_exit_2_with_a_message(sample_dir: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = {
        "no manifest": ([str(empty)], "is not a pair sample: it has no manifest.json"),
        "bad overlap": ([str(sample_dir), "--overlap", "1.5"], "--overlap"),
        "bad image col": ([str(sample_dir), "--image-col", "nope"],
                          "--image-col nope: the questions have no attribute 'nope'"),
        "bad judge": ([str(sample_dir), "--judge", " "], "judge name"),
        # an empty name is a mistake, not a request for the login name
        "empty judge": ([str(sample_dir), "--judge", ""], "judge name ''"),
        "bad port": ([str(sample_dir), "--port", "70000"], "--port must be"),
    }
    for name, (args, message) in cases.items():
        run = run_judge(*args)
        assert run.returncode == 2, (name, run.stdout, run.stderr)
        assert message in run.stderr, (name, run.stderr)
        assert "Traceback" not in run.stderr
    no_questions = tmp_path / "no_questions"
    shutil.copytree(sample_dir, no_questions)
    for name in ("questions.jsonl", "questions.csv"):
        (no_questions / name).unlink()
    run = run_judge(str(no_questions))
    assert run.returncode == 2 and "questions.jsonl is not as" in run.stderr, run.stderr
    (sample_dir / "verdicts.jsonl").mkdir()  # not writable as a file
    run = run_judge(str(sample_dir))
    assert run.returncode == 2 and "cannot write verdicts to" in run.stderr, run.stderr
    (sample_dir / "verdicts.jsonl").rmdir()
    target = tmp_path / "elsewhere.jsonl"
    (sample_dir / "verdicts.jsonl").symlink_to(target)  # dangling: judging would create it
    run = run_judge(str(sample_dir))
    assert run.returncode == 2, run.stderr
    assert (f"{sample_dir / 'verdicts.jsonl'} is a symbolic link (to {target}); verdicts "
            "are appended only to a regular file") in run.stderr
    assert "Replace it with a regular file" in run.stderr and "Traceback" not in run.stderr
    assert not target.exists()


def test_a_log_of_another_sample_is_refused(sample_dir: Path) -> None:
    (sample_dir / "verdicts.jsonl").write_text(json.dumps({
        "judge": "ana", "pair_id": "1", "sample_id": "other", "verdict": "equivalent",
        "time": "t"}) + "\n")
    run = run_judge(str(sample_dir))
    assert run.returncode == 2
    assert "holds verdicts of another sample (sample_id other" in run.stderr


def test_open_hands_the_tokened_url_to_the_default_browser(
        sample_dir: Path, servers: list[Server], tmp_path: Path) -> None:
    """--open goes through `webbrowser`, which honours $BROWSER: here a script that
    records the address it was given, once the server accepts connections."""
    import time

    record = tmp_path / "opened.txt"
    script = tmp_path / "browser.py"
    script.write_text("import sys, pathlib\n"
                      f"pathlib.Path({str(record)!r}).write_text(sys.argv[1])\n")
    server = start_server(sample_dir, "--open",
                          env={"BROWSER": f"{sys.executable} {script} %s"})
    servers.append(server)
    for _ in range(600):
        if record.exists() and record.read_text():
            break
        time.sleep(0.1)
    assert record.read_text() == server.url
    assert raw_get(server, f"/?token={server.token}")[0] == 303


def test_a_sample_without_attributes_is_said_on_start_and_on_the_page(
        tmp_path: Path, servers: list[Server]) -> None:
    """A sample drawn without --attributes (as `sample-pairs` allows) showed the judge two
    bare item ids and nothing saying why, nor what to do."""
    import urllib.request

    from abcde.sampling.pairs import sample_pairs

    from .judge_support import EXAMPLES

    out = tmp_path / "bare"
    sample_pairs(str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
                 str(EXAMPLES / "weights.csv"), budget=5, seed=3, out=out)
    server = start_server(out)
    servers.append(server)
    printed = "".join(server.output)
    assert "carry no attributes" in printed and "--attributes FILE" in printed
    with urllib.request.urlopen(server.url) as r:
        page = r.read().decode()
    assert 'id="no-attributes"' in page and "only the two item ids are shown" in page


def test_a_judge_with_nothing_left_is_told_so_and_what_to_run(
        sample_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another judge answered every pair: the start said only "0 of 0 pairs judged"; it
    now says nothing is left and names the estimate command of this sample (the server
    itself is not started here)."""
    from click.testing import CliRunner

    from abcde.cli import main
    from abcde.judge.questions import load_questions

    pairs = load_questions(sample_dir).questions.values()
    sample_id = load_questions(sample_dir).sample_id
    (sample_dir / "verdicts.jsonl").write_text("".join(json.dumps({
        "judge": "bo", "pair_id": q.pair_id, "sample_id": sample_id, "verdict": "unknown",
        "time": "2026-01-01T00:00:00.000+00:00"}) + "\n" for q in pairs))
    monkeypatch.setattr("abcde.server.run.serve", lambda app, sock, **kw: sock.close())
    run = CliRunner().invoke(main, ["judge", str(sample_dir), "--judge", "ana"])
    assert run.exit_code == 0, run.output
    assert "'ana': 0 of 0 pairs judged" in run.output
    assert ("nothing is left for 'ana' to judge: the round has a verdict on 40 of 40 "
            f"pairs. Estimate with: abcde estimate {sample_dir}\n") in run.output


def test_an_attribute_both_image_and_link_is_refused(sample_dir: Path) -> None:
    """`--image-col thumb --link-col thumb` served a page showing thumb as a link only:
    the image asked for was dropped without a word. It is refused, exit 2."""
    run = run_judge(str(sample_dir), "--image-col", "thumb", "--link-col", "page,thumb")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert ("--image-col and --link-col both name 'thumb': an attribute is shown either as "
            "an image or as a link") in run.stderr
    assert "Name it once" in run.stderr and "Traceback" not in run.stderr


def test_a_line_torn_by_a_crash_is_said_on_start(
        sample_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server killed in the middle of a write leaves a torn last line (no line end),
    which readers skip (its verdict was never acknowledged) without a word: neither the
    judge restarting the round nor `abcde estimate` said that a verdict the judge may
    remember giving is not there. Both say so now."""
    from click.testing import CliRunner

    from abcde.cli import main
    from abcde.judge.questions import load_questions

    sample = load_questions(sample_dir)
    first, second = sample.pair_ids[:2]
    log = sample_dir / "verdicts.jsonl"
    log.write_text(json.dumps({
        "judge": "ana", "pair_id": first, "sample_id": sample.sample_id,
        "verdict": "equivalent", "time": "2026-01-01T00:00:00.000+00:00"}) + "\n"
        + f'{{"judge": "ana", "pair_id": "{second}", "sam')
    monkeypatch.setattr("abcde.server.run.serve", lambda app, sock, **kw: sock.close())
    run = CliRunner().invoke(main, ["judge", str(sample_dir), "--judge", "ana"])
    assert run.exit_code == 0, run.output
    assert "'ana': 1 of 40 pairs judged" in run.output
    said = (f"{log}: skipped its last line (line 2), which has no line end: a write cut "
            "short by a crash, never acknowledged to the judge")
    assert f"warning: {said}" in run.output
    estimate = CliRunner().invoke(main, ["estimate", str(sample_dir), "--format", "json"])
    assert estimate.exit_code == 0, estimate.output
    assert said in json.loads(estimate.stdout)["judging"]["warnings"]


def test_a_directory_that_only_looks_exported_is_refused_as_a_manifest(
        sample_dir: Path, tmp_path: Path) -> None:
    """A directory with a pair_manifest that is no pair-sample manifest is served as an
    exported warehouse sample no more than `abcde estimate` reads it: exit 2 naming the
    file (tests/judge/test_judge_exported.py judges real exports)."""
    exported = tmp_path / "exported"
    exported.mkdir()
    shutil.copy(sample_dir / "draws.parquet", exported / "pair_sample.parquet")
    shutil.copy(sample_dir / "questions.csv", exported / "pair_questions.csv")
    (exported / "pair_manifest.csv").write_text("sample_id\nx\n")
    run = run_judge(str(exported), "--judge", "ana")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert f"{exported / 'pair_manifest.csv'}: not the manifest of a pair sample" \
        in run.stderr
    assert "Traceback" not in run.stderr
    assert not (exported / "verdicts.jsonl").exists()


def test_a_restart_with_another_overlap_is_refused(sample_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """--overlap was not stored: ana judged with --overlap 0.5, restarted with 0.1, and
    the pairs she had been sharing with every judge silently became pairs for one judge
    (and bo's with 0.1 the same). The first verdict now records the overlap in the log;
    another value is refused (exit 2) naming both and what to run; none takes it."""
    from click.testing import CliRunner

    from abcde.cli import main
    from abcde.judge.assignment import overlap_pairs
    from abcde.judge.questions import load_questions
    from abcde.judge.session import JudgeSession

    sample = load_questions(sample_dir)
    first = JudgeSession(sample, "ana", 0.5)
    first.record(first.next_pair(first.snapshot()), "equivalent")
    assert json.loads((sample_dir / "verdicts.jsonl").read_text())["overlap"] == 0.5
    monkeypatch.setattr("abcde.server.run.serve", lambda app, sock, **kw: sock.close())
    before = (sample_dir / "verdicts.jsonl").read_bytes()
    for judge in ("ana", "bo"):
        run = CliRunner().invoke(main, ["judge", str(sample_dir), "--judge", judge,
                                        "--overlap", "0.1"])
        assert run.exit_code == 2, run.output
        assert (f"{sample_dir / 'verdicts.jsonl'} records --overlap 0.5 for this round "
                "(line 1, judge 'ana'), but this judge was started with --overlap 0.1"
                ) in run.output
        assert (f"Run `abcde judge {sample_dir} --judge {judge} --overlap 0.5` (or leave "
                "out --overlap: the recorded value is used)") in run.output
        assert "Traceback" not in run.output
    assert (sample_dir / "verdicts.jsonl").read_bytes() == before
    for args in (["--overlap", "0.5"], []):
        run = CliRunner().invoke(main, ["judge", str(sample_dir), "--judge", "bo", *args])
        assert run.exit_code == 0, run.output
        assert "overlap 0.5 (verdicts go to" in run.output
    # without --overlap, bo shares exactly the 20 of the 40 pairs the hash picks for 0.5
    bo = JudgeSession(sample, "bo")
    assert bo.assignment.shared == overlap_pairs(sample.sample_id, sample.pair_ids, 0.5)
    assert len(bo.assignment.shared) == 20
