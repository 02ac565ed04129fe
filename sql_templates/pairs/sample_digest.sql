{# What a pair sample drew, for its id: 31 bits of md5 of each row's (pair_id, item_i,
   item_j, pair_class, draw_count, first_draw), summed as integers — exact in any order,
   the same on every engine. #}
SELECT
  COUNT(*) AS rows_drawn,
  SUM(CAST(FLOOR({{ uniform(literal('sample'), 'pair_id', 'item_i', 'item_j', 'pair_class', 'draw_count', 'first_draw') }} * CAST(2147483648 AS DOUBLE)) AS BIGINT)) AS pair_digest
FROM pair_sample
