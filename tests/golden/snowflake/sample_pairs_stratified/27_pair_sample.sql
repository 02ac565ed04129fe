DROP TABLE IF EXISTS proj.ds.abcde_pair_sample;

CREATE TABLE proj.ds.abcde_pair_sample AS
WITH offsets AS (
  SELECT
    (
      SELECT
        COALESCE(MAX(pair_id), 0)
      FROM proj.ds.abcde_pair_sample_split_merge AS pair_sample_split_merge
    ) AS top_0,
    (
      SELECT
        COALESCE(MAX(pair_id), 0)
      FROM proj.ds.abcde_pair_sample_stable AS pair_sample_stable
    ) AS top_1
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    s.pair_id AS pair_id,
    s.item_i,
    s.item_j,
    s.pair_class,
    s.label,
    s.draw_count,
    s.first_draw,
    s.u_over_w,
    s.base_cluster_i,
    s.exp_cluster_i,
    s.base_cluster_j,
    s.exp_cluster_j,
    s.provenance,
    s.size_class,
    'split_merge' AS stratum
  FROM proj.ds.abcde_pair_sample_split_merge AS s
  CROSS JOIN offsets AS o
  UNION ALL
  SELECT
    s.pair_id + o.top_0 AS pair_id,
    s.item_i,
    s.item_j,
    s.pair_class,
    s.label,
    s.draw_count,
    s.first_draw,
    s.u_over_w,
    s.base_cluster_i,
    s.exp_cluster_i,
    s.base_cluster_j,
    s.exp_cluster_j,
    s.provenance,
    s.size_class,
    'stable' AS stratum
  FROM proj.ds.abcde_pair_sample_stable AS s
  CROSS JOIN offsets AS o
) AS t
CROSS JOIN proj.ds.abcde_pair_validation AS v;
