{# Cells c = (b, e) of T (SPEC §2): n_c and w_c, optionally split further by slice
   attributes (s_0, s_1, ...). #}
SELECT
  b,
  e,
{% for alias in group_columns %}
  {{ alias }},
{% endfor %}
  SUM(item_rows) AS n,
  SUM(w) AS w
FROM cell_rows
WHERE common
GROUP BY b, e{% for alias in group_columns %}, {{ alias }}{% endfor %}
