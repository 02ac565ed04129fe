{# The pair population, one row per stratum s = (cell c, class) with its total under the
   two target populations of docs/method.md §6 (self pairs excluded: they need no verdict
   and are added exactly, §6.8):
     t_u = Σ_{(i,j) ∈ s} u_ij   (ABCDE §5.7 eq. 56–58: ΔPrecision and the rates)
     t_w = Σ_{(i,j) ∈ s} w_ij   (Jaccard decomposition §7: the distances and indexes)
   with W = weight(T), U = U_c, S = S_c = W_b − w_c, M = M_c = W_e − w_c:
     split   t_u = w_c·S/(W·W_b)                       t_w = w_c·S/(W·U)
     merge   t_u = w_c·M/(W·W_e)                       t_w = w_c·M/(W·U)
     stable  t_u = (w_c² − Σw_i²)·|S − M|/(W·W_b·W_e)   t_w = (w_c² − Σw_i²)/(W·U)
   (stable: pairs i ≠ j of c; W_b − W_e = S − M, exact sums of the other cells).
   `label` is ΔPrecision's sign l_ij of ABCDE eq. 56–58: −1 split, +1 merge,
   sgn(W_b − W_e) stable (0 when the clusters weigh the same: u_ij = 0, Jaccard §6.1).
   `u_over_w` = u_ij/w_ij, the same for every pair of the stratum (Jaccard §6.1: the
   importance weight between the populations, = |l_ij| of eq. 92–94): U/W_b (split),
   U/W_e (merge), U·|W_b − W_e|/(W_b·W_e) (stable). It is computed from the cell alone,
   so it is bit-identical however the engine sums; the draws' importance weights follow
   from it, α and Σu/Σw (docs/method.md §6.9).
   Every total is a product of ratios ≤ 1 (w_c/W)·(S/W_b)·…: independent of the scale of
   the weights, no overflow or underflow (docs/method.md §6.4). The stable factor
   (w_c² − Σw_i²)/w_c² = 1 − Σ(w_i/w_c)² is computed as 1 − (w2/w_c)/w_c, exact to an
   absolute 2⁻⁵² (clamped at 0); a cell whose weight sits on one item loses relative
   precision in this factor only, never in the exact self part (§6.8).
   Only affected cells have pairs of positive weight (split_w > 0 or merge_w > 0);
   `ordered_pairs` counts the stratum's ordered pairs i ≠ j (for the judgeable pairs). #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
),
pair_cells AS (
  SELECT
    b, e, n, n_b, n_e, w, w2, w_b, w_e, u, split_w, merge_w,
    {{ order_key('b', 'e') }} AS cell_key
  FROM cell_metrics
  WHERE split_w > 0 OR merge_w > 0
),
stable_cells AS (
  SELECT
    b, e, cell_key, n, w, w_b, w_e, u, split_w, merge_w,
    CASE WHEN nonself > 0 THEN nonself ELSE CAST(0 AS DOUBLE) END AS pair_share
  FROM (
    SELECT
      b, e, cell_key, n, w, w_b, w_e, u, split_w, merge_w,
      CAST(1 AS DOUBLE) - {{ fdiv(fdiv('w2', 'w'), 'w') }} AS nonself
    FROM pair_cells
    WHERE n > 1
  ) AS m
)
SELECT
  m.b, m.e, m.cell_key, 'split' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
  {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.split_w', 'm.w_b') }} AS t_u,
  {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.split_w', 'm.u') }} AS t_w,
  CAST(-1 AS DOUBLE) AS label,
  {{ fdiv('m.u', 'm.w_b') }} AS u_over_w,
  CAST(m.n AS DOUBLE) * CAST(m.n_b - m.n AS DOUBLE) AS ordered_pairs
FROM pair_cells AS m CROSS JOIN total AS t
WHERE m.split_w > 0
UNION ALL
SELECT
  m.b, m.e, m.cell_key, 'merge' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
  {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.merge_w', 'm.w_e') }} AS t_u,
  {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.merge_w', 'm.u') }} AS t_w,
  CAST(1 AS DOUBLE) AS label,
  {{ fdiv('m.u', 'm.w_e') }} AS u_over_w,
  CAST(m.n AS DOUBLE) * CAST(m.n_e - m.n AS DOUBLE) AS ordered_pairs
FROM pair_cells AS m CROSS JOIN total AS t
WHERE m.merge_w > 0
UNION ALL
SELECT
  m.b, m.e, m.cell_key, 'stable' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
  {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.w', 'm.w_b') }} * {{ fdiv('ABS(m.split_w - m.merge_w)', 'm.w_e') }} * m.pair_share AS t_u,
  {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.w', 'm.u') }} * m.pair_share AS t_w,
  CASE WHEN m.split_w > m.merge_w THEN CAST(1 AS DOUBLE)
       WHEN m.split_w < m.merge_w THEN CAST(-1 AS DOUBLE)
       ELSE CAST(0 AS DOUBLE) END AS label,
  {{ fdiv('m.u', 'm.w_b') }} * {{ fdiv('ABS(m.split_w - m.merge_w)', 'm.w_e') }} AS u_over_w,
  CAST(m.n AS DOUBLE) * CAST(m.n - 1 AS DOUBLE) AS ordered_pairs
FROM stable_cells AS m CROSS JOIN total AS t
WHERE m.pair_share > 0
