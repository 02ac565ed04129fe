DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_cell_items`;

CREATE TABLE `proj`.`ds`.`abcde_pair_cell_items` AS
WITH base_in AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    CAST(`cluster_id` AS STRING) AS cluster_id,
    1 AS in_input
  FROM `proj`.`ds`.`base`
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
), pair_needed_cells AS (
  SELECT
    b,
    e
  FROM `proj`.`ds`.`abcde_pair_draw_cells` AS pair_draw_cells
  UNION DISTINCT
  SELECT
    partner_b AS b,
    partner_e AS e
  FROM `proj`.`ds`.`abcde_pair_draw_cells` AS pair_draw_cells
), pair_items AS (
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
    COALESCE(w.weight, CAST('NaN' AS FLOAT64)) AS w,
    0 AS in_attributes
  FROM (
    SELECT
      *
    FROM base_in
    WHERE
      cluster_id IN (
        SELECT
          b
        FROM pair_needed_cells
      )
  ) AS b
  JOIN (
    SELECT
      *
    FROM exp_in
    WHERE
      cluster_id IN (
        SELECT
          e
        FROM pair_needed_cells
      )
  ) AS e
    ON b.item_id = e.item_id
  LEFT JOIN weights_in AS w
    ON w.item_id = COALESCE(b.item_id, e.item_id)
), keyed AS (
  SELECT
    i.item_id,
    i.base_cluster AS b,
    i.exp_cluster AS e,
    i.w,
    (
      CAST((
        CAST(CONCAT(
          '0x',
          SUBSTR(TO_HEX(MD5(CONCAT(CAST('order' AS STRING), ':', CAST(i.item_id AS STRING)))), 1, 13)
        ) AS INT64)
      ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
    ) AS item_key
  FROM pair_items AS i
  JOIN pair_needed_cells AS n
    ON i.base_cluster = n.b AND i.exp_cluster = n.e
), laid AS (
  SELECT
    item_id,
    b,
    e,
    w,
    item_key,
    SUM(w) OVER (
      PARTITION BY b, e
      ORDER BY item_key, item_id
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - w AS lo,
    ROW_NUMBER() OVER (PARTITION BY b, e ORDER BY item_key NULLS LAST, item_id NULLS LAST) AS seq,
    COUNT(*) OVER (PARTITION BY b, e) AS items,
    COALESCE(
      SUM(w) OVER (
        PARTITION BY b, e
        ORDER BY item_key, item_id
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ),
      CAST(0 AS FLOAT64)
    ) + COALESCE(
      SUM(w) OVER (
        PARTITION BY b, e
        ORDER BY item_key, item_id
        ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING
      ),
      CAST(0 AS FLOAT64)
    ) AS others
  FROM keyed
)
SELECT
  item_id,
  b,
  e,
  w,
  lo,
  seq,
  items,
  others,
  w * others AS v,
  SUM(w * others) OVER (
    PARTITION BY b, e
    ORDER BY item_key, item_id
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  ) - w * others AS lo_v,
  SUM(w * others) OVER (PARTITION BY b, e) AS v_total,
  CAST(FLOOR(CAST(seq - 1 AS FLOAT64) / CAST(32 AS FLOAT64)) AS INT64) AS blk
FROM laid;
