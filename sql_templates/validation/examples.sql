{# Up to `limit` example ids for one check, from the join (runs only when it failed). #}
{% from 'validation/checks.sql' import condition %}
SELECT DISTINCT item_id
FROM items
WHERE {{ condition(check) }}
ORDER BY item_id
LIMIT {{ limit }}
