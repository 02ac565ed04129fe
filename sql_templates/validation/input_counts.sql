{# Rows and NULL ids of each input (cheap: no join). Compared with the rows the join
   saw, they reveal ids repeated in an input, and side-input rows matching no item. #}
{% for input in inputs %}
{{ 'UNION ALL' if not loop.first }}
SELECT '{{ input }}' AS input, COUNT(*) AS input_rows, COUNT(*) - COUNT(item_id) AS null_ids
FROM {{ input }}_in
{% endfor %}
