DROP TABLE IF EXISTS proj.ds.abcde_item_manifest;

CREATE TABLE proj.ds.abcde_item_manifest AS
WITH overall AS (
  SELECT
    CAST(SUM(n) AS BIGINT) AS items,
    SUM(w) AS weight,
    CAST(SUM(CASE WHEN affected THEN n ELSE 0 END) AS BIGINT) AS affected_items,
    SUM(CASE WHEN affected THEN w ELSE CAST(0 AS DOUBLE) END) AS affected_weight,
    CAST(SUM(w * split_rate) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS split_rate,
    CAST(SUM(w * merge_rate) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS merge_rate,
    CAST(SUM(w * jaccard_distance) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_distance,
    CAST(SUM(w * split_distance) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS split_distance,
    CAST(SUM(w * merge_distance) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS merge_distance,
    CAST(SUM(w * jaccard_index) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_index,
    CAST(SUM(CASE WHEN affected THEN w * jaccard_index ELSE CAST(0 AS DOUBLE) END) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS affected_jaccard_index,
    CAST(SUM(CASE WHEN affected THEN CAST(0 AS DOUBLE) ELSE w END) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS unaffected_jaccard_index
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
), item_sample_digest AS (
  SELECT
    COUNT(*) AS unique_items,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 1, 1),
                '0123456789abcdef'
              ) - 1
            ) * 281474976710656 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 2, 1),
                '0123456789abcdef'
              ) - 1
            ) * 17592186044416 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 3, 1),
                '0123456789abcdef'
              ) - 1
            ) * 1099511627776 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 4, 1),
                '0123456789abcdef'
              ) - 1
            ) * 68719476736 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 5, 1),
                '0123456789abcdef'
              ) - 1
            ) * 4294967296 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 6, 1),
                '0123456789abcdef'
              ) - 1
            ) * 268435456 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 7, 1),
                '0123456789abcdef'
              ) - 1
            ) * 16777216 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 8, 1),
                '0123456789abcdef'
              ) - 1
            ) * 1048576 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 9, 1),
                '0123456789abcdef'
              ) - 1
            ) * 65536 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 10, 1),
                '0123456789abcdef'
              ) - 1
            ) * 4096 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 11, 1),
                '0123456789abcdef'
              ) - 1
            ) * 256 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 12, 1),
                '0123456789abcdef'
              ) - 1
            ) * 16 + (
              CHARINDEX(
                SUBSTRING(MD5(CONCAT(CAST('sample' AS VARCHAR), ':', CAST(item_id AS VARCHAR))), 13, 1),
                '0123456789abcdef'
              ) - 1
            )
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS item_digest,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            (
              CHARINDEX(
                SUBSTRING(
                  MD5(
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
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
                    CONCAT(
                      CAST('sample' AS VARCHAR),
                      ':',
                      CAST(item_id AS VARCHAR),
                      ':',
                      CAST(CAST(LEAST_IGNORE_NULLS(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT) AS VARCHAR)
                    )
                  ),
                  13,
                  1
                ),
                '0123456789abcdef'
              ) - 1
            )
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS draw_digest
  FROM proj.ds.abcde_item_sample AS item_sample
), fingerprint AS (
  SELECT
    COUNT(*) AS cells,
    SUM(n) AS items,
    SUM(w) AS weight,
    SUM(
      (
        CAST((
          (
            CHARINDEX(
              SUBSTRING(
                MD5(
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
                ),
                13,
                1
              ),
              '0123456789abcdef'
            ) - 1
          )
        ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
      )
    ) AS cell_hash,
    SUM(
      n * (
        CAST((
          (
            CHARINDEX(
              SUBSTRING(
                MD5(
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
                ),
                13,
                1
              ),
              '0123456789abcdef'
            ) - 1
          )
        ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
      )
    ) AS item_hash,
    SUM(
      w * (
        CAST((
          (
            CHARINDEX(
              SUBSTRING(
                MD5(
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                  CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
                ),
                13,
                1
              ),
              '0123456789abcdef'
            ) - 1
          )
        ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
      )
    ) AS weight_hash
  FROM proj.ds.abcde_cells AS cells
), drawn AS (
  SELECT
    COUNT(*) AS unique_items,
    SUM(draw_count) AS draws
  FROM proj.ds.abcde_item_sample AS item_sample
), digest AS (
  SELECT
    CAST(COALESCE(item_digest, 0) AS BIGINT) AS item_digest,
    CAST(COALESCE(draw_digest, 0) AS BIGINT) AS draw_digest
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
    COALESCE(d.draws, CAST(0 AS DOUBLE)) AS draws,
    o.*,
    f.*,
    g.item_digest,
    g.draw_digest,
    SUBSTRING(
      MD5(
        CONCAT(
          CAST('items' AS VARCHAR),
          ':',
          CAST(7 AS VARCHAR),
          ':',
          CAST(1000 AS VARCHAR),
          ':',
          CAST(CAST(d.unique_items AS BIGINT) AS VARCHAR),
          ':',
          CAST(g.item_digest AS VARCHAR),
          ':',
          CAST(g.draw_digest AS VARCHAR),
          ':',
          CAST(CAST(f.fp_cells AS BIGINT) AS VARCHAR),
          ':',
          CAST(CAST(f.fp_items AS BIGINT) AS VARCHAR)
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
CROSS JOIN proj.ds.abcde_item_validation AS v;
