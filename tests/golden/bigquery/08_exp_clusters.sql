DROP TABLE IF EXISTS `proj`.`ds`.`abcde_exp_clusters`;

CREATE TABLE `proj`.`ds`.`abcde_exp_clusters` AS
WITH total AS (
  SELECT
    SUM(w) AS total_w
  FROM `proj`.`ds`.`abcde_cell_metrics` AS cell_metrics
), exp_clusters_unflagged AS (
  SELECT
    c.e AS cluster_id,
    CAST(SUM(c.n) AS INT64) AS items,
    SUM(c.w) AS weight,
    COUNT(*) AS cells,
    CAST(SUM(CASE WHEN c.affected THEN c.n ELSE 0 END) AS INT64) AS affected_items,
    SUM(CASE WHEN c.affected THEN c.w ELSE CAST(0 AS FLOAT64) END) AS affected_weight,
    CAST(SUM(c.w * c.split_rate) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS split_rate,
    CAST(SUM(c.w * c.merge_rate) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS merge_rate,
    CAST(SUM(c.w * c.jaccard_distance) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_distance,
    CAST(SUM(c.w * c.split_distance) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS split_distance,
    CAST(SUM(c.w * c.merge_distance) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS merge_distance,
    CAST(SUM(c.w * c.jaccard_index) AS FLOAT64) / NULLIF(CAST(SUM(c.w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jaccard_index,
    CAST(SUM(c.w * c.jaccard_distance) AS FLOAT64) / NULLIF(CAST(MAX(t.total_w) AS FLOAT64), CAST(0 AS FLOAT64)) AS contribution
  FROM `proj`.`ds`.`abcde_cell_metrics` AS c
  CROSS JOIN total AS t
  GROUP BY
    c.e
)
SELECT
  t.*,
  v.input_valid
FROM exp_clusters_unflagged AS t
CROSS JOIN `proj`.`ds`.`abcde_validation` AS v;
