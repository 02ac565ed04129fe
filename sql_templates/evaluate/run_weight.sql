{# The weight of every item of the run, W of the population's accuracy (pointwise paper
   eq. 13 with T the run's items; docs/method.md §4.4), and how many items have no valid
   weight. #}
SELECT
  SUM(w) AS total_w,
  SUM(CASE WHEN {{ valid_weight('w') }} THEN 0 ELSE item_rows END) AS unweighted
FROM cell_rows
WHERE e IS NOT NULL
