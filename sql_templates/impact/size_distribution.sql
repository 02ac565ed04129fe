{# How many Base (side = b) or Exp (side = e) clusters have each size (items in T), with
   their items and weight: the cluster-size distribution `abcde report` plots log–log.
   One row per distinct size: at most about √(2·items) rows. #}
WITH sizes AS (
  SELECT {{ side }} AS cluster_id, SUM(n) AS size, SUM(w) AS weight
  FROM cell_metrics
  GROUP BY {{ side }}
)
SELECT
  size,
  COUNT(*) AS clusters,
  SUM(size) AS items,
  SUM(weight) AS weight
FROM sizes
GROUP BY size
ORDER BY size
