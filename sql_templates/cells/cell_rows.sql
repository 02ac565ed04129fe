{# `items` aggregated in one GROUP BY: items of T by cell (b, e) and slice attributes;
   items outside T one group per id (`one_side_id`) with the cluster of the side that
   holds it in b or e, so that coverage can name them; NULL ids grouped by cluster.
   `side` says which clusterings hold the rows (1 Base only, 2 Exp only, 3 both), so
   the rows each clustering contributed are known without summing per row. Rows
   matched by the weights table are counted only when a missing weight is not NaN
   (abcde.validation.nan_for_missing).
   The keys are plain columns and the aggregates plain sums, because this is the one
   pass over the population: every input check that can be is read off these columns
   (validation/counts.sql), `row_checks` are counted per row, and examples are looked up
   in `items` only when a check fails (the slow path). A SQL script, which cannot go
   back for examples, keeps one example id per check (`with_examples`). With `squares`,
   also Σ w² per group: the pair sampler's self pairs and stable pairs need Σ_{i∈c} w_i²
   per cell (docs/method.md §6.8).
   With `common_only`, over `common_items` (the inner join of cells/items.sql, every row
   in T): the same rows with side 3 and no one_side_id, grouped by cell and slice only —
   a narrower key (docs/method.md §2.5). #}
{% from 'validation/checks.sql' import condition %}
SELECT
{% if common_only %}
  3 AS side,
  TRUE AS common,
{% else %}
  side,
  side = 3 AS common,
{% endif %}
  base_cluster AS b,
  exp_cluster AS e,
{% for col in attributes %}
  {{ col.alias }},
{% endfor %}
{% if common_only %}
  CAST(NULL AS {{ item_type }}) AS one_side_id,
{% else %}
  CASE WHEN side <> 3 THEN item_id END AS one_side_id,
{% endif %}
  COUNT(*) AS item_rows,
{% if weight_rows %}
  SUM(in_weights) AS weight_rows,
{% endif %}
{% if attributes_table %}
  SUM(in_attributes) AS attribute_rows,
{% endif %}
  SUM(w) AS w
{% if squares %}
  , SUM(w * w) AS w2
{% endif %}
{% for name in row_checks %}
  , SUM(CASE WHEN {{ condition(name) }} THEN 1 ELSE 0 END) AS {{ name }}_n
{% endfor %}
{% if with_examples %}
{% for name in checks %}
  , MIN(CASE WHEN {{ condition(name) }} THEN item_id END) AS {{ name }}_example
{% endfor %}
{% endif %}
{% if common_only %}
FROM common_items
GROUP BY
  base_cluster,
  exp_cluster
{% for col in attributes %}
  , {{ col.alias }}
{% endfor %}
{% else %}
FROM items
GROUP BY
  side,
  base_cluster,
  exp_cluster,
{% for col in attributes %}
  {{ col.alias }},
{% endfor %}
  CASE WHEN side <> 3 THEN item_id END
{% endif %}
