{# The items of the cells some draw needs (vantage or partner cells), each with its
   interval [lo, lo + weight) of its cell's weight, in the order of the item id's md5 key
   (`order_key`: independent of the id's type and of collations): the candidates of
   "pick an item of the cell ∝ weight" (docs/method.md §6). `pair_items` reads only the needed
   cells' items (one pass over the inputs, each side filtered by its needed clusters);
   the join keeps the exact cells. No item is paired with another here. #}
WITH keyed AS (
  SELECT
    i.item_id,
    i.base_cluster AS b,
    i.exp_cluster AS e,
    i.w,
    {{ order_key('i.item_id') }} AS item_key
  FROM pair_items AS i
  JOIN pair_needed_cells AS n ON i.base_cluster = n.b AND i.exp_cluster = n.e
)
SELECT
  item_id,
  b,
  e,
  w,
  SUM(w) OVER (PARTITION BY b, e ORDER BY item_key, item_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - w AS lo,
  ROW_NUMBER() OVER (PARTITION BY b, e ORDER BY item_key, item_id) AS seq
FROM keyed
