{# The budgets a fill reaches within its cost ceiling (docs/method.md §7.5), read off the
   stream: the fill for budget r needs the draws up to the first draw of the r-th unique
   judgeable pair, and may draw at most LEAST(GREATEST(per_pair·r, floor), max_draws)
   of them. `fits` is the largest r such that every budget up to r fits (a refusal's
   suggestion); pairs beyond the stream count as not fitting, so on a stream shorter
   than the ceiling it is a lower bound. #}
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
  SELECT first_d, CAST(ROW_NUMBER() OVER (ORDER BY first_d) AS BIGINT) AS judge_rank FROM firsts
)
SELECT
  COUNT(*) AS judgeable,
  MIN(
    CASE
      WHEN first_d >= LEAST(GREATEST(judge_rank * {{ per_pair }}, CAST({{ floor }} AS BIGINT)), CAST({{ max_draws }} AS BIGINT))
      THEN judge_rank
    END
  ) AS first_misfit
FROM ranked
