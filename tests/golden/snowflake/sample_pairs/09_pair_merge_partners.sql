DROP TABLE IF EXISTS proj.ds.abcde_pair_merge_partners;

CREATE TABLE proj.ds.abcde_pair_merge_partners AS
WITH needed AS (
  SELECT DISTINCT
    e
  FROM proj.ds.abcde_pair_draw_strata AS pair_draw_strata
  WHERE
    pair_class = 'merge'
), keyed AS (
  SELECT
    m.b,
    m.e,
    m.w,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 1, 1),
            '0123456789abcdef'
          ) - 1
        ) * 281474976710656 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 2, 1),
            '0123456789abcdef'
          ) - 1
        ) * 17592186044416 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 3, 1),
            '0123456789abcdef'
          ) - 1
        ) * 1099511627776 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 4, 1),
            '0123456789abcdef'
          ) - 1
        ) * 68719476736 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 5, 1),
            '0123456789abcdef'
          ) - 1
        ) * 4294967296 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 6, 1),
            '0123456789abcdef'
          ) - 1
        ) * 268435456 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 7, 1),
            '0123456789abcdef'
          ) - 1
        ) * 16777216 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 8, 1),
            '0123456789abcdef'
          ) - 1
        ) * 1048576 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 9, 1),
            '0123456789abcdef'
          ) - 1
        ) * 65536 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 10, 1),
            '0123456789abcdef'
          ) - 1
        ) * 4096 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 11, 1),
            '0123456789abcdef'
          ) - 1
        ) * 256 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 12, 1),
            '0123456789abcdef'
          ) - 1
        ) * 16 + (
          CHARINDEX(
            SUBSTRING(MD5(CONCAT(CAST('order' AS VARCHAR), ':', CAST(m.b AS VARCHAR))), 13, 1),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) AS other_key
  FROM proj.ds.abcde_cell_metrics AS m
  JOIN needed AS n
    ON m.e = n.e
), candidates AS (
  SELECT
    m.b,
    m.e,
    m.w,
    SUM(m.w) OVER (
      PARTITION BY m.e
      ORDER BY m.other_key, m.b
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - m.w AS lo,
    ROW_NUMBER() OVER (PARTITION BY m.e ORDER BY m.other_key, m.b) AS seq,
    COUNT(*) OVER (PARTITION BY m.e) AS cells
  FROM keyed AS m
), raw AS (
  SELECT
    s.d,
    s.b,
    s.e,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              1,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 281474976710656 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              2,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 17592186044416 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              3,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1099511627776 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              4,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 68719476736 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              5,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4294967296 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              6,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 268435456 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              7,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16777216 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              8,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1048576 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              9,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 65536 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              10,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4096 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              11,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 256 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              12,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('partner' AS VARCHAR), ':', CAST(s.d AS VARCHAR))
              ),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) * s.merge_w AS upos
  FROM proj.ds.abcde_pair_draw_strata AS s
  WHERE
    s.pair_class = 'merge'
), probes AS (
  SELECT
    r.d,
    r.e AS g,
    c.seq AS own_seq,
    c.cells,
    CASE WHEN r.upos >= c.lo THEN r.upos + c.w ELSE r.upos END AS pos
  FROM raw AS r
  JOIN candidates AS c
    ON r.b = c.b AND r.e = c.e
), stacked AS (
  SELECT
    e AS g,
    lo AS pos,
    0 AS is_draw,
    seq,
    CAST(NULL AS BIGINT) AS d,
    CAST(NULL AS BIGINT) AS own_seq,
    CAST(NULL AS BIGINT) AS cells
  FROM candidates
  UNION ALL
  SELECT
    g,
    pos,
    1 AS is_draw,
    CAST(NULL AS BIGINT) AS seq,
    d,
    own_seq,
    cells
  FROM probes
), chosen AS (
  SELECT
    g,
    d,
    is_draw,
    own_seq,
    cells,
    MAX(seq) OVER (
      PARTITION BY g
      ORDER BY pos, is_draw
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS seq
  FROM stacked
), fixed AS (
  SELECT
    g,
    d,
    CASE
      WHEN seq <> own_seq
      THEN seq
      WHEN own_seq < cells
      THEN own_seq + 1
      ELSE own_seq - 1
    END AS seq
  FROM chosen
  WHERE
    is_draw = 1
)
SELECT
  f.d,
  c.b AS partner_b,
  c.e AS partner_e,
  c.w AS partner_w
FROM fixed AS f
JOIN candidates AS c
  ON f.g = c.e AND f.seq = c.seq;
