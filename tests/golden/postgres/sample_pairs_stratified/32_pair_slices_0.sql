DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_slices_0";

CREATE TABLE "proj"."ds"."abcde_pair_slices_0" AS
WITH slice_cells_0 AS (
  SELECT
    b,
    e,
    s_0,
    SUM(item_rows) AS n,
    SUM(w) AS w,
    SUM(w2) AS w2
  FROM "proj"."ds"."abcde_cell_rows" AS cell_rows
  WHERE
    common
  GROUP BY
    b,
    e,
    s_0
), total AS (
  SELECT
    SUM(w) AS total_w
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
), joined AS (
  SELECT
    s.s_0,
    s.w,
    CAST(s.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS share,
    CAST(s.w2 AS DOUBLE PRECISION) / NULLIF(CAST(s.w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS mean_w,
    m.w AS w_c,
    m.w_b,
    m.w_e,
    m.split_w,
    m.merge_w
  FROM slice_cells_0 AS s
  JOIN "proj"."ds"."abcde_cell_metrics" AS m
    ON s.b = m.b AND s.e = m.e
  CROSS JOIN total AS t
), parts AS (
  SELECT
    s_0,
    w,
    share * (
      CAST(split_w AS DOUBLE PRECISION) / NULLIF(CAST(w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
    ) AS split,
    share * (
      CAST(merge_w AS DOUBLE PRECISION) / NULLIF(CAST(w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
    ) AS merge,
    share * (
      CAST(CASE WHEN w_c > mean_w THEN w_c - mean_w ELSE CAST(0 AS DOUBLE PRECISION) END AS DOUBLE PRECISION) / NULLIF(CAST(w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
    ) * (
      CAST(ABS(split_w - merge_w) AS DOUBLE PRECISION) / NULLIF(CAST(w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
    ) AS stable,
    share * (
      CAST(mean_w AS DOUBLE PRECISION) / NULLIF(CAST(w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
    ) * (
      CAST(split_w - merge_w AS DOUBLE PRECISION) / NULLIF(CAST(w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
    ) AS self_part,
    split_w - merge_w AS sign
  FROM joined
)
SELECT
  s_0 AS "provenance",
  SUM(w) AS weight,
  SUM(split) AS split,
  SUM(merge) AS merge,
  SUM(CASE WHEN sign > 0 THEN stable ELSE CAST(0 AS DOUBLE PRECISION) END) AS stable_plus,
  SUM(CASE WHEN sign < 0 THEN stable ELSE CAST(0 AS DOUBLE PRECISION) END) AS stable_minus,
  SUM(self_part) AS self_delta_precision,
  SUM(split + merge + stable + ABS(self_part)) AS pairweight
FROM parts
GROUP BY
  s_0;
