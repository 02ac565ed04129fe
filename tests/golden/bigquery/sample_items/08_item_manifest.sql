DROP TABLE IF EXISTS `proj`.`ds`.`abcde_item_manifest`;

CREATE TABLE `proj`.`ds`.`abcde_item_manifest` AS
WITH overall AS (
  SELECT
    CAST(SUM(n) AS INT64) AS items,
    SUM(w) AS weight,
    CAST(SUM(CASE WHEN affected THEN n ELSE 0 END) AS INT64) AS affected_items,
    SUM(CASE WHEN affected THEN w ELSE CAST(0 AS FLOAT64) END) AS affected_weight,
    CAST(SUM(w * split_rate) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS split_rate,
    CAST(SUM(w * merge_rate) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS merge_rate,
    CAST(SUM(w * jaccard_distance) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_distance,
    CAST(SUM(w * split_distance) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS split_distance,
    CAST(SUM(w * merge_distance) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS merge_distance,
    CAST(SUM(w * jaccard_index) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_index,
    CAST(SUM(CASE WHEN affected THEN w * jaccard_index ELSE CAST(0 AS FLOAT64) END) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS affected_jaccard_index,
    CAST(SUM(CASE WHEN affected THEN CAST(0 AS FLOAT64) ELSE w END) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS unaffected_jaccard_index
  FROM `proj`.`ds`.`abcde_cell_metrics` AS cell_metrics
), item_sample_digest AS (
  SELECT
    COUNT(*) AS unique_items,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CONCAT(
              '0x',
              SUBSTR(TO_HEX(MD5(CONCAT(CAST('sample' AS STRING), ':', CAST(item_id AS STRING)))), 1, 13)
            ) AS INT64)
          ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
        ) * CAST(2147483648 AS FLOAT64)
      ) AS INT64)
    ) AS item_digest,
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
                      CAST('sample' AS STRING),
                      ':',
                      CAST(item_id AS STRING),
                      ':',
                      CAST(CAST(LEAST(draw_count, CAST(4e18 AS FLOAT64)) AS INT64) AS STRING)
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
    ) AS draw_digest
  FROM `proj`.`ds`.`abcde_item_sample` AS item_sample
), fingerprint AS (
  SELECT
    COUNT(*) AS cells,
    SUM(n) AS items,
    SUM(w) AS weight,
    SUM(
      (
        CAST((
          CAST(CONCAT(
            '0x',
            SUBSTR(
              TO_HEX(
                MD5(
                  CONCAT(CAST('fingerprint' AS STRING), ':', CAST(b AS STRING), ':', CAST(e AS STRING))
                )
              ),
              1,
              13
            )
          ) AS INT64)
        ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
      )
    ) AS cell_hash,
    SUM(
      n * (
        CAST((
          CAST(CONCAT(
            '0x',
            SUBSTR(
              TO_HEX(
                MD5(
                  CONCAT(CAST('fingerprint' AS STRING), ':', CAST(b AS STRING), ':', CAST(e AS STRING))
                )
              ),
              1,
              13
            )
          ) AS INT64)
        ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
      )
    ) AS item_hash,
    SUM(
      w * (
        CAST((
          CAST(CONCAT(
            '0x',
            SUBSTR(
              TO_HEX(
                MD5(
                  CONCAT(CAST('fingerprint' AS STRING), ':', CAST(b AS STRING), ':', CAST(e AS STRING))
                )
              ),
              1,
              13
            )
          ) AS INT64)
        ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
      )
    ) AS weight_hash
  FROM `proj`.`ds`.`abcde_cells` AS cells
), drawn AS (
  SELECT
    COUNT(*) AS unique_items,
    SUM(draw_count) AS draws
  FROM `proj`.`ds`.`abcde_item_sample` AS item_sample
), digest AS (
  SELECT
    CAST(COALESCE(item_digest, 0) AS INT64) AS item_digest,
    CAST(COALESCE(draw_digest, 0) AS INT64) AS draw_digest
  FROM item_sample_digest
), fp AS (
  SELECT
    cells AS fp_cells,
    items AS fp_items,
    weight AS fp_weight,
    cell_hash AS fp_cell_hash,
    item_hash AS fp_item_hash,
    weight_hash AS fp_weight_hash
  FROM fingerprint
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    '0.1.0' AS abcde_version,
    'items' AS kind,
    7 AS seed,
    1000 AS size,
    d.unique_items,
    COALESCE(d.draws, CAST(0 AS FLOAT64)) AS draws,
    o.*,
    f.*,
    g.item_digest,
    g.draw_digest,
    SUBSTRING(
      TO_HEX(
        MD5(
          CONCAT(
            CAST('items' AS STRING),
            ':',
            CAST(7 AS STRING),
            ':',
            CAST(1000 AS STRING),
            ':',
            CAST(CAST(d.unique_items AS INT64) AS STRING),
            ':',
            CAST(g.item_digest AS STRING),
            ':',
            CAST(g.draw_digest AS STRING),
            ':',
            CAST(CAST(f.fp_cells AS INT64) AS STRING),
            ':',
            CAST(CAST(f.fp_items AS INT64) AS STRING)
          )
        )
      ),
      1,
      12
    ) AS sample_id
  FROM drawn AS d
  CROSS JOIN digest AS g
  CROSS JOIN fp AS f
  CROSS JOIN overall AS o
) AS t
CROSS JOIN `proj`.`ds`.`abcde_item_validation` AS v;
