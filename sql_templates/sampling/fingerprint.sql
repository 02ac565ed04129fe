{# A cheap fingerprint of the compared inputs, identical on every engine for the same
   data: counts and sums over the cells (b, e) of md5-derived values, and the per-item
   md5 sums that `cell_rows` computed in its one pass (item ids with their clusters, and
   weights: renaming or moving one item changes the fingerprint). #}
WITH by_cell AS (
  SELECT
    COUNT(*) AS cells,
    SUM(n) AS items,
    SUM(w) AS weight,
    SUM({{ uniform(literal('fingerprint'), 'b', 'e') }}) AS cell_hash,
    SUM(n * {{ uniform(literal('fingerprint'), 'b', 'e') }}) AS item_hash_by_cell,
    SUM(w * {{ uniform(literal('fingerprint'), 'b', 'e') }}) AS weight_hash
  FROM cells
),
by_item AS (
  SELECT
    SUM(item_hash) AS item_hash,
    SUM(item_weight_hash) AS item_weight_hash
  FROM cell_rows
  WHERE common
)
SELECT
  c.cells,
  c.items,
  c.weight,
  c.cell_hash,
  c.item_hash_by_cell,
  c.weight_hash,
  i.item_hash,
  i.item_weight_hash
FROM by_cell AS c
CROSS JOIN by_item AS i
