DROP TABLE IF EXISTS `proj`.`ds`.`abcde_exp_cells_key`;

CREATE TABLE `proj`.`ds`.`abcde_exp_cells_key` AS
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
    CAST(`weight` AS DOUBLE) AS weight,
    1 AS in_input
  FROM `proj`.`ds`.`weights`
), attributes_in AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    CAST(`provenance` AS STRING) AS s_0,
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
            CAST(CONV(
              SUBSTRING(
                MD5(
                  CONCAT(
                    CAST('cells_key' AS STRING),
                    ':',
                    CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                    ':',
                    CAST(COALESCE(CAST(cluster_id AS STRING), '~') AS STRING)
                  )
                ),
                1,
                13
              ),
              16,
              10
            ) AS BIGINT)
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS row_hash,
    CAST(0 AS BIGINT) AS value_hash
  FROM base_in
  UNION ALL
  SELECT
    'exp' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONV(
              SUBSTRING(
                MD5(
                  CONCAT(
                    CAST('cells_key' AS STRING),
                    ':',
                    CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                    ':',
                    CAST(COALESCE(CAST(cluster_id AS STRING), '~') AS STRING)
                  )
                ),
                1,
                13
              ),
              16,
              10
            ) AS BIGINT)
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS row_hash,
    CAST(0 AS BIGINT) AS value_hash
  FROM exp_in
  UNION ALL
  SELECT
    'weights' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONV(
              SUBSTRING(
                MD5(
                  CONCAT(
                    CAST('cells_key' AS STRING),
                    ':',
                    CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                    ':',
                    CAST(COALESCE(CAST(weight AS STRING), '~') AS STRING)
                  )
                ),
                1,
                13
              ),
              16,
              10
            ) AS BIGINT)
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS row_hash,
    CAST(0 AS BIGINT) AS value_hash
  FROM weights_in
  UNION ALL
  SELECT
    'attributes' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONV(
              SUBSTRING(
                MD5(
                  CONCAT(
                    CAST('cells_key' AS STRING),
                    ':',
                    CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING)
                  )
                ),
                1,
                13
              ),
              16,
              10
            ) AS BIGINT)
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS row_hash,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONV(
              SUBSTRING(
                MD5(
                  CONCAT(
                    CAST('cells_key' AS STRING),
                    ':',
                    CAST(COALESCE(CAST(item_id AS STRING), '~') AS STRING),
                    ':',
                    CAST(COALESCE(CAST(s_0 AS STRING), '~') AS STRING)
                  )
                ),
                1,
                13
              ),
              16,
              10
            ) AS BIGINT)
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS value_hash
  FROM attributes_in
)
SELECT
  '1e515a2046256e13' AS sql_digest,
  'base+exp+weights+attributes/31c7c565' AS shape,
  'provenance (db1842ae)' AS slice_attributes,
  SUM(CASE WHEN input = 'base' THEN input_rows ELSE 0 END) AS base_rows,
  SUM(CASE WHEN input = 'base' THEN COALESCE(row_hash, 0) ELSE 0 END) AS base_hash,
  SUM(CASE WHEN input = 'exp' THEN input_rows ELSE 0 END) AS exp_rows,
  SUM(CASE WHEN input = 'exp' THEN COALESCE(row_hash, 0) ELSE 0 END) AS exp_hash,
  SUM(CASE WHEN input = 'weights' THEN input_rows ELSE 0 END) AS weights_rows,
  SUM(CASE WHEN input = 'weights' THEN COALESCE(row_hash, 0) ELSE 0 END) AS weights_hash,
  SUM(CASE WHEN input = 'attributes' THEN input_rows ELSE 0 END) AS attributes_rows,
  SUM(CASE WHEN input = 'attributes' THEN COALESCE(row_hash, 0) ELSE 0 END) AS attributes_hash,
  SUM(CASE WHEN input = 'attributes' THEN COALESCE(value_hash, 0) ELSE 0 END) AS attributes_values_hash
FROM fp;
