"""Time `abcde impact` against a hand-written DuckDB query on the same Parquet files.

    python benchmarks/run_impact.py benchmarks/data/1M benchmarks/data/10M \
        --runs 5 --warmup 1 --threads 2 --memory-limit 4GB [--append]

Each data directory holds base.parquet, exp.parquet, weights.parquet (see
benchmarks/generate.py). Per directory the contenders run alternately, each in a
fresh process: warm-up rounds first (discarded), then --runs timed rounds. Wall
time is measured around the process, peak RSS comes from os.wait4() of that very
process. The median of the timed rounds is reported with the ratio
abcde/handwritten, as one Markdown table row per directory; --append adds the
table to benchmarks/RESULTS.md with the machine description and the command.

Contenders:
  abcde        .venv/bin/abcde impact --base B --exp E --weights W --format json
               [--threads N] [--memory-limit M]   (skipped if it does not run)
  handwritten  benchmarks/handwritten.sql run by duckdb in a fresh Python process
               with SET threads / SET memory_limit
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_ABCDE = REPO / ".venv" / "bin" / "abcde"
METRICS = ("items", "weight", "affected_items", "affected_weight", "split_rate", "merge_rate",
           "jaccard_distance", "split_distance", "merge_distance", "jaccard_index",
           "affected_jaccard_index", "unaffected_jaccard_index")

# Runs in a fresh interpreter: argv = sql_file base exp weights threads memory_limit
HANDWRITTEN_RUNNER = """
import json, sys, duckdb
sql_file, base, exp, weights, threads, memory_limit = sys.argv[1:7]
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
if threads:
    con.execute(f"SET threads = {int(threads)}")
if memory_limit:
    con.execute(f"SET memory_limit = '{memory_limit}'")
query = open(sql_file).read().format(base=base, exp=exp, weights=weights)
cur = con.execute(query)
row = cur.fetchone()
print(json.dumps(dict(zip([d[0] for d in cur.description], row))))
"""


@dataclass
class Contender:
    name: str
    cmd: list[str]
    walls: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    output: str = ""

    def median_wall(self) -> float:
        return statistics.median(self.walls)

    def median_rss(self) -> float:
        return statistics.median(self.rss_mb)


def run_once(cmd: list[str]) -> tuple[float, float, str]:
    """Run cmd; return (wall seconds, peak RSS in MB of that process, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}):\n"
                               + err.read().decode(errors="replace")[-3000:])
        return wall, usage.ru_maxrss / 1024.0, out.read().decode()


def parse_json(output: str) -> object:
    """The JSON document in a process's stdout, skipping anything printed before it."""
    start = min((k for k in (output.find("{"), output.find("[")) if k >= 0), default=-1)
    if start < 0:
        raise json.JSONDecodeError("no JSON document", output, 0)
    return json.JSONDecoder().raw_decode(output[start:])[0]


def find_metrics(obj: object) -> dict | None:
    """The first dict in a JSON document that has a jaccard_distance key."""
    if isinstance(obj, dict):
        if "jaccard_distance" in obj:
            return obj
        children = list(obj.values())
    elif isinstance(obj, list):
        children = obj
    else:
        return None
    for child in children:
        found = find_metrics(child)
        if found is not None:
            return found
    return None


def compare_outputs(a: Contender, b: Contender) -> str:
    """Check that both contenders report the same overall metrics."""
    try:
        ma, mb = find_metrics(parse_json(a.output)), find_metrics(parse_json(b.output))
    except json.JSONDecodeError as exc:
        return f"could not parse JSON ({exc})"
    if ma is None or mb is None:
        return "no jaccard_distance in the output"
    bad = []
    for k in METRICS:
        if k in ma and k in mb and isinstance(ma[k], (int, float)):
            x, y = float(ma[k]), float(mb[k])
            if abs(x - y) > 1e-9 * max(1.0, abs(x), abs(y)):
                bad.append(f"{k}: {a.name} {x!r} vs {b.name} {y!r}")
    return "; ".join(bad) if bad else "ok"


def machine_description() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = next(int(x.split()[1]) for x in Path("/proc/meminfo").read_text().splitlines()
                      if x.startswith("MemTotal"))
        mem = f"{mem_kb / 1024**2:.1f} GiB RAM"
    except (OSError, StopIteration):
        mem = "unknown RAM"
    try:
        import duckdb

        duck = f"duckdb {duckdb.__version__}"
    except ImportError:
        duck = "duckdb not importable"
    return f"{os.cpu_count()} CPUs (nproc), {mem}, {cpu}; {platform.platform()}; " \
           f"Python {platform.python_version()}, {duck}"


