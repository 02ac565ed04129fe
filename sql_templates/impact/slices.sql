{# Impact metrics per slice value: the (b, e, slice) cells carry their cell's metrics
   (all items of a cell share them: pointwise paper, property 3). #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
)
SELECT
{% for col in slice_columns %}
  s.{{ col.alias }} AS {{ col.name|ident }},
{% endfor %}
  CAST(SUM(s.n) AS BIGINT) AS items,
  SUM(s.w) AS weight,
  CAST(SUM(CASE WHEN m.affected THEN s.n ELSE 0 END) AS BIGINT) AS affected_items,
  SUM(CASE WHEN m.affected THEN s.w ELSE CAST(0 AS DOUBLE) END) AS affected_weight,
{% for metric in metrics %}
  {{ fdiv('SUM(s.w * m.' ~ metric ~ ')', 'SUM(s.w)') }} AS {{ metric }},
{% endfor %}
  {{ fdiv('SUM(s.w * m.jaccard_distance)', 'MAX(t.total_w)') }} AS contribution
FROM {{ slice_cells }} AS s
JOIN cell_metrics AS m ON s.b = m.b AND s.e = m.e
CROSS JOIN total AS t
GROUP BY {% for col in slice_columns %}{{ ', ' if not loop.first }}s.{{ col.alias }}{% endfor %}
