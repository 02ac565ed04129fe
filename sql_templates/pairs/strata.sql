{# The sampling design over the strata of `pair_population` (docs/method.md §6.5, §6.9): the
   defensive mixture q = α·u/Σu + (1 − α)·w/Σw of the two target populations (Hesterberg
   1995; Veach & Guibas 1995), per stratum s
     t = α·t_u/Σt_u + (1 − α)·t_w/Σt_w
   (α = 1: the ABCDE population, α = 0: the Jaccard population), optionally restricted to
   some classes (a stratum of abcde.sampling.stratified). Within a stratum both
   populations are ∝ w_i·w_j, so the mixture draws a stratum ∝ t and then the pair exactly
   as a pure population would; a draw's importance weights (u_ij/Σu)/q_ij and
   (w_ij/Σw)/q_ij are stratum constants, computed from u_over_w (pairs/population.sql).
   Strata are laid end to end in the order of their cells' md5 keys (`order_key`, not
   the ids' native order: the sample depends only on the data), [lo, lo + t) being a
   stratum's interval of [0, Σt): the target of the as-of join that picks a stratum
   per draw (pairs/draw_strata.sql). Strata of probability 0 (α = 1 and u_ij = 0) are
   never drawn. The running sum is a two-level one, so that no window runs over all
   strata in one partition: the key range is cut into {{ buckets }} buckets (contiguous
   in key order), each bucket's total t, its offset `bucket_lo` (a running sum over the
   buckets, the only window without partitions, over at most {{ buckets }} rows) and
   each stratum's offset within its bucket; lo = bucket_lo + that, exactly bucket_lo
   for a bucket's first stratum, and `seq` numbers the strata within their bucket. #}
{% set buckets = 256 %}
WITH sums AS (
  SELECT SUM(t_u) AS sum_u, SUM(t_w) AS sum_w FROM pair_population
),
mixed AS (
  SELECT
    p.b, p.e, p.cell_key, p.pair_class, p.w, p.w_b, p.w_e, p.u, p.split_w, p.merge_w,
    p.t_u, p.t_w, p.label, p.u_over_w, p.ordered_pairs,
    {{ fdiv('p.t_u', 's.sum_u') }} AS p_u,
    {{ fdiv('p.t_w', 's.sum_w') }} AS p_w,
    {{ alpha }} * {{ fdiv('p.t_u', 's.sum_u') }} + (1 - {{ alpha }}) * {{ fdiv('p.t_w', 's.sum_w') }} AS t
  FROM pair_population AS p CROSS JOIN sums AS s
),
design AS (
  SELECT
    b, e, cell_key, pair_class, w, w_b, w_e, u, split_w, merge_w, t_u, t_w, label,
    u_over_w, ordered_pairs, t,
    CAST(FLOOR(cell_key * CAST({{ buckets }} AS DOUBLE)) AS BIGINT) AS bucket
  FROM mixed
  WHERE t > 0
{% if classes %}
    AND pair_class IN ({% for c in classes %}{{ ', ' if not loop.first }}'{{ c }}'{% endfor %})
{% endif %}
),
bucket_totals AS (
  SELECT bucket, SUM(t) AS bucket_t FROM design GROUP BY bucket
),
bucket_offsets AS (
  SELECT
    bucket,
    SUM(bucket_t) OVER (ORDER BY bucket ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - bucket_t AS bucket_lo
  FROM bucket_totals
)
SELECT
  d.b, d.e, d.pair_class, d.w, d.w_b, d.w_e, d.u, d.split_w, d.merge_w, d.t_u, d.t_w, d.t,
  d.label, d.u_over_w, d.ordered_pairs, d.bucket, o.bucket_lo,
  o.bucket_lo + (SUM(d.t) OVER (PARTITION BY d.bucket ORDER BY d.cell_key, d.b, d.e, d.pair_class ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - d.t) AS lo,
  ROW_NUMBER() OVER (PARTITION BY d.bucket ORDER BY d.cell_key, d.b, d.e, d.pair_class) AS seq
FROM design AS d
JOIN bucket_offsets AS o ON d.bucket = o.bucket
