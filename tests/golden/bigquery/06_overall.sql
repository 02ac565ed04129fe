DROP TABLE IF EXISTS `proj`.`ds`.`abcde_overall`;

CREATE TABLE `proj`.`ds`.`abcde_overall` AS
WITH overall_unflagged AS (
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
)
SELECT
  t.*,
  v.input_valid
FROM overall_unflagged AS t
CROSS JOIN `proj`.`ds`.`abcde_validation` AS v;
