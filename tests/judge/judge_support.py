"""Helpers of the `abcde judge` tests (fixtures are in conftest.py): the judge played by
the examples' ideal clustering, and `abcde judge` started as a subprocess."""

from __future__ import annotations

import csv
import functools
import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ARTIFACTS = ROOT / "test-artifacts"


@dataclass(frozen=True)
class Ran:
    """What a command printed and its exit code (as subprocess.CompletedProcess names them)."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> Ran:
    """`abcde ARGS…` in this process: a Python start costs more than most commands here.
    A command that gets as far as serving a page fails instead (it would never end)."""
    import pytest
    from click.testing import CliRunner

    from abcde.cli import main

    def serve(*_: object, **__: object) -> None:
        raise AssertionError("the command started serving")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("abcde.server.run.serve", serve)
        result = CliRunner().invoke(main, list(args))
    return Ran(result.exit_code, result.stdout, result.stderr)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def read_clusters(path: Path) -> dict[str, str]:
    with path.open(newline="") as f:
        return {r["item_id"]: r["cluster_id"] for r in csv.DictReader(f)}


@functools.lru_cache(maxsize=1)
def ideal() -> dict[str, str]:
    """The examples' ideal clustering: the judge of these tests."""
    return read_clusters(EXAMPLES / "ideal.csv")


def truth_verdict(item_1: str, item_2: str) -> str:
    return "equivalent" if ideal()[str(item_1)] == ideal()[str(item_2)] else "not_equivalent"


@dataclass
class Server:
    """`abcde judge` running as a subprocess."""

    proc: subprocess.Popen[str]
    url: str
    output: list[str]

    @property
    def base(self) -> str:
        return self.url.split("/?", 1)[0]

    @property
    def token(self) -> str:
        return self.url.split("token=", 1)[1]

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    def stop(self, sig: int = signal.SIGINT) -> str:
        """Stop it (SIGINT = Ctrl-C) and return everything it printed."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        rest = self.proc.stdout.read() if self.proc.stdout else ""
        return "".join(self.output) + (rest or "")


def start_server(directory: Path, *args: str, timeout: float = 180.0,
                 env: dict[str, str] | None = None) -> Server:
    """Start `python -m abcde judge DIR ARGS…` and wait for the URL it prints."""
    return start_command(["judge", str(directory), *args], directory.parent,
                         timeout=timeout, env=env)


def start_command(args: list[str], cwd: Path, *, timeout: float = 180.0,
                  env: dict[str, str] | None = None) -> Server:
    """Start `python -m abcde ARGS…` (a command that serves a page: `judge`, `explore
    --serve`) and wait for the URL it prints."""
    proc = subprocess.Popen([sys.executable, "-m", "abcde", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=str(cwd), env={**os.environ, **(env or {})})
    lines: list[str] = []
    found: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            m = re.search(r"Open (http://\S+)", line)
            if m:
                found.append(m.group(1))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if not found:
        proc.kill()
        proc.wait()
        raise AssertionError(f"abcde {args[0]} did not print its URL: {''.join(lines)}")
    return Server(proc, found[0], lines)


# the left edge, on screen, of where each of the given strings starts (e.g. an example's
# "img_", before its bidi control), in the order of the page's text: for the bidi tests
# of the explore and judge pages
STARTS = """
const td = arguments[0], starts = arguments[1], out = [];
const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
const nodes = [];
let text = "";
for (let n = walk.nextNode(); n; n = walk.nextNode()) {
  nodes.push([n, text.length]);
  text += n.data;
}
let from = 0;
for (const s of starts) {
  const at = text.indexOf(s, from);
  from = at + s.length;
  const [node, base] = nodes.filter(([n, b]) => b <= at).pop();
  const r = document.createRange();
  r.setStart(node, at - base);
  r.setEnd(node, at - base + s.length);
  out.push(r.getBoundingClientRect().left);
}
return out;
"""
