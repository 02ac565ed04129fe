{# Exact quality metrics of Base → Exp against a truth clustering (docs/method.md §8.12):
   the truth is the judge, i ≡ j ⇔ same truth cluster. Per triple cell (b, e, t) — the
   items of Base cluster b, Exp cluster e and truth cluster t — every item i sees the same
   sets, so every pointwise quality metric is one number per triple cell, lifted with
   its weight w_bet / W (pointwise paper §3.1, property 3; ABCDE eq. 35, 47; Jaccard
   decomposition §4.2, eq. 56–59). With c = (b, e) the item's cell:
     split_eq = weight(Base(i) \ Exp(i) ∩ Truth(i)) = Σ of w over (b, e', t), e' ≠ e
     merge_eq = weight(Exp(i) \ Base(i) ∩ Truth(i)) = Σ of w over (b', e, t), b' ≠ b
     stable_eq = w_bet = weight(Base(i) ∩ Exp(i) ∩ Truth(i))  (i itself included)
   BadSplitRate(i) = split_eq/W_b, GoodSplitRate(i) = (S_c − split_eq)/W_b (ABCDE eq. 41–42);
   GoodMergeRate(i) = merge_eq/W_e, BadMergeRate(i) = (M_c − merge_eq)/W_e (eq. 43–44);
   the distances likewise over U_c (Jaccard eq. 5–8); GoodIndex(i) = w_bet/U_c,
   BadIndex(i) = (w_c − w_bet)/U_c for affected items (eq. 41–42, 56–59);
   ΔPrecision(i) = (w_bet + merge_eq)/W_e − (w_bet + split_eq)/W_b (ABCDE eq. 29).
   split_eq, merge_eq and w_c − w_bet are summed from the other triple cells (two window
   frames, as S_c and M_c: docs/method.md §2.4), never subtracted; the good split and bad
   merge parts subtract split_eq from S_c (merge_eq from M_c) and so carry a rounding
   error of order 2⁻⁵²·S_c. Triple cells whose truth cluster is NULL (an item of T that
   the truth lacks, or a NULL truth cluster) are counted, not used: the exact values are
   defined only when the truth covers T. #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
),
triple AS (
  SELECT b, e, {{ truth }} AS t, n, w
  FROM {{ truth_cells }}
  WHERE {{ truth }} IS NOT NULL
),
sided AS (
  SELECT
    x.b,
    x.e,
    x.t,
    x.w,
    COALESCE(SUM(x.w) OVER (PARTITION BY x.b, x.t ORDER BY x.e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(x.w) OVER (PARTITION BY x.b, x.t ORDER BY x.e ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS split_eq,
    COALESCE(SUM(x.w) OVER (PARTITION BY x.e, x.t ORDER BY x.b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(x.w) OVER (PARTITION BY x.e, x.t ORDER BY x.b ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS merge_eq,
    COALESCE(SUM(x.w) OVER (PARTITION BY x.b, x.e ORDER BY x.t ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(x.w) OVER (PARTITION BY x.b, x.e ORDER BY x.t ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS stable_neq
  FROM triple AS x
),
terms AS (
  SELECT
    {{ fdiv('s.w', 't.total_w') }} AS share,
    {{ fdiv('s.split_eq', 'm.w_b') }} AS bad_split_rate,
    {{ fdiv('m.split_w - s.split_eq', 'm.w_b') }} AS good_split_rate,
    {{ fdiv('s.merge_eq', 'm.w_e') }} AS good_merge_rate,
    {{ fdiv('m.merge_w - s.merge_eq', 'm.w_e') }} AS bad_merge_rate,
    {{ fdiv('s.split_eq', 'm.u') }} AS bad_split_distance,
    {{ fdiv('m.split_w - s.split_eq', 'm.u') }} AS good_split_distance,
    {{ fdiv('s.merge_eq', 'm.u') }} AS good_merge_distance,
    {{ fdiv('m.merge_w - s.merge_eq', 'm.u') }} AS bad_merge_distance,
    CASE WHEN m.affected THEN {{ fdiv('s.w', 'm.u') }} ELSE CAST(0 AS DOUBLE) END AS affected_good_index,
    CASE WHEN m.affected THEN {{ fdiv('s.stable_neq', 'm.u') }} ELSE CAST(0 AS DOUBLE) END AS affected_bad_index,
    {{ fdiv('s.w + s.merge_eq', 'm.w_e') }} - {{ fdiv('s.w + s.split_eq', 'm.w_b') }} AS delta_precision
  FROM sided AS s
  JOIN cell_metrics AS m ON s.b = m.b AND s.e = m.e
  CROSS JOIN total AS t
),
uncovered AS (
  SELECT
    COALESCE(SUM(CASE WHEN {{ truth }} IS NULL THEN n END), 0) AS uncovered_items,
    COALESCE(SUM(CASE WHEN {{ truth }} IS NULL THEN w END), CAST(0 AS DOUBLE)) AS uncovered_weight
  FROM {{ truth_cells }}
)
SELECT
{% for m in metrics %}
  s.{{ m }},
{% endfor %}
  u.uncovered_items,
  u.uncovered_weight
FROM (
  SELECT
{% for m in metrics %}
    SUM(x.share * x.{{ m }}) AS {{ m }}{{ ',' if not loop.last }}
{% endfor %}
  FROM terms AS x
) AS s
CROSS JOIN uncovered AS u
