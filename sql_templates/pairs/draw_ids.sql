{# Draw numbers d = 0 .. n − 1 from a cross join of digit tables: portable (no
   generate_series/range, whose meaning differs per engine: docs/method.md §11). #}
SELECT
  {% for k in range(digits) %}{{ ' + ' if not loop.first }}d{{ k }}.v * {{ 10 ** k }}{% endfor %} AS d
FROM {% for k in range(digits) %}{{ ' CROSS JOIN ' if not loop.first }}(VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS d{{ k }}(v){% endfor %}

WHERE {% for k in range(digits) %}{{ ' + ' if not loop.first }}d{{ k }}.v * {{ 10 ** k }}{% endfor %} < {{ n }}
