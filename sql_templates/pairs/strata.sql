{# Strata of the pair population: one row per (cell, class) with its closed-form total
   (docs/method.md §6; ABCDE §5.7 eq. 56–58 summed over i ∈ c and j; Jaccard decomposition §7).
   With t = the stratum's total, the strata are laid end to end: [lo, lo + t) is the
   stratum's interval of [0, Σt), the target of the as-of join that picks a stratum per
   draw. They are laid in the order of the md5 keys of their cells' ids (`order_key`),
   not the ids' native order: the sample then depends only on the data, not on whether
   an id column was read as text or as integers, nor on a database's collation.

   abcde:   split  w_c·(W_b − w_c)/(W·W_b)        label −1
            merge  w_c·(W_e − w_c)/(W·W_e)        label +1
            stable w_c²·|W_b − W_e|/(W·W_b·W_e)   label sgn(W_b − W_e)   (self pairs included)
   jaccard (affected cells only), U = W_b + W_e − w_c:
            split  w_c·(W_b − w_c)/(W·U)          label −U/W_b
            merge  w_c·(W_e − w_c)/(W·U)          label  U/W_e
            stable w_c²/(W·U)                     label  U/W_e − U/W_b
   Each total is computed as a product of ratios ≤ 1, e.g. (w_c/W)·((W_b − w_c)/W_b):
   pair probabilities do not depend on the scale of the weights, and a product of raw
   weights overflows (w ≈ 1e103) or underflows (w ≈ 1e-110) a double.
   W_b − W_e is computed as split_w − merge_w (exact sums of the other cells).
   `ordered_pairs` counts the ordered non-self pairs (i, j) of the stratum: n_c·(N_b − n_c)
   (split), n_c·(N_e − n_c) (merge), n_c·(n_c − 1) (stable); half their sum over a
   class is its number of unique judgeable pairs (a budget cannot exceed it). #}
WITH total AS (
  SELECT SUM(w) AS total_w FROM cell_metrics
),
{# only cells with other cells in their clusters have pairs of positive weight #}
pair_cells AS (
  SELECT
    b, e, n, n_b, n_e, w, w_b, w_e, u, split_w, merge_w, affected,
    {{ order_key('b', 'e') }} AS cell_key
  FROM cell_metrics
  WHERE split_w > 0 OR merge_w > 0
),
strata AS (
  SELECT
    m.b, m.e, m.cell_key, 'split' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
{% if population == 'abcde' %}
    {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.split_w', 'm.w_b') }} AS t,
    CAST(-1 AS DOUBLE) AS label,
{% else %}
    {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.split_w', 'm.u') }} AS t,
    -{{ fdiv('m.u', 'm.w_b') }} AS label,
{% endif %}
    CAST(m.n AS DOUBLE) * CAST(m.n_b - m.n AS DOUBLE) AS ordered_pairs
  FROM pair_cells AS m CROSS JOIN total AS t
  WHERE m.split_w > 0
  UNION ALL
  SELECT
    m.b, m.e, m.cell_key, 'merge' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
{% if population == 'abcde' %}
    {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.merge_w', 'm.w_e') }} AS t,
    CAST(1 AS DOUBLE) AS label,
{% else %}
    {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.merge_w', 'm.u') }} AS t,
    {{ fdiv('m.u', 'm.w_e') }} AS label,
{% endif %}
    CAST(m.n AS DOUBLE) * CAST(m.n_e - m.n AS DOUBLE) AS ordered_pairs
  FROM pair_cells AS m CROSS JOIN total AS t
  WHERE m.merge_w > 0
  UNION ALL
  SELECT
    m.b, m.e, m.cell_key, 'stable' AS pair_class, m.w, m.w_b, m.w_e, m.u, m.split_w, m.merge_w,
{% if population == 'abcde' %}
    {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.w', 'm.w_b') }} * {{ fdiv('ABS(m.split_w - m.merge_w)', 'm.w_e') }} AS t,
    CASE WHEN m.split_w > m.merge_w THEN CAST(1 AS DOUBLE) ELSE CAST(-1 AS DOUBLE) END AS label,
{% else %}
    {{ fdiv('m.w', 't.total_w') }} * {{ fdiv('m.w', 'm.u') }} AS t,
    {{ fdiv('m.u', 'm.w_e') }} - {{ fdiv('m.u', 'm.w_b') }} AS label,
{% endif %}
    CAST(m.n AS DOUBLE) * CAST(m.n - 1 AS DOUBLE) AS ordered_pairs
  FROM pair_cells AS m CROSS JOIN total AS t
{% if population == 'abcde' %}
  WHERE m.split_w <> m.merge_w
{% else %}
  WHERE m.affected
{% endif %}
)
SELECT
  b, e, pair_class, w, w_b, w_e, u, split_w, merge_w, t, label, ordered_pairs,
  SUM(t) OVER (ORDER BY cell_key, b, e, pair_class ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - t AS lo,
  ROW_NUMBER() OVER (ORDER BY cell_key, b, e, pair_class) AS seq
FROM strata
WHERE t > 0