def git_commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def abcde_works(binary: str) -> bool:
    try:
        return subprocess.run([binary, "impact", "--help"], capture_output=True,
                              timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def build_contenders(data: Path, args: argparse.Namespace) -> list[Contender]:
    base, exp, weights = (str(data / f"{n}.parquet") for n in ("base", "exp", "weights"))
    contenders = []
    if not args.skip_abcde:
        if abcde_works(args.abcde):
            cmd = [args.abcde, "impact", "--base", base, "--exp", exp, "--weights", weights,
                   "--format", "json"]
            if args.threads:
                cmd += ["--threads", str(args.threads)]
            if args.memory_limit:
                cmd += ["--memory-limit", args.memory_limit]
            contenders.append(Contender("abcde", cmd + shlex.split(args.abcde_extra)))
        else:
            print(f"note: `{args.abcde} impact --help` does not run, timing the hand-written "
                  "query only", file=sys.stderr)
    contenders.append(Contender("handwritten", [
        sys.executable, "-c", HANDWRITTEN_RUNNER, str(args.sql), base, exp, weights,
        str(args.threads or ""), args.memory_limit or ""]))
    return contenders


def bench(data: Path, args: argparse.Namespace) -> tuple[str, str]:
    contenders = build_contenders(data, args)
    for rnd in range(args.warmup + args.runs):
        order = contenders if rnd % 2 == 0 else contenders[::-1]
        for c in order:
            wall, rss, out = run_once(c.cmd)
            label = "warm-up" if rnd < args.warmup else "run"
            print(f"  {data.name} {label} {rnd + 1}: {c.name:11s} {wall:7.2f} s "
                  f"{rss:8.0f} MB", file=sys.stderr)
            if rnd >= args.warmup:
                c.walls.append(wall)
                c.rss_mb.append(rss)
            c.output = out
    by = {c.name: c for c in contenders}
    hand = by["handwritten"]
    items = find_metrics(parse_json(hand.output)) or {}
    n_items = int(items.get("items", 0))

    def cell(name: str, attr: str, fmt: str) -> str:
        return format(getattr(by[name], attr)(), fmt) if name in by else "–"

    ratio = mem_ratio = agree = "–"
    if "abcde" in by:
        ratio = f"{by['abcde'].median_wall() / hand.median_wall():.2f}"
        mem_ratio = f"{by['abcde'].median_rss() / hand.median_rss():.2f}"
        agree = compare_outputs(by["abcde"], hand)
    row = (f"| {data.name} | {n_items:,} | {args.threads or 'default'} | "
           f"{args.memory_limit or 'default'} | {cell('abcde', 'median_wall', '.2f')} | "
           f"{cell('handwritten', 'median_wall', '.2f')} | {ratio} | "
           f"{cell('abcde', 'median_rss', '.0f')} | {cell('handwritten', 'median_rss', '.0f')} | "
           f"{mem_ratio} | {agree} |")
    return row, hand.output


HEADER = ("| data | items | threads | memory limit | abcde s | handwritten s | ratio | "
          "abcde MB | handwritten MB | MB ratio | same metrics |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("data", type=Path, nargs="+", help="directories made by generate.py")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--memory-limit", default=None, help="e.g. 4GB, passed to both")
    ap.add_argument("--abcde", default=str(DEFAULT_ABCDE), help="path of the abcde binary")
    ap.add_argument("--abcde-extra", default="", help="extra arguments for abcde impact")
    ap.add_argument("--skip-abcde", action="store_true")
    ap.add_argument("--sql", type=Path, default=HERE / "handwritten.sql")
    ap.add_argument("--append", action="store_true", help="append to benchmarks/RESULTS.md")
    ap.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args()
    for d in args.data:
        missing = [n for n in ("base", "exp", "weights") if not (d / f"{n}.parquet").exists()]
        if missing:
            ap.error(f"{d}: missing {', '.join(missing)}.parquet (run benchmarks/generate.py)")

    rows = []
    print(HEADER)
    for d in args.data:
        row, output = bench(d, args)
        print(row, flush=True)
        print(f"  handwritten result: {output.strip()}", file=sys.stderr)
        rows.append(row)

    if args.append:
        command = shlex.join([Path(sys.executable).name, *sys.argv])
        text = (f"\n## {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} — impact, "
                f"commit {git_commit()}\n\n"
                f"Machine: {machine_description()}\n\n"
                f"Command: `{command}`\n\n"
                f"Medians of {args.runs} runs after {args.warmup} warm-up(s), contenders "
                f"alternated, each a fresh process; MB = peak RSS.\n\n"
                f"{HEADER}\n" + "\n".join(rows) + "\n")
        if not args.results.exists():
            text = "# Benchmark results\n" + text
        with args.results.open("a") as f:
            f.write(text)
        print(f"appended to {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
