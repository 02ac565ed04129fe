DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_strata";

CREATE TABLE "proj"."ds"."abcde_pair_strata" AS
WITH sums AS (
  SELECT
    SUM(t_u) AS sum_u,
    SUM(t_w) AS sum_w
  FROM "proj"."ds"."abcde_pair_population" AS pair_population
), mixed AS (
  SELECT
    p.b,
    p.e,
    p.cell_key,
    p.pair_class,
    p.w,
    p.w_b,
    p.w_e,
    p.u,
    p.split_w,
    p.merge_w,
    p.t_u,
    p.t_w,
    p.label,
    p.u_over_w,
    p.ordered_pairs,
    CAST(p.t_u AS DOUBLE) / NULLIF(CAST(s.sum_u AS DOUBLE), CAST(0 AS DOUBLE)) AS p_u,
    CAST(p.t_w AS DOUBLE) / NULLIF(CAST(s.sum_w AS DOUBLE), CAST(0 AS DOUBLE)) AS p_w,
    CAST(0.5 AS DOUBLE) * (
      CAST(p.t_u AS DOUBLE) / NULLIF(CAST(s.sum_u AS DOUBLE), CAST(0 AS DOUBLE))
    ) + (
      1 - CAST(0.5 AS DOUBLE)
    ) * (
      CAST(p.t_w AS DOUBLE) / NULLIF(CAST(s.sum_w AS DOUBLE), CAST(0 AS DOUBLE))
    ) AS t
  FROM "proj"."ds"."abcde_pair_population" AS p
  CROSS JOIN sums AS s
), design AS (
  SELECT
    b,
    e,
    cell_key,
    pair_class,
    w,
    w_b,
    w_e,
    u,
    split_w,
    merge_w,
    t_u,
    t_w,
    label,
    u_over_w,
    ordered_pairs,
    t,
    CAST(FLOOR(cell_key * CAST(256 AS DOUBLE)) AS BIGINT) AS bucket
  FROM mixed
  WHERE
    t > 0
), bucket_totals AS (
  SELECT
    bucket,
    SUM(t) AS bucket_t
  FROM design
  GROUP BY
    bucket
), bucket_offsets AS (
  SELECT
    bucket,
    SUM(bucket_t) OVER (ORDER BY bucket ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - bucket_t AS bucket_lo
  FROM bucket_totals
)
SELECT
  d.b,
  d.e,
  d.pair_class,
  d.w,
  d.w_b,
  d.w_e,
  d.u,
  d.split_w,
  d.merge_w,
  d.t_u,
  d.t_w,
  d.t,
  d.label,
  d.u_over_w,
  d.ordered_pairs,
  d.bucket,
  o.bucket_lo,
  o.bucket_lo + (
    SUM(d.t) OVER (
      PARTITION BY d.bucket
      ORDER BY d.cell_key, d.b, d.e, d.pair_class
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - d.t
  ) AS lo,
  ROW_NUMBER() OVER (PARTITION BY d.bucket ORDER BY d.cell_key, d.b, d.e, d.pair_class) AS seq
FROM design AS d
JOIN bucket_offsets AS o
  ON d.bucket = o.bucket;
