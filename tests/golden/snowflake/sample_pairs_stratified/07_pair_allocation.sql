DROP TABLE IF EXISTS proj.ds.abcde_pair_allocation;

CREATE TABLE proj.ds.abcde_pair_allocation AS
WITH q AS (
  SELECT
    COALESCE(SUM(CASE WHEN class_key IN ('split', 'merge') THEN q END), CAST(0 AS DOUBLE)) AS q_split_merge,
    COALESCE(SUM(CASE WHEN NOT class_key IN ('split', 'merge') THEN q END), CAST(0 AS DOUBLE)) AS q_stable,
    CAST(FLOOR(
      COALESCE(
        SUM(CASE WHEN class_key IN ('split', 'merge') THEN judgeable END),
        CAST(0 AS DOUBLE)
      ) + CAST(0.5 AS DOUBLE)
    ) AS BIGINT) AS pairs_split_merge,
    CAST(FLOOR(
      COALESCE(
        SUM(CASE WHEN NOT class_key IN ('split', 'merge') THEN judgeable END),
        CAST(0 AS DOUBLE)
      ) + CAST(0.5 AS DOUBLE)
    ) AS BIGINT) AS pairs_stable
  FROM proj.ds.abcde_pair_totals AS pair_totals
), share AS (
  SELECT
    q.*,
    CAST(0.5 AS DOUBLE) * CAST(500 AS DOUBLE) AS fb
  FROM q
), rounded AS (
  SELECT
    s.*,
    CASE
      WHEN fb - FLOOR(fb) > CAST(0.5 AS DOUBLE)
      THEN CAST(FLOOR(fb) AS BIGINT) + 1
      WHEN fb - FLOOR(fb) < CAST(0.5 AS DOUBLE)
      THEN CAST(FLOOR(fb) AS BIGINT)
      WHEN CAST(FLOOR(fb) AS BIGINT) % 2 = 0
      THEN CAST(FLOOR(fb) AS BIGINT)
      ELSE CAST(FLOOR(fb) AS BIGINT) + 1
    END AS nearest
  FROM share AS s
), first AS (
  SELECT
    r.*,
    CASE
      WHEN q_split_merge <= 0 OR q_stable <= 0
      THEN CASE WHEN q_split_merge > 0 THEN 500 ELSE 0 END
      ELSE LEAST_IGNORE_NULLS(499, GREATEST_IGNORE_NULLS(1, nearest))
    END AS budget_split_merge
  FROM rounded AS r
)
SELECT
  q_split_merge,
  q_stable,
  pairs_split_merge,
  pairs_stable,
  budget_split_merge,
  CASE
    WHEN q_split_merge <= 0 OR q_stable <= 0
    THEN CASE WHEN q_stable > 0 THEN 500 ELSE 0 END
    ELSE 500 - budget_split_merge
  END AS budget_stable
FROM first;
