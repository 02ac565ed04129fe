DROP TABLE IF EXISTS "proj"."ds"."abcde_exp_cells_key";

CREATE TABLE "proj"."ds"."abcde_exp_cells_key" AS
WITH base_in AS (
  SELECT
    CAST("item_id" AS TEXT) AS item_id,
    CAST("cluster_id" AS TEXT) AS cluster_id,
    1 AS in_input
  FROM "proj"."ds"."truth"
), exp_in AS (
  SELECT
    CAST("item_id" AS TEXT) AS item_id,
    CAST("cluster_id" AS TEXT) AS cluster_id,
    1 AS in_input
  FROM "proj"."ds"."exp"
), weights_in AS (
  SELECT
    CAST("item_id" AS TEXT) AS item_id,
    CAST("weight" AS DOUBLE PRECISION) AS weight,
    1 AS in_input
  FROM "proj"."ds"."weights"
), attributes_in AS (
  SELECT
    CAST("item_id" AS TEXT) AS item_id,
    CASE
      WHEN CAST(PG_TYPEOF("provenance") AS TEXT) IN ('double precision', 'real', 'numeric')
      THEN REGEXP_REPLACE(
        CASE
          WHEN CAST(CASE
            WHEN CAST(PG_TYPEOF("provenance") AS TEXT) = 'real'
            THEN CAST(CAST(CAST("provenance" AS TEXT) AS REAL) AS DOUBLE PRECISION)
            ELSE CAST(CAST("provenance" AS TEXT) AS DOUBLE PRECISION)
          END AS TEXT) LIKE '%e+15'
          THEN CAST(CAST(CAST(CASE
            WHEN CAST(PG_TYPEOF("provenance") AS TEXT) = 'real'
            THEN CAST(CAST(CAST("provenance" AS TEXT) AS REAL) AS DOUBLE PRECISION)
            ELSE CAST(CAST("provenance" AS TEXT) AS DOUBLE PRECISION)
          END AS TEXT) AS DECIMAL) AS TEXT)
          ELSE CAST(CASE
            WHEN CAST(PG_TYPEOF("provenance") AS TEXT) = 'real'
            THEN CAST(CAST(CAST("provenance" AS TEXT) AS REAL) AS DOUBLE PRECISION)
            ELSE CAST(CAST("provenance" AS TEXT) AS DOUBLE PRECISION)
          END AS TEXT)
        END,
        '^(-?[0-9]+)$',
        '\1.0'
      )
      ELSE CAST("provenance" AS TEXT)
    END AS s_0,
    1 AS in_input
  FROM "proj"."ds"."attributes"
), fp AS (
  SELECT
    'base' AS input,
    COUNT(*) AS input_rows,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CAST('x' || LPAD(
              SUBSTRING(MD5(
                CAST('cells_key' AS VARCHAR) || ':' || CAST(COALESCE(CAST(item_id AS TEXT), '~') AS VARCHAR) || ':' || CAST(COALESCE(CAST(cluster_id AS TEXT), '~') AS VARCHAR)
              ) FROM 1 FOR 13),
              16,
              '0'
            ) AS BIT(64)) AS BIGINT)
          ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
        ) * CAST(2147483648 AS DOUBLE PRECISION)
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
            CAST(CAST('x' || LPAD(
              SUBSTRING(MD5(
                CAST('cells_key' AS VARCHAR) || ':' || CAST(COALESCE(CAST(item_id AS TEXT), '~') AS VARCHAR) || ':' || CAST(COALESCE(CAST(cluster_id AS TEXT), '~') AS VARCHAR)
              ) FROM 1 FOR 13),
              16,
              '0'
            ) AS BIT(64)) AS BIGINT)
          ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
        ) * CAST(2147483648 AS DOUBLE PRECISION)
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
            CAST(CAST('x' || LPAD(
              SUBSTRING(MD5(
                CAST('cells_key' AS VARCHAR) || ':' || CAST(COALESCE(CAST(item_id AS TEXT), '~') AS VARCHAR) || ':' || CAST(COALESCE(CAST(weight AS TEXT), '~') AS VARCHAR)
              ) FROM 1 FOR 13),
              16,
              '0'
            ) AS BIT(64)) AS BIGINT)
          ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
        ) * CAST(2147483648 AS DOUBLE PRECISION)
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
            CAST(CAST('x' || LPAD(
              SUBSTRING(MD5(
                CAST('cells_key' AS VARCHAR) || ':' || CAST(COALESCE(CAST(item_id AS TEXT), '~') AS VARCHAR)
              ) FROM 1 FOR 13),
              16,
              '0'
            ) AS BIT(64)) AS BIGINT)
          ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
        ) * CAST(2147483648 AS DOUBLE PRECISION)
      ) AS BIGINT)
    ) AS row_hash,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CAST('x' || LPAD(
              SUBSTRING(MD5(
                CAST('cells_key' AS VARCHAR) || ':' || CAST(COALESCE(CAST(item_id AS TEXT), '~') AS VARCHAR) || ':' || CAST(COALESCE(CAST(s_0 AS TEXT), '~') AS VARCHAR)
              ) FROM 1 FOR 13),
              16,
              '0'
            ) AS BIT(64)) AS BIGINT)
          ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
        ) * CAST(2147483648 AS DOUBLE PRECISION)
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
