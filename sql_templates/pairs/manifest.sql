{# The manifest of a pair sample as one row (the JSON manifest of `abcde sample-pairs`,
   flattened: abcde.sampling.exported reads it back): the design (population, alpha),
   what was asked (seed, budget, stream length), the fill (pairs/fill.sql), what was
   drawn (pairs_*: ordered, unordered and judgeable pairs, per class the unique pairs
   and draws), per class key the design's totals (classes_<key>_<column>,
   pairs/totals.sql: the estimators' multipliers, docs/method.md §6.4, §6.9), the self
   pairs' exact parts (exact_*, pairs/self_pairs.sql), the exact impact metrics, the
   fingerprint of the cells (fp_*), and the sample's id (pairs/sample_id.sql, as the
   engines compute it). #}
WITH drawn AS (
  SELECT
    COUNT(*) AS pairs_ordered,
    COUNT(DISTINCT pair_id) AS pairs_unordered,
{% for c in classes %}
    COUNT(DISTINCT CASE WHEN pair_class = '{{ c }}' THEN pair_id END) AS pairs_{{ c }}_pairs,
    SUM(CASE WHEN pair_class = '{{ c }}' THEN draw_count ELSE 0 END) AS pairs_{{ c }}_draws,
{% endfor %}
    SUM(draw_count) AS draws
  FROM pair_sample
),
classes AS (
  SELECT
{% for k in class_keys %}
{% for c in total_columns %}
    COALESCE(MAX(CASE WHEN class_key = '{{ k }}' THEN {{ c }} END), CAST(0 AS DOUBLE)) AS classes_{{ k }}_{{ c }}{{ ',' if not loop.last }}
{% endfor %}{{ ',' if not loop.last }}
{% endfor %}
  FROM pair_totals
),
self_parts AS (
  SELECT
    delta_precision AS exact_delta_precision,
    affected_good_index AS exact_affected_good_index,
    u_self AS exact_u_self
  FROM pair_self
),
fp AS (
  SELECT cells AS fp_cells, items AS fp_items, weight AS fp_weight, cell_hash AS fp_cell_hash,
         item_hash AS fp_item_hash, weight_hash AS fp_weight_hash
  FROM fingerprint
)
SELECT
  {{ literal(version) }} AS abcde_version,
  'pairs' AS kind,
  2 AS design_version,
  {{ literal(population) }} AS population,
  CAST({{ alpha|float }} AS DOUBLE) AS alpha,
  {{ seed }} AS seed,
  {{ budget }} AS budget,
  {{ n }} AS stream_draws,
  COALESCE(d.draws, 0) AS draws,
  fl.budget_filled,
  fl.judgeable_found,
  fl.budget_possible,
  fl.fill_note,
  {{ 'TRUE' if stratified else 'FALSE' }} AS stratified,
  {{ literal(allocation|string) if stratified else 'CAST(NULL AS VARCHAR)' }} AS strata_allocation,
  d.pairs_ordered,
  d.pairs_unordered,
  d.pairs_unordered AS pairs_judgeable,
{% for c in classes %}
  d.pairs_{{ c }}_pairs,
  COALESCE(d.pairs_{{ c }}_draws, 0) AS pairs_{{ c }}_draws,
{% endfor %}
{% for k in class_keys %}
{% for c in total_columns %}
  c.classes_{{ k }}_{{ c }},
{% endfor %}
{% endfor %}
  x.exact_delta_precision,
  x.exact_affected_good_index,
  x.exact_u_self,
{% for c in overall_columns %}
  o.{{ c }},
{% endfor %}
  f.fp_cells,
  f.fp_items,
  f.fp_weight,
  f.fp_cell_hash,
  f.fp_item_hash,
  f.fp_weight_hash,
  i.pair_digest,
  i.sample_id
FROM drawn AS d
CROSS JOIN classes AS c
CROSS JOIN self_parts AS x
CROSS JOIN pair_fill AS fl
CROSS JOIN pair_sample_id AS i
CROSS JOIN fp AS f
CROSS JOIN overall AS o
