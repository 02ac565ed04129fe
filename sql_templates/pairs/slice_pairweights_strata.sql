{# Per slice I of vantage items, the pairweight of each stratum of a stratified sample
   (abcde.stratified): Σ_{i ∈ I} Σ_{j: (i,j) split or merge} and Σ_{i ∈ I} Σ_{j: stable
   or self}, of u_ij (abcde) or w_ij (jaccard); their sum is pairs/slice_pairweights.sql's
   pairweight (ABCDE App. B.1). Per item i of cell c:
   abcde   split+merge w_i·[(W_b − w_c)/(W·W_b) + (W_e − w_c)/(W·W_e)],
           stable      w_i·w_c·|W_b − W_e|/(W·W_b·W_e);
   jaccard split+merge w_i·(W_b − w_c + W_e − w_c)/(W·U), stable w_i·w_c/(W·U)
           (affected cells only);
   computed as products of ratios (no overflow or underflow for any scale of weights). #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
)
SELECT
{% for col in slice_columns %}
  s.{{ col.alias }} AS {{ col.name|ident }},
{% endfor %}
  SUM(s.w) AS weight,
{% if population == 'abcde' %}
  SUM({{ fdiv('s.w', 't.total_w') }} * ({{ fdiv('m.split_w', 'm.w_b') }} + {{ fdiv('m.merge_w', 'm.w_e') }})) AS pairweight_split_merge,
  SUM({{ fdiv('s.w', 't.total_w') }} * {{ fdiv('m.w', 'm.w_b') }} * {{ fdiv('ABS(m.split_w - m.merge_w)', 'm.w_e') }}) AS pairweight_stable
{% else %}
  SUM(CASE WHEN m.affected THEN {{ fdiv('s.w', 't.total_w') }} * {{ fdiv('m.split_w + m.merge_w', 'm.u') }} ELSE CAST(0 AS DOUBLE) END) AS pairweight_split_merge,
  SUM(CASE WHEN m.affected THEN {{ fdiv('s.w', 't.total_w') }} * {{ fdiv('m.w', 'm.u') }} ELSE CAST(0 AS DOUBLE) END) AS pairweight_stable
{% endif %}
FROM {{ slice_cells }} AS s
JOIN cell_metrics AS m ON s.b = m.b AND s.e = m.e
CROSS JOIN total AS t
GROUP BY {% for col in slice_columns %}{{ ', ' if not loop.first }}s.{{ col.alias }}{% endfor %}
