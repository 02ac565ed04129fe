{# Per-cell impact metrics (docs/method.md §3; ABCDE eq. 1–3; Jaccard decomposition eq. 1–3).

   split_w = W_b − w_c and merge_w = W_e − w_c are summed from the OTHER cells of the
   cluster (two window frames around the current row), not subtracted: a subtraction
   loses every digit when a heavy cell sits beside a light one (1e6 beside 1e-6).
   Only clusters with more than one cell can have other cells (usually a small share
   of all clusters), so the windows run on those alone; every other cell has
   split_w = 0, merge_w = 0 (docs/method.md §11.3). With `squares`, w2 = Σ_{i∈c} w_i²
   rides along (the pair sampler's self and stable pairs, docs/method.md §6.8). #}
WITH multi_b AS (
  SELECT b FROM cells GROUP BY b HAVING COUNT(*) > 1
),
multi_e AS (
  SELECT e FROM cells GROUP BY e HAVING COUNT(*) > 1
),
split_side AS (
  SELECT
    c.b,
    c.e,
    SUM(c.n) OVER (PARTITION BY c.b) AS n_b,
    COALESCE(SUM(c.w) OVER (PARTITION BY c.b ORDER BY c.e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(c.w) OVER (PARTITION BY c.b ORDER BY c.e ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS split_w
  FROM cells AS c
  JOIN multi_b AS m ON c.b = m.b
),
merge_side AS (
  SELECT
    c.b,
    c.e,
    SUM(c.n) OVER (PARTITION BY c.e) AS n_e,
    COALESCE(SUM(c.w) OVER (PARTITION BY c.e ORDER BY c.b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE))
      + COALESCE(SUM(c.w) OVER (PARTITION BY c.e ORDER BY c.b ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), CAST(0 AS DOUBLE)) AS merge_w
  FROM cells AS c
  JOIN multi_e AS m ON c.e = m.e
),
sided AS (
  SELECT
    c.b,
    c.e,
    c.n,
    c.w,
{% if squares %}
    c.w2,
{% endif %}
    COALESCE(s.n_b, c.n) AS n_b,
    COALESCE(m.n_e, c.n) AS n_e,
    COALESCE(s.split_w, CAST(0 AS DOUBLE)) AS split_w,
    COALESCE(m.merge_w, CAST(0 AS DOUBLE)) AS merge_w
  FROM cells AS c
  LEFT JOIN split_side AS s ON c.b = s.b AND c.e = s.e
  LEFT JOIN merge_side AS m ON c.b = m.b AND c.e = m.e
)
SELECT
  b,
  e,
  n,
  w,
{% if squares %}
  w2,
{% endif %}
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
