DROP TABLE IF EXISTS `proj`.`ds`.`abcde_exp_actual_clusters`;

CREATE TABLE `proj`.`ds`.`abcde_exp_actual_clusters` AS
WITH pw_total AS (
  SELECT
    SUM(w) AS total_w
  FROM `proj`.`ds`.`abcde_exp_cell_metrics` AS cell_metrics
), pointwise_cells AS (
  SELECT
    c.b,
    c.e,
    c.n,
    c.w,
    c.n_b,
    c.n_e,
    c.w_b,
    c.w_e,
    CAST(c.w AS FLOAT64) / NULLIF(CAST(c.w_e AS FLOAT64), CAST(0 AS FLOAT64)) AS precision,
    CAST(c.w AS FLOAT64) / NULLIF(CAST(c.w_b AS FLOAT64), CAST(0 AS FLOAT64)) AS recall,
    CAST(2 * c.w AS FLOAT64) / NULLIF(CAST(c.w_b + c.w_e AS FLOAT64), CAST(0 AS FLOAT64)) AS f1,
    CAST(t.total_w - c.split_w - c.merge_w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64)) AS accuracy,
    c.jaccard_distance,
    c.jaccard_index
  FROM `proj`.`ds`.`abcde_exp_cell_metrics` AS c
  CROSS JOIN pw_total AS t
), pc_total AS (
  SELECT
    SUM(w) AS total_w
  FROM pointwise_cells
), pc_lifted AS (
  SELECT
    c.e AS cluster_id,
    CAST(SUM(c.n) AS INT64) AS items,
    SUM(c.w) AS weight,
    COUNT(*) AS cells,
    CAST(SUM(c.w * c.precision) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS precision,
    CAST(SUM(c.w * c.recall) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS recall,
    CAST(SUM(c.w * c.f1) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS f1,
    CAST(SUM(c.w * c.accuracy) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS accuracy,
    CAST(SUM(c.w * c.jaccard_distance) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_distance,
    CAST(SUM(c.w * c.jaccard_index) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_index,
    MAX(t.total_w) AS total_w
  FROM pointwise_cells AS c
  CROSS JOIN pc_total AS t
  WHERE
    c.n < c.n_e
  GROUP BY
    c.e
  UNION ALL
  SELECT
    c.e AS cluster_id,
    CAST(c.n AS INT64) AS items,
    c.w AS weight,
    CAST(1 AS INT64) AS cells,
    CAST(c.w * c.precision AS FLOAT64) / NULLIF(CAST(c.w AS FLOAT64), CAST(0 AS FLOAT64)) AS precision,
    CAST(c.w * c.recall AS FLOAT64) / NULLIF(CAST(c.w AS FLOAT64), CAST(0 AS FLOAT64)) AS recall,
    CAST(c.w * c.f1 AS FLOAT64) / NULLIF(CAST(c.w AS FLOAT64), CAST(0 AS FLOAT64)) AS f1,
    CAST(c.w * c.accuracy AS FLOAT64) / NULLIF(CAST(c.w AS FLOAT64), CAST(0 AS FLOAT64)) AS accuracy,
    CAST(c.w * c.jaccard_distance AS FLOAT64) / NULLIF(CAST(c.w AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_distance,
    CAST(c.w * c.jaccard_index AS FLOAT64) / NULLIF(CAST(c.w AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_index,
    t.total_w
  FROM pointwise_cells AS c
  CROSS JOIN pc_total AS t
  WHERE
    c.n = c.n_e
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    cluster_id,
    items,
    weight,
    cells,
    precision,
    recall,
    f1,
    accuracy,
    jaccard_distance,
    jaccard_index,
    CAST(2 * precision * recall AS FLOAT64) / NULLIF(CAST(precision + recall AS FLOAT64), CAST(0 AS FLOAT64)) AS f1_of_overall,
    CAST(weight * (
      1 - precision
    ) AS FLOAT64) / NULLIF(CAST(total_w AS FLOAT64), CAST(0 AS FLOAT64)) AS loss
  FROM pc_lifted
) AS t
CROSS JOIN `proj`.`ds`.`abcde_exp_validation` AS v;
