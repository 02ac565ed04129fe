{# The items of the cells some draw needs (vantage or partner cells), each with its
   intervals for "pick an item of the cell" (docs/method.md §6.5–6.6), in the order of the
   item id's md5 key (`order_key`: independent of the id's type and of collations):
     [lo, lo + w)       ∝ w_i: a split or merge vantage item, and every partner;
     [lo_v, lo_v + v)   ∝ v_i = w_i·others_i: the vantage item of a stable pair i ≠ j,
                        whose probability is Σ_{j ≠ i} w_i w_j / (w_c² − Σw²) (§6.8);
   others_i = w_c − w_i is summed from the OTHER items of the cell (two window frames
   around the current row, as S_c in cells/cell_metrics.sql), never subtracted: a light
   item beside a heavy one keeps its digits. v_total = Σ_i v_i per cell.
   `pair_items` reads only the needed cells' items (one pass over the inputs, each side
   filtered by its needed clusters); the join keeps the exact cells. No item is paired
   with another here. #}
{# blocks of 32 items: pairs/stream.sql sorts a cell's blocks with the probes and then
   reads the items of one block per probe (32: blocks and probe × block rows both small
   beside the items) #}
{% set block = 32 %}
WITH keyed AS (
  SELECT
    i.item_id,
    i.base_cluster AS b,
    i.exp_cluster AS e,
    i.w,
    {{ order_key('i.item_id') }} AS item_key
  FROM pair_items AS i
  JOIN pair_needed_cells AS n ON i.base_cluster = n.b AND i.exp_cluster = n.e
),
laid AS (
  SELECT
    item_id,
    b,
    e,
    w,
    item_key,
    SUM(w) OVER (PARTITION BY b, e ORDER BY item_key, item_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - w AS lo,
    ROW_NUMBER() OVER (PARTITION BY b, e ORDER BY item_key, item_id) AS seq,
    COUNT(*) OVER (PARTITION BY b, e) AS items,
    COALESCE(SUM(w) OVER (PARTITION BY b, e ORDER BY item_key, item_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(w) OVER (PARTITION BY b, e ORDER BY item_key, item_id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS others
  FROM keyed
)
SELECT
  item_id,
  b,
  e,
  w,
  lo,
  seq,
  items,
  others,
  w * others AS v,
  SUM(w * others) OVER (PARTITION BY b, e ORDER BY item_key, item_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - w * others AS lo_v,
  SUM(w * others) OVER (PARTITION BY b, e) AS v_total,
  {# the block of consecutive items the item is in #}
  CAST(FLOOR(CAST(seq - 1 AS DOUBLE) / CAST({{ block }} AS DOUBLE)) AS BIGINT) AS blk
FROM laid
