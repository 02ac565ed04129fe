{# Steps 2 and 3 of the hierarchical draw (docs/method.md §6.5, §6.8): the vantage item i
   in its cell and the partner item j, by window as-of joins partitioned by cell (and by
   the layout of pairs/cell_items.sql). The result is the persisted stream of draws in
   draw order d (ABCDE App. A, 3.1–3.2): one row per draw, (i, j) with its class, label
   and u_ij/w_ij. No draw is a self pair: self pairs need no verdict and are
   added exactly (ABCDE §5.8; docs/method.md §6.8).
   - split or merge draw: i ∝ w_i in the vantage cell, j ∝ w_j in the partner cell;
   - stable draw: i ∝ w_i·others_i (layout 1), then j ∝ w_j among the OTHER items of the
     cell: a target U·others_i that skips i's own interval (≥ lo_i → + w_i), as split and
     merge partners skip the vantage cell (pairs/partner_cells.sql); a rounding that
     lands on i itself moves to a neighbouring item (probability of order 1e-16).
   P(i, j | stable stratum) = w_i·others_i/Σ_k w_k·others_k · w_j/others_i
                            = w_i·w_j/(w_c² − Σ_k w_k²), as both populations require. #}
WITH cell_totals AS (
  SELECT b, e, MAX(v_total) AS v_total FROM pair_cell_items GROUP BY b, e
),
first_probes AS (
  SELECT
    c.d,
    0 AS role,
    c.b,
    c.e,
    CASE WHEN c.pair_class = 'stable' THEN 1 ELSE 0 END AS layout,
    {{ uniform(seed, literal('i'), 'c.d') }} * CASE WHEN c.pair_class = 'stable' THEN t.v_total ELSE c.w END AS pos
  FROM pair_draw_cells AS c
  JOIN cell_totals AS t ON c.b = t.b AND c.e = t.e
  UNION ALL
  SELECT
    d,
    1 AS role,
    partner_b AS b,
    partner_e AS e,
    0 AS layout,
    {{ uniform(seed, literal('j'), 'd') }} * partner_w AS pos
  FROM pair_draw_cells
  WHERE pair_class <> 'stable'
),
{# Each probe's item is the last of its cell's layout whose start is at or below the
   probe's position (MAX(seq) over lo ≤ pos: a window as-of join). Done in two steps so
   that only the cells' blocks are sorted, not their items: blocks of consecutive
   items (`blk` of pairs/cell_items.sql) with the smallest start in each; the last block
   with a start ≤ pos (window over blocks and probes); then that block's items, joined by
   block. The item found is the same as a window over all items would find. #}
first_blocks AS (
  SELECT b, e, 0 AS layout, blk, MIN(lo) AS pos FROM pair_cell_items GROUP BY b, e, blk
  UNION ALL
  SELECT b, e, 1 AS layout, blk, MIN(lo_v) AS pos FROM pair_cell_items WHERE items > 1 GROUP BY b, e, blk
),
first_stacked AS (
  SELECT b, e, layout, pos, 0 AS is_draw, blk, CAST(NULL AS BIGINT) AS d, CAST(NULL AS INTEGER) AS role
  FROM first_blocks
  UNION ALL
  SELECT b, e, layout, pos, 1 AS is_draw, CAST(NULL AS BIGINT) AS blk, d, role FROM first_probes
),
first_block AS (
  SELECT
    b,
    e,
    layout,
    pos,
    d,
    role,
    is_draw,
    MAX(blk) OVER (PARTITION BY b, e, layout ORDER BY pos, is_draw ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS blk
  FROM first_stacked
),
first_chosen AS (
  SELECT f.d, f.role, f.b, f.e, MAX(it.seq) AS seq
  FROM first_block AS f
  JOIN pair_cell_items AS it ON f.b = it.b AND f.e = it.e AND f.blk = it.blk
  WHERE f.is_draw = 1
    AND ((f.layout = 0 AND it.lo <= f.pos) OR (f.layout = 1 AND it.items > 1 AND it.lo_v <= f.pos))
  GROUP BY f.d, f.role, f.b, f.e
),
first_picked AS (
  SELECT c.d, c.role, it.item_id, it.lo, it.w, it.others, it.seq, it.items
  FROM first_chosen AS c
  JOIN pair_cell_items AS it ON c.b = it.b AND c.e = it.e AND c.seq = it.seq
),
stable_probes AS (
  SELECT
    d,
    b,
    e,
    own_seq,
    items,
    CASE WHEN upos >= own_lo THEN upos + own_w ELSE upos END AS pos
  FROM (
    SELECT
      c.d,
      c.b,
      c.e,
      i.seq AS own_seq,
      i.items,
      i.lo AS own_lo,
      i.w AS own_w,
      {{ uniform(seed, literal('j'), 'c.d') }} * i.others AS upos
    FROM pair_draw_cells AS c
    JOIN first_picked AS i ON c.d = i.d AND i.role = 0
    WHERE c.pair_class = 'stable'
  ) AS s
),
stable_stacked AS (
  SELECT b, e, pos, 0 AS is_draw, blk, CAST(NULL AS BIGINT) AS d
  FROM first_blocks
  WHERE layout = 0
  UNION ALL
  SELECT b, e, pos, 1 AS is_draw, CAST(NULL AS BIGINT) AS blk, d FROM stable_probes
),
stable_block AS (
  SELECT
    b,
    e,
    pos,
    d,
    is_draw,
    MAX(blk) OVER (PARTITION BY b, e ORDER BY pos, is_draw ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS blk
  FROM stable_stacked
),
stable_chosen AS (
  SELECT p.d, p.b, p.e, p.own_seq, p.items, MAX(it.seq) AS seq
  FROM stable_block AS f
  JOIN stable_probes AS p ON f.d = p.d
  JOIN pair_cell_items AS it ON f.b = it.b AND f.e = it.e AND f.blk = it.blk
  WHERE f.is_draw = 1 AND it.lo <= f.pos
  GROUP BY p.d, p.b, p.e, p.own_seq, p.items
),
stable_fixed AS (
  SELECT
    b,
    e,
    d,
    CASE
      WHEN seq <> own_seq THEN seq
      WHEN own_seq < items THEN own_seq + 1
      ELSE own_seq - 1
    END AS seq
  FROM stable_chosen
),
picked AS (
  SELECT d, role, item_id FROM first_picked
  UNION ALL
  SELECT f.d, 1 AS role, it.item_id
  FROM stable_fixed AS f
  JOIN pair_cell_items AS it ON f.b = it.b AND f.e = it.e AND f.seq = it.seq
),
pairs AS (
  SELECT
    d,
    MAX(CASE WHEN role = 0 THEN item_id END) AS item_i,
    MAX(CASE WHEN role = 1 THEN item_id END) AS item_j
  FROM picked
  GROUP BY d
)
SELECT
  p.d,
  p.item_i,
  p.item_j,
  c.pair_class,
  c.label,
  c.u_over_w,
  c.b AS base_cluster_i,
  c.e AS exp_cluster_i,
  c.partner_b AS base_cluster_j,
  c.partner_e AS exp_cluster_j
FROM pairs AS p
JOIN pair_draw_cells AS c ON p.d = c.d
