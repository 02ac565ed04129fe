"""Ctrl-C (and SIGTERM) at random moments of `abcde sample-pairs --out DIR --overwrite`
over a judged sample: afterwards DIR holds the old sample byte for byte (its verdicts
included) or the new one complete (every file as its manifest's digests say), never a
mix, and no temporary directory is left beside it."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

OLD_BUDGET, NEW_BUDGET = 300, 600


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def complete_new_sample(root: Path) -> bool:
    """Every sample file present and as the manifest of a NEW_BUDGET sample records it;
    nothing of the old sample left (the team's notes stay)."""
    manifest = json.loads((root / "manifest.json").read_text())
    if manifest["budget"] != NEW_BUDGET:
        return False
    files = set(snapshot(root)) - {"manifest.json", "notes.txt"}
    if files != set(manifest["digests"]):
        return False
    return all(hashlib.sha256((root / name).read_bytes()).hexdigest() == d["sha256"]
               for name, d in manifest["digests"].items())


def sample_pairs(base: Path, exp: Path, out: Path, budget: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "abcde", "-v", "sample-pairs", str(base), str(exp),
            "--budget", str(budget), "--seed", "11", "--out", str(out), *extra]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """10,000 items in 1,000 Base clusters, 30% moved in Exp: a sample takes a second or
    two."""
    d = tmp_path_factory.mktemp("interrupt")
    rng = np.random.default_rng(5)
    n = 10_000
    base = rng.integers(0, 1000, n)
    moved = rng.random(n) >= 0.7
    exp = [f"e{int(rng.integers(0, 750))}" if m else f"b{b}" for b, m in zip(base, moved,
                                                                              strict=True)]
    (d / "base.csv").write_text("item_id,cluster_id\n" + "".join(
        f"i{i},b{b}\n" for i, b in enumerate(base)))
    (d / "exp.csv").write_text("item_id,cluster_id\n" + "".join(
        f"i{i},{e}\n" for i, e in enumerate(exp)))
    return d / "base.csv", d / "exp.csv"


@pytest.mark.parametrize(("sig", "word"), [(signal.SIGINT, "interrupted"),
                                         (signal.SIGTERM, "terminated")])
def test_a_signal_at_random_moments_leaves_old_or_new_never_a_mix(
        world, tmp_path: Path, sig: signal.Signals, word: str) -> None:
    """Ctrl-C, and SIGTERM (`timeout`, a scheduler) as well: it used to end the process
    at once, leaving the temporary directory beside the target."""
    base, exp = world
    old = tmp_path / "judged"
    subprocess.run(sample_pairs(base, exp, old, OLD_BUDGET), check=True, capture_output=True)
    questions = (old / "questions.csv").read_text().splitlines()
    (old / "questions.csv").write_text("\n".join(
        [questions[0], *(q + "equivalent" for q in questions[1:])]) + "\n")
    (old / "notes.txt").write_text("the team's notes")
    judged = snapshot(old)

    # an uninterrupted run: how long the work takes once the first SQL step is done
    out = tmp_path / "round"
    shutil.copytree(old, out)
    proc = subprocess.Popen(sample_pairs(base, exp, out, NEW_BUDGET, "--overwrite"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stderr.readline()
    start = time.perf_counter()
    proc.communicate(timeout=600)
    rest = time.perf_counter() - start
    assert proc.returncode == 0 and complete_new_sample(out)

    rng = np.random.default_rng(2024)
    # anywhere, and more often late: while the files are written and swapped in
    moments = sorted([*rng.uniform(0.0, rest, 3), *rng.uniform(0.6 * rest, 1.1 * rest, 3)])
    outcomes = []
    for delay in moments:
        shutil.rmtree(out)
        shutil.copytree(old, out)
        proc = subprocess.Popen(sample_pairs(base, exp, out, NEW_BUDGET, "--overwrite"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = proc.stderr.readline()  # -v: past start-up, the SQL steps run
        assert first.startswith(b"abcde: "), first
        time.sleep(delay)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=600)
        text = err.decode()
        # 128 + sig: interrupted; 0: done before the signal; -sig: the signal came while
        # the interpreter was exiting (after the output was complete), which a shell also
        # reports as 128 + sig
        assert proc.returncode in (0, 128 + sig, -sig), (delay, proc.returncode, text)
        assert "Traceback" not in text and "internal error" not in text, text
        if proc.returncode == 128 + sig:
            assert text.strip().endswith(word), text
        if proc.returncode != 128 + sig:
            assert complete_new_sample(out)
        state = snapshot(out)
        if state == judged:
            outcomes.append("old")
        else:
            assert complete_new_sample(out), (delay, sorted(state))
            assert state["notes.txt"] == b"the team's notes"
            outcomes.append("new")
        assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []
    print("outcomes", [(round(m, 2), o) for m, o in zip(moments, outcomes, strict=True)],
          "work after the first step:", round(rest, 2), "s")
    assert "old" in outcomes, outcomes  # some moments did interrupt the work


WRAPPING_LIBRARY = """
import os, signal, sys, time, traceback
from abcde.cli import main
from abcde.cli._common import handle_errors

@main.command("wrapped-signal")
@handle_errors
def wrapped_signal():
    try:
        os.kill(os.getpid(), signal.SIG%s)
        time.sleep(5)
    except BaseException as err:  # as DuckDB does with an error raised in Python it calls
        raise RuntimeError("".join(traceback.format_exception(err))) from None

main()
"""


@pytest.mark.parametrize(("name", "code", "word"), [("INT", 130, "interrupted"),
                                                    ("TERM", 143, "terminated")])
def test_a_signal_a_library_wraps_in_its_own_error_is_still_interrupted(
        name: str, code: int, word: str) -> None:
    """A signal that lands inside a library's call into Python comes out as the library's
    error, whose text holds our exception's traceback (CI, SIGTERM during sample-pairs:
    exit 1, "internal error ... This is a bug in abcde"). It is the signal: 128 + its
    number, "interrupted"/"terminated", no traceback."""
    proc = subprocess.run([sys.executable, "-c", WRAPPING_LIBRARY % name, "wrapped-signal"],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr.strip()) == (code, word), proc.stderr


START_UP = """
import sys
from abcde.__main__ import run  # what the `abcde` script runs (pyproject.toml)
sys.argv = ["abcde", "impact", %r, %r]
sys.stderr.write("ready\\n")
sys.stderr.flush()
run()
"""
# `import abcde` and the script's own line stay outside the guard: ~20 ms of Python
# importing `typing`
# (tests/test_packaging.py::test_import_abcde_is_light_and_the_script_guards_the_rest)


@pytest.mark.parametrize("delay", [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5])
def test_ctrl_c_during_start_up_is_interrupted(world, delay: float) -> None:
    """Ctrl-C while the command line is imported (the first ~0.3 s of every command) or
    its options parsed: "interrupted", exit 130, as during the work — it was a
    KeyboardInterrupt traceback (imports) or click's "Aborted!", exit 1 (parsing)."""
    base, exp = world
    proc = subprocess.Popen([sys.executable, "-c", START_UP % (str(base), str(exp))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr.readline() == "ready\n"
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    # 0: done before the signal (-2: while the interpreter was exiting, after the output)
    assert proc.returncode in (130, 0, -2), (proc.returncode, err)
    assert "Traceback" not in err and "Aborted" not in err, err
    if proc.returncode == 130:
        assert err.strip().splitlines()[-1] == "interrupted", err
