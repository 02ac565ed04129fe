DROP TABLE IF EXISTS `proj`.`ds`.`abcde_exp_cell_rows`;

CREATE TABLE `proj`.`ds`.`abcde_exp_cell_rows` AS
WITH base_in AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    CAST(`cluster_id` AS STRING) AS cluster_id,
    1 AS in_input
  FROM `proj`.`ds`.`truth`
), exp_in AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    CAST(`cluster_id` AS STRING) AS cluster_id,
    1 AS in_input
  FROM `proj`.`ds`.`exp`
), weights_in AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    CAST(`weight` AS FLOAT64) AS weight,
    1 AS in_input
  FROM `proj`.`ds`.`weights`
), attributes_in AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    CAST(`provenance` AS STRING) AS s_0,
    1 AS in_input
  FROM `proj`.`ds`.`attributes`
), items AS (
  SELECT
    COALESCE(b.item_id, e.item_id) AS item_id,
    COALESCE(b.in_input, 0) AS in_base,
    COALESCE(e.in_input, 0) AS in_exp,
    (
      NOT b.item_id IS NULL AND NOT e.item_id IS NULL
    ) AS common,
    COALESCE(b.in_input, 0) + 2 * COALESCE(e.in_input, 0) AS side,
    b.cluster_id AS base_cluster,
    e.cluster_id AS exp_cluster,
    CAST(NULL AS FLOAT64) AS base_weight,
    CAST(NULL AS FLOAT64) AS exp_weight,
    COALESCE(w.in_input, 0) AS in_weights,
    w.weight AS table_weight,
    COALESCE(w.weight, CAST(NULL AS FLOAT64)) AS w,
    COALESCE(a.in_input, 0) AS in_attributes,
    a.s_0
  FROM base_in AS b
  FULL OUTER JOIN exp_in AS e
    ON b.item_id = e.item_id
  LEFT JOIN weights_in AS w
    ON w.item_id = COALESCE(b.item_id, e.item_id)
  LEFT JOIN attributes_in AS a
    ON a.item_id = COALESCE(b.item_id, e.item_id)
)
SELECT
  side,
  side = 3 AS common,
  base_cluster AS b,
  exp_cluster AS e,
  s_0,
  CASE WHEN side <> 3 THEN item_id END AS one_side_id,
  COUNT(*) AS item_rows,
  SUM(in_weights) AS weight_rows,
  SUM(in_attributes) AS attribute_rows,
  SUM(w) AS w,
  SUM(w * w) AS w2,
  SUM(
    CASE
      WHEN in_weights = 1
      AND NOT (
        COALESCE(
          CAST(table_weight AS FLOAT64) - CAST(table_weight AS FLOAT64) = CAST(0 AS FLOAT64),
          FALSE
        )
        AND table_weight >= CAST(1e-100 AS FLOAT64)
        AND table_weight <= CAST(1e+100 AS FLOAT64)
      )
      THEN 1
      ELSE 0
    END
  ) AS bad_weight_weights_n,
  MIN(CASE WHEN common AND base_cluster IS NULL THEN item_id END) AS null_cluster_base_example,
  MIN(CASE WHEN common AND exp_cluster IS NULL THEN item_id END) AS null_cluster_exp_example,
  MIN(
    CASE
      WHEN in_weights = 1
      AND NOT (
        COALESCE(
          CAST(table_weight AS FLOAT64) - CAST(table_weight AS FLOAT64) = CAST(0 AS FLOAT64),
          FALSE
        )
        AND table_weight >= CAST(1e-100 AS FLOAT64)
        AND table_weight <= CAST(1e+100 AS FLOAT64)
      )
      THEN item_id
    END
  ) AS bad_weight_weights_example,
  MIN(CASE WHEN common AND in_weights = 0 THEN item_id END) AS missing_weight_example,
  MIN(CASE WHEN common AND in_attributes = 0 THEN item_id END) AS without_attributes_example
FROM items
GROUP BY
  side,
  base_cluster,
  exp_cluster,
  s_0,
  CASE WHEN side <> 3 THEN item_id END;
