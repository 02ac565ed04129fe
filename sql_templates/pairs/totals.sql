{# Σ of the pair weights per class (docs/method.md §6): the multipliers of the estimators (docs/method.md §8).
   'stable' includes the self pairs. `judgeable_<class>`: the class's unique unordered
   non-self pairs of positive probability (half its ordered pairs, pairs/strata.sql) —
   how many questions a budget fill can find at most. #}
SELECT
  COALESCE(SUM(t), CAST(0 AS DOUBLE)) AS total,
  COALESCE(SUM(CASE WHEN pair_class = 'split' THEN t END), CAST(0 AS DOUBLE)) AS split,
  COALESCE(SUM(CASE WHEN pair_class = 'merge' THEN t END), CAST(0 AS DOUBLE)) AS merge,
  COALESCE(SUM(CASE WHEN pair_class = 'stable' THEN t END), CAST(0 AS DOUBLE)) AS stable,
{% for c in ('split', 'merge', 'stable') %}
  COALESCE(SUM(CASE WHEN pair_class = '{{ c }}' THEN ordered_pairs END), CAST(0 AS DOUBLE)) * CAST(0.5 AS DOUBLE) AS judgeable_{{ c }},
{% endfor %}
  COUNT(*) AS strata
FROM pair_strata
