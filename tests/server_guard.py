"""Servers the test session starts die with it.

A session fixture stops its server in its finaliser, which never runs when pytest (or an
xdist worker) is killed — by a CI time-out, `kill -9`, a closed terminal. The PostgreSQL
server (pg_ctl daemonises it) and the Spark Connect server (its own process group) then
kept running, with their data in /tmp. `guard` starts a small detached process that
waits for its parent, the test process, to go away and then stops the server and
removes its directories; the fixture's own finaliser `release`s it first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# Runs in a fresh interpreter: argv[1] = JSON {parent, commands, killpg, remove}. The
# parent is gone when this process is re-parented (getppid changes), whatever its pid
# is reused for later.
_WATCH = """
import json, os, shutil, signal, subprocess, sys, time
spec = json.loads(sys.argv[1])
while os.getppid() == spec["parent"]:
    time.sleep(0.5)
for cmd in spec["commands"]:
    try:
        subprocess.run(cmd, capture_output=True, timeout=60)
    except Exception:
        pass
if spec["killpg"] is not None:
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 0)):
        try:
            os.killpg(spec["killpg"], sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(spec["killpg"], 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
for path in spec["remove"]:
    shutil.rmtree(path, ignore_errors=True)
"""


def guard(*, commands: Sequence[Sequence[str]] = (), killpg: int | None = None,
          remove: Sequence[Path] = ()) -> subprocess.Popen:
    """Once this process is gone: run `commands` (each a stop command), kill the process
    group `killpg` (SIGTERM, then SIGKILL after 20 s), remove the directories `remove`."""
    import os

    spec = {"parent": os.getpid(), "commands": [[str(c) for c in cmd] for cmd in commands],
            "killpg": killpg, "remove": [str(p) for p in remove]}
    # its own session: a Ctrl-C of the test run reaches pytest, whose finalisers stop the
    # server, not this process, which is then released
    return subprocess.Popen([sys.executable, "-c", _WATCH, json.dumps(spec)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def release(watch: subprocess.Popen) -> None:
    """The fixture stops its server itself: the watchdog is not needed any more."""
    watch.kill()
    watch.wait()
