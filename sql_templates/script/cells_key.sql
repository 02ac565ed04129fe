{# What the cell tables of a round were made from (docs/method.md §2.6): the digest of the
   SQL that made them (`sql_digest`, computed when the script was written: inputs,
   columns, id types and weights; the same for any slices) and a fingerprint of each input — its rows and
   the sum of 31 bits of md5 of every row's values (ids and weights as text, as this
   warehouse writes them; of the attributes, the ids, and apart the ids with the slice
   attributes' values, `attributes_values_hash`) — read by one scan of each input,
   without the join; and its
   `shape`, the inputs and checks that fix the columns of these tables, and the slice
   attributes cell_rows holds (`slice_attributes`, in the order of its columns s_0,
   s_1, …, and a hash of that list; script/cells_guard.sql). A later
   script of the round that reuses the cells computes the same numbers and compares
   them (script/cells_check.sql). #}
WITH fp AS (
{% for name, columns, values in inputs %}
  SELECT
    {{ literal(name) }} AS input,
    COUNT(*) AS input_rows,
    SUM(CAST(FLOOR({{ uniform(literal('cells_key'), *columns) }} * CAST(2147483648 AS DOUBLE)) AS BIGINT)) AS row_hash,
{% if values %}
    SUM(CAST(FLOOR({{ uniform(literal('cells_key'), *values) }} * CAST(2147483648 AS DOUBLE)) AS BIGINT)) AS value_hash
{% else %}
    CAST(0 AS BIGINT) AS value_hash
{% endif %}
  FROM {{ name }}_in
{{ 'UNION ALL' if not loop.last }}
{% endfor %}
)
SELECT
  {{ literal(digest) }} AS sql_digest,
  {{ literal(shape) }} AS shape,
  {{ literal(attributes) }} AS slice_attributes
{% for name, columns, values in inputs %}
  , SUM(CASE WHEN input = {{ literal(name) }} THEN input_rows ELSE 0 END) AS {{ name }}_rows
  , SUM(CASE WHEN input = {{ literal(name) }} THEN COALESCE(row_hash, 0) ELSE 0 END) AS {{ name }}_hash
{% if values %}
  , SUM(CASE WHEN input = {{ literal(name) }} THEN COALESCE(value_hash, 0) ELSE 0 END) AS {{ name }}_values_hash
{% endif %}
{% endfor %}
FROM fp
