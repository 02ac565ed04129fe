{# The budget fill (ABCDE App. A, 3.1–3.2; docs/method.md §7.5): the stream of {{ n }} draws
   walked in draw order until {{ budget }} unique judgeable pairs have been seen ((i, j)
   and (j, i) count once; no draw is a self pair). Draw numbers key the uniforms, so a
   longer stream extends a shorter one: the cut, the first draw of the budget-th pair, is
   the same for every stream that holds the budget. One row: whether the stream held it
   (`budget_filled`; a budget of 0 keeps no draw), the judgeable pairs it holds, the last
   draw kept (`cut`: the whole stream when not filled), `fits` — the largest r such that
   every budget up to r has its r-th pair within its cost ceiling {{ ceiling }} (a
   function of the budget r, judge_rank here) — the judgeable pairs of the classes
   sampled (pairs/totals.sql) and what to do (`fill_note`). The pairs are ranked by
   their first draw in two levels, so that no window runs over the stream in one
   partition: {{ buckets }} buckets of consecutive draw numbers, each bucket's pairs
   counted, the pairs before it (a running sum over the buckets), and the rank within
   it (first draws are distinct: one draw, one pair). #}
{% set buckets = 256 %}
WITH firsts AS (
  SELECT
    MIN(d) AS first_d,
    CAST(FLOOR({{ fdiv('MIN(d) * ' ~ buckets, n) }}) AS BIGINT) AS bucket
  FROM pair_stream
  GROUP BY LEAST(item_i, item_j), GREATEST(item_i, item_j)
),
asked AS (
  SELECT {{ budget }} AS budget
),
bucket_pairs AS (
  SELECT bucket, COUNT(*) AS pairs FROM firsts GROUP BY bucket
),
bucket_offsets AS (
  SELECT
    bucket,
    SUM(pairs) OVER (ORDER BY bucket ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - pairs AS before
  FROM bucket_pairs
),
ranked AS (
  SELECT
    f.first_d,
    o.before + ROW_NUMBER() OVER (PARTITION BY f.bucket ORDER BY f.first_d) AS judge_rank
  FROM firsts AS f
  JOIN bucket_offsets AS o ON f.bucket = o.bucket
),
found AS (
  SELECT
    COUNT(*) AS judgeable,
    MAX(CASE WHEN r.judge_rank = a.budget THEN r.first_d END) AS cut,
    MIN(CASE WHEN r.first_d >= {{ ceiling }} THEN r.judge_rank END) AS misfit
  FROM ranked AS r
  CROSS JOIN asked AS a
),
population AS (
  SELECT CAST(FLOOR(COALESCE(SUM(judgeable), CAST(0 AS DOUBLE)) + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_judgeable
  FROM pair_totals
{% if class_keys %}
  WHERE class_key IN ({% for k in class_keys %}{{ ', ' if not loop.first }}'{{ k }}'{% endfor %})
{% endif %}
)
SELECT
  a.budget = 0 OR NOT f.cut IS NULL AS budget_filled,
  CASE WHEN a.budget = 0 THEN 0 ELSE f.judgeable END AS judgeable_found,
  CASE WHEN a.budget = 0 THEN -1 ELSE COALESCE(f.cut, {{ n - 1 }}) END AS cut,
  COALESCE(f.misfit - 1, f.judgeable) AS fits,
  p.population_judgeable,
  p.population_judgeable >= a.budget AS budget_possible,
  CASE
    WHEN a.budget = 0 OR NOT f.cut IS NULL THEN 'filled'
    WHEN p.population_judgeable < a.budget THEN 'the design holds only ' || CAST(p.population_judgeable AS VARCHAR) || ' judgeable pairs: lower --budget'
    ELSE 'the stream of {{ n }} draws holds only ' || CAST(f.judgeable AS VARCHAR) || ' judgeable pairs: run again with a larger --stream-draws (the same seed extends this sample)'
  END AS fill_note,
  a.budget
FROM found AS f
CROSS JOIN population AS p
CROSS JOIN asked AS a
