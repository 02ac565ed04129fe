DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_strata";

CREATE TABLE "proj"."ds"."abcde_pair_strata" AS
WITH total AS (
  SELECT
    SUM(w) AS total_w
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
), pair_cells AS (
  SELECT
    b,
    e,
    n,
    n_b,
    n_e,
    w,
    w_b,
    w_e,
    u,
    split_w,
    merge_w,
    affected,
    (
      CAST((
        CAST('0x' || SUBSTRING(
          MD5(CAST('order' AS TEXT) || ':' || CAST(b AS TEXT) || ':' || CAST(e AS TEXT)),
          1,
          13
        ) AS BIGINT)
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) AS cell_key
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
  WHERE
    split_w > 0 OR merge_w > 0
), strata AS (
  SELECT
    m.b,
    m.e,
    m.cell_key,
    'split' AS pair_class,
    m.w,
    m.w_b,
    m.w_e,
    m.u,
    m.split_w,
    m.merge_w,
    (
      CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
    ) * (
      CAST(m.split_w AS DOUBLE) / NULLIF(CAST(m.u AS DOUBLE), CAST(0 AS DOUBLE))
    ) AS t,
    -(
      CAST(m.u AS DOUBLE) / NULLIF(CAST(m.w_b AS DOUBLE), CAST(0 AS DOUBLE))
    ) AS label,
    CAST(m.n AS DOUBLE) * CAST(m.n_b - m.n AS DOUBLE) AS ordered_pairs
  FROM pair_cells AS m
  CROSS JOIN total AS t
  WHERE
    m.split_w > 0
  UNION ALL
  SELECT
    m.b,
    m.e,
    m.cell_key,
    'merge' AS pair_class,
    m.w,
    m.w_b,
    m.w_e,
    m.u,
    m.split_w,
    m.merge_w,
    (
      CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
    ) * (
      CAST(m.merge_w AS DOUBLE) / NULLIF(CAST(m.u AS DOUBLE), CAST(0 AS DOUBLE))
    ) AS t,
    CAST(m.u AS DOUBLE) / NULLIF(CAST(m.w_e AS DOUBLE), CAST(0 AS DOUBLE)) AS label,
    CAST(m.n AS DOUBLE) * CAST(m.n_e - m.n AS DOUBLE) AS ordered_pairs
  FROM pair_cells AS m
  CROSS JOIN total AS t
  WHERE
    m.merge_w > 0
  UNION ALL
  SELECT
    m.b,
    m.e,
    m.cell_key,
    'stable' AS pair_class,
    m.w,
    m.w_b,
    m.w_e,
    m.u,
    m.split_w,
    m.merge_w,
    (
      CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
    ) * (
      CAST(m.w AS DOUBLE) / NULLIF(CAST(m.u AS DOUBLE), CAST(0 AS DOUBLE))
    ) AS t,
    (
      CAST(m.u AS DOUBLE) / NULLIF(CAST(m.w_e AS DOUBLE), CAST(0 AS DOUBLE))
    ) - (
      CAST(m.u AS DOUBLE) / NULLIF(CAST(m.w_b AS DOUBLE), CAST(0 AS DOUBLE))
    ) AS label,
    CAST(m.n AS DOUBLE) * CAST(m.n - 1 AS DOUBLE) AS ordered_pairs
  FROM pair_cells AS m
  CROSS JOIN total AS t
  WHERE
    m.affected
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
  t,
  label,
  ordered_pairs,
  SUM(t) OVER (
    ORDER BY cell_key, b, e, pair_class
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  ) - t AS lo,
  ROW_NUMBER() OVER (ORDER BY cell_key, b, e, pair_class) AS seq
FROM strata
WHERE
  t > 0;
