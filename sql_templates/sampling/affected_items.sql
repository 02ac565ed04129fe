{# Affected items with their impact metrics (ABCDE §4.1.1, eq. 7): the population of the
   exploration sample, drawn ∝ weight(i)·JaccardDistance(i) (eq. 10). Unaffected items
   have JD = 0 and never draw; only affected cells are joined (a small build side).
   `items` is the inputs' join restricted to the clusters of those cells
   (cells/items.sql with `cells`), so the population is not joined a second time. #}
WITH affected AS (
  SELECT b, e, {{ metrics|join(', ') }}
  FROM cell_metrics
  WHERE affected AND jaccard_distance > 0
)
SELECT
  i.item_id,
  i.base_cluster,
  i.exp_cluster,
  i.w AS weight,
{% for m in metrics %}
  a.{{ m }},
{% endfor %}
  i.w * a.jaccard_distance AS clock_w
FROM {{ items }} AS i
JOIN affected AS a ON i.base_cluster = a.b AND i.exp_cluster = a.e
WHERE i.common
