DROP TABLE IF EXISTS proj.ds.abcde_pair_stream;

CREATE TABLE proj.ds.abcde_pair_stream AS
WITH cell_totals AS (
  SELECT
    b,
    e,
    MAX(v_total) AS v_total
  FROM proj.ds.abcde_pair_cell_items AS pair_cell_items
  GROUP BY
    b,
    e
), first_probes AS (
  SELECT
    c.d,
    0 AS role,
    c.b,
    c.e,
    CASE WHEN c.pair_class = 'stable' THEN 1 ELSE 0 END AS layout,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              1,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 281474976710656 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              2,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 17592186044416 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              3,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1099511627776 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              4,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 68719476736 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              5,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4294967296 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              6,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 268435456 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              7,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16777216 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              8,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1048576 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              9,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 65536 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              10,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4096 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              11,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 256 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              12,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('i' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) * CASE WHEN c.pair_class = 'stable' THEN t.v_total ELSE c.w END AS pos
  FROM proj.ds.abcde_pair_draw_cells AS c
  JOIN cell_totals AS t
    ON c.b = t.b AND c.e = t.e
  UNION ALL
  SELECT
    d,
    1 AS role,
    partner_b AS b,
    partner_e AS e,
    0 AS layout,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              1,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 281474976710656 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              2,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 17592186044416 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              3,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1099511627776 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              4,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 68719476736 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              5,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4294967296 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              6,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 268435456 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              7,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16777216 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              8,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1048576 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              9,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 65536 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              10,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4096 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              11,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 256 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              12,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16 + (
          CHARINDEX(
            SUBSTRING(
              MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(d AS VARCHAR))),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) * partner_w AS pos
  FROM proj.ds.abcde_pair_draw_cells AS pair_draw_cells
  WHERE
    pair_class <> 'stable'
), first_blocks AS (
  SELECT
    b,
    e,
    0 AS layout,
    blk,
    MIN(lo) AS pos
  FROM proj.ds.abcde_pair_cell_items AS pair_cell_items
  GROUP BY
    b,
    e,
    blk
  UNION ALL
  SELECT
    b,
    e,
    1 AS layout,
    blk,
    MIN(lo_v) AS pos
  FROM proj.ds.abcde_pair_cell_items AS pair_cell_items
  WHERE
    items > 1
  GROUP BY
    b,
    e,
    blk
), first_stacked AS (
  SELECT
    b,
    e,
    layout,
    pos,
    0 AS is_draw,
    blk,
    CAST(NULL AS BIGINT) AS d,
    CAST(NULL AS INT) AS role
  FROM first_blocks
  UNION ALL
  SELECT
    b,
    e,
    layout,
    pos,
    1 AS is_draw,
    CAST(NULL AS BIGINT) AS blk,
    d,
    role
  FROM first_probes
), first_block AS (
  SELECT
    b,
    e,
    layout,
    pos,
    d,
    role,
    is_draw,
    MAX(blk) OVER (
      PARTITION BY b, e, layout
      ORDER BY pos, is_draw
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS blk
  FROM first_stacked
), first_chosen AS (
  SELECT
    f.d,
    f.role,
    f.b,
    f.e,
    MAX(it.seq) AS seq
  FROM first_block AS f
  JOIN proj.ds.abcde_pair_cell_items AS it
    ON f.b = it.b AND f.e = it.e AND f.blk = it.blk
  WHERE
    f.is_draw = 1
    AND (
      (
        f.layout = 0 AND it.lo <= f.pos
      )
      OR (
        f.layout = 1 AND it.items > 1 AND it.lo_v <= f.pos
      )
    )
  GROUP BY
    f.d,
    f.role,
    f.b,
    f.e
), first_picked AS (
  SELECT
    c.d,
    c.role,
    it.item_id,
    it.lo,
    it.w,
    it.others,
    it.seq,
    it.items
  FROM first_chosen AS c
  JOIN proj.ds.abcde_pair_cell_items AS it
    ON c.b = it.b AND c.e = it.e AND c.seq = it.seq
), stable_probes AS (
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
      (
        CAST((
          (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                1,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 281474976710656 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                2,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 17592186044416 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                3,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 1099511627776 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                4,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 68719476736 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                5,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 4294967296 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                6,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 268435456 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                7,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 16777216 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                8,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 1048576 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                9,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 65536 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                10,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 4096 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                11,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 256 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                12,
                1
              ),
              '0123456789abcdef'
            ) - 1
          ) * 16 + (
            CHARINDEX(
              SUBSTRING(
                MD5(CONCAT(CAST(7 AS VARCHAR), ':', CAST('j' AS VARCHAR), ':', CAST(c.d AS VARCHAR))),
                13,
                1
              ),
              '0123456789abcdef'
            ) - 1
          )
        ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
      ) * i.others AS upos
    FROM proj.ds.abcde_pair_draw_cells AS c
    JOIN first_picked AS i
      ON c.d = i.d AND i.role = 0
    WHERE
      c.pair_class = 'stable'
  ) AS s
), stable_stacked AS (
  SELECT
    b,
    e,
    pos,
    0 AS is_draw,
    blk,
    CAST(NULL AS BIGINT) AS d
  FROM first_blocks
  WHERE
    layout = 0
  UNION ALL
  SELECT
    b,
    e,
    pos,
    1 AS is_draw,
    CAST(NULL AS BIGINT) AS blk,
    d
  FROM stable_probes
), stable_block AS (
  SELECT
    b,
    e,
    pos,
    d,
    is_draw,
    MAX(blk) OVER (
      PARTITION BY b, e
      ORDER BY pos, is_draw
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS blk
  FROM stable_stacked
), stable_chosen AS (
  SELECT
    p.d,
    p.b,
    p.e,
    p.own_seq,
    p.items,
    MAX(it.seq) AS seq
  FROM stable_block AS f
  JOIN stable_probes AS p
    ON f.d = p.d
  JOIN proj.ds.abcde_pair_cell_items AS it
    ON f.b = it.b AND f.e = it.e AND f.blk = it.blk
  WHERE
    f.is_draw = 1 AND it.lo <= f.pos
  GROUP BY
    p.d,
    p.b,
    p.e,
    p.own_seq,
    p.items
), stable_fixed AS (
  SELECT
    b,
    e,
    d,
    CASE
      WHEN seq <> own_seq
      THEN seq
      WHEN own_seq < items
      THEN own_seq + 1
      ELSE own_seq - 1
    END AS seq
  FROM stable_chosen
), picked AS (
  SELECT
    d,
    role,
    item_id
  FROM first_picked
  UNION ALL
  SELECT
    f.d,
    1 AS role,
    it.item_id
  FROM stable_fixed AS f
  JOIN proj.ds.abcde_pair_cell_items AS it
    ON f.b = it.b AND f.e = it.e AND f.seq = it.seq
), pairs AS (
  SELECT
    d,
    MAX(CASE WHEN role = 0 THEN item_id END) AS item_i,
    MAX(CASE WHEN role = 1 THEN item_id END) AS item_j
  FROM picked
  GROUP BY
    d
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
JOIN proj.ds.abcde_pair_draw_cells AS c
  ON p.d = c.d;
