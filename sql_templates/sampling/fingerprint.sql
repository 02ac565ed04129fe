{# A cheap fingerprint of the compared inputs: counts and sums over the cells (b, e) of
   md5-derived values, identical on every engine for the same cells and weights. #}
SELECT
  COUNT(*) AS cells,
  SUM(n) AS items,
  SUM(w) AS weight,
  SUM({{ uniform(literal('fingerprint'), 'b', 'e') }}) AS cell_hash,
  SUM(n * {{ uniform(literal('fingerprint'), 'b', 'e') }}) AS item_hash,
  SUM(w * {{ uniform(literal('fingerprint'), 'b', 'e') }}) AS weight_hash
FROM cells
