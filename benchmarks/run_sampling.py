"""Time `abcde sample-pairs` and `abcde sample-items` against `abcde impact` on the same
input (issue: each within 3× the time of impact).

    python benchmarks/run_sampling.py benchmarks/data/10M-shatter --runs 5 --warmup 1 \
        --threads 2 --memory-limit 4GB [--budget 10000] [--size 100000] [--append]

The commands run alternately (the order rotates every round), each in a fresh process;
warm-up rounds are discarded; the medians of the timed rounds are reported (wall time
around the process, peak RSS from os.wait4) with the ratios to `impact` without the
attributes — the samplers read them, so this is the stricter comparison;
`impact+attributes` (the same validation pass over the attributes) is listed too.
--append adds a section to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

from run_impact import DEFAULT_ABCDE, git_commit, machine_description, run_once

HERE = Path(__file__).resolve().parent


def commands(data: Path, args: argparse.Namespace, tmp: Path) -> dict[str, list[str]]:
    b, e, w, a = (str(data / f"{n}.parquet") for n in ("base", "exp", "weights", "attributes"))
    common = ["--base", b, "--exp", e, "--weights", w]
    extra = []
    if args.threads:
        extra += ["--threads", str(args.threads)]
    if args.memory_limit:
        extra += ["--memory-limit", args.memory_limit]
    attrs = ["--attributes", a] if Path(a).exists() else []
    return {
        "impact": [args.abcde, "impact", *common, "--format", "json", *extra],
        # the samplers read the attributes (validated, joined to the sample); impact given
        # them too does the same validation pass — the fairer but easier comparison
        **({"impact+attributes": [args.abcde, "impact", *common, *attrs, "--format", "json",
                                  *extra]} if attrs else {}),
        "sample-pairs": [args.abcde, "sample-pairs", *common, *attrs, "--budget",
                         str(args.budget), "--seed", "7", "--out", str(tmp / "pairs"),
                         "--overwrite", *extra],
        "sample-items": [args.abcde, "sample-items", *common, *attrs, "--size", str(args.size),
                         "--seed", "7", "--out", str(tmp / "items.parquet"), "--overwrite",
                         *extra],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--memory-limit", default=None)
    ap.add_argument("--budget", type=int, default=10_000)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--abcde", default=str(DEFAULT_ABCDE))
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args()

    walls: dict[str, list[float]] = {}
    rss: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="abcde_bench_") as tmp:
        cmds = commands(args.data, args, Path(tmp))
        names = list(cmds)
        for rnd in range(args.warmup + args.runs):
            order = names[rnd % len(names):] + names[:rnd % len(names)]
            for name in order:
                wall, mb, _ = run_once(cmds[name])
                label = "warm-up" if rnd < args.warmup else "run"
                print(f"  {label} {rnd + 1}: {name:12s} {wall:7.2f} s {mb:8.0f} MB",
                      file=sys.stderr, flush=True)
                if rnd >= args.warmup:
                    walls.setdefault(name, []).append(wall)
                    rss.setdefault(name, []).append(mb)
    med = {n: statistics.median(v) for n, v in walls.items()}
    header = ("| command | median s | min s | max s | ratio to impact | median MB |\n"
              "|---|---:|---:|---:|---:|---:|")
    rows = [f"| {n} | {med[n]:.2f} | {min(walls[n]):.2f} | {max(walls[n]):.2f} | "
            f"{med[n] / med['impact']:.2f} | {statistics.median(rss[n]):.0f} |" for n in names]
    table = header + "\n" + "\n".join(rows)
    print(table)
    if args.append:
        command = shlex.join(["python", *sys.argv])
        text = (f"\n## {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} — sampling "
                f"({args.data.name}), commit {git_commit()}\n\n"
                f"Machine: {machine_description()}\n\n"
                f"Command: `{command}`\n\n"
                f"`sample-pairs --budget {args.budget}` and `sample-items --size {args.size}` "
                f"(both with the attributes) against `impact` on the same files without "
                f"(the ratio) and with the attributes. Medians of {args.runs} runs after "
                f"{args.warmup} warm-up round(s), the commands rotated each round, "
                f"each a fresh process; MB = peak RSS. The machine was shared with other "
                f"developers' test runs, so single runs are noisy: compare the ratios.\n\n"
                f"{table}\n")
        with args.results.open("a") as f:
            f.write(text)
        print(f"appended to {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
