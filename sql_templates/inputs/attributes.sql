{# The attributes input: the columns used for slices, renamed to s_0, s_1, ... A script,
   which cannot know their types, reads them as text (type 'SLICE_TEXT': slice_text(),
   the same text on every target that can tell the type). #}
SELECT
  CAST({{ item_col|ident }} AS {{ item_type }}) AS item_id
{% for col in columns %}
{% if col.type == 'SLICE_TEXT' %}
  , {{ slice_text(col.name|ident) }} AS {{ col.alias }}
{% else %}
  , CAST({{ col.name|ident }} AS {{ col.type }}) AS {{ col.alias }}
{% endif %}
{% endfor %}
  , 1 AS in_input
FROM {{ relation }}
