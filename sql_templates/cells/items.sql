{# One row per item id found in any input, with how many rows each input holds for it.
   Duplicates, coverage, missing weights and missing attributes all come out of this
   single UNION ALL + GROUP BY, which costs about what one join would.
   Branches: base_in, exp_in, and optionally weights_in and attributes_in. #}
WITH tagged AS (
  SELECT item_id,
    cluster_id AS base_cluster,
    CAST(NULL AS {{ exp_cluster_type }}) AS exp_cluster,
    {% if base_weight %}weight{% else %}CAST(NULL AS DOUBLE){% endif %} AS base_weight,
    CAST(NULL AS DOUBLE) AS exp_weight,
    CAST(NULL AS DOUBLE) AS table_weight,
{% for col in attributes %}
    CAST(NULL AS {{ col.type }}) AS {{ col.alias }},
{% endfor %}
    1 AS in_base, 0 AS in_exp, 0 AS in_weights, 0 AS in_attributes
  FROM base_in
  UNION ALL
  SELECT item_id,
    CAST(NULL AS {{ base_cluster_type }}),
    cluster_id,
    CAST(NULL AS DOUBLE),
    {% if exp_weight %}weight{% else %}CAST(NULL AS DOUBLE){% endif %},
    CAST(NULL AS DOUBLE),
{% for col in attributes %}
    CAST(NULL AS {{ col.type }}),
{% endfor %}
    0, 1, 0, 0
  FROM exp_in
{% if weights_table %}
  UNION ALL
  SELECT item_id,
    CAST(NULL AS {{ base_cluster_type }}),
    CAST(NULL AS {{ exp_cluster_type }}),
    CAST(NULL AS DOUBLE),
    CAST(NULL AS DOUBLE),
    weight,
{% for col in attributes %}
    CAST(NULL AS {{ col.type }}),
{% endfor %}
    0, 0, 1, 0
  FROM weights_in
{% endif %}
{% if attributes %}
  UNION ALL
  SELECT item_id,
    CAST(NULL AS {{ base_cluster_type }}),
    CAST(NULL AS {{ exp_cluster_type }}),
    CAST(NULL AS DOUBLE),
    CAST(NULL AS DOUBLE),
    CAST(NULL AS DOUBLE),
{% for col in attributes %}
    {{ col.alias }},
{% endfor %}
    0, 0, 0, 1
  FROM attributes_in
{% endif %}
)
SELECT
  item_id,
  SUM(in_base) AS n_base,
  SUM(in_exp) AS n_exp,
  SUM(in_weights) AS n_weights,
  SUM(in_attributes) AS n_attributes,
  MIN(base_cluster) AS base_cluster,
  MIN(exp_cluster) AS exp_cluster,
  MIN(base_weight) AS base_weight,
  MIN(exp_weight) AS exp_weight,
  MIN(table_weight) AS table_weight
{% for col in attributes %}
  , MIN({{ col.alias }}) AS {{ col.alias }}
{% endfor %}
FROM tagged
GROUP BY item_id
