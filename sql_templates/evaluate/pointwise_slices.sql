{# Pointwise metrics per slice value: (b, e, slice) cells carry their cell's metrics
   (pointwise paper §3.1, property 3; eq. 16–18 with I = the slice). With `by_cluster`,
   per truth cluster and slice value, the columns by their aliases: the sums the
   estimator over sampled clusters needs (docs/method.md §4.4). #}
WITH ps_lifted AS (
  SELECT
{% if by_cluster %}
    s.b AS b,
{% endif %}
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
  GROUP BY {% if by_cluster %}s.b, {% endif %}{% for col in slice_columns %}{{ ', ' if not loop.first }}s.{{ col.alias }}{% endfor %}

)
{% if by_cluster %}
SELECT * FROM ps_lifted
{% else %}
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
{% endif %}
