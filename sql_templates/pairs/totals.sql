{# Per class k of the pair population (docs/method.md §6.4, §6.9): its totals under the two
   target populations, what the sampling design gives it, and the design's effective
   sample size for each target — the estimators' multipliers and the heavy-tail test.
   Classes: split, merge, and the stable pairs i ≠ j by the sign of W_b − W_e
   (stable_plus, stable_minus, stable_zero: ΔPrecision's label, ABCDE eq. 58).
     u, w          Σ_{(i,j) ∈ k} u_ij, Σ w_ij (e.g. split: SplitRate(T), SplitDistance(T))
     q             Σ over k's strata of the design probability t (pairs/strata.sql)
     u_square      Σ_s p_u(s)²/q(s) over k's sampled strata, p_u = t_u/Σt_u: with n draws,
                   Kish's effective sample size of k's importance weights toward u is
                   n·(u/Σt_u)²/u_square in expectation (Kish 1965); likewise w_square
     u_uncovered   u mass of strata the design never draws (q = 0: α = 1 and u_ij = 0 …)
     judgeable     unique unordered pairs i ≠ j of the class that the design can draw
                   (half its ordered pairs; a budget cannot exceed the sum). #}
WITH sums AS (
  SELECT SUM(t_u) AS sum_u, SUM(t_w) AS sum_w FROM pair_population
),
keyed AS (
  SELECT
    CASE
      WHEN p.pair_class <> 'stable' THEN p.pair_class
      WHEN p.label > 0 THEN 'stable_plus'
      WHEN p.label < 0 THEN 'stable_minus'
      ELSE 'stable_zero'
    END AS class_key,
    p.t_u,
    p.t_w,
    p.ordered_pairs,
    s.t,
    {{ fdiv('p.t_u', 'x.sum_u') }} AS p_u,
    {{ fdiv('p.t_w', 'x.sum_w') }} AS p_w
  FROM pair_population AS p
  CROSS JOIN sums AS x
  LEFT JOIN pair_strata AS s ON p.b = s.b AND p.e = s.e AND p.pair_class = s.pair_class
)
SELECT
  class_key,
  SUM(t_u) AS u,
  SUM(t_w) AS w,
  COALESCE(SUM(t), CAST(0 AS DOUBLE)) AS q,
  COALESCE(SUM(CASE WHEN t > 0 THEN p_u * {{ fdiv('p_u', 't') }} END), CAST(0 AS DOUBLE)) AS u_square,
  COALESCE(SUM(CASE WHEN t > 0 THEN p_w * {{ fdiv('p_w', 't') }} END), CAST(0 AS DOUBLE)) AS w_square,
  COALESCE(SUM(CASE WHEN t IS NULL THEN t_u END), CAST(0 AS DOUBLE)) AS u_uncovered,
  COALESCE(SUM(CASE WHEN t IS NULL THEN t_w END), CAST(0 AS DOUBLE)) AS w_uncovered,
  COALESCE(SUM(CASE WHEN t > 0 THEN ordered_pairs END), CAST(0 AS DOUBLE)) * CAST(0.5 AS DOUBLE) AS judgeable,
  COUNT(*) AS strata
FROM keyed
GROUP BY class_key
