{# Ids on several rows of one input, with their row counts (and, for a clustering, their
   distinct clusters), and how many ids repeat (runs only on failure). #}
SELECT item_id, COUNT(*) AS item_rows, COUNT(*) OVER () AS repeated_ids
{%- if clusters %}, COUNT(DISTINCT cluster_id) AS clusters{% endif +%}
FROM {{ input }}_in
WHERE item_id IS NOT NULL
GROUP BY item_id
HAVING COUNT(*) > 1
ORDER BY item_id
LIMIT {{ limit }}
