{# Rows of the join failing one check (the slow path: runs only when the cheap count of
   validation/input_counts.sql found candidates). #}
{% from 'validation/checks.sql' import condition %}
SELECT COUNT(*) AS n
FROM items
WHERE {{ condition(check) }}
