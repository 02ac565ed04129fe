{# The budget fill of a warehouse script (ABCDE App. A, 3.1–3.2; docs/method.md §7.5): the
   stream of {{ n }} draws is materialised once, and the kept prefix ends at the first
   draw of the budget-th unique judgeable pair (pairs/budget.sql) — the cut the engines'
   fill finds, whatever their stream's length, since draw numbers key the uniforms. The
   budget: {{ budget }}. One row: whether the stream held the budget (`budget_filled`;
   a budget of 0 keeps no draw), how many judgeable pairs it held, the last draw kept
   (`cut`: the whole stream when the budget was not filled), how many judgeable pairs
   the design can draw in the classes sampled (pairs/totals.sql; a budget above it can
   never be filled: `budget_possible`) and what to do (`fill_note`). #}
WITH found AS (
  SELECT judgeable, cut FROM pair_budget
),
population AS (
  SELECT CAST(FLOOR(COALESCE(SUM(judgeable), CAST(0 AS DOUBLE)) + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_judgeable
  FROM pair_totals
{% if class_keys %}
  WHERE class_key IN ({% for k in class_keys %}{{ ', ' if not loop.first }}'{{ k }}'{% endfor %})
{% endif %}
),
asked AS (
  SELECT {{ budget }} AS budget
)
SELECT
  a.budget = 0 OR NOT f.cut IS NULL AS budget_filled,
  CASE WHEN a.budget = 0 THEN 0 ELSE f.judgeable END AS judgeable_found,
  CASE WHEN a.budget = 0 THEN -1 ELSE COALESCE(f.cut, {{ n - 1 }}) END AS cut,
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
