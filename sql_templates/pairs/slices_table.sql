{# The per-slice totals of every slicing in one table (ABCDE App. B.1): the rows of each
   slicing (pairs/slice_pairweights.sql) with its columns, NULL in the columns of the
   other slicings, and `slice_columns` naming its own (comma-separated), which
   abcde.sampling.exported uses to read them back as the manifest's slices. #}
{% for step, columns in slicings %}
SELECT
{% for name in all_columns %}
  {% if name in columns %}{{ name|ident }}{% else %}CAST(NULL AS VARCHAR) AS {{ name|ident }}{% endif %},
{% endfor %}
{% for value in values %}
  {{ value|ident }},
{% endfor %}
  {{ literal(columns|join(',')) }} AS slice_columns
FROM {{ step }}
{{ 'UNION ALL' if not loop.last }}
{% endfor %}
