"""Scale benchmarks of issue 16: Spark beside DuckDB, a round with and without a
workspace, and `abcde evaluate` beside `abcde impact` and scikit-learn.

    python benchmarks/run_scale.py spark benchmarks/data/10M [--runs 3] [--append]
    python benchmarks/run_scale.py round benchmarks/data/10M [--runs 3] [--append]
    python benchmarks/run_scale.py evaluate benchmarks/data/10M [--runs 3] [--append]

Every contender runs in a fresh process, the contenders alternating round by round
(warm-up rounds discarded); wall time around the process; peak memory = the largest
sum of the RSS of the process and all its descendants (Spark's JVM is a child of the
Python process), sampled every 0.1 s. Medians are reported, with the load average
before and after. DuckDB runs with --threads 2 --memory-limit 4GB, Spark local[2]
with a 4 GB driver (`--spark-conf spark.driver.memory=4g`).

* spark: `impact`, `sample-items --size 100000`, `sample-pairs --budget 10000` on
  DuckDB and on Spark, and the hand-written query of the overall metrics
  (handwritten.sql on DuckDB, handwritten_spark.sql on Spark local[2] with 64 shuffle
  partitions: with abcde's 4, its one plan of sort-merge joins ran out of Java heap at
  100M, benchmarks/RESULTS.md); checks that
  the overall metrics agree (1e-9 relative) and that both engines draw the same
  samples (item ids and draw counts; pair ids, items and draw counts).
* round: impact + sample-items + sample-pairs (all with the attributes) without a
  workspace, with a fresh DuckDB workspace per round, the three through the Python
  API in one process with a fresh workspace, and the three as methods of one
  `abcde.Comparison` (its cells kept in memory) (what a one-process `round` command could
  save: imports, process starts); the round's time against `impact` alone; checks that
  the samples are identical.
* evaluate: `abcde evaluate --truth base --actual exp` against `abcde impact` on the
  same files and scikit-learn's adjusted_rand_score and
  homogeneity_completeness_v_measure on the joined labels (read with DuckDB); checks
  that ARI, homogeneity, completeness and V agree to 1e-6.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run_impact import DEFAULT_ABCDE, git_commit, machine_description, parse_json

HERE = Path(__file__).resolve().parent
DUCK = ["--threads", "2", "--memory-limit", "4GB"]
SPARK = ["--engine", "spark", "--spark-conf", "spark.driver.memory=4g"]
METRICS = ("items", "weight", "affected_items", "affected_weight", "split_rate",
           "merge_rate", "jaccard_distance", "split_distance", "merge_distance",
           "jaccard_index", "affected_jaccard_index", "unaffected_jaccard_index")

HANDWRITTEN_SPARK = """
import json, os, sys
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
from pyspark.sql import SparkSession
sql_file, base, exp, weights = sys.argv[1:5]
spark = (SparkSession.builder.master("local[2]").appName("handwritten")
         .config("spark.driver.memory", "4g").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "64")
         .config("spark.ui.showConsoleProgress", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
query = open(sql_file).read().format(base=base, exp=exp, weights=weights)
row = spark.sql(query).collect()[0].asDict()
print(json.dumps(row))
spark.stop()
"""

ONE_PROCESS_ROUND = """
import sys
import abcde
base, exp, weights, attributes, ws, items_out, pairs_out = sys.argv[1:8]
kw = dict(weights=weights, attributes=attributes, threads=2, memory_limit="4GB",
          workspace=ws)
abcde.impact(base, exp, **kw)
abcde.sample_items(base, exp, size=100000, seed=7, out=items_out, overwrite=True, **kw)
abcde.sample_pairs(base, exp, budget=10000, seed=7, out=pairs_out, overwrite=True, **kw)
"""

COMPARISON_ROUND = """
import sys
import abcde
base, exp, weights, attributes, items_out, pairs_out = sys.argv[1:7]
engine = abcde.EngineConfig(threads=2, memory_limit="4GB")
with abcde.Comparison(base, exp, weights, attributes=attributes, engine=engine) as c:
    c.impact()
    c.sample_items(100000, seed=7, out=items_out, overwrite=True)
    c.sample_pairs(10000, seed=7, out=pairs_out, overwrite=True)
"""

HANDWRITTEN_DUCKDB = """
import json, sys, duckdb
sql_file, base, exp, weights = sys.argv[1:5]
con = duckdb.connect()
con.execute("SET threads = 2"); con.execute("SET memory_limit = '4GB'")
con.execute("SET enable_progress_bar = false")
cur = con.execute(open(sql_file).read().format(base=base, exp=exp, weights=weights))
print(json.dumps(dict(zip([d[0] for d in cur.description], cur.fetchone()))))
"""

SKLEARN = """
import json, sys, duckdb
from sklearn.metrics import adjusted_rand_score, homogeneity_completeness_v_measure
base, exp = sys.argv[1:3]
con = duckdb.connect()
con.execute("SET threads = 2"); con.execute("SET enable_progress_bar = false")
cols = con.execute(f"SELECT b.cluster_id AS t, e.cluster_id AS a FROM '{base}' AS b "
                   f"JOIN '{exp}' AS e USING (item_id)").fetchnumpy()
h, c, v = homogeneity_completeness_v_measure(cols["t"], cols["a"])
print(json.dumps({"adjusted_rand_index": adjusted_rand_score(cols["t"], cols["a"]),
                  "homogeneity": h, "completeness": c, "v_measure": v}))
"""


def tree_rss_mb(root: int) -> float:
    """RSS of `root` and its descendants, in MB."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            parent[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    members, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, ppid in parent.items():
            if ppid == pid and child not in members:
                members.add(child)
                frontier.append(child)
    return sum(rss.get(p, 0) for p in members) / 2**20


def run(cmd: list[str]) -> tuple[float, float, str]:
    """(wall s, peak tree RSS MB, stdout) of a command; fails loudly."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True)
        peak = 0.0
        while proc.poll() is None:
            peak = max(peak, tree_rss_mb(proc.pid))
            time.sleep(0.1)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}):\n"
                               + err.read().decode(errors="replace")[-3000:])
        return wall, peak, out.read().decode()


def files(data: Path) -> dict[str, str]:
    return {n: str(data / f"{n}.parquet") for n in ("base", "exp", "weights", "attributes")}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench(cmds: dict[str, list[str]], runs: int, warmup: int,
          ) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, str]]:
    walls: dict[str, list[float]] = {n: [] for n in cmds}
    mem: dict[str, list[float]] = {n: [] for n in cmds}
    outs: dict[str, str] = {}
    names = list(cmds)
    for rnd in range(warmup + runs):
        order = names[rnd % len(names):] + names[:rnd % len(names)]
        for name in order:
            wall, mb, out = run(cmds[name])
            label = "warm-up" if rnd < warmup else "run"
            print(f"  {label} {rnd + 1}: {name:28s} {wall:8.2f} s {mb:8.0f} MB "
                  f"(load {load()})", file=sys.stderr, flush=True)
            if rnd >= warmup:
                walls[name].append(wall)
                mem[name].append(mb)
            outs[name] = out
    return walls, mem, outs


def metrics_of(output: str) -> dict[str, float]:
    doc = parse_json(output)
    found = doc.get("overall", doc) if isinstance(doc, dict) else {}
    return {k: float(found[k]) for k in METRICS if k in found}


def agree(a: dict[str, float], b: dict[str, float], tol: float = 1e-9) -> bool:
    return bool(a) and all(math.isclose(a[k], b[k], rel_tol=tol, abs_tol=1e-12)
                           for k in a if k in b)


def read_rows(path: Path, cols: str, order: str) -> list[tuple]:
    import duckdb

    return duckdb.connect().execute(f"SELECT {cols} FROM '{path}' ORDER BY {order}"
                                    ).fetchall()


def rows_equal(a: list[tuple], b: list[tuple]) -> bool:
    """Rows equal: ids, counts and order exactly, floats to 1e-12 relative (a parallel
    sum's last bits vary from run to run)."""
    if len(a) != len(b):
        return False
    for ra, rb in zip(a, b, strict=True):
        for x, y in zip(ra, rb, strict=True):
            if isinstance(x, float) and isinstance(y, float):
                if not math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15):
                    return False
            elif x != y:
                return False
    return True


def table(walls: dict[str, list[float]], mem: dict[str, list[float]], base: str) -> str:
    rows = ["| contender | median s | min s | max s | ratio | peak MB |",
            "|---|---:|---:|---:|---:|---:|"]
    ref = statistics.median(walls[base])
    for n in walls:
        med = statistics.median(walls[n])
        rows.append(f"| {n} | {med:.2f} | {min(walls[n]):.2f} | {max(walls[n]):.2f} | "
                    f"{med / ref:.2f} | {statistics.median(mem[n]):.0f} |")
    return "\n".join(rows)


def spark_mode(data: Path, args: argparse.Namespace, tmp: Path) -> tuple[str, str]:
    f = files(data)
    common = ["--base", f["base"], "--exp", f["exp"], "--weights", f["weights"]]
    cmds: dict[str, list[str]] = {}
    for engine, opts in (("duckdb", DUCK), ("spark", SPARK)):
        cmds[f"impact {engine}"] = [args.abcde, "impact", *common, "--format", "json", *opts]
        cmds[f"sample-items {engine}"] = [
            args.abcde, "sample-items", *common, "--size", "100000", "--seed", "7",
            "--out", str(tmp / f"items_{engine}.parquet"), "--overwrite", *opts]
        cmds[f"sample-pairs {engine}"] = [
            args.abcde, "sample-pairs", *common, "--budget", "10000", "--seed", "7",
            "--out", str(tmp / f"pairs_{engine}"), "--overwrite", *opts]
    cmds["handwritten duckdb"] = [sys.executable, "-c", HANDWRITTEN_DUCKDB,
                                  str(HERE / "handwritten.sql"), f["base"], f["exp"],
                                  f["weights"]]
    cmds["handwritten spark"] = [sys.executable, "-c", HANDWRITTEN_SPARK,
                                 str(HERE / "handwritten_spark.sql"), f["base"], f["exp"],
                                 f["weights"]]
    if args.only:
        cmds = {k: v for k, v in cmds.items() if any(o in k for o in args.only.split(","))}
    walls, mem, outs = bench(cmds, args.runs, args.warmup)
    notes = []
    ref = metrics_of(outs["handwritten duckdb"]) if "handwritten duckdb" in outs else {}
    for name in ("impact duckdb", "impact spark", "handwritten spark"):
        if name in outs and ref:
            notes.append(f"{name} = hand-written DuckDB overall metrics (1e-9): "
                         f"{'yes' if agree(metrics_of(outs[name]), ref) else 'NO'}")
    if "sample-items duckdb" in outs and "sample-items spark" in outs:
        a, b = (read_rows(tmp / f"items_{e}.parquet", "item_id, draw_count", "first_draw")
                for e in ("duckdb", "spark"))
        notes.append(f"sample-items: same items and draw counts on both engines: "
                     f"{'yes' if rows_equal(a, b) else 'NO'} ({len(a):,} rows)")
    if "sample-pairs duckdb" in outs and "sample-pairs spark" in outs:
        a, b = (read_rows(tmp / f"pairs_{e}" / "draws.parquet",
                          "pair_id, item_i, item_j, draw_count", "pair_id, first_draw")
                for e in ("duckdb", "spark"))
        notes.append(f"sample-pairs: same draws on both engines: "
                     f"{'yes' if rows_equal(a, b) else 'NO'} ({len(a):,} rows)")
    base = "handwritten spark" if "handwritten spark" in walls else next(iter(walls))
    return table(walls, mem, base), "\n".join(f"- {n}" for n in notes) + \
        f"\n\nratio: to `{base}`."


def round_mode(data: Path, args: argparse.Namespace, tmp: Path) -> tuple[str, str]:
    f = files(data)
    common = ["--base", f["base"], "--exp", f["exp"], "--weights", f["weights"],
              "--attributes", f["attributes"], *DUCK]
    items = ["sample-items", *common, "--size", "100000", "--seed", "7", "--overwrite"]
    pairs = ["sample-pairs", *common, "--budget", "10000", "--seed", "7", "--overwrite"]
    walls: dict[str, list[float]] = {}
    mem: dict[str, list[float]] = {}
    same = []
    for rnd in range(args.warmup + args.runs):
        ws = tmp / "ws.duckdb"
        for p in (ws, tmp / "ws.duckdb.wal"):
            p.unlink(missing_ok=True)
        steps = {
            "impact": [args.abcde, "impact", *common, "--format", "json"],
            "sample-items": [args.abcde, *items, "--out", str(tmp / "i0.parquet")],
            "sample-pairs": [args.abcde, *pairs, "--out", str(tmp / "p0")],
            "impact (workspace)": [args.abcde, "impact", *common, "--format", "json",
                                   "--workspace", str(ws)],
            "sample-items (workspace)": [args.abcde, *items, "--out", str(tmp / "i1.parquet"),
                                         "--workspace", str(ws)],
            "sample-pairs (workspace)": [args.abcde, *pairs, "--out", str(tmp / "p1"),
                                         "--workspace", str(ws)],
        }
        ws2 = tmp / "ws2.duckdb"
        for p in (ws2, tmp / "ws2.duckdb.wal"):
            p.unlink(missing_ok=True)
        python = str(Path(args.abcde).with_name("python"))
        steps["round (one process, workspace)"] = [
            python, "-c", ONE_PROCESS_ROUND, f["base"], f["exp"], f["weights"],
            f["attributes"], str(ws2), str(tmp / "i2.parquet"), str(tmp / "p2")]
        # one Comparison: its cells kept in memory, no workspace file
        steps["round (one Comparison)"] = [
            python, "-c", COMPARISON_ROUND, f["base"], f["exp"], f["weights"],
            f["attributes"], str(tmp / "i3.parquet"), str(tmp / "p3")]
        names = list(steps)
        if rnd % 2:  # alternate which round goes first
            names = names[3:6] + names[:3] + names[6:]
        for name in names:
            wall, mb, _ = run(steps[name])
            label = "warm-up" if rnd < args.warmup else "run"
            print(f"  {label} {rnd + 1}: {name:28s} {wall:8.2f} s {mb:8.0f} MB "
                  f"(load {load()})", file=sys.stderr, flush=True)
            if rnd >= args.warmup:
                walls.setdefault(name, []).append(wall)
                mem.setdefault(name, []).append(mb)
        same.append(all(
            rows_equal(read_rows(tmp / "i0.parquet", "*", "first_draw"),
                       read_rows(tmp / f"i{k}.parquet", "*", "first_draw"))
            and rows_equal(
                read_rows(tmp / "p0" / "draws.parquet", "*", "pair_id, first_draw"),
                read_rows(tmp / f"p{k}" / "draws.parquet", "*", "pair_id, first_draw"))
            for k in (1, 2, 3)))
    for label, parts in (("round", ("impact", "sample-items", "sample-pairs")),
                         ("round (workspace)", ("impact (workspace)",
                                                "sample-items (workspace)",
                                                "sample-pairs (workspace)"))):
        walls[label] = [sum(x) for x in zip(*(walls[p] for p in parts), strict=True)]
        mem[label] = [max(x) for x in zip(*(mem[p] for p in parts), strict=True)]
    notes = (f"- samples with and without the workspace, and in one process, identical "
             f"(every column of the item sample file and of draws.parquet): "
             f"{'yes' if all(same) else 'NO'} "
             f"({len(same)} rounds)")
    return table(walls, mem, "impact"), notes + "\n\nratio: to `impact` without a workspace."


def evaluate_mode(data: Path, args: argparse.Namespace, tmp: Path) -> tuple[str, str]:
    f = files(data)
    cmds = {
        "abcde evaluate": [args.abcde, "evaluate", "--truth", f["base"], "--actual", f["exp"],
                           "--weights", f["weights"], "--format", "json", *DUCK],
        "abcde impact": [args.abcde, "impact", "--base", f["base"], "--exp", f["exp"],
                         "--weights", f["weights"], "--format", "json", *DUCK],
        "scikit-learn": [sys.executable, "-c", SKLEARN, f["base"], f["exp"]],
    }
    walls, mem, outs = bench(cmds, args.runs, args.warmup)
    classic = parse_json(outs["abcde evaluate"])["runs"][0]["classic"]
    sk = json.loads(outs["scikit-learn"].strip().splitlines()[-1])
    ok = all(math.isclose(classic[k], sk[k], rel_tol=1e-6, abs_tol=1e-9) for k in sk)
    notes = (f"- ARI, homogeneity, completeness, V-measure of `abcde evaluate` = "
             f"scikit-learn's to 1e-6: {'yes' if ok else 'NO'} "
             f"({', '.join(f'{k} {classic[k]:.9f}/{sk[k]:.9f}' for k in sk)})")
    return table(walls, mem, "abcde impact"), notes + "\n\nratio: to `abcde impact`."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("spark", "round", "evaluate"))
    ap.add_argument("data", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--only", default="", help="spark mode: contenders whose name holds "
                    "one of these comma-separated words")
    ap.add_argument("--abcde", default=str(DEFAULT_ABCDE))
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args()
    before = load()
    tmp = Path(tempfile.mkdtemp(prefix="abcde_scale_"))
    try:
        text, notes = {"spark": spark_mode, "round": round_mode,
                       "evaluate": evaluate_mode}[args.mode](args.data, args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    after = load()
    print(text)
    print(notes)
    if args.append:
        command = shlex.join(["python", *sys.argv])
        with args.results.open("a") as out:
            out.write(f"\n## {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} — {args.mode} "
                      f"({args.data.name}), commit {git_commit()}\n\n"
                      f"Machine: {machine_description()}\n\n"
                      f"Command: `{command}`\n\n"
                      f"Medians of {args.runs} run(s) after {args.warmup} warm-up(s), "
                      f"contenders alternated, fresh processes; peak MB = largest RSS of "
                      f"the process tree (JVM included). Load average (1, 5, 15 min) "
                      f"before: {before}; after: {after}.\n\n{text}\n\n{notes}\n")
        print(f"appended to {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
