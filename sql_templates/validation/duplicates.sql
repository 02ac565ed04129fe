{# Ids on several rows of one input, with their row counts (runs only on failure). #}
SELECT item_id, COUNT(*) AS item_rows
FROM {{ input }}_in
WHERE item_id IS NOT NULL
GROUP BY item_id
HAVING COUNT(*) > 1
ORDER BY item_id
LIMIT {{ limit }}
