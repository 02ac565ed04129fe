{# The run's items outside T in each actual cluster that meets T: the items the truth
   does not label (Yandex's unlabelled items, docs/method.md §5.2) with their count and
   weight, and how many of them have no valid weight (a weights table that lacks them).
   A truth of complete clusters counts them as false positives (docs/method.md §4.4). #}
SELECT
  e,
  SUM(item_rows) AS n,
  SUM(w) AS w,
  SUM(CASE WHEN {{ valid_weight('w') }} THEN 0 ELSE item_rows END) AS unweighted
FROM cell_rows
WHERE NOT common AND one_side_id IS NOT NULL AND e IS NOT NULL
  {# only clusters that meet the truth: with a small truth and a large run, most rows of
     cell_rows are the run's own items #}
  AND e IN (SELECT e FROM cells)
GROUP BY e
