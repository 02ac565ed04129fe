{# Draw counts of a sample with replacement (ABCDE App. A, steps 2–3; docs/method.md §7.2):
   M = the largest clock key among the sampled elements, λ(e) = w_e·(M − key(e)), and
   dc(e) = 1 + Poisson(λ(e)), drawn here in SQL from md5 uniforms keyed by (seed,
   'count', id) — the same numbers on every engine and in every script.

   λ ≤ {{ exact_max }}: exact inversion, dc − 1 = #{k : F(k) < U} with F the Poisson CDF
   summed in k order from the terms exp(−λ + k·ln λ − ln k!) (ln k! from the literal table
   `poisson_terms`, the same digits everywhere), for k ≤ λ + 9√λ + 10 (beyond it the tail
   is below 2⁻⁵³, the uniform's resolution). λ > {{ exact_max }}: the quantile of the
   Cornish–Fisher expansion round(λ + √λ·Z + (Z² − 1)/6), Z = √(−2 ln U)·cos(2πV) (Box–
   Muller with a second uniform); its total-variation distance to the Poisson is below
   3e-4 at λ = {{ exact_max }} and shrinks like 1/λ, its mean is λ. Counts are DOUBLE:
   integers, exact up to 2⁵³ (beyond, λ itself to 16 digits). exp() is clamped at −700:
   PostgreSQL raises an error on underflow. With `partition` (a column of the clock, e.g.
   a seed when many samples are drawn at once) M is taken per partition. #}
{% set part = (partition ~ ', ') if partition else '' %}
WITH clock_max AS (
  SELECT {{ part }}MAX(clock_key) AS m FROM {{ clock }}{% if partition %} GROUP BY {{ partition }}{% endif %}

),
lambdas AS (
  SELECT
    {% if partition %}c.{{ partition }},{% endif %}
    c.clock_rank,
    c.{{ id_col }} AS element_id,
    CASE WHEN c.clock_weight * (x.m - c.clock_key) > 0
         THEN c.clock_weight * (x.m - c.clock_key) ELSE CAST(0 AS DOUBLE) END AS lam
  FROM {{ clock }} AS c
  {% if partition %}JOIN clock_max AS x ON c.{{ partition }} = x.{{ partition }}{% else %}CROSS JOIN clock_max AS x{% endif %}

),
uniforms AS (
  SELECT
    {{ part }}clock_rank,
    lam,
    {{ uniform(seed, literal('count'), 'element_id') }} AS u,
    {{ uniform(seed, literal('count_angle'), 'element_id') }} AS v
  FROM lambdas
),
small AS (
  SELECT {{ part }}clock_rank, lam, u, {{ ln('lam') }} AS ln_lam, lam + 9 * SQRT(lam) + 10 AS k_max
  FROM uniforms
  WHERE lam > 0 AND lam <= {{ literal(exact_max) }}
),
terms AS (
  SELECT
    {% if partition %}s.{{ partition }},{% endif %}
    s.clock_rank,
    s.u,
    t.k,
    EXP(GREATEST(t.k * s.ln_lam - s.lam - t.ln_fact, CAST(-700 AS DOUBLE))) AS pmf
  FROM small AS s
  JOIN poisson_terms AS t ON t.k <= s.k_max
),
cdf AS (
  SELECT
    {{ part }}clock_rank,
    u,
    SUM(pmf) OVER (PARTITION BY {{ part }}clock_rank ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS f
  FROM terms
),
small_counts AS (
  SELECT {{ part }}clock_rank, SUM(CASE WHEN f < u THEN 1 ELSE 0 END) AS extra
  FROM cdf
  GROUP BY {{ part }}clock_rank
),
normal AS (
  SELECT {{ part }}clock_rank, lam, SQRT(-2 * ln_u) * COS(CAST(6.283185307179586 AS DOUBLE) * v) AS z
  FROM (SELECT {{ part }}clock_rank, lam, v, {{ ln('u') }} AS ln_u FROM uniforms WHERE lam > {{ literal(exact_max) }}) AS b
),
large AS (
  SELECT {{ part }}clock_rank, lam + SQRT(lam) * z + {{ fdiv('z * z - 1', '6') }} AS x
  FROM normal
),
large_counts AS (
  SELECT
    {{ part }}clock_rank,
    CASE
      WHEN x <= 0 THEN CAST(0 AS DOUBLE)
      WHEN x < CAST(4503599627370496 AS DOUBLE) THEN CAST(FLOOR(x + CAST(0.5 AS DOUBLE)) AS DOUBLE)
      ELSE x
    END AS extra
  FROM large
)
SELECT
  {% if partition %}u.{{ partition }},{% endif %}
  u.clock_rank,
  CAST(1 AS DOUBLE) + COALESCE(CAST(s.extra AS DOUBLE), l.extra, CAST(0 AS DOUBLE)) AS draw_count
FROM uniforms AS u
LEFT JOIN small_counts AS s ON u.clock_rank = s.clock_rank{% if partition %} AND u.{{ partition }} = s.{{ partition }}{% endif %}

LEFT JOIN large_counts AS l ON u.clock_rank = l.clock_rank{% if partition %} AND u.{{ partition }} = l.{{ partition }}{% endif %}
