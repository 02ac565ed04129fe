{# UIR test cases = truth clusters, with one run: the number of cases and the mean F_α
   over them for each α (the F_α sweep of docs/method.md §9.4, [UIR] §2.1), computed in
   the engine instead of fetching every truth cluster. F_α(P, R) = 1/(α/P + (1 − α)/R);
   α = 0 gives R, α = 1 gives P, and F is 0 when P or R is 0 (its limit). #}
SELECT
  COUNT(*) AS n_cases
{% for a in alphas %}
  , AVG(CASE
      WHEN {{ a }} = 0 THEN {{ r }}
      WHEN {{ a }} = 1 THEN {{ p }}
      WHEN {{ p }} = 0 OR {{ r }} = 0 THEN CAST(0 AS DOUBLE)
      ELSE {{ fdiv('1', fdiv(a, p) ~ ' + ' ~ fdiv('1 - ' ~ a, r)) }}
    END) AS f_{{ loop.index0 }}
{% endfor %}
FROM {{ relation }}
