{# Every column of the attributes input for sampled items (not only slice columns),
   renamed to the names the sample files use. With `items` (a relation with column
   item_id) only those items' rows: materialised once, so the sample's joins (twice per
   pair for the questions) read a few thousand rows, not the whole input each. #}
SELECT
  CAST({{ item_col|ident }} AS {{ item_type }}) AS item_id
{% for name, out in columns %}
  , {{ name|ident }} AS {{ out|ident }}
{% endfor %}
FROM {{ relation }}
{% if items %}
WHERE CAST({{ item_col|ident }} AS {{ item_type }}) IN (SELECT item_id FROM {{ items }})
{% endif %}
