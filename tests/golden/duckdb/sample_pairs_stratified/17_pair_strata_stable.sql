DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_strata_stable";

CREATE TABLE "proj"."ds"."abcde_pair_strata_stable" AS
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
    t
  FROM mixed
  WHERE
    t > 0 AND pair_class IN ('stable')
)
SELECT
  b,
  e,
  pair_class,
  w,
  w_b,
  w_e,
  u,
  split_w,
  merge_w,
  t_u,
  t_w,
  t,
  label,
  u_over_w,
  ordered_pairs,
  SUM(t) OVER (
    ORDER BY cell_key, b, e, pair_class
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  ) - t AS lo,
  ROW_NUMBER() OVER (ORDER BY cell_key, b, e, pair_class) AS seq
FROM design;
