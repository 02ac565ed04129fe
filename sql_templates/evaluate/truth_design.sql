{# The inclusion probability of every truth cluster, read from a column of the truth:
   its least and largest value over the cluster's rows (one value is expected). #}
SELECT
  CAST({{ cluster_col|ident }} AS {{ cluster_type }}) AS b,
  MIN(CAST({{ column|ident }} AS DOUBLE)) AS p_min,
  MAX(CAST({{ column|ident }} AS DOUBLE)) AS p_max,
  COUNT({{ column|ident }}) AS p_rows,
  COUNT(*) AS rows
FROM {{ relation }}
GROUP BY CAST({{ cluster_col|ident }} AS {{ cluster_type }})
