"""Progress on long work (abcde.progress, docs/method.md §13.3): shown on stderr when it is
a terminal (a pseudo-terminal here), naming the running pipeline step; never on stdout,
which stays the same JSON; nothing at all when stderr is not a terminal, with
ABCDE_PROGRESS=0, --no-progress or -v."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from structures import same

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
IMPACT = ["impact", str(EX / "base.csv"), str(EX / "exp.csv"), "--weights",
          str(EX / "weights.csv"), "--format", "json"]


def run_on_pty(args: list[str], env: dict[str, str] | None = None,
               global_args: tuple[str, ...] = ()) -> tuple[bytes, bytes, int]:
    """Run `python -m abcde` with stderr on a pseudo-terminal; (stdout, what the terminal
    got, exit code)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "abcde", *global_args, *args],
                            stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                            env={**os.environ, "TERM": "xterm", **(env or {})}, cwd=ROOT)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.stdout.read() if proc.stdout else b""
    return out, seen, proc.wait(timeout=60)


def run_piped(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "abcde", *args], capture_output=True,
                          cwd=ROOT, timeout=300, env={**os.environ, "TERM": "xterm"})


@pytest.fixture(scope="module")
def piped() -> subprocess.CompletedProcess[bytes]:
    return run_piped(IMPACT)


def test_steps_are_shown_on_a_terminal_and_stdout_is_the_same_json(piped) -> None:
    out, terminal, code = run_on_pty(IMPACT)
    assert code == 0, terminal
    same(json.loads(out), json.loads(piped.stdout))  # floats: summed in parallel
    # the inputs' counts first (docs/method.md §2.5), then the one pass
    assert b"step 1: input_counts" in terminal and b"step 2: cell_rows" in terminal
    assert b"cell_metrics" in terminal and b"overall" in terminal
    assert b"\x1b[" in terminal  # drawn in place
    assert b"step" not in out and b"\x1b" not in out


def test_nothing_on_stderr_when_it_is_not_a_terminal(piped) -> None:
    assert piped.returncode == 0
    assert piped.stderr == b""
    table = run_piped(IMPACT[:-2])
    assert table.returncode == 0 and table.stderr == b"" and b"\x1b" not in table.stdout


@pytest.mark.parametrize(("env", "global_args"), [
    ({"ABCDE_PROGRESS": "0"}, ()), ({}, ("--no-progress",)), ({"TERM": "dumb"}, ()),
])
def test_turned_off(env: dict[str, str], global_args: tuple[str, ...]) -> None:
    out, terminal, code = run_on_pty(IMPACT, env=env, global_args=global_args)
    assert code == 0
    assert b"step" not in terminal and b"\x1b[" not in terminal
    json.loads(out)


def test_verbose_logs_instead() -> None:
    out, terminal, code = run_on_pty(IMPACT, global_args=("-v",))
    assert code == 0
    assert b"abcde: step cell_rows:" in terminal  # the log line of -v
    assert b"\x1b[" not in terminal
    json.loads(out)


def test_simulated_rounds_show_a_bar() -> None:
    out, terminal, code = run_on_pty(
        ["simulate", str(EX / "base.csv"), str(EX / "exp.csv"), "--weights",
         str(EX / "weights.csv"), "--truth", str(EX / "ideal.csv"), "--budgets", "30",
         "--replications", "3", "--format", "json"])
    assert code == 0, terminal
    assert b"simulated rounds" in terminal
    assert json.loads(out)["replications"] == 3


def test_errors_still_read_cleanly_on_a_terminal(tmp_path: Path) -> None:
    out, terminal, code = run_on_pty(["impact", str(tmp_path / "nope.csv"),
                                      str(EX / "exp.csv")])
    assert code == 2 and out == b""
    assert b"error:" in terminal and b"Traceback" not in terminal
