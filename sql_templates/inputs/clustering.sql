{# A clustering input with the standard column names; ids normalised to BIGINT or VARCHAR.
   `relation` is a quoted reference built by abcde.inputs, never user text. #}
SELECT
  CAST({{ item_col|ident }} AS {{ item_type }}) AS item_id,
  CAST({{ cluster_col|ident }} AS {{ cluster_type }}) AS cluster_id
{% if weight_col %}
  , CAST({{ weight_col|ident }} AS DOUBLE) AS weight
{% endif %}
  , 1 AS in_input
FROM {{ relation }}
