"""Tools with pins that clash with abcde's dev tools (dbt, the warehouse emulators), each in a
virtualenv of its own, from PyPI only, cached across runs: one per set of pins, at
$<env> or ~/.cache/abcde/<name>-<hash of the pins> (a checkout with other pins gets
another instead of reinstalling this one under a running test), made under a lock (two
test workers may ask at once)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest


def cached_venv(name: str, env: str, pins: Sequence[str], then: Sequence[str] = ()) -> Path:
    """The virtualenv of `pins` (its directory), made if missing; `then`: a Python script
    it runs once, after the install, with HOME at <venv>/home."""
    digest = hashlib.sha256(" ".join([*pins, *then]).encode()).hexdigest()[:10]
    venv = Path(os.environ.get(env, Path.home() / ".cache" / "abcde" / f"{name}-{digest}"))
    stamp = venv / ".installed"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stamp.exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
            (venv / "home").mkdir()
            steps = [([str(venv / "bin" / "pip"), "install", "--quiet", *pins], {})]
            steps += [([str(venv / "bin" / "python"), "-c", script],
                       {"HOME": str(venv / "home")}) for script in then]
            for step, env_vars in steps:
                result = subprocess.run(step, capture_output=True, text=True, timeout=900,
                                        env={**os.environ, **env_vars})
                if result.returncode != 0:
                    pytest.fail(f"cannot set up {name}: {result.stderr[-2000:]}")
            stamp.touch()
    return venv
