DROP TABLE IF EXISTS `proj`.`ds`.`abcde_exp_overall`;

CREATE TABLE `proj`.`ds`.`abcde_exp_overall` AS
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
    CAST(c.w AS DOUBLE) / NULLIF(CAST(c.w_e AS DOUBLE), CAST(0 AS DOUBLE)) AS precision,
    CAST(c.w AS DOUBLE) / NULLIF(CAST(c.w_b AS DOUBLE), CAST(0 AS DOUBLE)) AS recall,
    CAST(2 * c.w AS DOUBLE) / NULLIF(CAST(c.w_b + c.w_e AS DOUBLE), CAST(0 AS DOUBLE)) AS f1,
    CAST(t.total_w - c.split_w - c.merge_w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE)) AS accuracy,
    c.jaccard_distance,
    c.jaccard_index
  FROM `proj`.`ds`.`abcde_exp_cell_metrics` AS c
  CROSS JOIN pw_total AS t
), po_lifted AS (
  SELECT
    SUM(n) AS items,
    SUM(w) AS weight,
    CAST(SUM(w * precision) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS precision,
    CAST(SUM(w * recall) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS recall,
    CAST(SUM(w * f1) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS f1,
    CAST(SUM(w * accuracy) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS accuracy,
    CAST(SUM(w * jaccard_distance) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_distance,
    CAST(SUM(w * jaccard_index) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_index
  FROM pointwise_cells
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    items,
    weight,
    precision,
    recall,
    f1,
    accuracy,
    jaccard_distance,
    jaccard_index,
    CAST(2 * precision * recall AS DOUBLE) / NULLIF(CAST(precision + recall AS DOUBLE), CAST(0 AS DOUBLE)) AS f1_of_overall
  FROM po_lifted
) AS t
CROSS JOIN `proj`.`ds`.`abcde_exp_validation` AS v;
