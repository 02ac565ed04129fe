DROP TABLE IF EXISTS proj.ds.abcde_item_clock;

CREATE TABLE proj.ds.abcde_item_clock AS
WITH base_in AS (
  SELECT
    CAST(item_id AS VARCHAR) AS item_id,
    CAST(cluster_id AS VARCHAR) AS cluster_id,
    1 AS in_input
  FROM proj.ds.base
), exp_in AS (
  SELECT
    CAST(item_id AS VARCHAR) AS item_id,
    CAST(cluster_id AS VARCHAR) AS cluster_id,
    1 AS in_input
  FROM proj.ds.exp
), weights_in AS (
  SELECT
    CAST(item_id AS VARCHAR) AS item_id,
    CAST(weight AS DOUBLE) AS weight,
    1 AS in_input
  FROM proj.ds.weights
), affected_cells AS (
  SELECT
    b,
    e
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
  WHERE
    affected
), affected_item_rows AS (
  SELECT
    item_id,
    base_cluster,
    exp_cluster,
    w,
    common
  FROM (
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
      CAST(NULL AS DOUBLE) AS base_weight,
      CAST(NULL AS DOUBLE) AS exp_weight,
      COALESCE(w.in_input, 0) AS in_weights,
      w.weight AS table_weight,
      COALESCE(w.weight, CAST('NaN' AS DOUBLE)) AS w,
      0 AS in_attributes
    FROM (
      SELECT
        *
      FROM base_in
      WHERE
        cluster_id IN (
          SELECT
            b
          FROM affected_cells
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
          FROM affected_cells
        )
    ) AS e
      ON b.item_id = e.item_id
    LEFT JOIN weights_in AS w
      ON w.item_id = COALESCE(b.item_id, e.item_id)
  ) AS i
), affected AS (
  SELECT
    b,
    e,
    split_rate,
    merge_rate,
    jaccard_distance,
    split_distance,
    merge_distance,
    jaccard_index
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
  WHERE
    affected AND jaccard_distance > 0
), affected_items AS (
  SELECT
    i.item_id,
    i.base_cluster,
    i.exp_cluster,
    i.w AS weight,
    a.split_rate,
    a.merge_rate,
    a.jaccard_distance,
    a.split_distance,
    a.merge_distance,
    a.jaccard_index,
    i.w * a.jaccard_distance AS clock_w
  FROM affected_item_rows AS i
  JOIN affected AS a
    ON i.base_cluster = a.b AND i.exp_cluster = a.e
  WHERE
    i.common
), uniforms AS (
  SELECT
    item_id,
    base_cluster,
    exp_cluster,
    weight,
    split_rate,
    merge_rate,
    jaccard_distance,
    split_distance,
    merge_distance,
    jaccard_index,
    CAST(clock_w AS DOUBLE) AS clock_weight,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              1,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 281474976710656 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              2,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 17592186044416 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              3,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1099511627776 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              4,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 68719476736 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              5,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4294967296 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              6,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 268435456 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              7,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16777216 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              8,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1048576 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              9,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 65536 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              10,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4096 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              11,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 256 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              12,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('items' AS VARCHAR), ':', CAST(item_id AS VARCHAR))
              ),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) AS clock_u
  FROM affected_items
  WHERE
    clock_w > 0
), logs AS (
  SELECT
    item_id,
    base_cluster,
    exp_cluster,
    weight,
    split_rate,
    merge_rate,
    jaccard_distance,
    split_distance,
    merge_distance,
    jaccard_index,
    clock_weight,
    LN(CAST(clock_u AS DOUBLE)) AS clock_ln_u
  FROM uniforms
), keyed AS (
  SELECT
    item_id,
    base_cluster,
    exp_cluster,
    weight,
    split_rate,
    merge_rate,
    jaccard_distance,
    split_distance,
    merge_distance,
    jaccard_index,
    clock_weight,
    CAST(-clock_ln_u AS DOUBLE) / NULLIF(CAST(clock_weight AS DOUBLE), CAST(0 AS DOUBLE)) AS clock_key
  FROM logs
), top_n AS (
  SELECT
    item_id,
    base_cluster,
    exp_cluster,
    weight,
    split_rate,
    merge_rate,
    jaccard_distance,
    split_distance,
    merge_distance,
    jaccard_index,
    clock_weight,
    clock_key
  FROM keyed
  ORDER BY
    clock_key,
    item_id
  LIMIT 1000
), ranked AS (
  SELECT
    item_id,
    base_cluster,
    exp_cluster,
    weight,
    split_rate,
    merge_rate,
    jaccard_distance,
    split_distance,
    merge_distance,
    jaccard_index,
    clock_weight,
    clock_key,
    ROW_NUMBER() OVER (ORDER BY clock_key, item_id) AS clock_rank
  FROM top_n
)
SELECT
  item_id,
  base_cluster,
  exp_cluster,
  weight,
  split_rate,
  merge_rate,
  jaccard_distance,
  split_distance,
  merge_distance,
  jaccard_index,
  clock_weight,
  clock_key,
  clock_rank
FROM ranked
WHERE
  clock_rank <= 1000;
