DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_sample";

CREATE TABLE "proj"."ds"."abcde_pair_sample" AS
WITH offsets AS (
  SELECT
    (
      SELECT
        COALESCE(MAX(pair_id), 0)
      FROM "proj"."ds"."abcde_pair_kept_split_merge" AS pair_kept_split_merge
    ) AS top_0,
    (
      SELECT
        COALESCE(MAX(pair_id), 0)
      FROM "proj"."ds"."abcde_pair_kept_stable" AS pair_kept_stable
    ) AS top_1
), drawn AS (
  SELECT
    s.pair_id AS pair_id,
    s."item_i",
    s."item_j",
    s."pair_class",
    s."label",
    s."draw_count",
    s."first_draw",
    s."u_over_w",
    s."base_cluster_i",
    s."exp_cluster_i",
    s."base_cluster_j",
    s."exp_cluster_j",
    'split_merge' AS stratum
  FROM "proj"."ds"."abcde_pair_kept_split_merge" AS s
  CROSS JOIN offsets AS o
  UNION ALL
  SELECT
    s.pair_id + o.top_0 AS pair_id,
    s."item_i",
    s."item_j",
    s."pair_class",
    s."label",
    s."draw_count",
    s."first_draw",
    s."u_over_w",
    s."base_cluster_i",
    s."exp_cluster_i",
    s."base_cluster_j",
    s."exp_cluster_j",
    'stable' AS stratum
  FROM "proj"."ds"."abcde_pair_kept_stable" AS s
  CROSS JOIN offsets AS o
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    d.pair_id,
    d."item_i",
    d."item_j",
    d."pair_class",
    d."label",
    d."draw_count",
    d."first_draw",
    d."u_over_w",
    d."base_cluster_i",
    d."exp_cluster_i",
    d."base_cluster_j",
    d."exp_cluster_j",
    a."provenance",
    a."size_class",
    d.stratum
  FROM drawn AS d
  LEFT JOIN "proj"."ds"."abcde_sample_attributes" AS a
    ON d.item_i = a.item_id
) AS t
CROSS JOIN "proj"."ds"."abcde_pair_validation" AS v;
