DROP TABLE IF EXISTS `proj`.`ds`.`abcde_overall`;

CREATE TABLE `proj`.`ds`.`abcde_overall` AS
WITH overall_unflagged AS (
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
  FROM `proj`.`ds`.`abcde_cell_metrics` AS cell_metrics
)
SELECT
  t.*,
  v.input_valid
FROM overall_unflagged AS t
CROSS JOIN `proj`.`ds`.`abcde_validation` AS v;
