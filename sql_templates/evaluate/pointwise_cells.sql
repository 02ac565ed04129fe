{# Pointwise metrics of every cell c = (b, e), truth as b and actual as e (pointwise
   paper §3, eq. 7–15; docs/method.md §4). All items of a cell share them (§3.1, property 3):
   TP = w_c, FP = W_e − w_c, FN = W_b − w_c, TN = W − U_c.
     precision = w_c / W_e             (eq. 11)
     recall    = w_c / W_b             (eq. 12)
     f1        = 2 w_c / (W_b + W_e)   (harmonic mean of the cell's P and R)
     accuracy  = (W − U_c + w_c) / W   (eq. 13) = (W − FP − FN) / W
     jaccard_distance, jaccard_index   (eq. 14–15), from cell_metrics.
   FP and FN are cell_metrics' merge_w and split_w, summed from the other cells.
   With `complete` (a truth of complete clusters, docs/method.md §4.4), the actual
   cluster is the run's whole cluster: FP adds the weight of its items outside T
   (`outside`), and W is the weight of every item of the run (`run_weight`). #}
{% set o = 'COALESCE(o.w, CAST(0 AS DOUBLE))' %}
WITH pw_total AS (
{% if complete %}
  SELECT total_w FROM run_weight
{% else %}
  SELECT SUM(w) AS total_w FROM cell_metrics
{% endif %}
)
SELECT
  c.b,
  c.e,
  c.n,
  c.w,
  c.n_b,
  c.n_e,
  c.w_b,
{% if complete %}
  c.w_e + {{ o }} AS w_e,
  {{ fdiv('c.w', 'c.w_e + ' ~ o) }} AS precision,
  {{ fdiv('c.w', 'c.w_b') }} AS recall,
  {{ fdiv('2 * c.w', 'c.w_b + c.w_e + ' ~ o) }} AS f1,
  {{ fdiv('t.total_w - c.split_w - c.merge_w - ' ~ o, 't.total_w') }} AS accuracy,
  {{ fdiv('c.split_w + c.merge_w + ' ~ o, 'c.u + ' ~ o) }} AS jaccard_distance,
  {{ fdiv('c.w', 'c.u + ' ~ o) }} AS jaccard_index
FROM cell_metrics AS c
CROSS JOIN pw_total AS t
LEFT JOIN outside AS o ON c.e = o.e
{% else %}
  c.w_e,
  {{ fdiv('c.w', 'c.w_e') }} AS precision,
  {{ fdiv('c.w', 'c.w_b') }} AS recall,
  {{ fdiv('2 * c.w', 'c.w_b + c.w_e') }} AS f1,
  {{ fdiv('t.total_w - c.split_w - c.merge_w', 't.total_w') }} AS accuracy,
  c.jaccard_distance,
  c.jaccard_index
FROM cell_metrics AS c
CROSS JOIN pw_total AS t
{% endif %}
