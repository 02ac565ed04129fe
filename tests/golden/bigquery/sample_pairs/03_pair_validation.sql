DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_validation`;

CREATE TABLE `proj`.`ds`.`abcde_pair_validation` AS
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
), attributes_in AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    CAST(`provenance` AS STRING) AS s_0,
    CAST(`size_class` AS STRING) AS s_1,
    1 AS in_input
  FROM `proj`.`ds`.`attributes`
), fp AS (
  SELECT
    'base' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONCAT(
              '0x',
              SUBSTR(
                TO_HEX(
                  MD5(
                    CONCAT(
                      CAST('cells_key' AS STRING),
                      ':',
                      CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                      ':',
                      CAST(COALESCE(CAST(cluster_id AS STRING), '~') AS STRING)
                    )
                  )
                ),
                1,
                13
              )
            ) AS INT64)
          ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
        ) * CAST(2147483648 AS FLOAT64)
      ) AS INT64)
    ) AS row_hash,
    CAST(0 AS INT64) AS value_hash
  FROM base_in
  UNION ALL
  SELECT
    'exp' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONCAT(
              '0x',
              SUBSTR(
                TO_HEX(
                  MD5(
                    CONCAT(
                      CAST('cells_key' AS STRING),
                      ':',
                      CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                      ':',
                      CAST(COALESCE(CAST(cluster_id AS STRING), '~') AS STRING)
                    )
                  )
                ),
                1,
                13
              )
            ) AS INT64)
          ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
        ) * CAST(2147483648 AS FLOAT64)
      ) AS INT64)
    ) AS row_hash,
    CAST(0 AS INT64) AS value_hash
  FROM exp_in
  UNION ALL
  SELECT
    'weights' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONCAT(
              '0x',
              SUBSTR(
                TO_HEX(
                  MD5(
                    CONCAT(
                      CAST('cells_key' AS STRING),
                      ':',
                      CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                      ':',
                      CAST(COALESCE(CAST(weight AS STRING), '~') AS STRING)
                    )
                  )
                ),
                1,
                13
              )
            ) AS INT64)
          ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
        ) * CAST(2147483648 AS FLOAT64)
      ) AS INT64)
    ) AS row_hash,
    CAST(0 AS INT64) AS value_hash
  FROM weights_in
  UNION ALL
  SELECT
    'attributes' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONCAT(
              '0x',
              SUBSTR(
                TO_HEX(
                  MD5(
                    CONCAT(
                      CAST('cells_key' AS STRING),
                      ':',
                      CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING)
                    )
                  )
                ),
                1,
                13
              )
            ) AS INT64)
          ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
        ) * CAST(2147483648 AS FLOAT64)
      ) AS INT64)
    ) AS row_hash,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONCAT(
              '0x',
              SUBSTR(
                TO_HEX(
                  MD5(
                    CONCAT(
                      CAST('cells_key' AS STRING),
                      ':',
                      CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                      ':',
                      CAST(COALESCE(CAST(s_0 AS STRING), '~') AS STRING),
                      ':',
                      CAST(COALESCE(CAST(s_1 AS STRING), '~') AS STRING)
                    )
                  )
                ),
                1,
                13
              )
            ) AS INT64)
          ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
        ) * CAST(2147483648 AS FLOAT64)
      ) AS INT64)
    ) AS value_hash
  FROM attributes_in
), cells_key_now AS (
  SELECT
    '668aeab1c2a61887' AS sql_digest,
    'base+exp+weights+attributes/31c7c565' AS shape,
    'provenance, size_class (27be33f4)' AS slice_attributes,
    SUM(CASE WHEN input = 'base' THEN input_rows ELSE 0 END) AS base_rows,
    SUM(CASE WHEN input = 'base' THEN COALESCE(row_hash, 0) ELSE 0 END) AS base_hash,
    SUM(CASE WHEN input = 'exp' THEN input_rows ELSE 0 END) AS exp_rows,
    SUM(CASE WHEN input = 'exp' THEN COALESCE(row_hash, 0) ELSE 0 END) AS exp_hash,
    SUM(CASE WHEN input = 'weights' THEN input_rows ELSE 0 END) AS weights_rows,
    SUM(CASE WHEN input = 'weights' THEN COALESCE(row_hash, 0) ELSE 0 END) AS weights_hash,
    SUM(CASE WHEN input = 'attributes' THEN input_rows ELSE 0 END) AS attributes_rows,
    SUM(CASE WHEN input = 'attributes' THEN COALESCE(row_hash, 0) ELSE 0 END) AS attributes_hash,
    SUM(CASE WHEN input = 'attributes' THEN COALESCE(value_hash, 0) ELSE 0 END) AS attributes_values_hash
  FROM fp
), stored AS (
  SELECT
    *
  FROM `proj`.`ds`.`abcde_cells_key` AS cells_key
), fresh AS (
  SELECT
    *
  FROM cells_key_now
), matched AS (
  SELECT
    CASE
      WHEN COUNT(*) = 1
      AND MIN(
        CASE
          WHEN s.sql_digest = f.sql_digest
          AND s.base_rows = f.base_rows
          AND s.base_hash = f.base_hash
          AND s.exp_rows = f.exp_rows
          AND s.exp_hash = f.exp_hash
          AND s.weights_rows = f.weights_rows
          AND s.weights_hash = f.weights_hash
          AND s.attributes_rows = f.attributes_rows
          AND s.attributes_hash = f.attributes_hash
          AND s.attributes_values_hash = f.attributes_values_hash
          THEN 1
          ELSE 0
        END
      ) = 1
      THEN 1
      ELSE 0
    END AS cells_match
  FROM stored AS s
  CROSS JOIN fresh AS f
)
SELECT
  v.items_in_both,
  v.base_rows,
  v.exp_rows,
  v.weights_rows,
  v.attributes_rows,
  v.empty_base,
  v.empty_exp,
  v.empty_weights,
  v.empty_attributes,
  v.null_item_ids,
  v.repeated_item_ids,
  v.null_cluster_base,
  v.null_cluster_exp,
  v.bad_weight_weights,
  v.missing_weight,
  v.no_common_items,
  v.null_cluster_base_example,
  v.null_cluster_exp_example,
  v.bad_weight_weights_example,
  v.missing_weight_example,
  v.repeated_ids_weights,
  v.repeated_ids_weights_example,
  v.repeated_ids_attributes,
  v.repeated_ids_attributes_example,
  v.without_attributes,
  v.unused_weights,
  v.unused_attributes,
  m.cells_match,
  v.input_problems + 1 - m.cells_match AS input_problems,
  (
    v.input_valid AND m.cells_match = 1
  ) AS input_valid
FROM `proj`.`ds`.`abcde_validation` AS v
CROSS JOIN matched AS m;
