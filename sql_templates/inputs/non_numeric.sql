{# A weight column that is not numeric (runs only when the type check failed): the rows
   of the input, its values that are not NULL, how many are not numbers, and up to 10 of
   them with their ids. #}
WITH bad AS (
  SELECT
    {{ item_col|ident }} AS item_id,
    {{ weight_col|ident }} AS weight
  FROM {{ relation }}
  WHERE {{ weight_col|ident }} IS NOT NULL
{% if text %}
    AND TRY_CAST(TRIM({{ weight_col|ident }}) AS DOUBLE) IS NULL
{% endif %}
),
counted AS (
  SELECT
    (SELECT COUNT(*) FROM {{ relation }}) AS input_rows,
    (SELECT COUNT({{ weight_col|ident }}) FROM {{ relation }}) AS present,
    (SELECT COUNT(*) FROM bad) AS non_numeric
)
SELECT c.input_rows, c.present, c.non_numeric, b.item_id, CAST(b.weight AS VARCHAR) AS weight
FROM counted AS c
LEFT JOIN (SELECT * FROM bad ORDER BY item_id LIMIT 10) AS b ON TRUE
