{# The validation row of a script that reuses the cell tables of an earlier script of the
   round (same prefix and schema): the earlier script's input checks, and whether its
   cells were made from these inputs — the same SQL digest and the same fingerprint of
   every input (script/cells_key.sql, computed again here; the slice attributes' values
   only with `values`: for a script that reads per-slice cells). Cells of other inputs make
   `cells_match` 0, count as a problem and set input_valid FALSE: nothing computed from
   them is shown without the flag. #}
WITH stored AS (
  SELECT * FROM cells_key
),
fresh AS (
  SELECT * FROM cells_key_now
),
matched AS (
  SELECT
    CASE WHEN COUNT(*) = 1 AND MIN(CASE WHEN s.sql_digest = f.sql_digest
{% for name in inputs %}
      AND s.{{ name }}_rows = f.{{ name }}_rows AND s.{{ name }}_hash = f.{{ name }}_hash
{% endfor %}
{% if values %}
      AND s.attributes_values_hash = f.attributes_values_hash
{% endif %}
      THEN 1 ELSE 0 END) = 1 THEN 1 ELSE 0 END AS cells_match
  FROM stored AS s
  CROSS JOIN fresh AS f
)
SELECT
{% for column in columns %}
  v.{{ column }},
{% endfor %}
  m.cells_match,
  v.input_problems + 1 - m.cells_match AS input_problems,
  (v.input_valid AND m.cells_match = 1) AS input_valid
FROM validation AS v
CROSS JOIN matched AS m
