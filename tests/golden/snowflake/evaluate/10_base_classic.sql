DROP TABLE IF EXISTS proj.ds.abcde_base_classic;

CREATE TABLE proj.ds.abcde_base_classic AS
WITH cl_cells AS (
  SELECT
    b,
    e,
    n AS n_int,
    CAST(n AS DOUBLE) AS n
  FROM proj.ds.abcde_base_cells AS cells
), cl_int AS (
  SELECT
    x.b,
    x.e,
    SUM(x.n_int) OVER (PARTITION BY x.b) - x.n_int AS split_n,
    SUM(x.n_int) OVER (PARTITION BY x.e) - x.n_int AS merge_n
  FROM cl_cells AS x
), cl_total AS (
  SELECT
    SUM(n) AS n
  FROM cl_cells
), cl_by_b AS (
  SELECT
    b,
    SUM(n) AS n_b,
    MAX(n) AS max_n
  FROM cl_cells
  GROUP BY
    b
), cl_by_e AS (
  SELECT
    e,
    SUM(n) AS n_e,
    MAX(n) AS max_n
  FROM cl_cells
  GROUP BY
    e
), cl_terms AS (
  SELECT
    c.b,
    CAST(c.n * (
      c.n - 1
    ) AS DOUBLE) / NULLIF(CAST(2 AS DOUBLE), CAST(0 AS DOUBLE)) AS pairs,
    CAST(c.n * CAST(i.split_n AS DOUBLE) AS DOUBLE) / NULLIF(CAST(2 AS DOUBLE), CAST(0 AS DOUBLE)) AS split_pairs,
    CAST(c.n * CAST(i.merge_n AS DOUBLE) AS DOUBLE) / NULLIF(CAST(2 AS DOUBLE), CAST(0 AS DOUBLE)) AS merge_pairs,
    c.n * (
      LN(CAST(bb.n_b AS DOUBLE)) - LN(CAST(c.n AS DOUBLE))
    ) AS n_ln_b,
    c.n * (
      LN(CAST(ee.n_e AS DOUBLE)) - LN(CAST(c.n AS DOUBLE))
    ) AS n_ln_e,
    CAST(2 * c.n AS DOUBLE) / NULLIF(CAST(bb.n_b + ee.n_e AS DOUBLE), CAST(0 AS DOUBLE)) AS f
  FROM cl_cells AS c
  JOIN cl_by_b AS bb
    ON c.b = bb.b
  JOIN cl_by_e AS ee
    ON c.e = ee.e
  JOIN cl_int AS i
    ON c.b = i.b AND c.e = i.e
), cl_fung AS (
  SELECT
    t.b,
    MAX(t.f) AS best_f
  FROM cl_terms AS t
  GROUP BY
    t.b
), cl_sums AS (
  SELECT
    (
      SELECT
        n
      FROM cl_total
    ) AS n,
    (
      SELECT
        SUM(pairs)
      FROM cl_terms
    ) AS tp,
    (
      SELECT
        SUM(merge_pairs)
      FROM cl_terms
    ) AS fp,
    (
      SELECT
        SUM(split_pairs)
      FROM cl_terms
    ) AS fn,
    (
      SELECT
        SUM(
          CAST(n_b * (
            n_b - 1
          ) AS DOUBLE) / NULLIF(CAST(2 AS DOUBLE), CAST(0 AS DOUBLE))
        )
      FROM cl_by_b
    ) AS s_b,
    (
      SELECT
        SUM(
          CAST(n_e * (
            n_e - 1
          ) AS DOUBLE) / NULLIF(CAST(2 AS DOUBLE), CAST(0 AS DOUBLE))
        )
      FROM cl_by_e
    ) AS s_e,
    (
      SELECT
        SUM(max_n)
      FROM cl_by_e
    ) AS purity_n,
    (
      SELECT
        SUM(max_n)
      FROM cl_by_b
    ) AS inverse_purity_n,
    (
      SELECT
        SUM(bb.n_b * f.best_f)
      FROM cl_fung AS f
      JOIN cl_by_b AS bb
        ON f.b = bb.b
    ) AS fung_n,
    (
      SELECT
        SUM(n_ln_e)
      FROM cl_terms
    ) AS n_h_c_given_k,
    (
      SELECT
        SUM(n_ln_b)
      FROM cl_terms
    ) AS n_h_k_given_c,
    (
      SELECT
        SUM(bb.n_b * (
          LN(CAST(t.n AS DOUBLE)) - LN(CAST(bb.n_b AS DOUBLE))
        ))
      FROM cl_by_b AS bb
      CROSS JOIN cl_total AS t
    ) AS n_h_c,
    (
      SELECT
        SUM(ee.n_e * (
          LN(CAST(t.n AS DOUBLE)) - LN(CAST(ee.n_e AS DOUBLE))
        ))
      FROM cl_by_e AS ee
      CROSS JOIN cl_total AS t
    ) AS n_h_k
), cl_entropies AS (
  SELECT
    s.*,
    CAST(s.n * (
      s.n - 1
    ) AS DOUBLE) / NULLIF(CAST(2 AS DOUBLE), CAST(0 AS DOUBLE)) AS all_pairs,
    CAST(2 * s.s_b * s.s_e AS DOUBLE) / NULLIF(CAST(s.n * (
      s.n - 1
    ) AS DOUBLE), CAST(0 AS DOUBLE)) AS expected_tp,
    CAST(s.n_h_c_given_k AS DOUBLE) / NULLIF(CAST(s.n AS DOUBLE), CAST(0 AS DOUBLE)) AS h_c_given_k,
    CAST(s.n_h_k_given_c AS DOUBLE) / NULLIF(CAST(s.n AS DOUBLE), CAST(0 AS DOUBLE)) AS h_k_given_c,
    CAST(s.n_h_c AS DOUBLE) / NULLIF(CAST(s.n AS DOUBLE), CAST(0 AS DOUBLE)) AS h_c,
    CAST(s.n_h_k AS DOUBLE) / NULLIF(CAST(s.n AS DOUBLE), CAST(0 AS DOUBLE)) AS h_k
  FROM cl_sums AS s
), cl_scores AS (
  SELECT
    e.*,
    e.all_pairs - e.tp - e.fp - e.fn AS tn,
    COALESCE(
      CAST(e.tp AS DOUBLE) / NULLIF(CAST(e.s_e AS DOUBLE), CAST(0 AS DOUBLE)),
      CAST(1 AS DOUBLE)
    ) AS pairwise_precision,
    COALESCE(
      CAST(e.tp AS DOUBLE) / NULLIF(CAST(e.s_b AS DOUBLE), CAST(0 AS DOUBLE)),
      CAST(1 AS DOUBLE)
    ) AS pairwise_recall,
    CASE
      WHEN e.fp = 0 AND e.fn = 0
      THEN CAST(1 AS DOUBLE)
      ELSE CAST(2 * (
        e.tp - e.expected_tp
      ) AS DOUBLE) / NULLIF(CAST(e.s_b + e.s_e - 2 * e.expected_tp AS DOUBLE), CAST(0 AS DOUBLE))
    END AS adjusted_rand_index,
    CASE
      WHEN e.h_c = 0
      THEN CAST(1 AS DOUBLE)
      ELSE GREATEST_IGNORE_NULLS(
        CAST(1 AS DOUBLE) - (
          CAST(e.h_c_given_k AS DOUBLE) / NULLIF(CAST(e.h_c AS DOUBLE), CAST(0 AS DOUBLE))
        ),
        CAST(0 AS DOUBLE)
      )
    END AS homogeneity,
    CASE
      WHEN e.h_k = 0
      THEN CAST(1 AS DOUBLE)
      ELSE GREATEST_IGNORE_NULLS(
        CAST(1 AS DOUBLE) - (
          CAST(e.h_k_given_c AS DOUBLE) / NULLIF(CAST(e.h_k AS DOUBLE), CAST(0 AS DOUBLE))
        ),
        CAST(0 AS DOUBLE)
      )
    END AS completeness,
    CASE
      WHEN e.h_c = 0 AND e.h_k = 0
      THEN CAST(1 AS DOUBLE)
      ELSE GREATEST_IGNORE_NULLS(
        CAST(2 * (
          e.h_c - e.h_c_given_k
        ) AS DOUBLE) / NULLIF(CAST(e.h_c + e.h_k AS DOUBLE), CAST(0 AS DOUBLE)),
        CAST(0 AS DOUBLE)
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
      THEN CAST(2 * pairwise_precision * pairwise_recall AS DOUBLE) / NULLIF(CAST(pairwise_precision + pairwise_recall AS DOUBLE), CAST(0 AS DOUBLE))
      ELSE CAST(0 AS DOUBLE)
    END AS pairwise_f1,
    adjusted_rand_index,
    CAST(purity_n AS DOUBLE) / NULLIF(CAST(n AS DOUBLE), CAST(0 AS DOUBLE)) AS purity,
    CAST(inverse_purity_n AS DOUBLE) / NULLIF(CAST(n AS DOUBLE), CAST(0 AS DOUBLE)) AS inverse_purity,
    CAST(fung_n AS DOUBLE) / NULLIF(CAST(n AS DOUBLE), CAST(0 AS DOUBLE)) AS fmeasure,
    homogeneity,
    completeness,
    CASE
      WHEN homogeneity + completeness > 0
      THEN CAST(2 * homogeneity * completeness AS DOUBLE) / NULLIF(CAST(homogeneity + completeness AS DOUBLE), CAST(0 AS DOUBLE))
      ELSE CAST(0 AS DOUBLE)
    END AS v_measure,
    nmi
  FROM cl_scores
) AS t
CROSS JOIN proj.ds.abcde_base_validation AS v;
