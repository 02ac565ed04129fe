{# The input checks of abcde.validation for a standalone script (`abcde sql`, `abcde dbt`):
   one row with every check counted over the whole input, an example id per failed
   row-level check, the ids each side input in `repeats` holds on more than one row with
   the least of them (`repeated_ids_<input>`, `_example`: which table repeats which id,
   that `repeated_item_ids` alone does not say), the counts of `coverage` that are no
   error (items of T without attributes; `unused_<input>`: rows of a side input matching
   no item of either clustering, as `abcde impact` reports them), and the verdict.
   `input_problems` counts the failed checks; `input_valid` is TRUE only when there are
   none. Every output table of the script carries `input_valid`, so metrics of invalid
   input are never shown without the flag (docs/method.md §1). #}
WITH ic AS (
  SELECT
{% for input in inputs %}
    SUM(CASE WHEN input = {{ literal(input) }} THEN input_rows ELSE 0 END) AS {{ input }}_rows,
    SUM(CASE WHEN input = {{ literal(input) }} THEN null_ids ELSE 0 END) AS {{ input }}_null_ids{{ ',' if not loop.last or repeats }}
{% endfor %}
{% for input in repeats %}
    SUM(CASE WHEN input = {{ literal(input) }} THEN repeated_ids ELSE 0 END) AS repeated_ids_{{ input }},
    MIN(CASE WHEN input = {{ literal(input) }} THEN repeated_example END) AS repeated_ids_{{ input }}_example{{ ',' if not loop.last }}
{% endfor %}
  FROM input_counts
),
ex AS (
  SELECT
    COUNT(*) AS cell_row_groups
{% for name in examples %}
    , MIN({{ name }}_example) AS {{ name }}_example
{% endfor %}
  FROM cell_rows
),
{# every count BIGINT: sums of integers are NUMERIC on PostgreSQL, HUGEINT on DuckDB #}
checked AS (
  SELECT
    CAST(COALESCE(v.common_rows, 0) AS BIGINT) AS items_in_both,
{% for input in inputs %}
    CAST(ic.{{ input }}_rows AS BIGINT) AS {{ input }}_rows,
{% endfor %}
{% for name, expr in failures %}
    CAST({{ expr }} AS BIGINT) AS {{ name }},
{% endfor %}
{% for name in examples %}
    ex.{{ name }}_example,
{% endfor %}
{% for input in repeats %}
    CAST(ic.repeated_ids_{{ input }} AS BIGINT) AS repeated_ids_{{ input }},
    ic.repeated_ids_{{ input }}_example,
{% endfor %}
{% for name, expr in coverage %}
    CAST({{ expr }} AS BIGINT) AS {{ name }},
{% endfor %}
    ex.cell_row_groups
  FROM validation_counts AS v
  CROSS JOIN ic
  CROSS JOIN ex
)
SELECT
  items_in_both,
{% for input in inputs %}
  {{ input }}_rows,
{% endfor %}
{% for name, expr in failures %}
  {{ name }},
{% endfor %}
{% for name in examples %}
  {{ name }}_example,
{% endfor %}
{% for input in repeats %}
  repeated_ids_{{ input }},
  repeated_ids_{{ input }}_example,
{% endfor %}
{% for name, expr in coverage %}
  {{ name }},
{% endfor %}
  {% for name, expr in failures %}{{ ' + ' if not loop.first }}CASE WHEN {{ name }} > 0 THEN 1 ELSE 0 END{% endfor %} AS input_problems,
  ({% for name, expr in failures %}{{ ' + ' if not loop.first }}CASE WHEN {{ name }} > 0 THEN 1 ELSE 0 END{% endfor %}) = 0 AS input_valid
FROM checked
