{# The weights input: one weight per item id. #}
SELECT
  CAST({{ item_col|ident }} AS {{ item_type }}) AS item_id,
  CAST({{ weight_col|ident }} AS DOUBLE) AS weight
  , 1 AS in_input
FROM {{ relation }}
