{# Impact metrics of every Base (side = b) or Exp (side = e) cluster, and its
   contribution weight(C)·JD(C)/W to the overall JaccardDistance (ABCDE §4.1).
   With affected_only, only clusters that changed (all others contribute 0). #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
)
SELECT
  c.{{ side }} AS cluster_id,
  CAST(SUM(c.n) AS BIGINT) AS items,
  SUM(c.w) AS weight,
  COUNT(*) AS cells,
  CAST(SUM(CASE WHEN c.affected THEN c.n ELSE 0 END) AS BIGINT) AS affected_items,
  SUM(CASE WHEN c.affected THEN c.w ELSE CAST(0 AS DOUBLE) END) AS affected_weight,
{% for m in metrics %}
  {{ fdiv('SUM(c.w * c.' ~ m ~ ')', 'SUM(c.w)') }} AS {{ m }},
{% endfor %}
  {{ fdiv('SUM(c.w * c.jaccard_distance)', 'MAX(t.total_w)') }} AS contribution
FROM cell_metrics AS c
CROSS JOIN total AS t
{% if affected_only %}
WHERE c.affected
{% endif %}
GROUP BY c.{{ side }}
