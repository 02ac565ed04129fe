{# Every cluster of a truth of complete clusters with what the estimator over sampled
   clusters needs (docs/method.md §4.4): its size (every truth item, as it was sampled),
   the weight x_t of its items in the run and their pointwise metrics m_t (y_t = x_t·m_t),
   and with a column design its inclusion probability. #}
SELECT
  y.cluster_id,
  y.items AS size,
  COALESCE(t.weight, CAST(0 AS DOUBLE)) AS weight,
{% for m in metrics %}
  t.{{ m }},
{% endfor %}
{% if design %}
  d.p_min,
  d.p_max,
  d.p_rows,
  d.rows AS design_rows
{% else %}
  CAST(NULL AS DOUBLE) AS p_min
{% endif %}
FROM yandex_themes AS y
LEFT JOIN truth_clusters AS t ON y.cluster_id = t.cluster_id
{% if design %}
LEFT JOIN truth_design AS d ON y.cluster_id = d.b
{% endif %}
