{# Pointwise metrics per slice value: (b, e, slice) cells carry their cell's metrics
   (pointwise paper §3.1, property 3; eq. 16–18 with I = the slice). #}
WITH ps_lifted AS (
  SELECT
{% for col in slice_columns %}
    s.{{ col.alias }} AS {{ col.alias }},
{% endfor %}
    CAST(SUM(s.n) AS BIGINT) AS items,
    SUM(s.w) AS weight,
{% for metric in metrics %}
    {{ fdiv('SUM(s.w * m.' ~ metric ~ ')', 'SUM(s.w)') }} AS {{ metric }}{{ ',' if not loop.last }}
{% endfor %}
  FROM {{ slice_cells }} AS s
  JOIN pointwise_cells AS m ON s.b = m.b AND s.e = m.e
  GROUP BY {% for col in slice_columns %}{{ ', ' if not loop.first }}s.{{ col.alias }}{% endfor %}

)
SELECT
{% for col in slice_columns %}
  {{ col.alias }} AS {{ col.name|ident }},
{% endfor %}
  items,
  weight,
{% for metric in metrics %}
  {{ metric }},
{% endfor %}
  {{ fdiv('2 * precision * recall', 'precision + recall') }} AS f1_of_overall
FROM ps_lifted
