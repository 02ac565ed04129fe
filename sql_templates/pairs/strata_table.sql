{# The strata of a stratified sample, one row each (the manifest's `strata` of
   `abcde sample-pairs --strata-allocation`): classes, budget (pairs/allocation.sql),
   seed, design probability q, judgeable pairs, stream length, draws and pairs per class
   (from the combined sample), and the stratum's own check row. #}
{% for h, name, classes, seed in strata %}
SELECT
  {{ h }} AS stratum_index,
  '{{ name }}' AS name,
  '{{ classes|join(",") }}' AS classes,
  a.budget_{{ name }} AS budget,
  {{ seed }} AS seed,
  a.q_{{ name }} AS q,
  a.pairs_{{ name }} AS population_pairs,
  CASE WHEN a.budget_{{ name }} = 0 THEN 0 ELSE {{ n }} END AS stream_draws,
  COALESCE(d.draws, 0) AS draws,
  COALESCE(d.pairs_ordered, 0) AS pairs_ordered,
  COALESCE(d.pairs_unordered, 0) AS pairs_unordered,
  COALESCE(d.pairs_unordered, 0) AS pairs_judgeable,
{% for c in classes_all %}
  COALESCE(d.pairs_{{ c }}_pairs, 0) AS pairs_{{ c }}_pairs,
  COALESCE(d.pairs_{{ c }}_draws, 0) AS pairs_{{ c }}_draws,
{% endfor %}
  f.budget_filled,
  f.fill_note
FROM pair_allocation AS a
CROSS JOIN pair_fill_{{ name }} AS f
CROSS JOIN (
  SELECT
    SUM(draw_count) AS draws,
    COUNT(*) AS pairs_ordered,
    COUNT(DISTINCT pair_id) AS pairs_unordered{% for c in classes_all %},
    COUNT(DISTINCT CASE WHEN pair_class = '{{ c }}' THEN pair_id END) AS pairs_{{ c }}_pairs,
    SUM(CASE WHEN pair_class = '{{ c }}' THEN draw_count ELSE 0 END) AS pairs_{{ c }}_draws{% endfor %}
  FROM pair_sample
  WHERE stratum = '{{ name }}'
) AS d
{{ 'UNION ALL' if not loop.last }}
{% endfor %}
