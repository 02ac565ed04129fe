DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_fill_stable";

CREATE TABLE "proj"."ds"."abcde_pair_fill_stable" AS
WITH firsts AS (
  SELECT
    MIN(d) AS first_d,
    CAST(FLOOR(
      CAST(MIN(d) * 256 AS DOUBLE PRECISION) / NULLIF(CAST(5000 AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
    ) AS BIGINT) AS bucket
  FROM "proj"."ds"."abcde_pair_stream_stable" AS pair_stream
  GROUP BY
    LEAST(item_i, item_j),
    GREATEST(item_i, item_j)
), asked AS (
  SELECT
    (
      SELECT
        budget_stable
      FROM "proj"."ds"."abcde_pair_allocation" AS pair_allocation
    ) AS budget
), bucket_pairs AS (
  SELECT
    bucket,
    COUNT(*) AS pairs
  FROM firsts
  GROUP BY
    bucket
), bucket_offsets AS (
  SELECT
    bucket,
    SUM(pairs) OVER (ORDER BY bucket ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - pairs AS before
  FROM bucket_pairs
), ranked AS (
  SELECT
    f.first_d,
    o.before + ROW_NUMBER() OVER (PARTITION BY f.bucket ORDER BY f.first_d) AS judge_rank
  FROM firsts AS f
  JOIN bucket_offsets AS o
    ON f.bucket = o.bucket
), found AS (
  SELECT
    COUNT(*) AS judgeable,
    MAX(CASE WHEN r.judge_rank = a.budget THEN r.first_d END) AS cut,
    MIN(CASE WHEN r.first_d >= 5000 THEN r.judge_rank END) AS misfit
  FROM ranked AS r
  CROSS JOIN asked AS a
), population AS (
  SELECT
    CAST(FLOOR(
      COALESCE(SUM(judgeable), CAST(0 AS DOUBLE PRECISION)) + CAST(0.5 AS DOUBLE PRECISION)
    ) AS BIGINT) AS population_judgeable
  FROM "proj"."ds"."abcde_pair_totals" AS pair_totals
  WHERE
    class_key IN ('stable_plus', 'stable_minus', 'stable_zero')
)
SELECT
  a.budget = 0 OR NOT f.cut IS NULL AS budget_filled,
  CASE WHEN a.budget = 0 THEN 0 ELSE f.judgeable END AS judgeable_found,
  CASE WHEN a.budget = 0 THEN -1 ELSE COALESCE(f.cut, 4999) END AS cut,
  COALESCE(f.misfit - 1, f.judgeable) AS fits,
  p.population_judgeable,
  p.population_judgeable >= a.budget AS budget_possible,
  CASE
    WHEN a.budget = 0 OR NOT f.cut IS NULL
    THEN 'filled'
    WHEN p.population_judgeable < a.budget
    THEN 'the design holds only ' || CAST(p.population_judgeable AS TEXT) || ' judgeable pairs: lower --budget'
    ELSE 'the stream of 5000 draws holds only ' || CAST(f.judgeable AS TEXT) || ' judgeable pairs: run again with a larger --stream-draws (the same seed extends this sample)'
  END AS fill_note,
  a.budget
FROM found AS f
CROSS JOIN population AS p
CROSS JOIN asked AS a;
