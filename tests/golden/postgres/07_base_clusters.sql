DROP TABLE IF EXISTS "proj"."ds"."abcde_base_clusters";

CREATE TABLE "proj"."ds"."abcde_base_clusters" AS
WITH total AS (
  SELECT
    SUM(w) AS total_w
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
), base_clusters_unflagged AS (
  SELECT
    c.b AS cluster_id,
    CAST(SUM(c.n) AS BIGINT) AS items,
    SUM(c.w) AS weight,
    COUNT(*) AS cells,
    CAST(SUM(CASE WHEN c.affected THEN c.n ELSE 0 END) AS BIGINT) AS affected_items,
    SUM(CASE WHEN c.affected THEN c.w ELSE CAST(0 AS DOUBLE PRECISION) END) AS affected_weight,
    CAST(SUM(c.w * c.split_rate) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(c.w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_rate,
    CAST(SUM(c.w * c.merge_rate) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(c.w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_rate,
    CAST(SUM(c.w * c.jaccard_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(c.w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_distance,
    CAST(SUM(c.w * c.split_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(c.w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_distance,
    CAST(SUM(c.w * c.merge_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(c.w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_distance,
    CAST(SUM(c.w * c.jaccard_index) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(c.w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_index,
    CAST(SUM(c.w * c.jaccard_distance) AS DOUBLE PRECISION) / NULLIF(CAST(MAX(t.total_w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS contribution
  FROM "proj"."ds"."abcde_cell_metrics" AS c
  CROSS JOIN total AS t
  GROUP BY
    c.b
)
SELECT
  t.*,
  v.input_valid
FROM base_clusters_unflagged AS t
CROSS JOIN "proj"."ds"."abcde_validation" AS v;
