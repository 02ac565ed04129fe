"""Hostile inputs through every command that reads a file (issue 32): a file name is read
literally, whatever it holds (DuckDB's and Spark's readers expand * ? [..] and {a,b}, so
`base [v2].csv` read `base 2.csv` with exit 0); a JSON file nested too deeply, a file
that changes while it is read, a symbolic link loop, a header that differs only in case
and an empty compressed CSV each get a specific message and exit 2; two commands
creating one new --out both end whole."""

from __future__ import annotations

import contextlib
import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main

EX = Path(__file__).resolve().parents[2] / "examples"

# each name beside a decoy that a reader expanding patterns would read instead or too
HOSTILE = [("base [v2].csv", "base 2.csv"), ("b?se.csv", "bXse.csv"),
           ("b*.csv", "b.csv"), ("{a,b}.csv", "a.csv"), ("with space 'q' \"d\".csv", None),
           ("ünïcødé ß.csv", None), ("back\\slash.csv", None)]
ALL = "b[a]s?e *{a,b} 'q' é.csv"  # every kind at once: for every command
DECOY = "basXe Z{a,b} 'q' é.csv"


def run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "internal error" not in result.output and "Traceback" not in result.output, \
        result.output
    # a JSON document is stdout alone (warnings go to stderr)
    json_out = result.exit_code == 0 and "json" in [str(a) for a in args]
    return result.exit_code, result.stdout if json_out else result.output


def _numbers(output: str) -> object:
    """The JSON of a command's output, without the file names it echoes, its floats to
    10 decimals (DuckDB's parallel sums differ in the last bits)."""
    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k.replace(f" {ALL[:-4]}", ""): strip(v) for k, v in value.items()
                    if k not in ("inputs", "input", "label", "name")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        if isinstance(value, float):
            return round(value, 10)
        return "<file>" if isinstance(value, str) and ("/" in value or ".csv" in value) \
            else value
    return strip(json.loads(output))


def _decoy(path: Path) -> None:
    """Another clustering, that a glob matching it would read: every item one cluster."""
    lines = (EX / "base.csv").read_text().splitlines()
    path.write_text("\n".join([lines[0], *[f"{line.split(',')[0]},1" for line in lines[1:]]])
                    + "\n")


@pytest.mark.parametrize(("name", "decoy"), HOSTILE)
def test_impact_reads_a_file_name_literally(tmp_path: Path, name: str, decoy: str | None
                                            ) -> None:
    shutil.copy(EX / "base.csv", tmp_path / name)
    if decoy:
        _decoy(tmp_path / decoy)
    code, out = run("impact", tmp_path / name, EX / "exp.csv", "--format", "json")
    assert code == 0, out
    assert _numbers(out) == _numbers(run("impact", EX / "base.csv", EX / "exp.csv",
                                         "--format", "json")[1])


def _commands(d: Path, f: dict[str, Path]) -> dict[str, list[object]]:
    """Every command that reads a file, with the files of `f` (base, exp, truth, ...)."""
    return {
        "impact": ["impact", f["base"], f["exp"], "--weights", f["weights"], "--format",
                   "json"],
        "sample-items": ["sample-items", f["base"], f["exp"], "--attributes",
                         f["attributes"], "--size", "20", "--out", d / "items.csv"],
        "sample-pairs": ["sample-pairs", f["base"], f["exp"], "--budget", "30", "--out",
                         d / "pairs"],
        "evaluate": ["evaluate", "--truth", f["truth"], "--actual", f["base"], "--format",
                     "json"],
        "simulate": ["simulate", f["base"], f["exp"], "--truth", f["truth"], "--budgets",
                     "30", "--replications", "2", "--format", "json"],
    }


