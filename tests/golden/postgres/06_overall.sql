DROP TABLE IF EXISTS "proj"."ds"."abcde_overall";

CREATE TABLE "proj"."ds"."abcde_overall" AS
WITH overall_unflagged AS (
  SELECT
    CAST(SUM(n) AS BIGINT) AS items,
    SUM(w) AS weight,
    CAST(SUM(CASE WHEN affected THEN n ELSE 0 END) AS BIGINT) AS affected_items,
    SUM(CASE WHEN affected THEN w ELSE CAST(0 AS DOUBLE PRECISION) END) AS affected_weight,
    CAST(SUM(w * split_rate) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_rate,
    CAST(SUM(w * merge_rate) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_rate,
    CAST(SUM(w * jaccard_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_distance,
    CAST(SUM(w * split_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_distance,
    CAST(SUM(w * merge_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_distance,
    CAST(SUM(w * jaccard_index) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_index,
    CAST(SUM(CASE WHEN affected THEN w * jaccard_index ELSE CAST(0 AS DOUBLE PRECISION) END) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS affected_jaccard_index,
    CAST(SUM(CASE WHEN affected THEN CAST(0 AS DOUBLE PRECISION) ELSE w END) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS unaffected_jaccard_index
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
)
SELECT
  t.*,
  v.input_valid
FROM overall_unflagged AS t
CROSS JOIN "proj"."ds"."abcde_validation" AS v;
