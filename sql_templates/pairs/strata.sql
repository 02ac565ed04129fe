{# Strata of the pair population: one row per (cell, class) with its closed-form total
   (SPEC §6; ABCDE §5.7 eq. 56–58 summed over i ∈ c and j; Jaccard decomposition §7).
   With t = the stratum's total, the strata are laid end to end in (b, e, class) order:
   [lo, lo + t) is the stratum's interval of [0, Σt), the target of the as-of join that
   picks a stratum per draw.

   abcde:   split  w_c·(W_b − w_c)/(W·W_b)        label −1
            merge  w_c·(W_e − w_c)/(W·W_e)        label +1
            stable w_c²·|W_b − W_e|/(W·W_b·W_e)   label sgn(W_b − W_e)   (self pairs included)
   jaccard (affected cells only), U = W_b + W_e − w_c:
            split  w_c·(W_b − w_c)/(W·U)          label −U/W_b
            merge  w_c·(W_e − w_c)/(W·U)          label  U/W_e
            stable w_c²/(W·U)                     label  U/W_e − U/W_b
   W_b − W_e is computed as split_w − merge_w (exact sums of the other cells). #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
),
strata AS (
  SELECT
    m.b, m.e, 'split' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
{% if population == 'abcde' %}
    {{ fdiv('m.w * m.split_w', 't.total_w * m.w_b') }} AS t,
    CAST(-1 AS DOUBLE) AS label
{% else %}
    {{ fdiv('m.w * m.split_w', 't.total_w * m.u') }} AS t,
    -{{ fdiv('m.u', 'm.w_b') }} AS label
{% endif %}
  FROM cell_metrics AS m CROSS JOIN total AS t
  WHERE m.split_w > 0
  UNION ALL
  SELECT
    m.b, m.e, 'merge' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
{% if population == 'abcde' %}
    {{ fdiv('m.w * m.merge_w', 't.total_w * m.w_e') }} AS t,
    CAST(1 AS DOUBLE) AS label
{% else %}
    {{ fdiv('m.w * m.merge_w', 't.total_w * m.u') }} AS t,
    {{ fdiv('m.u', 'm.w_e') }} AS label
{% endif %}
  FROM cell_metrics AS m CROSS JOIN total AS t
  WHERE m.merge_w > 0
  UNION ALL
  SELECT
    m.b, m.e, 'stable' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
{% if population == 'abcde' %}
    {{ fdiv('m.w * m.w * ABS(m.split_w - m.merge_w)', 't.total_w * m.w_b * m.w_e') }} AS t,
    CASE WHEN m.split_w > m.merge_w THEN CAST(1 AS DOUBLE) ELSE CAST(-1 AS DOUBLE) END AS label
  FROM cell_metrics AS m CROSS JOIN total AS t
  WHERE m.split_w <> m.merge_w
{% else %}
    {{ fdiv('m.w * m.w', 't.total_w * m.u') }} AS t,
    {{ fdiv('m.u', 'm.w_e') }} - {{ fdiv('m.u', 'm.w_b') }} AS label
  FROM cell_metrics AS m CROSS JOIN total AS t
  WHERE m.affected
{% endif %}
)
SELECT
  b, e, pair_class, w, w_b, w_e, u, split_w, merge_w, t, label,
  SUM(t) OVER (ORDER BY b, e, pair_class ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - t AS lo,
  ROW_NUMBER() OVER (ORDER BY b, e, pair_class) AS seq
FROM strata
WHERE t > 0
