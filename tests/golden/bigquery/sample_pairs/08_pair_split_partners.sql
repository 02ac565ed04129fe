DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_split_partners`;

CREATE TABLE `proj`.`ds`.`abcde_pair_split_partners` AS
WITH needed AS (
  SELECT DISTINCT
    b
  FROM `proj`.`ds`.`abcde_pair_draw_strata` AS pair_draw_strata
  WHERE
    pair_class = 'split'
), keyed AS (
  SELECT
    m.b,
    m.e,
    m.w,
    (
      CAST((
        CAST(CONCAT(
          '0x',
          SUBSTR(TO_HEX(MD5(CONCAT(CAST('order' AS STRING), ':', CAST(m.e AS STRING)))), 1, 13)
        ) AS INT64)
      ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
    ) AS other_key
  FROM `proj`.`ds`.`abcde_cell_metrics` AS m
  JOIN needed AS n
    ON m.b = n.b
), candidates AS (
  SELECT
    m.b,
    m.e,
    m.w,
    SUM(m.w) OVER (
      PARTITION BY m.b
      ORDER BY m.other_key, m.e
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - m.w AS lo,
    ROW_NUMBER() OVER (PARTITION BY m.b ORDER BY m.other_key NULLS LAST, m.e NULLS LAST) AS seq,
    COUNT(*) OVER (PARTITION BY m.b) AS cells
  FROM keyed AS m
), raw AS (
  SELECT
    s.d,
    s.b,
    s.e,
    (
      CAST((
        CAST(CONCAT(
          '0x',
          SUBSTR(
            TO_HEX(
              MD5(
                CONCAT(CAST(7 AS STRING), ':', CAST('partner' AS STRING), ':', CAST(s.d AS STRING))
              )
            ),
            1,
            13
          )
        ) AS INT64)
      ) * 2 + 1 AS FLOAT64) / CAST(9007199254740992 AS FLOAT64)
    ) * s.split_w AS upos
  FROM `proj`.`ds`.`abcde_pair_draw_strata` AS s
  WHERE
    s.pair_class = 'split'
), probes AS (
  SELECT
    r.d,
    r.b AS g,
    c.seq AS own_seq,
    c.cells,
    CASE WHEN r.upos >= c.lo THEN r.upos + c.w ELSE r.upos END AS pos
  FROM raw AS r
  JOIN candidates AS c
    ON r.b = c.b AND r.e = c.e
), stacked AS (
  SELECT
    b AS g,
    lo AS pos,
    0 AS is_draw,
    seq,
    CAST(NULL AS INT64) AS d,
    CAST(NULL AS INT64) AS own_seq,
    CAST(NULL AS INT64) AS cells
  FROM candidates
  UNION ALL
  SELECT
    g,
    pos,
    1 AS is_draw,
    CAST(NULL AS INT64) AS seq,
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
  ON f.g = c.b AND f.seq = c.seq;
