DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_slices_1`;

CREATE TABLE `proj`.`ds`.`abcde_pair_slices_1` AS
WITH slice_cells_1 AS (
  SELECT
    b,
    e,
    s_0,
    s_1,
    SUM(item_rows) AS n,
    SUM(w) AS w,
    SUM(w2) AS w2
  FROM `proj`.`ds`.`abcde_cell_rows` AS cell_rows
  WHERE
    common
  GROUP BY
    b,
    e,
    s_0,
    s_1
), total AS (
  SELECT
    SUM(w) AS total_w
  FROM `proj`.`ds`.`abcde_cell_metrics` AS cell_metrics
), joined AS (
  SELECT
    s.s_0,
    s.s_1,
    s.w,
    CAST(s.w AS FLOAT64) / NULLIF(CAST(t.total_w AS FLOAT64), CAST(0 AS FLOAT64)) AS share,
    CAST(s.w2 AS FLOAT64) / NULLIF(CAST(s.w AS FLOAT64), CAST(0 AS FLOAT64)) AS mean_w,
    m.w AS w_c,
    m.w_b,
    m.w_e,
    m.split_w,
    m.merge_w
  FROM slice_cells_1 AS s
  JOIN `proj`.`ds`.`abcde_cell_metrics` AS m
    ON s.b = m.b AND s.e = m.e
  CROSS JOIN total AS t
), parts AS (
  SELECT
    s_0,
    s_1,
    w,
    share * (
      CAST(split_w AS FLOAT64) / NULLIF(CAST(w_b AS FLOAT64), CAST(0 AS FLOAT64))
    ) AS split,
    share * (
      CAST(merge_w AS FLOAT64) / NULLIF(CAST(w_e AS FLOAT64), CAST(0 AS FLOAT64))
    ) AS `merge`,
    share * (
      CAST(CASE WHEN w_c > mean_w THEN w_c - mean_w ELSE CAST(0 AS FLOAT64) END AS FLOAT64) / NULLIF(CAST(w_b AS FLOAT64), CAST(0 AS FLOAT64))
    ) * (
      CAST(ABS(split_w - merge_w) AS FLOAT64) / NULLIF(CAST(w_e AS FLOAT64), CAST(0 AS FLOAT64))
    ) AS stable,
    share * (
      CAST(mean_w AS FLOAT64) / NULLIF(CAST(w_b AS FLOAT64), CAST(0 AS FLOAT64))
    ) * (
      CAST(split_w - merge_w AS FLOAT64) / NULLIF(CAST(w_e AS FLOAT64), CAST(0 AS FLOAT64))
    ) AS self_part,
    split_w - merge_w AS sign
  FROM joined
)
SELECT
  s_0 AS `provenance`,
  s_1 AS `size_class`,
  SUM(w) AS weight,
  SUM(split) AS split,
  SUM(`merge`) AS `merge`,
  SUM(CASE WHEN sign > 0 THEN stable ELSE CAST(0 AS FLOAT64) END) AS stable_plus,
  SUM(CASE WHEN sign < 0 THEN stable ELSE CAST(0 AS FLOAT64) END) AS stable_minus,
  SUM(self_part) AS self_delta_precision,
  SUM(split + `merge` + stable + ABS(self_part)) AS pairweight
FROM parts
GROUP BY
  s_0,
  s_1;
