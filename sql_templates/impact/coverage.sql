{# Items outside T (present in one clustering only) and input rows that match no item,
   reported, never silently dropped (ABCDE §3; pointwise paper §3.2). #}
{% set weight %}{% if weight_sources %}COALESCE({{ weight_sources|join(', ') }}, {{ default_weight }}){% else %}{{ default_weight }}{% endif %}{% endset %}
SELECT
  SUM(CASE WHEN n_base > 0 AND n_exp = 0 THEN 1 ELSE 0 END) AS only_base_items,
  SUM(CASE WHEN n_base > 0 AND n_exp = 0 THEN {{ weight }} END) AS only_base_weight,
  SUM(CASE WHEN n_base > 0 AND n_exp = 0 AND {{ weight }} IS NULL THEN 1 ELSE 0 END) AS only_base_unweighted,
  SUM(CASE WHEN n_base = 0 AND n_exp > 0 THEN 1 ELSE 0 END) AS only_exp_items,
  SUM(CASE WHEN n_base = 0 AND n_exp > 0 THEN {{ weight }} END) AS only_exp_weight,
  SUM(CASE WHEN n_base = 0 AND n_exp > 0 AND {{ weight }} IS NULL THEN 1 ELSE 0 END) AS only_exp_unweighted,
  SUM(CASE WHEN n_base = 0 AND n_exp = 0 AND n_weights > 0 THEN 1 ELSE 0 END) AS unused_weights,
  SUM(CASE WHEN n_base = 0 AND n_exp = 0 AND n_attributes > 0 THEN 1 ELSE 0 END) AS unused_attributes,
  SUM(CASE WHEN n_base > 0 AND n_exp > 0 AND n_attributes = 0 THEN 1 ELSE 0 END) AS without_attributes
FROM items
