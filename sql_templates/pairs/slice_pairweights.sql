{# Per slice I of vantage items (ABCDE App. B): weight(I), and per class k the totals
   Σ_{i ∈ I} Σ_{j: (i,j) ∈ k} u_ij that ΔPrecision(I)'s estimate multiplies (docs/method.md
   §8.9), plus the exact self part Σ_{i ∈ I} u_ii·l_ii and pairweight(I) = Σ_{i∈I} Σ_j u_ij
   (self pairs included, App. B.1). Per slice cell s of cell c (w_s, w2_s = Σ_{i∈s} w_i²):
     split         (w_s/W)·S_c/W_b
     merge         (w_s/W)·M_c/W_e
     stable ≠ self Σ_{i∈s} w_i(w_c − w_i)·|S_c − M_c|/(W·W_b·W_e)
                   = (w_s/W)·((w_c − w2_s/w_s)/W_b)·|S_c − M_c|/W_e, in stable_plus
                   (W_b > W_e) or stable_minus (W_b < W_e)
     self          (w_s/W)·((w2_s/w_s)/W_b)·(S_c − M_c)/W_e
   each a product of ratios (no overflow or underflow for any scale of the weights). #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
),
joined AS (
  SELECT
{% for col in slice_columns %}
    s.{{ col.alias }},
{% endfor %}
    s.w,
    {{ fdiv('s.w', 't.total_w') }} AS share,
    {{ fdiv('s.w2', 's.w') }} AS mean_w,
    m.w AS w_c,
    m.w_b,
    m.w_e,
    m.split_w,
    m.merge_w
  FROM {{ slice_cells }} AS s
  JOIN cell_metrics AS m ON s.b = m.b AND s.e = m.e
  CROSS JOIN total AS t
),
parts AS (
  SELECT
{% for col in slice_columns %}
    {{ col.alias }},
{% endfor %}
    w,
    share * {{ fdiv('split_w', 'w_b') }} AS split,
    share * {{ fdiv('merge_w', 'w_e') }} AS merge,
    share * {{ fdiv('CASE WHEN w_c > mean_w THEN w_c - mean_w ELSE CAST(0 AS DOUBLE) END', 'w_b') }} * {{ fdiv('ABS(split_w - merge_w)', 'w_e') }} AS stable,
    share * {{ fdiv('mean_w', 'w_b') }} * {{ fdiv('split_w - merge_w', 'w_e') }} AS self_part,
    split_w - merge_w AS sign
  FROM joined
)
SELECT
{% for col in slice_columns %}
  {{ col.alias }} AS {{ col.name|ident }},
{% endfor %}
  SUM(w) AS weight,
  SUM(split) AS split,
  SUM(merge) AS merge,
  SUM(CASE WHEN sign > 0 THEN stable ELSE CAST(0 AS DOUBLE) END) AS stable_plus,
  SUM(CASE WHEN sign < 0 THEN stable ELSE CAST(0 AS DOUBLE) END) AS stable_minus,
  SUM(self_part) AS self_delta_precision,
  SUM(split + merge + stable + ABS(self_part)) AS pairweight
FROM parts
GROUP BY {% for col in slice_columns %}{{ ', ' if not loop.first }}{{ col.alias }}{% endfor %}
