{# What an item sample drew, for its fingerprint: 31 bits of md5 of each sampled item id
   (as text), summed as integers with its draw count — exact in any order, the same on
   every engine. The sample's rows (its --size), never the population. (A draw count is
   a DOUBLE holding an integer; it enters the key as a BIGINT, capped at 4e18.) #}
SELECT
  COUNT(*) AS unique_items,
  SUM(CAST(FLOOR({{ uniform(literal('sample'), 'item_id') }} * CAST(2147483648 AS DOUBLE)) AS BIGINT)) AS item_digest,
  SUM(CAST(FLOOR({{ uniform(literal('sample'), 'item_id', 'CAST(LEAST(draw_count, CAST(4e18 AS DOUBLE)) AS BIGINT)') }} * CAST(2147483648 AS DOUBLE)) AS BIGINT)) AS draw_digest
FROM {{ relation }}
