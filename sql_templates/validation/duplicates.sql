{# Ids on several rows of one input, with their row counts (and, for a clustering, their
   distinct clusters), and how many ids repeat (runs only on failure; counted by an
   aggregate, not a window over every repeated id in one partition). #}
WITH repeated AS (
  SELECT item_id, COUNT(*) AS item_rows
  {%- if clusters %}, COUNT(DISTINCT cluster_id) AS clusters{% endif +%}
  FROM {{ input }}_in
  WHERE item_id IS NOT NULL
  GROUP BY item_id
  HAVING COUNT(*) > 1
)
SELECT r.item_id, r.item_rows, n.repeated_ids
{%- if clusters %}, r.clusters{% endif +%}
FROM repeated AS r
CROSS JOIN (SELECT COUNT(*) AS repeated_ids FROM repeated) AS n
ORDER BY r.item_id
LIMIT {{ limit }}
