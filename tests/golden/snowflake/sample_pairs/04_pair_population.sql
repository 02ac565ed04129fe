DROP TABLE IF EXISTS proj.ds.abcde_pair_population;

CREATE TABLE proj.ds.abcde_pair_population AS
WITH total AS (
  SELECT
    SUM(w) AS total_w
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
), pair_cells AS (
  SELECT
    b,
    e,
    n,
    n_b,
    n_e,
    w,
    w2,
    w_b,
    w_e,
    u,
    split_w,
    merge_w,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
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
                CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
              ),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) AS cell_key
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
  WHERE
    split_w > 0 OR merge_w > 0
), stable_cells AS (
  SELECT
    b,
    e,
    cell_key,
    n,
    w,
    w_b,
    w_e,
    u,
    split_w,
    merge_w,
    CASE WHEN nonself > 0 THEN nonself ELSE CAST(0 AS DOUBLE) END AS pair_share
  FROM (
    SELECT
      b,
      e,
      cell_key,
      n,
      w,
      w_b,
      w_e,
      u,
      split_w,
      merge_w,
      CAST(1 AS DOUBLE) - (
        CAST(CAST(w2 AS DOUBLE) / NULLIF(CAST(w AS DOUBLE), CAST(0 AS DOUBLE)) AS DOUBLE) / NULLIF(CAST(w AS DOUBLE), CAST(0 AS DOUBLE))
      ) AS nonself
    FROM pair_cells
    WHERE
      n > 1
  ) AS m
)
SELECT
  m.b,
  m.e,
  m.cell_key,
  'split' AS pair_class,
  m.w,
  m.w_b,
  m.w_e,
  m.u,
  m.split_w,
  m.merge_w,
  (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(m.split_w AS DOUBLE) / NULLIF(CAST(m.w_b AS DOUBLE), CAST(0 AS DOUBLE))
  ) AS t_u,
  (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(m.split_w AS DOUBLE) / NULLIF(CAST(m.u AS DOUBLE), CAST(0 AS DOUBLE))
  ) AS t_w,
  CAST(-1 AS DOUBLE) AS label,
  CAST(m.u AS DOUBLE) / NULLIF(CAST(m.w_b AS DOUBLE), CAST(0 AS DOUBLE)) AS u_over_w,
  CAST(m.n AS DOUBLE) * CAST(m.n_b - m.n AS DOUBLE) AS ordered_pairs
FROM pair_cells AS m
CROSS JOIN total AS t
WHERE
  m.split_w > 0
UNION ALL
SELECT
  m.b,
  m.e,
  m.cell_key,
  'merge' AS pair_class,
  m.w,
  m.w_b,
  m.w_e,
  m.u,
  m.split_w,
  m.merge_w,
  (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(m.merge_w AS DOUBLE) / NULLIF(CAST(m.w_e AS DOUBLE), CAST(0 AS DOUBLE))
  ) AS t_u,
  (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(m.merge_w AS DOUBLE) / NULLIF(CAST(m.u AS DOUBLE), CAST(0 AS DOUBLE))
  ) AS t_w,
  CAST(1 AS DOUBLE) AS label,
  CAST(m.u AS DOUBLE) / NULLIF(CAST(m.w_e AS DOUBLE), CAST(0 AS DOUBLE)) AS u_over_w,
  CAST(m.n AS DOUBLE) * CAST(m.n_e - m.n AS DOUBLE) AS ordered_pairs
FROM pair_cells AS m
CROSS JOIN total AS t
WHERE
  m.merge_w > 0
UNION ALL
SELECT
  m.b,
  m.e,
  m.cell_key,
  'stable' AS pair_class,
  m.w,
  m.w_b,
  m.w_e,
  m.u,
  m.split_w,
  m.merge_w,
  (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(m.w_b AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(ABS(m.split_w - m.merge_w) AS DOUBLE) / NULLIF(CAST(m.w_e AS DOUBLE), CAST(0 AS DOUBLE))
  ) * m.pair_share AS t_u,
  (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(m.w AS DOUBLE) / NULLIF(CAST(m.u AS DOUBLE), CAST(0 AS DOUBLE))
  ) * m.pair_share AS t_w,
  CASE
    WHEN m.split_w > m.merge_w
    THEN CAST(1 AS DOUBLE)
    WHEN m.split_w < m.merge_w
    THEN CAST(-1 AS DOUBLE)
    ELSE CAST(0 AS DOUBLE)
  END AS label,
  (
    CAST(m.u AS DOUBLE) / NULLIF(CAST(m.w_b AS DOUBLE), CAST(0 AS DOUBLE))
  ) * (
    CAST(ABS(m.split_w - m.merge_w) AS DOUBLE) / NULLIF(CAST(m.w_e AS DOUBLE), CAST(0 AS DOUBLE))
  ) AS u_over_w,
  CAST(m.n AS DOUBLE) * CAST(m.n - 1 AS DOUBLE) AS ordered_pairs
FROM stable_cells AS m
CROSS JOIN total AS t
WHERE
  m.pair_share > 0;
