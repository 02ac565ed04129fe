{# Exponential clocks (ABCDE App. A, step 1; docs/method.md §7): every element e of `source` with
   weight w_e > 0 gets its first draw time key(e) = −ln(U_e)/w_e, U_e the reproducible
   uniform of (seed, stream, key columns); the `n` smallest keys (per partition, if any)
   are a weighted sample without replacement. Keys are computed in a subquery first:
   DuckDB refuses a volatile expression in a window's ORDER BY (docs/method.md §11).
   `clock_rank` (1, 2, ...) is the order of first draw; ties (never seen in practice)
   are broken by the key columns, so the result is the same on every engine.
   Without partitions the N smallest keys come from a top-N (ORDER BY ... LIMIT), not
   from a sort of the whole population. #}
WITH uniforms AS (
  SELECT
{% for col in columns %}
    {{ col }},
{% endfor %}
    CAST({{ weight }} AS DOUBLE) AS clock_weight,
    {{ uniform(seed, literal(stream), *keys) }} AS clock_u
  FROM {{ source }}
  WHERE {{ weight }} > 0
),
{# one helper per expression: the dialect rewrite does not descend into a rewritten
   helper's arguments #}
logs AS (
  SELECT
{% for col in columns %}
    {{ col }},
{% endfor %}
    clock_weight,
    {{ ln('clock_u') }} AS clock_ln_u
  FROM uniforms
),
keyed AS (
  SELECT
{% for col in columns %}
    {{ col }},
{% endfor %}
    clock_weight,
    {{ fdiv('-clock_ln_u', 'clock_weight') }} AS clock_key
  FROM logs
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
