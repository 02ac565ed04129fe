DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_draw_strata_stable";

CREATE TABLE "proj"."ds"."abcde_pair_draw_strata_stable" AS
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
  FROM "proj"."ds"."abcde_pair_strata_stable" AS pair_strata
), probes AS (
  SELECT
    i.d,
    (
      CAST((
        CAST(CAST('x' || LPAD(
          SUBSTRING(MD5(
            CAST(15 AS VARCHAR) || ':' || CAST('stratum' AS VARCHAR) || ':' || CAST(i.d AS VARCHAR)
          ) FROM 1 FOR 13),
          16,
          '0'
        ) AS BIT(64)) AS BIGINT)
      ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
    ) * t.total_t AS pos
  FROM draw_ids_stable AS i
  CROSS JOIN total AS t
), buckets AS (
  SELECT
    bucket,
    MIN(bucket_lo) AS pos
  FROM "proj"."ds"."abcde_pair_strata_stable" AS pair_strata
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
  FROM "proj"."ds"."abcde_pair_strata_stable" AS pair_strata
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
JOIN "proj"."ds"."abcde_pair_strata_stable" AS s
  ON c.bucket = s.bucket AND c.seq = s.seq
WHERE
  c.is_draw = 1;
