{# Per-cell impact metrics (SPEC §3; ABCDE eq. 1–3; Jaccard decomposition eq. 1–3).
   split_w = W_b − w_c and merge_w = W_e − w_c are summed from the OTHER cells of the
   cluster (two frames around the current row) rather than subtracted: a subtraction
   loses every digit when a heavy cell sits next to a light one (1e6 beside 1e-6). #}
WITH sided AS (
  SELECT
    b,
    e,
    n,
    w,
    SUM(n) OVER (PARTITION BY b) AS n_b,
    SUM(n) OVER (PARTITION BY e) AS n_e,
    COALESCE(SUM(w) OVER (PARTITION BY b ORDER BY e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(w) OVER (PARTITION BY b ORDER BY e ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS split_w,
    COALESCE(SUM(w) OVER (PARTITION BY e ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(w) OVER (PARTITION BY e ORDER BY b ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS merge_w
  FROM cells
)
SELECT
  b,
  e,
  n,
  w,
  n_b,
  n_e,
  w + split_w AS w_b,
  w + merge_w AS w_e,
  w + split_w + merge_w AS u,
  split_w,
  merge_w,
  (n < n_b OR n < n_e) AS affected,
  {{ fdiv('split_w', 'w + split_w') }} AS split_rate,
  {{ fdiv('merge_w', 'w + merge_w') }} AS merge_rate,
  {{ fdiv('split_w + merge_w', 'w + split_w + merge_w') }} AS jaccard_distance,
  {{ fdiv('split_w', 'w + split_w + merge_w') }} AS split_distance,
  {{ fdiv('merge_w', 'w + split_w + merge_w') }} AS merge_distance,
  {{ fdiv('w', 'w + split_w + merge_w') }} AS jaccard_index
FROM sided
