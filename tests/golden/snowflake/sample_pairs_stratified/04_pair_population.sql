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
        TO_NUMBER(
          SUBSTRING(
            MD5(
              CONCAT(CAST('order' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
            ),
            1,
            13
          ),
          'XXXXXXXXXXXXX'
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
