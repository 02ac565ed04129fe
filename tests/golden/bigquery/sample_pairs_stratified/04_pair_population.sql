DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_population`;

CREATE TABLE `proj`.`ds`.`abcde_pair_population` AS
WITH total AS (
  SELECT
    SUM(w) AS total_w
  FROM `proj`.`ds`.`abcde_cell_metrics` AS cell_metrics
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
        CAST(CONCAT(
          '0x',
          SUBSTR(
            TO_HEX(
              MD5(CONCAT(CAST('order' AS STRING), ':', CAST(b AS STRING), ':', CAST(e AS STRING)))
            ),
            1,
            13
          )
        ) AS INT64)
      ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
    ) AS cell_key
  FROM `proj`.`ds`.`abcde_cell_metrics` AS cell_metrics
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
    CASE WHEN nonself > 0 THEN nonself ELSE CAST(0 AS FLOAT64) END AS pair_share
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
      CAST(1 AS FLOAT64) - (
        CAST(CAST(w2 AS FLOAT64) / NULLIF(CAST(w AS FLOAT64), CAST(0 AS FLOAT64)) AS FLOAT64) / NULLIF(CAST(w AS FLOAT64), CAST(0 AS FLOAT64))
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
    CAST(m.w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(m.split_w AS FLOAT64) / NULLIF(CAST(m.w_b AS FLOAT64), CAST(0 AS FLOAT64))
  ) AS t_u,
  (
    CAST(m.w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(m.split_w AS FLOAT64) / NULLIF(CAST(m.u AS FLOAT64), CAST(0 AS FLOAT64))
  ) AS t_w,
  CAST(-1 AS FLOAT64) AS label,
  CAST(m.u AS FLOAT64) / NULLIF(CAST(m.w_b AS FLOAT64), CAST(0 AS FLOAT64)) AS u_over_w,
  CAST(m.n AS FLOAT64) * CAST(m.n_b - m.n AS FLOAT64) AS ordered_pairs
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
    CAST(m.w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(m.merge_w AS FLOAT64) / NULLIF(CAST(m.w_e AS FLOAT64), CAST(0 AS FLOAT64))
  ) AS t_u,
  (
    CAST(m.w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(m.merge_w AS FLOAT64) / NULLIF(CAST(m.u AS FLOAT64), CAST(0 AS FLOAT64))
  ) AS t_w,
  CAST(1 AS FLOAT64) AS label,
  CAST(m.u AS FLOAT64) / NULLIF(CAST(m.w_e AS FLOAT64), CAST(0 AS FLOAT64)) AS u_over_w,
  CAST(m.n AS FLOAT64) * CAST(m.n_e - m.n AS FLOAT64) AS ordered_pairs
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
    CAST(m.w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(m.w AS FLOAT64) / NULLIF(CAST(m.w_b AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(ABS(m.split_w - m.merge_w) AS FLOAT64) / NULLIF(CAST(m.w_e AS FLOAT64), CAST(0 AS FLOAT64))
  ) * m.pair_share AS t_u,
  (
    CAST(m.w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(m.w AS FLOAT64) / NULLIF(CAST(m.u AS FLOAT64), CAST(0 AS FLOAT64))
  ) * m.pair_share AS t_w,
  CASE
    WHEN m.split_w > m.merge_w
    THEN CAST(1 AS FLOAT64)
    WHEN m.split_w < m.merge_w
    THEN CAST(-1 AS FLOAT64)
    ELSE CAST(0 AS FLOAT64)
  END AS label,
  (
    CAST(m.u AS FLOAT64) / NULLIF(CAST(m.w_b AS FLOAT64), CAST(0 AS FLOAT64))
  ) * (
    CAST(ABS(m.split_w - m.merge_w) AS FLOAT64) / NULLIF(CAST(m.w_e AS FLOAT64), CAST(0 AS FLOAT64))
  ) AS u_over_w,
  CAST(m.n AS FLOAT64) * CAST(m.n - 1 AS FLOAT64) AS ordered_pairs
FROM stable_cells AS m
CROSS JOIN total AS t
WHERE
  m.pair_share > 0;
