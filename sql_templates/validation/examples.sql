{# Up to `limit` example ids for one failed check. #}
SELECT DISTINCT {{ check }}_example AS item_id
FROM cell_rows
WHERE {{ check }}_example IS NOT NULL
ORDER BY item_id
LIMIT {{ limit }}
