"""tests/server_guard.py: a server the test session started is stopped, and its
directories removed, when the test process is killed (its finalisers never run)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by init) counts as gone
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def _wait_until(test, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if test():
            return True
        time.sleep(0.1)
    return test()


def _test_process(tmp_path: Path, guard_args: str) -> tuple[subprocess.Popen, int]:
    """A stand-in for the test process: it starts a 'server' (sleep, in its own process
    group like the Spark Connect server), guards it, prints the server's pid and waits
    to be killed."""
    code = (
        "import subprocess, sys, time\n"
        f"sys.path.insert(0, {str(TESTS)!r})\n"
        "from server_guard import guard\n"
        "server = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"guard({guard_args})\n"
        "print(server.pid, flush=True)\n"
        "time.sleep(300)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    return proc, int(proc.stdout.readline())


def test_a_killed_test_process_takes_its_server_and_directories_with_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "log").write_text("x")
    marker = tmp_path / "stopped"
    proc, server = _test_process(
        tmp_path, f"commands=[['touch', {str(marker)!r}]], killpg=server.pid, "
                  f"remove=[{str(data)!r}]")
    try:
        time.sleep(1.0)
        assert _alive(server) and data.exists() and not marker.exists()  # parent alive
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert _wait_until(lambda: not _alive(server)), "the server outlived the test process"
        assert _wait_until(lambda: not data.exists())
        assert marker.exists()  # the stop command ran
    finally:
        proc.kill()
        if _alive(server):
            os.killpg(server, signal.SIGKILL)


def test_a_released_guard_leaves_the_server_to_the_fixture() -> None:
    from server_guard import guard, release

    server_proc = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        watch = guard(killpg=server_proc.pid)
        release(watch)
        assert watch.poll() is not None
        time.sleep(1.0)
        assert server_proc.poll() is None  # released: the server is the fixture's to stop
    finally:
        server_proc.kill()
        server_proc.wait()
