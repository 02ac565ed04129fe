{# The kept draws of one stream: draw numbers up to `cut` (the budget fill), one row per
   unique ORDERED pair with its draw count and first draw (1-based draw number).
   pair_id numbers the unordered pairs {i, j} by their first draw, so (i, j) and (j, i)
   share it; item_i is the vantage item (ABCDE App. B.1). An ordered pair's class, label
   and u_over_w are those of its stratum, the same for each of its draws. #}
WITH kept AS (
  SELECT d, item_i, item_j, pair_class, label, u_over_w, base_cluster_i,
         exp_cluster_i, base_cluster_j, exp_cluster_j
  FROM pair_stream
  WHERE d <= {{ cut }}
),
ordered AS (
  SELECT
    item_i, item_j, pair_class, label, u_over_w, base_cluster_i,
    exp_cluster_i, base_cluster_j, exp_cluster_j,
    COUNT(*) AS draw_count,
    MIN(d) + 1 AS first_draw
  FROM kept
  GROUP BY item_i, item_j, pair_class, label, u_over_w, base_cluster_i,
           exp_cluster_i, base_cluster_j, exp_cluster_j
),
unordered AS (
  SELECT
    o.*,
    MIN(first_draw) OVER (PARTITION BY LEAST(item_i, item_j), GREATEST(item_i, item_j)) AS pair_first
  FROM ordered AS o
)
SELECT
  DENSE_RANK() OVER (ORDER BY pair_first) AS pair_id,
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
FROM unordered
