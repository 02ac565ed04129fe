{# Per slice I of vantage items: weight(I) and pairweight(I) = Σ_{i ∈ I} Σ_j u_ij
   (ABCDE App. B.1; resp. Σ w_ij on the jaccard population). Per item i of cell c,
   Σ_j u_ij = w_i·[(W_b − w_c)/(W·W_b) + (W_e − w_c)/(W·W_e) + w_c·|W_b − W_e|/(W·W_b·W_e)]
   and Σ_j w_ij = w_i/W for affected items (0 otherwise); computed as products of ratios
   (w_I/W)·(...), which neither overflow nor underflow for any scale of the weights. #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
)
SELECT
{% for col in slice_columns %}
  s.{{ col.alias }} AS {{ col.name|ident }},
{% endfor %}
  SUM(s.w) AS weight,
{% if population == 'abcde' %}
  SUM({{ fdiv('s.w', 't.total_w') }} * ({{ fdiv('m.split_w', 'm.w_b') }} + {{ fdiv('m.merge_w', 'm.w_e') }}
      + {{ fdiv('m.w', 'm.w_b') }} * {{ fdiv('ABS(m.split_w - m.merge_w)', 'm.w_e') }})) AS pairweight
{% else %}
  SUM(CASE WHEN m.affected THEN {{ fdiv('s.w', 't.total_w') }} ELSE CAST(0 AS DOUBLE) END) AS pairweight
{% endif %}
FROM {{ slice_cells }} AS s
JOIN cell_metrics AS m ON s.b = m.b AND s.e = m.e
CROSS JOIN total AS t
GROUP BY {% for col in slice_columns %}{{ ', ' if not loop.first }}s.{{ col.alias }}{% endfor %}
