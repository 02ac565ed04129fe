{# The budget fill of ABCDE App. A, 3.1–3.2: walk the stream of draws in draw order until
   {{ budget }} unique judgeable pairs have been seen — (i, j) and (j, i) count once, self
   pairs count zero. `cut` is the draw number of the last draw kept (the first draw of
   the budget-th judgeable pair); `judgeable` how many the whole stream holds. #}
WITH firsts AS (
  SELECT
    LEAST(item_i, item_j) AS lo_item,
    GREATEST(item_i, item_j) AS hi_item,
    MIN(d) AS first_d
  FROM pair_stream
  WHERE item_i <> item_j
  GROUP BY LEAST(item_i, item_j), GREATEST(item_i, item_j)
),
ranked AS (
  SELECT first_d, ROW_NUMBER() OVER (ORDER BY first_d) AS judge_rank FROM firsts
)
SELECT
  COUNT(*) AS judgeable,
  MAX(CASE WHEN judge_rank = {{ budget }} THEN first_d END) AS cut
FROM ranked
