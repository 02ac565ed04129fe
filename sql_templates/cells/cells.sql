{# Cells c = (b, e) of T (docs/method.md §2): n_c and w_c, optionally split further by slice
   attributes (s_0, s_1, ...). `cell_rows` already holds one row per cell when it was
   grouped by exactly these columns (`regroup` false): then this is a filter. With
   `squares`, also w2 = Σ_{i∈c} w_i² (docs/method.md §6.8). #}
SELECT
  b,
  e,
{% for alias in group_columns %}
  {{ alias }},
{% endfor %}
{% if regroup %}
  SUM(item_rows) AS n,
  SUM(w) AS w
{% else %}
  item_rows AS n,
  w
{% endif %}
{% if squares %}
{% if regroup %}
  , SUM(w2) AS w2
{% else %}
  , w2
{% endif %}
{% endif %}
FROM cell_rows
WHERE common
{% if regroup %}
GROUP BY b, e{% for alias in group_columns %}, {{ alias }}{% endfor %}
{% endif %}
