{# Every input problem counted in one pass over `items`; abcde.validation turns
   non-zero counts into specific errors and fetches example ids only then. #}
{% from 'validation/checks.sql' import condition %}
SELECT
{% for name in checks %}
  SUM(CASE WHEN {{ condition(name) }} THEN 1 ELSE 0 END) AS {{ name }}{{ ',' if not loop.last }}
{% endfor %}
FROM items
