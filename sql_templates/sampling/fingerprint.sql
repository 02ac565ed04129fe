{# A cheap fingerprint of the compared inputs, identical on every engine for the same
   data: counts and sums over the cells (b, e) of md5-derived values — the clusterings'
   structure and weights, at the cost of one pass over the cells, not the items. Item ids
   enter through the digest of the sample itself (`sample` in
   abcde.sample_files.manifest.fingerprint). #}
SELECT
  COUNT(*) AS cells,
  SUM(n) AS items,
  SUM(w) AS weight,
  SUM({{ uniform(literal('fingerprint'), 'b', 'e') }}) AS cell_hash,
  SUM(n * {{ uniform(literal('fingerprint'), 'b', 'e') }}) AS item_hash,
  SUM(w * {{ uniform(literal('fingerprint'), 'b', 'e') }}) AS weight_hash
FROM cells
