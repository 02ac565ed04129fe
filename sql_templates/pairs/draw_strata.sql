{# Step 1 of the hierarchical pair draw (docs/method.md §6): each draw d picks a stratum (cell,
   class) ∝ its total t. pos = U·Σt falls in exactly one interval [lo, lo + t)
   (pairs/strata.sql); the interval is found by as-of joins written as windows: rows
   and draws stacked and ordered by position, and the running MAX on a draw row is the
   last row starting at or before it. In two levels, so that no window runs over all
   strata in one partition: first the bucket (over the buckets' offsets and the draws,
   O(buckets + draws) rows), then, partitioned by bucket, the stratum within it (each
   bucket's first stratum starts exactly at the bucket's offset, so every draw finds
   one). Cost: sorts of strata and draws per bucket, never a cross product. The draw
   keeps its stratum's u_ij/w_ij (pairs/population.sql). #}
WITH total AS (
  SELECT SUM(t) AS total_t FROM pair_strata
),
probes AS (
  SELECT
    i.d,
    {{ uniform(seed, literal('stratum'), 'i.d') }} * t.total_t AS pos
  FROM draw_ids AS i CROSS JOIN total AS t
),
buckets AS (
  SELECT bucket, MIN(bucket_lo) AS pos FROM pair_strata GROUP BY bucket
),
bucket_stacked AS (
  SELECT pos, 0 AS is_draw, bucket, CAST(NULL AS BIGINT) AS d FROM buckets
  UNION ALL
  SELECT pos, 1 AS is_draw, CAST(NULL AS BIGINT) AS bucket, d FROM probes
),
bucket_chosen AS (
  SELECT
    d,
    pos,
    is_draw,
    MAX(bucket) OVER (ORDER BY pos, is_draw ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS bucket
  FROM bucket_stacked
),
stacked AS (
  SELECT bucket, lo AS pos, 0 AS is_draw, seq, CAST(NULL AS BIGINT) AS d FROM pair_strata
  UNION ALL
  SELECT bucket, pos, 1 AS is_draw, CAST(NULL AS BIGINT) AS seq, d FROM bucket_chosen WHERE is_draw = 1
),
chosen AS (
  SELECT
    d,
    bucket,
    is_draw,
    MAX(seq) OVER (PARTITION BY bucket ORDER BY pos, is_draw ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS seq
  FROM stacked
)
SELECT
  c.d,
  s.b,
  s.e,
  s.pair_class,
  s.label,
  s.w,
  s.split_w,
  s.merge_w,
  s.u_over_w
FROM chosen AS c
JOIN pair_strata AS s ON c.bucket = s.bucket AND c.seq = s.seq
WHERE c.is_draw = 1
