{# Pointwise metrics of every truth (side = b) or actual (side = e) cluster: the
   weighted average over its items (pointwise paper eq. 16–18, I = the cluster's items
   in T). `loss` is the cluster's share of the overall missing recall (truth clusters:
   weight(C)·(1 − R(C))/W) or precision (actual clusters: weight(C)·(1 − P(C))/W) —
   the paper's "ideal clusters with the worst Recall, actual clusters with the worst
   Precision", weighed by how much of T they hold. #}
WITH pc_total AS (
  SELECT SUM(w) AS total_w FROM pointwise_cells
),
{# a cluster with one cell is that cell (the same expressions, summed over one row); only
   clusters over several cells are grouped — most clusters of a good run have one #}
pc_lifted AS (
  SELECT
    c.{{ side }} AS cluster_id,
    CAST(SUM(c.n) AS BIGINT) AS items,
    SUM(c.w) AS weight,
    COUNT(*) AS cells,
{% for m in metrics %}
    {{ fdiv('SUM(c.w * c.' ~ m ~ ')', 'SUM(c.w)') }} AS {{ m }},
{% endfor %}
    MAX(t.total_w) AS total_w
  FROM pointwise_cells AS c
  CROSS JOIN pc_total AS t
  WHERE c.n < c.n_{{ side }}
  GROUP BY c.{{ side }}
  UNION ALL
  SELECT
    c.{{ side }} AS cluster_id,
    CAST(c.n AS BIGINT) AS items,
    c.w AS weight,
    CAST(1 AS BIGINT) AS cells,
{% for m in metrics %}
    {{ fdiv('c.w * c.' ~ m, 'c.w') }} AS {{ m }},
{% endfor %}
    t.total_w
  FROM pointwise_cells AS c
  CROSS JOIN pc_total AS t
  WHERE c.n = c.n_{{ side }}
)
SELECT
  cluster_id,
  items,
  weight,
  cells,
{% for m in metrics %}
  {{ m }},
{% endfor %}
  {{ fdiv('2 * precision * recall', 'precision + recall') }} AS f1_of_overall,
  {{ fdiv('weight * (1 - ' ~ loss_metric ~ ')', 'total_w') }} AS loss
FROM pc_lifted
