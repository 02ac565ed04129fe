{# Exponential clocks (ABCDE App. A, step 1; SPEC §7): every element e of `source` with
   weight w_e > 0 gets its first draw time key(e) = −ln(U_e)/w_e, U_e the reproducible
   uniform of (seed, stream, key columns); the `n` smallest keys (per partition, if any)
   are a weighted sample without replacement. Keys are computed in a subquery first:
   DuckDB refuses a volatile expression in a window's ORDER BY (ENGINES.md).
   `clock_rank` (1, 2, ...) is the order of first draw; ties (never seen in practice)
   are broken by the key columns, so the result is the same on every engine.
   Without partitions the N smallest keys come from a top-N (ORDER BY ... LIMIT), not
   from a sort of the whole population. #}
WITH keyed AS (
  SELECT
{% for col in columns %}
    {{ col }},
{% endfor %}
    CAST({{ weight }} AS DOUBLE) AS clock_weight,
    {{ fdiv('-' ~ ln(uniform(seed, literal(stream), *keys)), weight) }} AS clock_key
  FROM {{ source }}
  WHERE {{ weight }} > 0
),
{% if not partition_by %}
top_n AS (
  SELECT
{% for col in columns %}
    {{ col }},
{% endfor %}
    clock_weight,
    clock_key
  FROM keyed
  ORDER BY clock_key{% for k in keys %}, {{ k }}{% endfor %}

  LIMIT {{ n }}
),
{% endif %}
ranked AS (
  SELECT
{% for col in columns %}
    {{ col }},
{% endfor %}
    clock_weight,
    clock_key,
    ROW_NUMBER() OVER (
      {% if partition_by %}PARTITION BY {{ partition_by|join(', ') }}{% endif %}

      ORDER BY clock_key{% for k in keys %}, {{ k }}{% endfor %}

    ) AS clock_rank
  FROM {{ 'keyed' if partition_by else 'top_n' }}
)
SELECT
{% for col in columns %}
  {{ col }},
{% endfor %}
  clock_weight,
  clock_key,
  clock_rank
FROM ranked
WHERE clock_rank <= {{ n }}
