{# Before a script reads the cell tables of an earlier script of the round
   (--reuse-cells): were they made with the same inputs and checks (`shape`, stored in
   cells_key)? The next statement reads the earlier validation row's columns, which
   differ with other inputs (a weights or attributes table, --missing-weight): instead
   of the engine's error on a missing column, fail() stops it with a message that
   says what to do. Same shape, other data: cells_match 0 (script/cells_check.sql).
   No cells_key table at all is the engine's own error: no SQL of every dialect can
   test whether a table exists (the script's header says to run the round's first
   script first). #}
{% set reason %}CONCAT({{ literal(message) }}, COALESCE(MIN(shape), 'none'), ')'){% endset %}
SELECT
  CASE WHEN COUNT(*) = 1 AND MIN(shape) = {{ literal(shape) }} THEN 1
    ELSE {{ fail(reason) }}
  END AS shape_match
FROM cells_key
