{# What the truth does not label in the run's clusters of its items (docs/method.md §4.4):
   their other items' count and weight, and `share`, the weight share of an item's run
   cluster on such items, averaged over the items of each truth cluster and then over
   the truth clusters (as Yandex's BCP averages over themes: BCP optimistic − basic for
   unit weights) — what precision on T leaves out if the truth's clusters are complete. #}
WITH un_clusters AS (
  SELECT
    c.b,
    {{ fdiv('SUM(c.w * COALESCE(' ~ fdiv('o.w', 'c.w_e + o.w') ~ ', CAST(0 AS DOUBLE)))',
            'SUM(c.w)') }} AS share
  FROM cell_metrics AS c
  LEFT JOIN outside AS o ON c.e = o.e
  GROUP BY c.b
)
SELECT
  (SELECT COALESCE(SUM(n), 0) FROM outside) AS items,
  (SELECT COALESCE(SUM(w), CAST(0 AS DOUBLE)) FROM outside) AS weight,
  AVG(share) AS share
FROM un_clusters
