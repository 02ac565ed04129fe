{# The self pairs (i, i) of the pair populations, summed exactly per cell (ABCDE §5.8;
   Jaccard decomposition §8: they count as judged equivalent, so no verdict is needed and
   nothing about them is sampled; docs/method.md §6.8). With w2 = Σ_{i∈c} w_i²:
     delta_precision      Σ_c Σ_{i∈c} u_ii·l_ii = w2·(W_b − W_e)/(W·W_b·W_e)
                          (ABCDE eq. 58 at j = i; W_b − W_e = S_c − M_c)
     u_self               Σ_c Σ_{i∈c} u_ii = w2·|W_b − W_e|/(W·W_b·W_e)
     affected_good_index  Σ_{c affected} Σ_{i∈c} w_ii = w2/(W·U_c)  (Jaccard eq. 58 at j = i)
   each a product of ratios ≤ 1, (w_c/W)·((w2/w_c)/W_b)·…, with w2/w_c ≤ w_c. #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
)
SELECT
  COALESCE(SUM(CASE WHEN m.affected THEN {{ fdiv('m.w', 't.total_w') }} * {{ fdiv(fdiv('m.w2', 'm.w'), 'm.w_b') }} * {{ fdiv('m.split_w - m.merge_w', 'm.w_e') }} END), CAST(0 AS DOUBLE)) AS delta_precision,
  COALESCE(SUM(CASE WHEN m.affected THEN {{ fdiv('m.w', 't.total_w') }} * {{ fdiv(fdiv('m.w2', 'm.w'), 'm.w_b') }} * {{ fdiv('ABS(m.split_w - m.merge_w)', 'm.w_e') }} END), CAST(0 AS DOUBLE)) AS u_self,
  COALESCE(SUM(CASE WHEN m.affected THEN {{ fdiv('m.w', 't.total_w') }} * {{ fdiv(fdiv('m.w2', 'm.w'), 'm.u') }} END), CAST(0 AS DOUBLE)) AS affected_good_index
FROM cell_metrics AS m
CROSS JOIN total AS t
