{# The budget of each stratum of a stratified warehouse sample (abcde.sampling.stratified
   .allocate; docs/method.md §7.7), computed from the design's class totals
   (pairs/totals.sql): Q_h the design probability of stratum h's classes; the
   split+merge stratum gets round(f·B) clamped to [1, B − 1] — f = Q_sm/(Q_sm + Q_st)
   (proportional), 1/2 (equal) or the given fraction — rounded half to even as Python's
   round(), and the stable stratum the rest; a stratum without pairs gets nothing and the
   other all {{ budget }}. `pairs_*`: each stratum's judgeable pairs (a budget above
   them cannot be filled: the fill's check row says so). #}
WITH q AS (
  SELECT
    COALESCE(SUM(CASE WHEN class_key IN ('split', 'merge') THEN q END), CAST(0 AS DOUBLE)) AS q_split_merge,
    COALESCE(SUM(CASE WHEN class_key NOT IN ('split', 'merge') THEN q END), CAST(0 AS DOUBLE)) AS q_stable,
    CAST(FLOOR(COALESCE(SUM(CASE WHEN class_key IN ('split', 'merge') THEN judgeable END), CAST(0 AS DOUBLE)) + CAST(0.5 AS DOUBLE)) AS BIGINT) AS pairs_split_merge,
    CAST(FLOOR(COALESCE(SUM(CASE WHEN class_key NOT IN ('split', 'merge') THEN judgeable END), CAST(0 AS DOUBLE)) + CAST(0.5 AS DOUBLE)) AS BIGINT) AS pairs_stable
  FROM pair_totals
),
share AS (
  SELECT
    q.*,
{% if allocation == 'proportional' %}
    {{ fdiv('q_split_merge', 'q_split_merge + q_stable') }} * CAST({{ budget }} AS DOUBLE) AS fb
{% elif allocation == 'equal' %}
    CAST(0.5 AS DOUBLE) * CAST({{ budget }} AS DOUBLE) AS fb
{% else %}
    CAST({{ allocation }} AS DOUBLE) * CAST({{ budget }} AS DOUBLE) AS fb
{% endif %}
  FROM q
),
rounded AS (
  SELECT
    s.*,
    CASE
      WHEN fb - FLOOR(fb) > CAST(0.5 AS DOUBLE) THEN CAST(FLOOR(fb) AS BIGINT) + 1
      WHEN fb - FLOOR(fb) < CAST(0.5 AS DOUBLE) THEN CAST(FLOOR(fb) AS BIGINT)
      WHEN MOD(CAST(FLOOR(fb) AS BIGINT), 2) = 0 THEN CAST(FLOOR(fb) AS BIGINT)
      ELSE CAST(FLOOR(fb) AS BIGINT) + 1
    END AS nearest
  FROM share AS s
),
first AS (
  SELECT
    r.*,
    CASE
      WHEN q_split_merge <= 0 OR q_stable <= 0 THEN CASE WHEN q_split_merge > 0 THEN {{ budget }} ELSE 0 END
      ELSE LEAST({{ budget - 1 }}, GREATEST(1, nearest))
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
    WHEN q_split_merge <= 0 OR q_stable <= 0 THEN CASE WHEN q_stable > 0 THEN {{ budget }} ELSE 0 END
    ELSE {{ budget }} - budget_split_merge
  END AS budget_stable
FROM first
