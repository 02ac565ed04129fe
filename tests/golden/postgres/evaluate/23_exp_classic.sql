DROP TABLE IF EXISTS "proj"."ds"."abcde_exp_classic";

CREATE TABLE "proj"."ds"."abcde_exp_classic" AS
WITH cl_cells AS (
  SELECT
    b,
    e,
    CAST(n AS DOUBLE PRECISION) AS n,
    CAST(n_b AS DOUBLE PRECISION) AS n_b,
    CAST(n_e AS DOUBLE PRECISION) AS n_e,
    CAST(n_b - n AS DOUBLE PRECISION) AS split_n,
    CAST(n_e - n AS DOUBLE PRECISION) AS merge_n,
    n < n_b AS multi_b,
    n < n_e AS multi_e
  FROM "proj"."ds"."abcde_exp_cell_metrics" AS cell_metrics
), cl_total AS (
  SELECT
    SUM(n) AS n
  FROM cl_cells
), cl_terms AS (
  SELECT
    b,
    e,
    n,
    n_b,
    n_e,
    multi_b,
    multi_e,
    CAST(n * (
      n - 1
    ) AS DOUBLE PRECISION) / NULLIF(CAST(2 AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS pairs,
    CAST(n * split_n AS DOUBLE PRECISION) / NULLIF(CAST(2 AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_pairs,
    CAST(n * merge_n AS DOUBLE PRECISION) / NULLIF(CAST(2 AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_pairs,
    CAST(n * (
      n_b - 1
    ) AS DOUBLE PRECISION) / NULLIF(CAST(2 AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS b_pairs_share,
    CAST(n * (
      n_e - 1
    ) AS DOUBLE PRECISION) / NULLIF(CAST(2 AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS e_pairs_share,
    n * (
      LN(CAST(n_b AS DOUBLE PRECISION)) - LN(CAST(n AS DOUBLE PRECISION))
    ) AS n_ln_b,
    n * (
      LN(CAST(n_e AS DOUBLE PRECISION)) - LN(CAST(n AS DOUBLE PRECISION))
    ) AS n_ln_e,
    CAST(2 * n AS DOUBLE PRECISION) / NULLIF(CAST(n_b + n_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS f
  FROM cl_cells
), cl_by_b AS (
  SELECT
    b,
    MAX(n_b) AS n_b,
    MAX(n) AS max_n,
    MAX(f) AS best_f
  FROM cl_terms
  WHERE
    multi_b
  GROUP BY
    b
), cl_by_e AS (
  SELECT
    e,
    MAX(n) AS max_n
  FROM cl_terms
  WHERE
    multi_e
  GROUP BY
    e
), cl_cell_sums AS (
  SELECT
    SUM(c.pairs) AS tp,
    SUM(c.merge_pairs) AS fp,
    SUM(c.split_pairs) AS fn,
    SUM(c.b_pairs_share) AS s_b,
    SUM(c.e_pairs_share) AS s_e,
    SUM(CASE WHEN c.multi_e THEN CAST(0 AS DOUBLE PRECISION) ELSE c.n END) AS single_e_n,
    SUM(CASE WHEN c.multi_b THEN CAST(0 AS DOUBLE PRECISION) ELSE c.n END) AS single_b_n,
    SUM(CASE WHEN c.multi_b THEN CAST(0 AS DOUBLE PRECISION) ELSE c.n_b * c.f END) AS single_b_fung,
    SUM(c.n_ln_e) AS n_h_c_given_k,
    SUM(c.n_ln_b) AS n_h_k_given_c,
    SUM(
      c.n * (
        LN(CAST(t.n AS DOUBLE PRECISION)) - LN(CAST(c.n_b AS DOUBLE PRECISION))
      )
    ) AS n_h_c,
    SUM(
      c.n * (
        LN(CAST(t.n AS DOUBLE PRECISION)) - LN(CAST(c.n_e AS DOUBLE PRECISION))
      )
    ) AS n_h_k
  FROM cl_terms AS c
  CROSS JOIN cl_total AS t
), cl_sums AS (
  SELECT
    (
      SELECT
        n
      FROM cl_total
    ) AS n,
    s.tp,
    s.fp,
    s.fn,
    s.s_b,
    s.s_e,
    s.single_e_n + COALESCE((
      SELECT
        SUM(max_n)
      FROM cl_by_e
    ), CAST(0 AS DOUBLE PRECISION)) AS purity_n,
    s.single_b_n + COALESCE((
      SELECT
        SUM(max_n)
      FROM cl_by_b
    ), CAST(0 AS DOUBLE PRECISION)) AS inverse_purity_n,
    s.single_b_fung + COALESCE((
      SELECT
        SUM(n_b * best_f)
      FROM cl_by_b
    ), CAST(0 AS DOUBLE PRECISION)) AS fung_n,
    s.n_h_c_given_k,
    s.n_h_k_given_c,
    s.n_h_c,
    s.n_h_k
  FROM cl_cell_sums AS s
), cl_entropies AS (
  SELECT
    s.*,
    CAST(s.n * (
      s.n - 1
    ) AS DOUBLE PRECISION) / NULLIF(CAST(2 AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS all_pairs,
    CAST(2 * s.s_b * s.s_e AS DOUBLE PRECISION) / NULLIF(CAST(s.n * (
      s.n - 1
    ) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS expected_tp,
    CAST(s.n_h_c_given_k AS DOUBLE PRECISION) / NULLIF(CAST(s.n AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS h_c_given_k,
    CAST(s.n_h_k_given_c AS DOUBLE PRECISION) / NULLIF(CAST(s.n AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS h_k_given_c,
    CAST(s.n_h_c AS DOUBLE PRECISION) / NULLIF(CAST(s.n AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS h_c,
    CAST(s.n_h_k AS DOUBLE PRECISION) / NULLIF(CAST(s.n AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS h_k
  FROM cl_sums AS s
), cl_scores AS (
  SELECT
    e.*,
    e.all_pairs - e.tp - e.fp - e.fn AS tn,
    COALESCE(
      CAST(e.tp AS DOUBLE PRECISION) / NULLIF(CAST(e.s_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)),
      CAST(1 AS DOUBLE PRECISION)
    ) AS pairwise_precision,
    COALESCE(
      CAST(e.tp AS DOUBLE PRECISION) / NULLIF(CAST(e.s_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)),
      CAST(1 AS DOUBLE PRECISION)
    ) AS pairwise_recall,
    CASE
      WHEN e.fp = 0 AND e.fn = 0
      THEN CAST(1 AS DOUBLE PRECISION)
      ELSE CAST(2 * (
        e.tp - e.expected_tp
      ) AS DOUBLE PRECISION) / NULLIF(
        CAST(e.s_b + e.s_e - 2 * e.expected_tp AS DOUBLE PRECISION),
        CAST(0 AS DOUBLE PRECISION)
      )
    END AS adjusted_rand_index,
    CASE
      WHEN e.h_c = 0
      THEN CAST(1 AS DOUBLE PRECISION)
      ELSE GREATEST(
        CAST(1 AS DOUBLE PRECISION) - (
          CAST(e.h_c_given_k AS DOUBLE PRECISION) / NULLIF(CAST(e.h_c AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
        ),
        CAST(0 AS DOUBLE PRECISION)
      )
    END AS homogeneity,
    CASE
      WHEN e.h_k = 0
      THEN CAST(1 AS DOUBLE PRECISION)
      ELSE GREATEST(
        CAST(1 AS DOUBLE PRECISION) - (
          CAST(e.h_k_given_c AS DOUBLE PRECISION) / NULLIF(CAST(e.h_k AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
        ),
        CAST(0 AS DOUBLE PRECISION)
      )
    END AS completeness,
    CASE
      WHEN e.h_c = 0 AND e.h_k = 0
      THEN CAST(1 AS DOUBLE PRECISION)
      ELSE GREATEST(
        CAST(2 * (
          e.h_c - e.h_c_given_k
        ) AS DOUBLE PRECISION) / NULLIF(CAST(e.h_c + e.h_k AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)),
        CAST(0 AS DOUBLE PRECISION)
      )
    END AS nmi
  FROM cl_entropies AS e
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    n AS items,
    tp AS true_positive_pairs,
    fp AS false_positive_pairs,
    fn AS false_negative_pairs,
    tn AS true_negative_pairs,
    pairwise_precision,
    pairwise_recall,
    CASE
      WHEN pairwise_precision + pairwise_recall > 0
      THEN CAST(2 * pairwise_precision * pairwise_recall AS DOUBLE PRECISION) / NULLIF(
        CAST(pairwise_precision + pairwise_recall AS DOUBLE PRECISION),
        CAST(0 AS DOUBLE PRECISION)
      )
      ELSE CAST(0 AS DOUBLE PRECISION)
    END AS pairwise_f1,
    adjusted_rand_index,
    CAST(purity_n AS DOUBLE PRECISION) / NULLIF(CAST(n AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS purity,
    CAST(inverse_purity_n AS DOUBLE PRECISION) / NULLIF(CAST(n AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS inverse_purity,
    CAST(fung_n AS DOUBLE PRECISION) / NULLIF(CAST(n AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS fmeasure,
    homogeneity,
    completeness,
    CASE
      WHEN homogeneity + completeness > 0
      THEN CAST(2 * homogeneity * completeness AS DOUBLE PRECISION) / NULLIF(CAST(homogeneity + completeness AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
      ELSE CAST(0 AS DOUBLE PRECISION)
    END AS v_measure,
    nmi
  FROM cl_scores
) AS t
CROSS JOIN "proj"."ds"."abcde_exp_validation" AS v;
