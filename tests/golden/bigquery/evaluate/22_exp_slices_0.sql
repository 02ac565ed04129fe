DROP TABLE IF EXISTS `proj`.`ds`.`abcde_exp_slices_0`;

CREATE TABLE `proj`.`ds`.`abcde_exp_slices_0` AS
WITH slice_cells_0 AS (
  SELECT
    b,
    e,
    s_0,
    SUM(item_rows) AS n,
    SUM(w) AS w,
    SUM(w2) AS w2
  FROM `proj`.`ds`.`abcde_exp_cell_rows` AS cell_rows
  WHERE
    common
  GROUP BY
    b,
    e,
    s_0
), pw_total AS (
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
), ps_lifted AS (
  SELECT
    s.s_0 AS s_0,
    CAST(SUM(s.n) AS INT64) AS items,
    SUM(s.w) AS weight,
    CAST(SUM(s.w * m.precision) AS FLOAT64) / NULLIF(CAST(SUM(s.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS precision,
    CAST(SUM(s.w * m.recall) AS FLOAT64) / NULLIF(CAST(SUM(s.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS recall,
    CAST(SUM(s.w * m.f1) AS FLOAT64) / NULLIF(CAST(SUM(s.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS f1,
    CAST(SUM(s.w * m.accuracy) AS FLOAT64) / NULLIF(CAST(SUM(s.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS accuracy,
    CAST(SUM(s.w * m.jaccard_distance) AS FLOAT64) / NULLIF(CAST(SUM(s.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_distance,
    CAST(SUM(s.w * m.jaccard_index) AS FLOAT64) / NULLIF(CAST(SUM(s.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_index
  FROM slice_cells_0 AS s
  JOIN pointwise_cells AS m
    ON s.b = m.b AND s.e = m.e
  GROUP BY
    s.s_0
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    s_0 AS `provenance`,
    items,
    weight,
    precision,
    recall,
    f1,
    accuracy,
    jaccard_distance,
    jaccard_index,
    CAST(2 * precision * recall AS FLOAT64) / NULLIF(CAST(precision + recall AS FLOAT64), CAST(0 AS FLOAT64)) AS f1_of_overall
  FROM ps_lifted
) AS t
CROSS JOIN `proj`.`ds`.`abcde_exp_validation` AS v;
