{# The budget fill of a warehouse script (ABCDE App. A, 3.1–3.2; docs/method.md §7.5): the
   stream of {{ n }} draws is materialised once, and the kept prefix ends at the first
   draw of the {{ budget }}-th unique judgeable pair (pairs/budget.sql). One row: whether
   the stream held the budget (`budget_filled`), how many judgeable pairs it held, the
   last draw kept (`cut`: the whole stream when the budget was not filled), and how many
   judgeable pairs the population holds (a budget above it can never be filled:
   `budget_possible`), and what to do (`fill_note`). #}
WITH found AS (
  SELECT judgeable, cut FROM pair_budget
),
population AS (
  SELECT
    CAST(FLOOR(judgeable_split + judgeable_merge + judgeable_stable + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_judgeable
  FROM pair_totals
)
SELECT
  NOT f.cut IS NULL AS budget_filled,
  f.judgeable AS judgeable_found,
  COALESCE(f.cut, {{ n - 1 }}) AS cut,
  p.population_judgeable,
  p.population_judgeable >= {{ budget }} AS budget_possible,
  CASE
    WHEN NOT f.cut IS NULL THEN 'filled'
    WHEN p.population_judgeable < {{ budget }} THEN 'the population holds only ' || CAST(p.population_judgeable AS VARCHAR) || ' judgeable pairs: lower --budget'
    ELSE 'the stream of {{ n }} draws holds only ' || CAST(f.judgeable AS VARCHAR) || ' judgeable pairs: run again with a larger --stream-draws (the same seed extends this sample)'
  END AS fill_note
FROM found AS f
CROSS JOIN population AS p
