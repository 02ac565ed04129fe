{# Before a script reads the cell tables of an earlier script of the round
   (--reuse-cells): were they made with the same inputs and checks (`shape`, stored in
   cells_key)? The next statement reads the earlier validation row's columns, which
   differ with other inputs (a weights or attributes table, --missing-weight): instead
   of the engine's error on a missing column, fail() stops it with a message that
   says what to do. A script that reads per-slice cells (`attributes` given: the slice
   attributes of its --slice-by, as cells_key stores them) needs cell_rows to hold the
   same attributes in the same columns: fail() stops it too, with `slices_message`.
   Same shape, other data: cells_match 0 (script/cells_check.sql).
   No cells_key table at all is the engine's own error: no SQL of every dialect can
   test whether a table exists (the script's header says to run the round's first
   script first). #}
{% set reason %}CONCAT({{ literal(message) }}, COALESCE(MIN(shape), 'none'), ')'){% endset %}
{% set slices_reason %}CONCAT({{ literal(slices_message) }}, MIN(slice_attributes), ')'){% endset %}
SELECT
  CASE WHEN COUNT(*) <> 1 OR COALESCE(MIN(shape), '') <> {{ literal(shape) }}
    THEN {{ fail(reason) }}
{% if attributes is not none %}
    WHEN MIN(slice_attributes) <> {{ literal(attributes) }} THEN {{ fail(slices_reason) }}
{% endif %}
    ELSE 1
  END AS shape_match
FROM cells_key
