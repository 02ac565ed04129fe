{# The manifest of an item sample as one row (docs/method.md §7.3): what was asked (seed,
   size), what was drawn (unique items, draws), the exact impact metrics over T, the
   fingerprint of the inputs' cells (fp_*: counts and md5-weighted sums over the cells)
   and of the sample (item and draw digests), and the sample's id: the md5 of the
   integer parts, each CAST to BIGINT (a count summed as a DOUBLE somewhere would print
   as 3700.0), the same on every engine. #}
WITH drawn AS (
  SELECT COUNT(*) AS unique_items, SUM(draw_count) AS draws FROM item_sample
),
digest AS (
  SELECT
    CAST(COALESCE(item_digest, 0) AS BIGINT) AS item_digest,
    CAST(COALESCE(draw_digest, 0) AS BIGINT) AS draw_digest
  FROM item_sample_digest
),
fp AS (
  SELECT cells AS fp_cells, items AS fp_items, weight AS fp_weight, cell_hash AS fp_cell_hash,
         item_hash AS fp_item_hash, weight_hash AS fp_weight_hash
  FROM fingerprint
)
SELECT
  {{ literal(version) }} AS abcde_version,
  'items' AS kind,
  {{ seed }} AS seed,
  {{ size }} AS size,
  d.unique_items,
  COALESCE(d.draws, CAST(0 AS DOUBLE)) AS draws,
  o.*,
  f.*,
  g.item_digest,
  g.draw_digest,
  SUBSTR({{ md5_hex("'items'", seed|string, size|string, 'CAST(d.unique_items AS BIGINT)', 'g.item_digest', 'g.draw_digest', 'CAST(f.fp_cells AS BIGINT)', 'CAST(f.fp_items AS BIGINT)') }}, 1, 12) AS sample_id
FROM drawn AS d
CROSS JOIN digest AS g
CROSS JOIN fp AS f
CROSS JOIN overall AS o
