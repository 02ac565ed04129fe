{# What an item sample drew, for its fingerprint: 31 bits of md5 of each sampled item id
   (as text), summed as integers with its draw count — exact in any order, the same on
   every engine. The sample's rows (its --size), never the population. #}
SELECT
  COUNT(*) AS unique_items,
  SUM(CAST(FLOOR({{ uniform(literal('sample'), 'item_id') }} * CAST(2147483648 AS DOUBLE)) AS BIGINT)) AS item_digest,
  SUM(CAST(FLOOR({{ uniform(literal('sample'), 'item_id', 'draw_count') }} * CAST(2147483648 AS DOUBLE)) AS BIGINT)) AS draw_digest
FROM {{ relation }}
