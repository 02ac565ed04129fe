DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_sample_split_merge`;

CREATE TABLE `proj`.`ds`.`abcde_pair_sample_split_merge` AS
WITH sample_attributes AS (
  SELECT
    CAST(`item_id` AS STRING) AS item_id,
    `provenance` AS `provenance`,
    `size_class` AS `size_class`
  FROM `proj`.`ds`.`attributes`
), kept AS (
  SELECT
    d,
    item_i,
    item_j,
    pair_class,
    label,
    u_over_w,
    base_cluster_i,
    exp_cluster_i,
    base_cluster_j,
    exp_cluster_j
  FROM `proj`.`ds`.`abcde_pair_stream_split_merge` AS pair_stream
  WHERE
    d <= (
      SELECT
        cut
      FROM `proj`.`ds`.`abcde_pair_fill_split_merge` AS pair_fill
    )
), ordered AS (
  SELECT
    item_i,
    item_j,
    pair_class,
    label,
    u_over_w,
    base_cluster_i,
    exp_cluster_i,
    base_cluster_j,
    exp_cluster_j,
    COUNT(*) AS draw_count,
    MIN(d) + 1 AS first_draw
  FROM kept
  GROUP BY
    item_i,
    item_j,
    pair_class,
    label,
    u_over_w,
    base_cluster_i,
    exp_cluster_i,
    base_cluster_j,
    exp_cluster_j
), unordered AS (
  SELECT
    o.*,
    MIN(first_draw) OVER (PARTITION BY LEAST(item_i, item_j), GREATEST(item_i, item_j)) AS pair_first
  FROM ordered AS o
)
SELECT
  DENSE_RANK() OVER (ORDER BY u.pair_first NULLS LAST) AS pair_id,
  u.item_i,
  u.item_j,
  u.pair_class,
  u.label,
  u.draw_count,
  u.first_draw,
  u.u_over_w,
  u.base_cluster_i,
  u.exp_cluster_i,
  u.base_cluster_j,
  u.exp_cluster_j,
  a.`provenance`,
  a.`size_class`
FROM unordered AS u
LEFT JOIN sample_attributes AS a
  ON u.item_i = a.item_id;
