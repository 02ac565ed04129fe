{# k and ln k! for k = 0 … {{ terms|length - 1 }}: the terms of the exact Poisson inversion
   of sampling/draw_counts.sql, as literals computed once in Python (math.lgamma), so that
   every engine sums the same numbers (docs/method.md §7.2). #}
SELECT k, ln_fact
FROM (VALUES
{% for k, v in terms %}
  ({{ k }}, CAST({{ v }} AS DOUBLE)){{ ',' if not loop.last }}
{% endfor %}
) AS t(k, ln_fact)
