{# The first statement of a script that reuses the cell tables of an earlier script of
   the round (--reuse-cells): do they exist? Each is looked up in the target's
   information_schema (`table_exists`; Spark has none and skips this step), and when
   any is missing fail() stops the script with a message naming them and the command
   that makes them, instead of the warehouse's own "table does not exist" further on.
   `tables`: (catalog, schema, table, the name shown), '' for a part not given. #}
{% set reason %}CONCAT({{ literal(message) }}, SUBSTRING(missing, 3), {{ literal(advice) }}){% endset %}
SELECT
  CASE WHEN missing = '' THEN 1 ELSE {{ fail(reason) }} END AS cells_exist
FROM (
  SELECT
    CONCAT(
{% for catalog, schema, table, shown in tables %}
      CASE WHEN {{ table_exists(literal(catalog), literal(schema), literal(table)) }} THEN '' ELSE {{ literal(', ' ~ shown) }} END{{ ',' if not loop.last }}
{% endfor %}
    ) AS missing
) AS m
