{# Step 1 of the hierarchical pair draw (docs/method.md §6): each draw d picks a stratum (cell,
   class) ∝ its total t. pos = U·Σt falls in exactly one interval [lo, lo + t); the
   interval is found by an as-of join written as a window: strata and draws are stacked
   and ordered by position, and the running MAX(seq) on a draw row is the last stratum
   starting at or before it. Cost: one sort of strata + draws, never a cross product.
   The draw keeps its stratum's u_ij/w_ij (pairs/population.sql). #}
WITH total AS (
  SELECT SUM(t) AS total_t FROM pair_strata
),
probes AS (
  SELECT
    i.d,
    {{ uniform(seed, literal('stratum'), 'i.d') }} * t.total_t AS pos
  FROM draw_ids AS i CROSS JOIN total AS t
),
stacked AS (
  SELECT lo AS pos, 0 AS is_draw, seq, CAST(NULL AS BIGINT) AS d FROM pair_strata
  UNION ALL
  SELECT pos, 1 AS is_draw, CAST(NULL AS BIGINT) AS seq, d FROM probes
),
chosen AS (
  SELECT
    d,
    is_draw,
    MAX(seq) OVER (ORDER BY pos, is_draw ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS seq
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
JOIN pair_strata AS s ON c.seq = s.seq
WHERE c.is_draw = 1
