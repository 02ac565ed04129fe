DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_totals";

CREATE TABLE "proj"."ds"."abcde_pair_totals" AS
WITH sums AS (
  SELECT
    SUM(t_u) AS sum_u,
    SUM(t_w) AS sum_w
  FROM "proj"."ds"."abcde_pair_population" AS pair_population
), keyed AS (
  SELECT
    CASE
      WHEN p.pair_class <> 'stable'
      THEN p.pair_class
      WHEN p.label > 0
      THEN 'stable_plus'
      WHEN p.label < 0
      THEN 'stable_minus'
      ELSE 'stable_zero'
    END AS class_key,
    p.t_u,
    p.t_w,
    p.ordered_pairs,
    s.t,
    CAST(p.t_u AS DOUBLE) / NULLIF(CAST(x.sum_u AS DOUBLE), CAST(0 AS DOUBLE)) AS p_u,
    CAST(p.t_w AS DOUBLE) / NULLIF(CAST(x.sum_w AS DOUBLE), CAST(0 AS DOUBLE)) AS p_w
  FROM "proj"."ds"."abcde_pair_population" AS p
  CROSS JOIN sums AS x
  LEFT JOIN "proj"."ds"."abcde_pair_strata" AS s
    ON p.b = s.b AND p.e = s.e AND p.pair_class = s.pair_class
)
SELECT
  class_key,
  SUM(t_u) AS u,
  SUM(t_w) AS w,
  COALESCE(SUM(t), CAST(0 AS DOUBLE)) AS q,
  COALESCE(
    SUM(
      CASE
        WHEN t > 0
        THEN p_u * (
          CAST(p_u AS DOUBLE) / NULLIF(CAST(t AS DOUBLE), CAST(0 AS DOUBLE))
        )
      END
    ),
    CAST(0 AS DOUBLE)
  ) AS u_square,
  COALESCE(
    SUM(
      CASE
        WHEN t > 0
        THEN p_w * (
          CAST(p_w AS DOUBLE) / NULLIF(CAST(t AS DOUBLE), CAST(0 AS DOUBLE))
        )
      END
    ),
    CAST(0 AS DOUBLE)
  ) AS w_square,
  COALESCE(SUM(CASE WHEN t IS NULL THEN t_u END), CAST(0 AS DOUBLE)) AS u_uncovered,
  COALESCE(SUM(CASE WHEN t IS NULL THEN t_w END), CAST(0 AS DOUBLE)) AS w_uncovered,
  COALESCE(SUM(CASE WHEN t > 0 THEN ordered_pairs END), CAST(0 AS DOUBLE)) * CAST(0.5 AS DOUBLE) AS judgeable,
  COUNT(*) AS strata
FROM keyed
GROUP BY
  class_key;
