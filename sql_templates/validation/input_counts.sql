{# Rows and NULL ids of each input (cheap: no join). Compared with the rows the join
   saw, they reveal ids repeated in an input, and side-input rows matching no item.
   `bad_weights`: rows of an input with a weight column whose weight is not a finite
   number in [WEIGHT_MIN, WEIGHT_MAX] (abcde.templates), counted over the whole input
   (a cheap upper bound: the check itself counts only rows that meet an item, and runs
   over the join only when this is > 0). With `id_sums` (DuckDB and PostgreSQL), also each
   clustering's non-NULL ids and the sum of a 64-bit hash of them (`ids`, `id_hash`):
   the multiset test of abcde.cells.same_ids, which lets the join be an inner one.
   With `repeats` (scripts, which cannot go back to the inputs for the ids the engines'
   slow path names), each input in it is read grouped by id, in the same one pass:
   `repeated_ids`, the ids on more than one row, and `repeated_example`, the least of
   them; the other inputs give 0 and NULL. #}
{% for input in inputs %}
{{ 'UNION ALL' if not loop.first }}
{% if input in repeats %}
SELECT
  '{{ input }}' AS input,
  COALESCE(SUM(id_rows), 0) AS input_rows,
  COALESCE(SUM(CASE WHEN item_id IS NULL THEN id_rows ELSE 0 END), 0) AS null_ids,
{% if id_sums %}
  COALESCE(SUM(CASE WHEN item_id IS NULL THEN 0 ELSE id_rows END), 0) AS ids,
  NULL AS id_hash,
{% endif %}
  COALESCE(SUM(bad_weights), 0) AS bad_weights,
  SUM(CASE WHEN item_id IS NOT NULL AND id_rows > 1 THEN 1 ELSE 0 END) AS repeated_ids,
  MIN(CASE WHEN item_id IS NOT NULL AND id_rows > 1 THEN item_id END) AS repeated_example
FROM (
  SELECT
    item_id,
    COUNT(*) AS id_rows,
{% if input in weighted %}
    SUM(CASE WHEN NOT {{ valid_weight('weight') }} THEN 1 ELSE 0 END) AS bad_weights
{% else %}
    0 AS bad_weights
{% endif %}
  FROM {{ input }}_in
  GROUP BY item_id
) AS by_id
{% else %}
SELECT
  '{{ input }}' AS input,
  COUNT(*) AS input_rows,
{% if input in ('base', 'exp') %}
  {# counted in cell_rows (null_item_base, null_item_exp): no column read here #}
  0 AS null_ids,
{% else %}
  COUNT(*) - COUNT(item_id) AS null_ids,
{% endif %}
{% if id_sums %}
{% if input in ('base', 'exp') %}
  COUNT(item_id) AS ids,
  SUM({{ id_hash('item_id') }}) AS id_hash,
{% else %}
  COUNT(item_id) AS ids,
  NULL AS id_hash,
{% endif %}
{% endif %}
{% if input in weighted %}
  SUM(CASE WHEN NOT {{ valid_weight('weight') }} THEN 1 ELSE 0 END) AS bad_weights
{% else %}
  0 AS bad_weights
{% endif %}
{% if repeats %}
  , 0 AS repeated_ids,
  CAST(NULL AS {{ item_type }}) AS repeated_example
{% endif %}
FROM {{ input }}_in
{% endif %}
{% endfor %}
