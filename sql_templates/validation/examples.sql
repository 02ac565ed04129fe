{# Up to `limit` example rows for one failed check. #}
{% from 'validation/checks.sql' import condition %}
SELECT item_id{% for col in extra %}, {{ col }}{% endfor %}

FROM items
WHERE {{ condition(check) }}
ORDER BY item_id
LIMIT {{ limit }}
