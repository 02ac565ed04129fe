{# The manifest of a pair sample as one row (the JSON manifest of `abcde sample-pairs`,
   flattened: abcde.sampling.exported reads it back): what was asked (population, seed,
   budget, stream length), the fill (budget_filled, judgeable pairs found), what was
   drawn (pairs_*: ordered, unordered, judgeable and self pairs, and per class the
   unique pairs and draws), the population's class totals (totals_*: the estimators'
   multipliers, docs/method.md §6.4) and judgeable pairs, the exact impact metrics, the
   fingerprint of the cells (fp_*), and the sample's id: the md5 of integer parts, the
   same on every engine. #}
WITH drawn AS (
  SELECT
    COUNT(*) AS pairs_ordered,
    COUNT(DISTINCT pair_id) AS pairs_unordered,
    COUNT(DISTINCT CASE WHEN pair_class <> 'self' THEN pair_id END) AS pairs_judgeable,
    SUM(CASE WHEN pair_class = 'self' THEN 1 ELSE 0 END) AS pairs_self,
{% for c in classes %}
    COUNT(DISTINCT CASE WHEN pair_class = '{{ c }}' THEN pair_id END) AS pairs_{{ c }}_pairs,
    SUM(CASE WHEN pair_class = '{{ c }}' THEN draw_count ELSE 0 END) AS pairs_{{ c }}_draws,
{% endfor %}
    SUM(draw_count) AS draws
  FROM pair_sample
),
totals AS (
  SELECT
    total AS totals_total, split AS totals_split, merge AS totals_merge, stable AS totals_stable,
    CAST(FLOOR(judgeable_split + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_pairs_split,
    CAST(FLOOR(judgeable_merge + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_pairs_merge,
    CAST(FLOOR(judgeable_stable + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_pairs_stable
  FROM pair_totals
),
digest AS (
  SELECT CAST(COALESCE(pair_digest, 0) AS BIGINT) AS pair_digest FROM pair_sample_digest
),
fp AS (
  SELECT cells AS fp_cells, items AS fp_items, weight AS fp_weight, cell_hash AS fp_cell_hash,
         item_hash AS fp_item_hash, weight_hash AS fp_weight_hash
  FROM fingerprint
)
SELECT
  {{ literal(version) }} AS abcde_version,
  'pairs' AS kind,
  {{ literal(population) }} AS population,
  {{ seed }} AS seed,
  {{ budget }} AS budget,
  {{ n }} AS stream_draws,
  COALESCE(d.draws, 0) AS draws,
  fl.budget_filled,
  fl.judgeable_found,
  fl.budget_possible,
  fl.fill_note,
  FALSE AS stratified,
  d.pairs_ordered,
  d.pairs_unordered,
  d.pairs_judgeable,
  COALESCE(d.pairs_self, 0) AS pairs_self,
{% for c in classes %}
  d.pairs_{{ c }}_pairs,
  COALESCE(d.pairs_{{ c }}_draws, 0) AS pairs_{{ c }}_draws,
{% endfor %}
  t.*,
  fl.population_judgeable AS population_pairs_judgeable,
  o.*,
  f.*,
  g.pair_digest,
  SUBSTR({{ md5_hex("'pairs'", literal(population), seed|string, budget|string, n|string, 'd.pairs_ordered', 'g.pair_digest', 'f.fp_cells', 'f.fp_items') }}, 1, 12) AS sample_id
FROM drawn AS d
CROSS JOIN totals AS t
CROSS JOIN pair_fill AS fl
CROSS JOIN digest AS g
CROSS JOIN fp AS f
CROSS JOIN overall AS o
