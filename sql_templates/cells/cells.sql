{# Cells c = (b, e) (SPEC §2): n_c and w_c, optionally split further by slice columns. #}
SELECT
  b,
  e,
{% for alias in group_columns %}
  {{ alias }},
{% endfor %}
  COUNT(*) AS n,
  SUM(w) AS w
FROM common
GROUP BY b, e{% for alias in group_columns %}, {{ alias }}{% endfor %}
