{# How many Base (side = b) or Exp (side = e) clusters have each size (items in T), with
   their items and weight: the cluster-size distribution `abcde report` plots log–log.
   One row per distinct size: at most about √(2·items) rows.
   A cluster with one cell (n = n_b) is that cell; only the clusters of several cells
   (usually few) are grouped, so that no aggregation runs over every cluster. #}
{% set n_side = 'n_b' if side == 'b' else 'n_e' %}
WITH sizes AS (
  SELECT n AS size, w AS weight
  FROM cell_metrics
  WHERE n = {{ n_side }}
  UNION ALL
  SELECT SUM(n) AS size, SUM(w) AS weight
  FROM cell_metrics
  WHERE n < {{ n_side }}
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
