DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_kept_split_merge`;

CREATE TABLE `proj`.`ds`.`abcde_pair_kept_split_merge` AS
WITH kept AS (
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
      FROM `proj`.`ds`.`abcde_pair_fill_split_merge` AS pair_fill_split_merge
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
  DENSE_RANK() OVER (ORDER BY pair_first NULLS LAST) AS pair_id,
  item_i,
  item_j,
  pair_class,
  label,
  draw_count,
  first_draw,
  u_over_w,
  base_cluster_i,
  exp_cluster_i,
  base_cluster_j,
  exp_cluster_j
FROM unordered;
