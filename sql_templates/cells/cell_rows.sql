{# `items` aggregated in one GROUP BY: items of T by cell (b, e) and slice attributes;
   items outside T one group per id (`one_side_id`), so that coverage can name them and
   an id repeated on one side shows up as a group of several rows; NULL ids in one
   group. Each input check of abcde.validation is counted here, so that no further pass
   over the population is needed unless a check fails (then its examples are looked up
   in `items`: the slow path, taken only on failure). A SQL script, which cannot go back
   for examples, keeps one example id per group and check (`with_examples`). #}
{% from 'validation/checks.sql' import condition %}
SELECT
  common,
  CASE WHEN common THEN base_cluster END AS b,
  CASE WHEN common THEN exp_cluster END AS e,
{% for col in attributes %}
  CASE WHEN common THEN {{ col.alias }} END AS {{ col.alias }},
{% endfor %}
  CASE WHEN NOT common THEN item_id END AS one_side_id,
  {# the cluster of an item outside T, on the side that holds it #}
  MIN(CASE WHEN NOT common THEN base_cluster END) AS one_side_base_cluster,
  MIN(CASE WHEN NOT common THEN exp_cluster END) AS one_side_exp_cluster,
  COUNT(*) AS item_rows,
  SUM(in_base) AS base_rows,
  SUM(in_exp) AS exp_rows,
  SUM(in_weights) AS weight_rows,
  SUM(in_attributes) AS attribute_rows,
  SUM(w) AS w
{% for name in checks %}
  , SUM(CASE WHEN {{ condition(name) }} THEN 1 ELSE 0 END) AS {{ name }}_n
{% if with_examples %}
  , MIN(CASE WHEN {{ condition(name) }} THEN item_id END) AS {{ name }}_example
{% endif %}
{% endfor %}
FROM items
GROUP BY
  common,
  CASE WHEN common THEN base_cluster END,
  CASE WHEN common THEN exp_cluster END,
{% for col in attributes %}
  CASE WHEN common THEN {{ col.alias }} END,
{% endfor %}
  CASE WHEN NOT common THEN item_id END
