{# Every column of the attributes input for sampled items (not only slice columns),
   renamed to the names the sample files use. #}
SELECT
  CAST({{ item_col|ident }} AS {{ item_type }}) AS item_id
{% for name, out in columns %}
  , {{ name|ident }} AS {{ out|ident }}
{% endfor %}
FROM {{ relation }}
