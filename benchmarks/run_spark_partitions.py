"""sample-pairs on local Spark with 8 shuffle partitions (issue 36, point 1): time, peak
memory, and the rows each task of the sampler's statements processed, from Spark's own
metrics (the event log).

    python benchmarks/run_spark_partitions.py benchmarks/data/10M [--src DIR] [--append]

`--src` runs abcde from another source tree (e.g. an export of the commit before the
change): `python -m abcde` with that tree's `src` first on PYTHONPATH.

A task's rows are the records it read: from files (input metrics) plus from shuffles
(shuffle read metrics), summed over the task. Every statement (one SQL execution, named
by the step it creates: `CREATE TABLE <prefix><step> AS ...`) gets its stages' largest
task; a stage fed by `Exchange SinglePartition` (one task reads everything its input
holds) is reported on its own. Peak memory: the largest RSS of the process tree (the
JVM is a child of the Python process), as benchmarks/run_scale.py measures it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from run_impact import git_commit, machine_description
from run_scale import files, load, run

HERE = Path(__file__).resolve().parent
CTAS = re.compile(r"CreateDataSourceTableAsSelectCommand\s*\nArguments: `[^`]+`\.`[^`]+`\.`(\w+)`")
SCAN = re.compile(r"Scan parquet spark_catalog\.\w+\.(\w+)")


def command(data: Path, out: Path, events: Path, src: Path | None, budget: int,
            seed: int) -> tuple[list[str], dict[str, str]]:
    f = files(data)
    conf = {"spark.driver.memory": "4g", "spark.sql.shuffle.partitions": "8",
            "spark.eventLog.enabled": "true", "spark.eventLog.dir": events.as_uri(),
            "spark.eventLog.compress": "false", "spark.eventLog.rolling.enabled": "false",
            # every shuffle keeps its 8 partitions: AQE would coalesce a small one into
            # one task, hiding whether the step is partitioned at all
            "spark.sql.adaptive.coalescePartitions.enabled": "false"}
    cmd = [sys.executable, "-m", "abcde", "sample-pairs", "--base", f["base"], "--exp",
           f["exp"], "--weights", f["weights"], "--budget", str(budget), "--seed",
           str(seed), "--out", str(out), "--engine", "spark"]
    for k, v in conf.items():
        cmd += ["--spark-conf", f"{k}={v}"]
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    if src is not None:
        env["PYTHONPATH"] = str(src / "src")
    return cmd, env


def task_rows(events: Path) -> dict[str, object]:
    """Per statement, its largest task (rows read); the single-partition stages."""
    log = next(events.iterdir())
    stage_job: dict[int, int] = {}
    job_exec: dict[int, int] = {}
    exec_step: dict[int, str] = {}
    stage_tasks: dict[int, list[int]] = defaultdict(list)
    stage_parts: dict[int, int] = {}
    for line in log.read_text().splitlines():
        e = json.loads(line)
        kind = e["Event"]
        if kind.endswith("SQLExecutionStart"):
            plan = e.get("physicalPlanDescription", "")
            root = e.get("rootExecutionId", e["executionId"])
            m = CTAS.search(plan)
            scan = SCAN.search(plan)
            exec_step[e["executionId"]] = (
                m[1] if m else exec_step.get(root) if root != e["executionId"]
                else f"fetch from {scan[1]}" if scan else plan.split("\n")[1][:40])
        elif kind == "SparkListenerJobStart":
            ex = (e.get("Properties") or {}).get("spark.sql.execution.id")
            if ex is not None:
                job_exec[e["Job ID"]] = int(ex)
            for s in e["Stage IDs"]:
                stage_job[s] = e["Job ID"]
            for info in e.get("Stage Infos", []):
                stage_parts[info["Stage ID"]] = info["Number of Tasks"]
        elif kind == "SparkListenerTaskEnd" and e.get("Task Metrics"):
            tm = e["Task Metrics"]
            shuffled = tm.get("Shuffle Read Metrics", {}).get("Total Records Read", 0)
            read = tm.get("Input Metrics", {}).get("Records Read", 0)
            stage_tasks[e["Stage ID"]].append((read + shuffled, shuffled))
    per_step: dict[str, dict[str, int]] = {}
    for stage, rows in stage_tasks.items():
        ex = job_exec.get(stage_job.get(stage, -1))
        step = exec_step.get(ex, "?") if ex is not None else "?"
        entry = per_step.setdefault(step, {"max_task_rows": 0, "rows": 0,
                                           "single_partition_max": 0})
        entry["max_task_rows"] = max(entry["max_task_rows"], max(r for r, _ in rows))
        entry["rows"] += sum(r for r, _ in rows)
        if len(rows) == 1:  # one task reading a shuffle: an Exchange SinglePartition
            entry["single_partition_max"] = max(entry["single_partition_max"], rows[0][1])
    return per_step


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path)
    ap.add_argument("--src", type=Path, default=None)
    ap.add_argument("--budget", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--label", default="")
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--keep", type=Path, default=None, help="copy the event log there")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        events = Path(tmp) / "events"
        events.mkdir()
        cmd, env = command(args.data, Path(tmp) / "sample", events, args.src, args.budget,
                           args.seed)
        before = load()
        os.environ.update(env)
        wall, peak, out = run(cmd)
        steps = task_rows(events)
        draws = hashlib.sha256((Path(tmp) / "sample" / "draws.csv").read_bytes()).hexdigest()
        if args.keep is not None:
            import shutil

            shutil.copytree(events, args.keep, dirs_exist_ok=True)
    top = sorted(steps.items(), key=lambda kv: -kv[1]["max_task_rows"])
    single = max(steps.items(), key=lambda kv: kv[1]["single_partition_max"])
    lines = [f"## {dt.datetime.now():%Y-%m-%d %H:%M} — sample-pairs on Spark, 8 shuffle "
             f"partitions, {args.data.name} {args.label}",
             "", f"Machine: {machine_description()}; load {before} → {load()}.",
             f"Commit: {git_commit()}{' (abcde from ' + str(args.src) + ')' if args.src else ''}.",
             f"Command: `{' '.join(Path(c).name if c == sys.executable else c for c in cmd)}`",
             "", f"- wall {wall:.1f} s, peak RSS {peak:.0f} MB; {out.strip().splitlines()[0]}",
             f"- draws.csv sha256 {draws[:16]}",
             f"- largest single-partition task (a stage under `Exchange SinglePartition`): "
             f"{single[1]['single_partition_max']:,} rows, in `{single[0]}`",
             "", "| step | largest task (rows read) | rows read, all tasks | largest "
             "single-partition task |", "|---|---:|---:|---:|"]
    lines += [f"| {k} | {v['max_task_rows']:,} | {v['rows']:,} | "
              f"{v['single_partition_max']:,} |" for k, v in top[:15]]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.append:
        with (HERE / "RESULTS.md").open("a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
