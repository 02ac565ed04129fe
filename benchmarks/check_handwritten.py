"""Check benchmarks/handwritten.sql against a brute-force reading of docs/method.md §3.

    python benchmarks/check_handwritten.py [--items 30000] [--seeds 1 2 3]

Generates small inputs with benchmarks/generate.py, computes every metric per item
from the sets Base(i) and Exp(i) in plain Python, and compares. Not a unit test.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent


def brute_force(base: dict, exp: dict, weight: dict) -> dict[str, float]:
    items = [i for i in base if i in exp]
    members_b, members_e = defaultdict(set), defaultdict(set)
    for i in items:
        members_b[base[i]].add(i)
        members_e[exp[i]].add(i)
    memo: dict[tuple, tuple] = {}  # the sets depend only on (Base(i), Exp(i))
    acc: dict[str, float] = defaultdict(float)
    for i in items:
        key = (base[i], exp[i])
        if key not in memo:
            bi, ei = members_b[base[i]], members_e[exp[i]]
            memo[key] = (sum(weight[j] for j in bi), sum(weight[j] for j in ei),
                         sum(weight[j] for j in bi & ei), sum(weight[j] for j in bi | ei),
                         bi != ei)
        wb, we, inter, union, affected = memo[key]
        wi = weight[i]
        acc["items"] += 1
        acc["weight"] += wi
        acc["affected_items"] += affected
        acc["affected_weight"] += wi * affected
        acc["split_rate"] += wi * (wb - inter) / wb
        acc["merge_rate"] += wi * (we - inter) / we
        acc["jaccard_distance"] += wi * (union - inter) / union
        acc["split_distance"] += wi * (wb - inter) / union
        acc["merge_distance"] += wi * (we - inter) / union
        acc["jaccard_index"] += wi * inter / union
        acc["affected_jaccard_index"] += wi * inter / union * affected
        acc["unaffected_jaccard_index"] += wi * (not affected)
    totals = ("items", "weight", "affected_items", "affected_weight")
    return {k: v if k in totals else v / acc["weight"] for k, v in acc.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=30000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = ap.parse_args()
    query = (HERE / "handwritten.sql").read_text()
    failures = 0
    for seed in args.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, str(HERE / "generate.py"), "--items",
                            str(args.items), "--seed", str(seed), "--out", tmp], check=True)
            p = {n: f"{tmp}/{n}.parquet" for n in ("base", "exp", "weights")}
            con = duckdb.connect()
            base = dict(con.sql(f"FROM '{p['base']}'").fetchall())
            exp = dict(con.sql(f"FROM '{p['exp']}'").fetchall())
            weight = dict(con.sql(f"FROM '{p['weights']}'").fetchall())
            cur = con.execute(query.format(**p))
            got = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
        want = brute_force(base, exp, weight)
        for k, v in want.items():
            ok = math.isclose(got[k], v, rel_tol=1e-9, abs_tol=1e-12)
            failures += not ok
            verdict = "ok" if ok else "FAIL"
            print(f"seed {seed} {k:26s} sql {got[k]:<22.15g} brute {v:<22.15g} {verdict}")
    print("ALL OK" if not failures else f"{failures} FAILURES")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