def test_every_command_reads_file_names_literally(tmp_path: Path) -> None:
    """The same numbers and files from every command with the inputs under a name
    holding every hostile character (and a decoy its pattern matches) as under plain
    names; then the commands reading what those wrote (estimate --truth and
    --judgements, explore, uir) likewise."""
    results = {}
    for kind in ("plain", "hostile"):
        d = tmp_path / kind
        d.mkdir()
        files = {}
        for role, source in (("base", "base"), ("exp", "exp"), ("weights", "weights"),
                             ("attributes", "attributes"), ("truth", "truth")):
            name = f"{role}.csv" if kind == "plain" else f"{role} {ALL}"
            shutil.copy(EX / f"{source}.csv", d / name)
            files[role] = d / name
            if kind == "hostile":
                _decoy(d / f"{role} {DECOY}")
        out = {}
        for command, args in _commands(d, files).items():
            code, text = run(*args)
            assert code == 0, (command, text)
            out[command] = _numbers(text) if "--format" in args else None
        out["items"] = (d / "items.csv").read_bytes()
        out["questions"] = (d / "pairs" / "questions.csv").read_bytes()
        # what the commands wrote, under hostile names too
        sample = d / ("pairs" if kind == "plain" else f"pairs {ALL[:-4]}")
        if kind == "hostile":
            (d / "pairs").rename(sample)
        code, text = run("estimate", sample, "--truth", files["truth"], "--format", "json")
        assert code == 0, text
        out["estimate --truth"] = _numbers(text)
        items = d / ("items.csv" if kind == "plain" else f"items {ALL}")
        if kind == "hostile":
            (d / "items.csv").rename(items)
            (d / "items.csv.manifest.json").rename(items.with_name(items.name
                                                                   + ".manifest.json"))
        code, text = run("explore", items, "--format", "json")
        assert code == 0, text
        out["explore"] = _numbers(text)
        scores = d / ("scores.csv" if kind == "plain" else f"scores {ALL}")
        scores.write_text("system,case,metric,value\n" + "".join(
            f"{s},{c},{m},{v}\n" for m in ("precision", "recall")
            for s, c, v in (("base", "a", 1), ("exp", "a", 2), ("base", "b", 3),
                            ("exp", "b", 1))))
        code, text = run("uir", scores, "--format", "json")
        assert code == 0, text
        out["uir"] = _numbers(text)
        results[kind] = out
    assert results["hostile"] == results["plain"]


