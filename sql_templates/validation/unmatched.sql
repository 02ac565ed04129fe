{# Ids of a side input (weights, attributes) that are in neither clustering. #}
SELECT s.item_id
FROM {{ input }}_in AS s
LEFT JOIN (
  SELECT item_id FROM base_in
  UNION ALL
  SELECT item_id FROM exp_in
) AS c ON s.item_id = c.item_id
WHERE s.item_id IS NOT NULL AND c.item_id IS NULL
ORDER BY s.item_id
LIMIT {{ limit }}
