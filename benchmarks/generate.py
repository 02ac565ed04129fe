"""Seeded generator of large synthetic Base/Exp clusterings, entirely in DuckDB SQL.

    python benchmarks/generate.py --items 10000000 --seed 1 --out benchmarks/data/10M
    python benchmarks/generate.py --items 10000000 --seed 1 --out DIR --scenario shatter

Writes four Parquet files into --out:

    base.parquet(item_id BIGINT, cluster_id BIGINT)
    exp.parquet(item_id BIGINT, cluster_id BIGINT)
    weights.parquet(item_id BIGINT, weight DOUBLE)
    attributes.parquet(item_id BIGINT, provenance VARCHAR, size_class VARCHAR)

How it works (nothing is looped over in Python; every row comes out of SQL):

* Base cluster sizes are drawn per candidate cluster from a discrete power law,
  P(size >= k) = k^-1.1 (about half the clusters are singletons, mean size ~7.4),
  capped at 10^5. A running sum gives each cluster its interval of item positions;
  clusters past position n are dropped and the last one is truncated.
* Items are produced by unnesting each cluster's interval, so every cluster-level
  decision (split, merge, shatter) reaches its items without any join.
  Positions are turned into scattered item ids by an odd multiplier mod 2^40
  (a bijection, so ids are unique).
* Exp equals Base except that
  - splits: a cluster of size s >= 2 is split with probability min(0.5, 0.0035 sqrt(s));
    a fraction f ~ U(0.05, 0.5) of its items goes to 1-3 new clusters;
  - merges: a cluster of size <= 1000 that is not split is, with probability
    min(0.5, 0.003 sqrt(s)), joined to the nearest preceding cluster that is not
    itself merged away.
  Together about 5% of the items move.
* shatter scenario: additionally cluster 0 has 10^5 items that Exp puts into
  singletons, and clusters 1..10^4 are Base singletons that Exp merges into one.
* Weights are lognormal, exp(N(0, 1)) by Box-Muller from two uniforms.
* Randomness: uniforms from DuckDB's hash() of a single BIGINT key that mixes the
  seed, a stream number and the position/cluster; deterministic for a given seed
  (and DuckDB version). The summary prints a checksum of the data to confirm it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb

MAX_CLUSTER = 100_000
SHATTER_SIZE = 100_000
MERGED_SINGLETONS = 10_000
BETA = 1.1  # P(size >= k) = k^-BETA
SPLIT_COEF = 0.0035
MERGE_COEF = 0.003
MERGE_MAX_SIZE = 1000


def uniform(seed: int, stream: int, key: str) -> str:
    """SQL for a uniform in (0, 1) from hash() of one BIGINT key.

    The key packs seed (bits 44+), stream (bits 40-43) and key (< 2^40) into one
    integer: single-argument hash() avoids the cross-seed correlation of
    multi-argument hash(seed, key).
    """
    base = (seed << 44) | (stream << 40)
    h = f"hash(CAST({base} AS BIGINT) + ({key}))"
    return f"((CAST({h} >> 11 AS DOUBLE) + 0.5) / 9007199254740992.0)"


def build_clusters(con: duckdb.DuckDBPyConnection, n: int, seed: int, shatter: bool) -> None:
    """Create temp table `clusters` with one row per Base cluster and its Exp fate."""
    n_special = 1 + MERGED_SINGLETONS if shatter else 0
    candidates = n_special + n // 3 + 1000
    first_regular = n_special  # never merged away: it heads the merge chain
    zipf_size = f"LEAST({MAX_CLUSTER}, FLOOR(POW({uniform(seed, 1, 'b')}, {-1.0 / BETA})))"
    size_expr = (
        f"CASE WHEN b = 0 THEN {SHATTER_SIZE} WHEN b <= {MERGED_SINGLETONS} THEN 1 "
        f"ELSE {zipf_size} END"
        if shatter
        else zipf_size
    )
    con.execute(f"""
        CREATE TEMP TABLE raw AS
        SELECT b, CAST({size_expr} AS BIGINT) AS size,
               {uniform(seed, 2, 'b')} AS u_split,
               {uniform(seed, 3, 'b')} AS u_frac,
               {uniform(seed, 4, 'b')} AS u_merge,
               {uniform(seed, 5, 'b')} AS u_parts
        FROM range({candidates}) t(b)
    """)
    con.execute(f"""
        CREATE TEMP TABLE clusters AS
        WITH placed AS (
            SELECT *,
                   CAST(SUM(size) OVER (ORDER BY b ROWS UNBOUNDED PRECEDING) - size AS BIGINT)
                       AS start
            FROM raw
        ),
        kept AS (
            SELECT b, start, LEAST(size, {n} - start) AS size, u_split, u_frac, u_merge, u_parts
            FROM placed WHERE start < {n}
        ),
        fate AS (
            SELECT b, start, size,
                   {shatter} AND b = 0 AS shattered,
                   CASE WHEN size >= 2 AND NOT ({shatter} AND b = 0)
                             AND u_split < LEAST(0.5, {SPLIT_COEF} * SQRT(size))
                        THEN GREATEST(1, CAST(FLOOR(size * (0.05 + 0.45 * u_frac)) AS BIGINT))
                        ELSE 0 END AS split_size,
                   u_merge, u_parts
            FROM kept
        ),
        merged AS (
            SELECT *,
                   CASE WHEN {shatter} AND b BETWEEN 2 AND {MERGED_SINGLETONS} THEN TRUE
                        WHEN b <= {first_regular} OR shattered OR split_size > 0
                             OR size > {MERGE_MAX_SIZE} THEN FALSE
                        ELSE u_merge < LEAST(0.5, {MERGE_COEF} * SQRT(size)) END AS merged_away
            FROM fate
        )
        SELECT b, start, size, shattered, split_size,
               LEAST(split_size, 1 + CAST(FLOOR(3 * u_parts) AS BIGINT)) AS split_parts,
               merged_away,
               MAX(CASE WHEN NOT merged_away THEN b END)
                   OVER (ORDER BY b ROWS UNBOUNDED PRECEDING) AS head
        FROM merged
    """)
    total = con.execute("SELECT SUM(size) FROM clusters").fetchone()[0]
    if total != n:
        raise RuntimeError(f"cluster sizes sum to {total}, expected {n}: raise candidates")


def item_rows(n_clusters_bound: int) -> str:
    """SQL yielding one row per item: position, rank in cluster, cluster facts, ids."""
    c = n_clusters_bound
    return f"""
        WITH items AS (
            SELECT b, size, shattered, split_size, split_parts, head,
                   UNNEST(range(start, start + size)) AS pos, start
            FROM clusters
        )
        SELECT pos, b, size,
               (pos * 1099511627 + 12345) % 1099511627776 AS item_id,
               CASE WHEN shattered THEN {5 * c} + pos
                    WHEN split_size > 0 AND pos - start >= size - split_size
                        THEN {c} + 4 * b + (pos - start - (size - split_size)) % split_parts
                    ELSE head END AS exp_cluster
        FROM items
    """


def write_files(con: duckdb.DuckDBPyConnection, out: Path, seed: int) -> None:
    c = con.execute("SELECT MAX(b) + 1 FROM clusters").fetchone()[0]
    rows = item_rows(c)
    u1, u2, u3 = uniform(seed, 6, "pos"), uniform(seed, 7, "pos"), uniform(seed, 8, "pos")
    weight = f"EXP(SQRT(-2.0 * LN({u1})) * COS(2.0 * PI() * {u2}))"
    provenance = f"""CASE WHEN {u3} < 0.50 THEN 'crawl' WHEN {u3} < 0.80 THEN 'upload'
                          WHEN {u3} < 0.95 THEN 'partner' ELSE 'synthetic' END"""
    size_class = """CASE WHEN size = 1 THEN 'singleton' WHEN size < 10 THEN 'small'
                         WHEN size < 1000 THEN 'medium' ELSE 'large' END"""
    selects = {
        "base": "item_id, CAST(b AS BIGINT) AS cluster_id",
        "exp": "item_id, CAST(exp_cluster AS BIGINT) AS cluster_id",
        "weights": f"item_id, {weight} AS weight",
        "attributes": f"item_id, {provenance} AS provenance, {size_class} AS size_class",
    }
    for name, cols in selects.items():
        path = out / f"{name}.parquet"
        con.execute(f"COPY (SELECT {cols} FROM ({rows})) TO '{path}' (FORMAT parquet)")


def summary(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    row = con.execute("""
        SELECT COUNT(*), SUM(size), MAX(size), SUM(CASE WHEN size = 1 THEN 1 ELSE 0 END),
               SUM(CASE WHEN split_size > 0 THEN 1 ELSE 0 END), SUM(split_size),
               SUM(CASE WHEN merged_away THEN 1 ELSE 0 END),
               SUM(CASE WHEN merged_away THEN size ELSE 0 END),
               SUM(CASE WHEN shattered THEN size ELSE 0 END),
               SUM(CASE WHEN merged_away THEN 0
                        WHEN shattered THEN size ELSE 1 + split_parts END),
               COUNT(DISTINCT head)
        FROM clusters
    """).fetchone()
    keys = ["base_clusters", "items", "max_cluster", "singletons", "split_clusters",
            "split_items", "merged_clusters", "merged_items", "shattered_items",
            "exp_clusters", "merge_heads"]
    return dict(zip(keys, (int(v or 0) for v in row), strict=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--scenario", choices=["realistic", "shatter"], default="realistic")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--memory-limit", default="2GB", help="DuckDB memory_limit (default 2GB)")
    ap.add_argument("--checksum", action="store_true", help="print a checksum of the files")
    args = ap.parse_args()
    shatter = args.scenario == "shatter"
    if not 0 <= args.seed < 2**19:
        ap.error("--seed must be in [0, 2^19)")
    if args.items >= 2**39:
        ap.error("--items too large")
    if shatter and args.items < 2 * (SHATTER_SIZE + MERGED_SINGLETONS):
        ap.error(f"shatter scenario needs --items >= {2 * (SHATTER_SIZE + MERGED_SINGLETONS)}")

    t0 = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    if args.memory_limit:
        con.execute(f"SET memory_limit = '{args.memory_limit}'")
    build_clusters(con, args.items, args.seed, shatter)
    write_files(con, args.out, args.seed)
    s = summary(con)
    elapsed = time.perf_counter() - t0
    moved = s["split_items"] + s["merged_items"] + max(0, s["shattered_items"] - 1)
    print(f"scenario {args.scenario}, seed {args.seed}: {s['items']:,} items, "
          f"{s['base_clusters']:,} Base clusters ({s['singletons']:,} singletons, "
          f"largest {s['max_cluster']:,}), {s['exp_clusters']:,} Exp clusters")
    print(f"moved {moved:,} items ({moved / s['items']:.2%}): {s['split_items']:,} split off "
          f"{s['split_clusters']:,} clusters, {s['merged_items']:,} in {s['merged_clusters']:,} "
          f"clusters merged into others, {s['shattered_items']:,} shattered")
    print(f"wrote {args.out}/{{base,exp,weights,attributes}}.parquet in {elapsed:.1f} s")
    if args.checksum:
        parts = []
        for name in ("base", "exp", "weights", "attributes"):
            h = con.execute(
                f"SELECT SUM(hash(COLUMNS(*)) >> 8) FROM '{args.out / name}.parquet'"
            ).fetchall()[0]
            parts.append(f"{name}={'/'.join(str(int(x) % 10**8) for x in h)}")
        print("checksum", " ".join(parts))


if __name__ == "__main__":
    main()
