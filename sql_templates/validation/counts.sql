{# Totals over `cell_rows`: rows of each input seen by the join, T, NULL ids, ids
   repeated on one side, and every check. The checks in `derived` are read off the
   group keys and row counts (a NULL cluster id of T is a NULL key; an item of T without
   a weight or attributes row is a row the side input did not match, or a NaN weight
   sum); `row_checks` were counted per row in `cell_rows`. #}
WITH repeated AS (
  {# an id outside T on several rows (maybe in several clusters: several groups) #}
  SELECT one_side_id
  FROM cell_rows
  WHERE NOT common AND one_side_id IS NOT NULL
  GROUP BY one_side_id
  HAVING SUM(item_rows) > 1
)
SELECT
  SUM(CASE WHEN side <> 2 THEN item_rows ELSE 0 END) AS joined_base_rows,
  SUM(CASE WHEN side <> 1 THEN item_rows ELSE 0 END) AS joined_exp_rows,
{% if weight_rows %}
  SUM(weight_rows) AS matched_weight_rows,
{% elif weights_table %}
  {# a missing weight is NaN: an item outside T met the weights table when its weight is
     finite; every item of T did unless the missing_weight check fails #}
  SUM(CASE WHEN common OR {{ is_finite('w') }} THEN item_rows ELSE 0 END) AS matched_weight_rows,
{% else %}
  0 AS matched_weight_rows,
{% endif %}
  {% if attributes_table %}SUM(attribute_rows){% else %}0{% endif %} AS matched_attribute_rows,
  SUM(CASE WHEN common THEN item_rows ELSE 0 END) AS common_rows,
  SUM(CASE WHEN side = 1 AND one_side_id IS NULL THEN item_rows ELSE 0 END) AS null_item_base,
  SUM(CASE WHEN side = 2 AND one_side_id IS NULL THEN item_rows ELSE 0 END) AS null_item_exp,
  (SELECT COUNT(*) FROM repeated) AS repeated_one_side
{% if defaulted %}
  {# items of T the weights table lacks, weighted --missing-weight (for coverage) #}
  , SUM(CASE WHEN common THEN item_rows - weight_rows ELSE 0 END) AS defaulted_weight
{% endif %}
{% for name in derived %}
{% if name == 'null_cluster_base' %}
  , SUM(CASE WHEN common AND b IS NULL THEN item_rows ELSE 0 END) AS null_cluster_base
{% elif name == 'null_cluster_exp' %}
  , SUM(CASE WHEN common AND e IS NULL THEN item_rows ELSE 0 END) AS null_cluster_exp
{% elif name == 'missing_weight' and weight_rows %}
  , SUM(CASE WHEN common THEN item_rows - weight_rows ELSE 0 END) AS missing_weight
{% elif name == 'missing_weight' %}
  {# cells whose weight sum is not finite: a bound, counted exactly in the join if > 0 #}
  , SUM(CASE WHEN common AND NOT {{ is_finite('w') }} THEN 1 ELSE 0 END) AS missing_weight
{% elif name == 'without_attributes' %}
  , SUM(CASE WHEN common THEN item_rows - attribute_rows ELSE 0 END) AS without_attributes
{% else %}
  {{ raise_unknown_check(name) }}
{% endif %}
{% endfor %}
{% for name in row_checks %}
  , SUM({{ name }}_n) AS {{ name }}
{% endfor %}
FROM cell_rows
