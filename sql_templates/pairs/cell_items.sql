{# The items of the cells some draw needs (vantage or partner cells), each with its
   interval [lo, lo + weight) of its cell's weight, in the order of the item id's md5 key
   (`order_key`: independent of the id's type and of collations): the candidates of
   "pick an item of the cell ∝ weight" (SPEC §6). One pass over `items`, filtered by a
   join on the (few) needed cells; no item is paired with another here. #}
WITH needed AS (
  SELECT b, e FROM pair_draw_cells
  UNION
  SELECT partner_b AS b, partner_e AS e FROM pair_draw_cells
),
keyed AS (
  SELECT
    i.item_id,
    i.base_cluster AS b,
    i.exp_cluster AS e,
    i.w,
    {{ order_key('i.item_id') }} AS item_key
  FROM items AS i
  JOIN needed AS n ON i.base_cluster = n.b AND i.exp_cluster = n.e
  WHERE i.common
)
SELECT
  item_id,
  b,
  e,
  w,
  SUM(w) OVER (PARTITION BY b, e ORDER BY item_key, item_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - w AS lo,
  ROW_NUMBER() OVER (PARTITION BY b, e ORDER BY item_key, item_id) AS seq
FROM keyed
