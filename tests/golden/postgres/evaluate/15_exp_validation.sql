DROP TABLE IF EXISTS "proj"."ds"."abcde_exp_validation";

CREATE TABLE "proj"."ds"."abcde_exp_validation" AS
WITH repeated AS (
  SELECT
    one_side_id
  FROM "proj"."ds"."abcde_exp_cell_rows" AS cell_rows
  WHERE
    NOT common AND NOT one_side_id IS NULL
  GROUP BY
    one_side_id
  HAVING
    SUM(item_rows) > 1
), validation_counts AS (
  SELECT
    SUM(CASE WHEN side <> 2 THEN item_rows ELSE 0 END) AS joined_base_rows,
    SUM(CASE WHEN side <> 1 THEN item_rows ELSE 0 END) AS joined_exp_rows,
    SUM(weight_rows) AS matched_weight_rows,
    SUM(attribute_rows) AS matched_attribute_rows,
    SUM(CASE WHEN common THEN item_rows ELSE 0 END) AS common_rows,
    SUM(CASE WHEN side = 1 AND one_side_id IS NULL THEN item_rows ELSE 0 END) AS null_item_base,
    SUM(CASE WHEN side = 2 AND one_side_id IS NULL THEN item_rows ELSE 0 END) AS null_item_exp,
    (
      SELECT
        COUNT(*)
      FROM repeated
    ) AS repeated_one_side,
    SUM(CASE WHEN common AND b IS NULL THEN item_rows ELSE 0 END) AS null_cluster_base,
    SUM(CASE WHEN common AND e IS NULL THEN item_rows ELSE 0 END) AS null_cluster_exp,
    SUM(CASE WHEN common THEN item_rows - weight_rows ELSE 0 END) AS missing_weight,
    SUM(CASE WHEN common THEN item_rows - attribute_rows ELSE 0 END) AS without_attributes,
    SUM(bad_weight_weights_n) AS bad_weight_weights
  FROM "proj"."ds"."abcde_exp_cell_rows" AS cell_rows
), base_in AS (
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
), input_counts AS (
  SELECT
    'base' AS input,
    COUNT(*) AS input_rows,
    0 AS null_ids,
    0 AS bad_weights,
    0 AS repeated_ids,
    CAST(NULL AS TEXT) AS repeated_example
  FROM base_in
  UNION ALL
  SELECT
    'exp' AS input,
    COUNT(*) AS input_rows,
    0 AS null_ids,
    0 AS bad_weights,
    0 AS repeated_ids,
    CAST(NULL AS TEXT) AS repeated_example
  FROM exp_in
  UNION ALL
  SELECT
    'weights' AS input,
    COALESCE(SUM(id_rows), 0) AS input_rows,
    COALESCE(SUM(CASE WHEN item_id IS NULL THEN id_rows ELSE 0 END), 0) AS null_ids,
    COALESCE(SUM(bad_weights), 0) AS bad_weights,
    SUM(CASE WHEN NOT item_id IS NULL AND id_rows > 1 THEN 1 ELSE 0 END) AS repeated_ids,
    MIN(CASE WHEN NOT item_id IS NULL AND id_rows > 1 THEN item_id END) AS repeated_example
  FROM (
    SELECT
      item_id,
      COUNT(*) AS id_rows,
      SUM(
        CASE
          WHEN NOT (
            COALESCE(
              CAST(weight AS DOUBLE PRECISION) - CAST(weight AS DOUBLE PRECISION) = CAST(0 AS DOUBLE PRECISION),
              FALSE
            )
            AND weight >= CAST(1e-100 AS DOUBLE PRECISION)
            AND weight <= CAST(1e+100 AS DOUBLE PRECISION)
          )
          THEN 1
          ELSE 0
        END
      ) AS bad_weights
    FROM weights_in
    GROUP BY
      item_id
  ) AS by_id
  UNION ALL
  SELECT
    'attributes' AS input,
    COALESCE(SUM(id_rows), 0) AS input_rows,
    COALESCE(SUM(CASE WHEN item_id IS NULL THEN id_rows ELSE 0 END), 0) AS null_ids,
    COALESCE(SUM(bad_weights), 0) AS bad_weights,
    SUM(CASE WHEN NOT item_id IS NULL AND id_rows > 1 THEN 1 ELSE 0 END) AS repeated_ids,
    MIN(CASE WHEN NOT item_id IS NULL AND id_rows > 1 THEN item_id END) AS repeated_example
  FROM (
    SELECT
      item_id,
      COUNT(*) AS id_rows,
      0 AS bad_weights
    FROM attributes_in
    GROUP BY
      item_id
  ) AS by_id
), ic AS (
  SELECT
    SUM(CASE WHEN input = 'base' THEN input_rows ELSE 0 END) AS base_rows,
    SUM(CASE WHEN input = 'base' THEN null_ids ELSE 0 END) AS base_null_ids,
    SUM(CASE WHEN input = 'exp' THEN input_rows ELSE 0 END) AS exp_rows,
    SUM(CASE WHEN input = 'exp' THEN null_ids ELSE 0 END) AS exp_null_ids,
    SUM(CASE WHEN input = 'weights' THEN input_rows ELSE 0 END) AS weights_rows,
    SUM(CASE WHEN input = 'weights' THEN null_ids ELSE 0 END) AS weights_null_ids,
    SUM(CASE WHEN input = 'attributes' THEN input_rows ELSE 0 END) AS attributes_rows,
    SUM(CASE WHEN input = 'attributes' THEN null_ids ELSE 0 END) AS attributes_null_ids,
    SUM(CASE WHEN input = 'weights' THEN repeated_ids ELSE 0 END) AS repeated_ids_weights,
    MIN(CASE WHEN input = 'weights' THEN repeated_example END) AS repeated_ids_weights_example,
    SUM(CASE WHEN input = 'attributes' THEN repeated_ids ELSE 0 END) AS repeated_ids_attributes,
    MIN(CASE WHEN input = 'attributes' THEN repeated_example END) AS repeated_ids_attributes_example
  FROM input_counts
), ex AS (
  SELECT
    COUNT(*) AS cell_row_groups,
    MIN(null_cluster_base_example) AS null_cluster_base_example,
    MIN(null_cluster_exp_example) AS null_cluster_exp_example,
    MIN(bad_weight_weights_example) AS bad_weight_weights_example,
    MIN(missing_weight_example) AS missing_weight_example
  FROM "proj"."ds"."abcde_exp_cell_rows" AS cell_rows
), checked AS (
  SELECT
    CAST(COALESCE(v.common_rows, 0) AS BIGINT) AS items_in_both,
    CAST(ic.base_rows AS BIGINT) AS base_rows,
    CAST(ic.exp_rows AS BIGINT) AS exp_rows,
    CAST(ic.weights_rows AS BIGINT) AS weights_rows,
    CAST(ic.attributes_rows AS BIGINT) AS attributes_rows,
    CAST(CASE WHEN ic.base_rows = 0 THEN 1 ELSE 0 END AS BIGINT) AS empty_base,
    CAST(CASE WHEN ic.exp_rows = 0 THEN 1 ELSE 0 END AS BIGINT) AS empty_exp,
    CAST(CASE WHEN ic.weights_rows = 0 THEN 1 ELSE 0 END AS BIGINT) AS empty_weights,
    CAST(CASE WHEN ic.attributes_rows = 0 THEN 1 ELSE 0 END AS BIGINT) AS empty_attributes,
    CAST(COALESCE(v.null_item_base, 0) + COALESCE(v.null_item_exp, 0) + ic.weights_null_ids + ic.attributes_null_ids AS BIGINT) AS null_item_ids,
    CAST(CASE
      WHEN COALESCE(v.repeated_one_side, 0) > 0
      OR COALESCE(v.joined_base_rows, 0) <> ic.base_rows
      OR COALESCE(v.joined_exp_rows, 0) <> ic.exp_rows
      THEN 1
      ELSE 0
    END AS BIGINT) AS repeated_item_ids,
    CAST(COALESCE(v.null_cluster_base, 0) AS BIGINT) AS null_cluster_base,
    CAST(COALESCE(v.null_cluster_exp, 0) AS BIGINT) AS null_cluster_exp,
    CAST(COALESCE(v.bad_weight_weights, 0) AS BIGINT) AS bad_weight_weights,
    CAST(COALESCE(v.missing_weight, 0) AS BIGINT) AS missing_weight,
    CAST(CASE WHEN COALESCE(v.common_rows, 0) = 0 THEN 1 ELSE 0 END AS BIGINT) AS no_common_items,
    ex.null_cluster_base_example,
    ex.null_cluster_exp_example,
    ex.bad_weight_weights_example,
    ex.missing_weight_example,
    CAST(ic.repeated_ids_weights AS BIGINT) AS repeated_ids_weights,
    ic.repeated_ids_weights_example,
    CAST(ic.repeated_ids_attributes AS BIGINT) AS repeated_ids_attributes,
    ic.repeated_ids_attributes_example,
    CAST(COALESCE(v.without_attributes, 0) AS BIGINT) AS without_attributes,
    CAST(ic.weights_rows - ic.weights_null_ids - COALESCE(v.matched_weight_rows, 0) AS BIGINT) AS unused_weights,
    CAST(ic.attributes_rows - ic.attributes_null_ids - COALESCE(v.matched_attribute_rows, 0) AS BIGINT) AS unused_attributes,
    ex.cell_row_groups
  FROM validation_counts AS v
  CROSS JOIN ic
  CROSS JOIN ex
)
SELECT
  items_in_both,
  base_rows,
  exp_rows,
  weights_rows,
  attributes_rows,
  empty_base,
  empty_exp,
  empty_weights,
  empty_attributes,
  null_item_ids,
  repeated_item_ids,
  null_cluster_base,
  null_cluster_exp,
  bad_weight_weights,
  missing_weight,
  no_common_items,
  null_cluster_base_example,
  null_cluster_exp_example,
  bad_weight_weights_example,
  missing_weight_example,
  repeated_ids_weights,
  repeated_ids_weights_example,
  repeated_ids_attributes,
  repeated_ids_attributes_example,
  without_attributes,
  unused_weights,
  unused_attributes,
  CASE WHEN empty_base > 0 THEN 1 ELSE 0 END + CASE WHEN empty_exp > 0 THEN 1 ELSE 0 END + CASE WHEN empty_weights > 0 THEN 1 ELSE 0 END + CASE WHEN empty_attributes > 0 THEN 1 ELSE 0 END + CASE WHEN null_item_ids > 0 THEN 1 ELSE 0 END + CASE WHEN repeated_item_ids > 0 THEN 1 ELSE 0 END + CASE WHEN null_cluster_base > 0 THEN 1 ELSE 0 END + CASE WHEN null_cluster_exp > 0 THEN 1 ELSE 0 END + CASE WHEN bad_weight_weights > 0 THEN 1 ELSE 0 END + CASE WHEN missing_weight > 0 THEN 1 ELSE 0 END + CASE WHEN no_common_items > 0 THEN 1 ELSE 0 END AS input_problems,
  (
    CASE WHEN empty_base > 0 THEN 1 ELSE 0 END + CASE WHEN empty_exp > 0 THEN 1 ELSE 0 END + CASE WHEN empty_weights > 0 THEN 1 ELSE 0 END + CASE WHEN empty_attributes > 0 THEN 1 ELSE 0 END + CASE WHEN null_item_ids > 0 THEN 1 ELSE 0 END + CASE WHEN repeated_item_ids > 0 THEN 1 ELSE 0 END + CASE WHEN null_cluster_base > 0 THEN 1 ELSE 0 END + CASE WHEN null_cluster_exp > 0 THEN 1 ELSE 0 END + CASE WHEN bad_weight_weights > 0 THEN 1 ELSE 0 END + CASE WHEN missing_weight > 0 THEN 1 ELSE 0 END + CASE WHEN no_common_items > 0 THEN 1 ELSE 0 END
  ) = 0 AS input_valid
FROM checked;
