DROP TABLE IF EXISTS proj.ds.abcde_pair_draw_strata_stable;

CREATE TABLE proj.ds.abcde_pair_draw_strata_stable AS
WITH draw_ids_stable AS (
  SELECT
    d0.v * 1 + d1.v * 10 + d2.v * 100 + d3.v * 1000 AS d
  FROM (VALUES
    (0),
    (1),
    (2),
    (3),
    (4),
    (5),
    (6),
    (7),
    (8),
    (9)) AS d0(v)
  CROSS JOIN (VALUES
    (0),
    (1),
    (2),
    (3),
    (4),
    (5),
    (6),
    (7),
    (8),
    (9)) AS d1(v)
  CROSS JOIN (VALUES
    (0),
    (1),
    (2),
    (3),
    (4),
    (5),
    (6),
    (7),
    (8),
    (9)) AS d2(v)
  CROSS JOIN (VALUES
    (0),
    (1),
    (2),
    (3),
    (4),
    (5),
    (6),
    (7),
    (8),
    (9)) AS d3(v)
  WHERE
    d0.v * 1 + d1.v * 10 + d2.v * 100 + d3.v * 1000 < 5000
), total AS (
  SELECT
    SUM(t) AS total_t
  FROM proj.ds.abcde_pair_strata_stable AS pair_strata
), probes AS (
  SELECT
    i.d,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
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
                CONCAT(CAST(15 AS VARCHAR), ':', CAST('stratum' AS VARCHAR), ':', CAST(i.d AS VARCHAR))
              ),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) * t.total_t AS pos
  FROM draw_ids_stable AS i
  CROSS JOIN total AS t
), buckets AS (
  SELECT
    bucket,
    MIN(bucket_lo) AS pos
  FROM proj.ds.abcde_pair_strata_stable AS pair_strata
  GROUP BY
    bucket
), bucket_stacked AS (
  SELECT
    pos,
    0 AS is_draw,
    bucket,
    CAST(NULL AS BIGINT) AS d
  FROM buckets
  UNION ALL
  SELECT
    pos,
    1 AS is_draw,
    CAST(NULL AS BIGINT) AS bucket,
    d
  FROM probes
), bucket_chosen AS (
  SELECT
    d,
    pos,
    is_draw,
    MAX(bucket) OVER (ORDER BY pos, is_draw ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS bucket
  FROM bucket_stacked
), stacked AS (
  SELECT
    bucket,
    lo AS pos,
    0 AS is_draw,
    seq,
    CAST(NULL AS BIGINT) AS d
  FROM proj.ds.abcde_pair_strata_stable AS pair_strata
  UNION ALL
  SELECT
    bucket,
    pos,
    1 AS is_draw,
    CAST(NULL AS BIGINT) AS seq,
    d
  FROM bucket_chosen
  WHERE
    is_draw = 1
), chosen AS (
  SELECT
    d,
    bucket,
    is_draw,
    MAX(seq) OVER (
      PARTITION BY bucket
      ORDER BY pos, is_draw
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS seq
  FROM stacked
)
SELECT
  c.d,
  s.b,
  s.e,
  s.pair_class,
  s.label,
  s.w,
  s.split_w,
  s.merge_w,
  s.u_over_w
FROM chosen AS c
JOIN proj.ds.abcde_pair_strata_stable AS s
  ON c.bucket = s.bucket AND c.seq = s.seq
WHERE
  c.is_draw = 1;
