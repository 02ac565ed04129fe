DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_stream";

CREATE TABLE "proj"."ds"."abcde_pair_stream" AS
WITH probes AS (
  SELECT
    d,
    0 AS role,
    b,
    e,
    (
      CAST((
        CAST('0x' || SUBSTRING(MD5(CAST(7 AS TEXT) || ':' || CAST('i' AS TEXT) || ':' || CAST(d AS TEXT)), 1, 13) AS BIGINT)
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) * w AS pos
  FROM "proj"."ds"."abcde_pair_draw_cells" AS pair_draw_cells
  UNION ALL
  SELECT
    d,
    1 AS role,
    partner_b AS b,
    partner_e AS e,
    (
      CAST((
        CAST('0x' || SUBSTRING(MD5(CAST(7 AS TEXT) || ':' || CAST('j' AS TEXT) || ':' || CAST(d AS TEXT)), 1, 13) AS BIGINT)
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) * partner_w AS pos
  FROM "proj"."ds"."abcde_pair_draw_cells" AS pair_draw_cells
), stacked AS (
  SELECT
    b,
    e,
    lo AS pos,
    0 AS is_draw,
    seq,
    CAST(NULL AS BIGINT) AS d,
    CAST(NULL AS INT) AS role
  FROM "proj"."ds"."abcde_pair_cell_items" AS pair_cell_items
  UNION ALL
  SELECT
    b,
    e,
    pos,
    1 AS is_draw,
    CAST(NULL AS BIGINT) AS seq,
    d,
    role
  FROM probes
), chosen AS (
  SELECT
    b,
    e,
    d,
    role,
    is_draw,
    MAX(seq) OVER (
      PARTITION BY b, e
      ORDER BY pos, is_draw
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS seq
  FROM stacked
), picked AS (
  SELECT
    c.d,
    c.role,
    it.item_id
  FROM chosen AS c
  JOIN "proj"."ds"."abcde_pair_cell_items" AS it
    ON c.b = it.b AND c.e = it.e AND c.seq = it.seq
  WHERE
    c.is_draw = 1
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
  CASE
    WHEN c.pair_class = 'stable' AND p.item_i = p.item_j
    THEN 'self'
    ELSE c.pair_class
  END AS pair_class,
  c.label,
  c.b AS base_cluster_i,
  c.e AS exp_cluster_i,
  c.partner_b AS base_cluster_j,
  c.partner_e AS exp_cluster_j
FROM pairs AS p
JOIN "proj"."ds"."abcde_pair_draw_cells" AS c
  ON p.d = c.d;
