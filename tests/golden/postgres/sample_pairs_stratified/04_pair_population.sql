DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_population";

CREATE TABLE "proj"."ds"."abcde_pair_population" AS
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
    w2,
    w_b,
    w_e,
    u,
    split_w,
    merge_w,
    (
      CAST((
        CAST(CAST('x' || LPAD(
          SUBSTRING(MD5(
            CAST('order' AS VARCHAR) || ':' || CAST(b AS VARCHAR) || ':' || CAST(e AS VARCHAR)
          ) FROM 1 FOR 13),
          16,
          '0'
        ) AS BIT(64)) AS BIGINT)
      ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
    ) AS cell_key
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
  WHERE
    split_w > 0 OR merge_w > 0
), stable_cells AS (
  SELECT
    b,
    e,
    cell_key,
    n,
    w,
    w_b,
    w_e,
    u,
    split_w,
    merge_w,
    CASE WHEN nonself > 0 THEN nonself ELSE CAST(0 AS DOUBLE PRECISION) END AS pair_share
  FROM (
    SELECT
      b,
      e,
      cell_key,
      n,
      w,
      w_b,
      w_e,
      u,
      split_w,
      merge_w,
      CAST(1 AS DOUBLE PRECISION) - (
        CAST(CAST(w2 AS DOUBLE PRECISION) / NULLIF(CAST(w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS DOUBLE PRECISION) / NULLIF(CAST(w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
      ) AS nonself
    FROM pair_cells
    WHERE
      n > 1
  ) AS m
)
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
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(m.split_w AS DOUBLE PRECISION) / NULLIF(CAST(m.w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) AS t_u,
  (
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(m.split_w AS DOUBLE PRECISION) / NULLIF(CAST(m.u AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) AS t_w,
  CAST(-1 AS DOUBLE PRECISION) AS label,
  CAST(m.u AS DOUBLE PRECISION) / NULLIF(CAST(m.w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS u_over_w,
  CAST(m.n AS DOUBLE PRECISION) * CAST(m.n_b - m.n AS DOUBLE PRECISION) AS ordered_pairs
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
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(m.merge_w AS DOUBLE PRECISION) / NULLIF(CAST(m.w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) AS t_u,
  (
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(m.merge_w AS DOUBLE PRECISION) / NULLIF(CAST(m.u AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) AS t_w,
  CAST(1 AS DOUBLE PRECISION) AS label,
  CAST(m.u AS DOUBLE PRECISION) / NULLIF(CAST(m.w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS u_over_w,
  CAST(m.n AS DOUBLE PRECISION) * CAST(m.n_e - m.n AS DOUBLE PRECISION) AS ordered_pairs
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
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(m.w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(ABS(m.split_w - m.merge_w) AS DOUBLE PRECISION) / NULLIF(CAST(m.w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * m.pair_share AS t_u,
  (
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(m.u AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * m.pair_share AS t_w,
  CASE
    WHEN m.split_w > m.merge_w
    THEN CAST(1 AS DOUBLE PRECISION)
    WHEN m.split_w < m.merge_w
    THEN CAST(-1 AS DOUBLE PRECISION)
    ELSE CAST(0 AS DOUBLE PRECISION)
  END AS label,
  (
    CAST(m.u AS DOUBLE PRECISION) / NULLIF(CAST(m.w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) * (
    CAST(ABS(m.split_w - m.merge_w) AS DOUBLE PRECISION) / NULLIF(CAST(m.w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
  ) AS u_over_w,
  CAST(m.n AS DOUBLE PRECISION) * CAST(m.n - 1 AS DOUBLE PRECISION) AS ordered_pairs
FROM stable_cells AS m
CROSS JOIN total AS t
WHERE
  m.pair_share > 0;
