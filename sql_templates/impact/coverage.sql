{# Items outside T, one group per id in `cell_rows` (ABCDE §3; pointwise paper §3.2):
   how many, their weight (unknown where no weight is known: NULL or NaN), up to `limit` examples. #}
WITH one_side AS (
  SELECT
    one_side_id AS item_id,
    CASE WHEN side = 1 THEN 'base' ELSE 'exp' END AS side,
    w
  FROM cell_rows
  WHERE NOT common AND one_side_id IS NOT NULL
),
ranked AS (
  SELECT side, item_id, w, ROW_NUMBER() OVER (PARTITION BY side ORDER BY item_id) AS k
  FROM one_side
)
SELECT
  side,
  COUNT(*) AS items,
  SUM(CASE WHEN {{ is_finite('w') }} THEN w END) AS weight,
  CAST(SUM(CASE WHEN {{ is_finite('w') }} THEN 0 ELSE 1 END) AS BIGINT) AS items_without_weight,
  {# an id list is built in Python from `example_k`: no portable string_agg is needed #}
{% for k in range(1, limit + 1) %}
  MIN(CASE WHEN k = {{ k }} THEN item_id END) AS example_{{ k }}{{ ',' if not loop.last }}
{% endfor %}
FROM ranked
GROUP BY side