def _deep(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("case", ["report --impact", "estimate manifest", "explore manifest"])
def test_deeply_nested_json_is_refused_as_malformed(tmp_path: Path, case: str) -> None:
    """JSON nested 100,000 deep in a file abcde reads: exit 2 naming the file, not a
    RecursionError (exit 1)."""
    if case == "report --impact":
        _deep(tmp_path / "deep.json")
        args: list[object] = ["report", "--impact", tmp_path / "deep.json", "--out",
                              tmp_path / "r.html"]
    elif case == "estimate manifest":
        d = tmp_path / "pairs"
        assert run("sample-pairs", EX / "base.csv", EX / "exp.csv", "--budget", "20",
                   "--out", d)[0] == 0
        _deep(d / "manifest.json")
        args = ["estimate", d, "--truth", EX / "truth.csv"]
    else:
        items = tmp_path / "items.csv"
        assert run("sample-items", EX / "base.csv", EX / "exp.csv", "--size", "20", "--out",
                   items)[0] == 0
        _deep(tmp_path / "items.csv.manifest.json")
        args = ["explore", items, "--format", "json"]
    code, out = run(*args)
    assert code in (0, 2), out  # explore only compares with a manifest it can read
    if code == 2:
        assert "deep" in out or "manifest" in out, out


def test_utf16_json_is_read(tmp_path: Path) -> None:
    """A saved result in UTF-16 (what Windows editors save as "Unicode") reads as JSON
    allows it, not as "not UTF-8"."""
    code, text = run("impact", EX / "base.csv", EX / "exp.csv", "--format", "json")
    (tmp_path / "impact.json").write_bytes(text.encode("utf-16"))
    code, out = run("report", "--impact", tmp_path / "impact.json", "--out",
                    tmp_path / "r.html")
    assert code == 0, out


@pytest.mark.parametrize("case", ["symlink loop", "header in two cases", "empty .csv.gz",
                                  "missing"])
def test_misleading_diagnoses_are_specific(tmp_path: Path, case: str) -> None:
    path = tmp_path / "base.csv"
    if case == "symlink loop":
        (tmp_path / "other.csv").symlink_to(path)
        path.symlink_to(tmp_path / "other.csv")
        needle = "symbolic links"
    elif case == "header in two cases":
        path.write_text("Item_Id,item_id,cluster_id\n1,1,a\n2,2,b\n")
        needle = "names compared ignoring case"
    elif case == "empty .csv.gz":
        path = tmp_path / "base.csv.gz"
        path.write_bytes(gzip.compress(b""))
        needle = "no header"
    else:
        needle = "does not exist"
    code, out = run("impact", path, EX / "exp.csv")
    assert code == 2, out
    assert needle in out and "base" in out, out


def test_a_file_cut_short_while_read_is_named(tmp_path: Path) -> None:
    """An input rewritten with other columns after it was registered: DuckDB's binder
    error with the SQL became exit 1; now exit 2 naming the file."""
    from abcde.engines.duckdb import DuckDBEngine
    from abcde.errors import InputError
    from abcde.inputs.sources import open_source

    path = tmp_path / "base.csv"
    shutil.copy(EX / "base.csv", path)
    with DuckDBEngine() as engine:
        source = open_source(engine, "base", path, string_columns=["item_id", "cluster_id"])
        path.write_text("item_id\n1\n")
        with pytest.raises(InputError) as err:
            engine.fetch(f"SELECT cluster_id FROM {source.relation}")
    assert "changed while abcde read it" in str(err.value) and str(path) in str(err.value)


def test_two_commands_creating_one_new_out_both_succeed(tmp_path: Path) -> None:
    """Two `impact --out` at once into one new directory: the later rename found the
    directory made by the other (`Directory not empty`, exit 1); now it replaces it."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "abcde", "impact", str(EX / "base.csv"), str(EX / "exp.csv"),
           "--out", str(out)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    assert (out / "index.json").is_file() or any(out.iterdir())
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []


@pytest.fixture
def full_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A directory on a 1 MiB file system, filled up (root mounts a tmpfs)."""
    where = tmp_path / "full"
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small file system here (needs root)")
    with contextlib.suppress(OSError), (where / "fill").open("wb") as f:
        for _ in range(64):
            f.write(b"\0" * (1 << 15))
            f.flush()
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.mark.parametrize("option", ["--out", "--workspace"])
def test_a_full_disk_names_what_is_full(full_disk: Path, option: str) -> None:
    """A full disk at --out or --workspace is named as such, not blamed on DuckDB's
    temporary files and TMPDIR."""
    target = full_disk / ("out" if option == "--out" else "ws.duckdb")
    extra = ["--out-format", "csv"] if option == "--out" else []
    command = "impact" if option == "--out" else "sample-items"
    args = [command, EX / "base.csv", EX / "exp.csv", option, target, *extra]
    if option == "--workspace":
        args += ["--out", full_disk.parent / "items.csv"]
    code, out = run(*args)
    assert code == 2, out
    assert f"no space left on the device writing {target}" in out, out
    assert "TMPDIR" not in out, out


def test_memory_limit_beyond_the_machine_is_refused() -> None:
    code, out = run("impact", EX / "base.csv", EX / "exp.csv", "--memory-limit", "900TB")
    assert code == 2 and "--memory-limit" in out and "machine's memory" in out, out


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_later_run_removes_what_a_killed_run_left(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed with SIGKILL leaves its private temporary items (DuckDB's spill
    directory, PostgreSQL's copy of an input) and `<out>.tmp-*`; a later run removes
    those of processes that no longer run, and leaves those of running ones."""
    import tempfile

    import abcde.engines.files as files

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(files, "_SWEPT", [])
    dead, alive = _dead_pid(), subprocess.Popen([sys.executable, "-c", "input()"],
                                                stdin=subprocess.PIPE)
    try:
        for pid in (dead, alive.pid):
            (temp / f"abcde-{pid}-pg-copy-x1").mkdir()
            (temp / f"abcde-{pid}-pg-copy-x1" / "rows.csv").write_text("1,2\n")
            (tmp_path / f"out.tmp-{pid}-0123abcd").mkdir()
        code, out = run("impact", EX / "base.csv", EX / "exp.csv", "--out", tmp_path / "out")
        assert code == 0, out
        left = sorted(p.name for p in [*temp.iterdir(), *tmp_path.iterdir()]
                      if "tmp-" in p.name or p.name.startswith("abcde-"))
        assert left == [f"abcde-{alive.pid}-pg-copy-x1", f"out.tmp-{alive.pid}-0123abcd"]
    finally:
        alive.kill()
        alive.wait()


def _jvms(marker: str) -> list[int]:
    """The processes whose environment holds `marker` (the JVMs of one abcde run)."""
    found = []
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if proc.name.isdigit() and marker.encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
    return found


@pytest.mark.spark
@pytest.mark.parametrize("seed", range(4))
def test_an_interrupted_spark_run_leaves_no_jvm(seed: int) -> None:
    """`abcde impact --engine spark` interrupted (SIGINT) at a random moment of its start
    or its run, or killed (SIGKILL): no JVM outlives it (one was left with parent 1 in 9
    of 22 tries)."""
    import os
    import random
    import signal
    import time

    from abcde.engines.spark import java_missing

    if java_missing():
        pytest.skip(java_missing())
    marker = f"ABCDE_JVM_TEST_{os.getpid()}_{seed}"
    moment = random.Random(seed).uniform(1.0, 9.0)
    proc = subprocess.Popen([sys.executable, "-m", "abcde", "impact", str(EX / "base.csv"),
                             str(EX / "exp.csv"), "--engine", "spark"],
                            env={**os.environ, marker: "1"}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(moment)
    proc.send_signal(signal.SIGKILL if seed == 3 else signal.SIGINT)
    proc.wait(timeout=120)
    deadline = time.monotonic() + 20
    while _jvms(marker) and time.monotonic() < deadline:
        time.sleep(0.5)
    left = _jvms(marker)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"a JVM outlived abcde (interrupted after {moment:.1f} s)"
