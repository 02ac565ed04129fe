DROP TABLE IF EXISTS "proj"."ds"."abcde_exp_cell_metrics";

CREATE TABLE "proj"."ds"."abcde_exp_cell_metrics" AS
WITH multi_b AS (
  SELECT
    b
  FROM "proj"."ds"."abcde_exp_cells" AS cells
  GROUP BY
    b
  HAVING
    COUNT(*) > 1
), multi_e AS (
  SELECT
    e
  FROM "proj"."ds"."abcde_exp_cells" AS cells
  GROUP BY
    e
  HAVING
    COUNT(*) > 1
), split_side AS (
  SELECT
    c.b,
    c.e,
    SUM(c.n) OVER (PARTITION BY c.b) AS n_b,
    COALESCE(
      SUM(c.w) OVER (PARTITION BY c.b ORDER BY c.e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
      CAST(0 AS DOUBLE PRECISION)
    ) + COALESCE(
      SUM(c.w) OVER (
        PARTITION BY c.b
        ORDER BY c.e DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ),
      CAST(0 AS DOUBLE PRECISION)
    ) AS split_w
  FROM "proj"."ds"."abcde_exp_cells" AS c
  JOIN multi_b AS m
    ON c.b = m.b
), merge_side AS (
  SELECT
    c.b,
    c.e,
    SUM(c.n) OVER (PARTITION BY c.e) AS n_e,
    COALESCE(
      SUM(c.w) OVER (PARTITION BY c.e ORDER BY c.b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
      CAST(0 AS DOUBLE PRECISION)
    ) + COALESCE(
      SUM(c.w) OVER (
        PARTITION BY c.e
        ORDER BY c.b DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ),
      CAST(0 AS DOUBLE PRECISION)
    ) AS merge_w
  FROM "proj"."ds"."abcde_exp_cells" AS c
  JOIN multi_e AS m
    ON c.e = m.e
), sided AS (
  SELECT
    c.b,
    c.e,
    c.n,
    c.w,
    c.w2,
    COALESCE(s.n_b, c.n) AS n_b,
    COALESCE(m.n_e, c.n) AS n_e,
    COALESCE(s.split_w, CAST(0 AS DOUBLE PRECISION)) AS split_w,
    COALESCE(m.merge_w, CAST(0 AS DOUBLE PRECISION)) AS merge_w
  FROM "proj"."ds"."abcde_exp_cells" AS c
  LEFT JOIN split_side AS s
    ON c.b = s.b AND c.e = s.e
  LEFT JOIN merge_side AS m
    ON c.b = m.b AND c.e = m.e
)
SELECT
  b,
  e,
  n,
  w,
  w2,
  n_b,
  n_e,
  w + split_w AS w_b,
  w + merge_w AS w_e,
  w + split_w + merge_w AS u,
  split_w,
  merge_w,
  (
    n < n_b OR n < n_e
  ) AS affected,
  CAST(split_w AS DOUBLE PRECISION) / NULLIF(CAST(w + split_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_rate,
  CAST(merge_w AS DOUBLE PRECISION) / NULLIF(CAST(w + merge_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_rate,
  CAST(split_w + merge_w AS DOUBLE PRECISION) / NULLIF(CAST(w + split_w + merge_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_distance,
  CAST(split_w AS DOUBLE PRECISION) / NULLIF(CAST(w + split_w + merge_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_distance,
  CAST(merge_w AS DOUBLE PRECISION) / NULLIF(CAST(w + split_w + merge_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_distance,
  CAST(w AS DOUBLE PRECISION) / NULLIF(CAST(w + split_w + merge_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_index
FROM sided;
