{# The attributes input: the columns used for slices, renamed to s_0, s_1, ... #}
SELECT
  CAST({{ item_col|ident }} AS {{ item_type }}) AS item_id
{% for col in columns %}
  , CAST({{ col.name|ident }} AS {{ col.type }}) AS {{ col.alias }}
{% endfor %}
  , 1 AS in_input
FROM {{ relation }}
