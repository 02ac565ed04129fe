{# The classic, unweighted metrics of an actual clustering against the truth, from the
   cells (b = truth cluster, e = actual cluster, n = items) of T (docs/method.md §5; pointwise
   paper §4). Every count is cast to DOUBLE before it is multiplied: C(n, 2) overflows
   64-bit integers near n = 4.3e9; every division goes through fdiv, as Snowflake and
   Spark divide integers and decimals to a few decimals (docs/method.md §11).

   Pairs (unordered, of distinct items): TP = Σ_c C(n_c, 2); together in the truth
   S_b = Σ_b C(N_b, 2); together in the actual S_e = Σ_e C(N_e, 2);
   FN = ½ Σ_c n_c·(N_b − n_c), FP = ½ Σ_c n_c·(N_e − n_c) (N − n_c taken in integers,
   not S − TP: that difference of two numbers near 1e19 would lose every digit of a
   small FP), TN = C(N, 2) − TP − FP − FN.
   Adjusted Rand index (Hubert & Arabie 1985): (TP − E)/(M − E), E = S_b·S_e/C(N, 2),
   M = (S_b + S_e)/2; 1 when FP = FN = 0 (as scikit-learn).
   Purity = Σ_e max_b n_c / N; inverse purity = Σ_b max_e n_c / N; Fung's F-measure
   = Σ_b N_b/N · max_e 2 n_c/(N_b + N_e) (Fung, Wang & Ester 2003).
   Entropies in nats: H(C) = −Σ_b N_b/N ln(N_b/N), H(K) likewise over e,
   H(C|K) = −Σ_c n_c/N ln(n_c/N_e), H(K|C) = −Σ_c n_c/N ln(n_c/N_b); every
   logarithm is of a ratio in (0, 1] (cells are never empty), so no 0·ln 0 arises.
   homogeneity = 1 − H(C|K)/H(C) (1 if H(C) = 0), completeness = 1 − H(K|C)/H(K)
   (1 if H(K) = 0), V = their harmonic mean (Rosenberg & Hirschberg 2007);
   NMI = I(C; K)/((H(C) + H(K))/2), scikit-learn's default arithmetic average
   (1 when both entropies are 0, as scikit-learn). #}
WITH cl_cells AS (
  {# N_b and N_e of each cell's clusters come with the cells (cells/cell_metrics.sql):
     no window or join over all cells here (docs/method.md §11.3) #}
  SELECT
    b,
    e,
    CAST(n AS DOUBLE) AS n,
    CAST(n_b AS DOUBLE) AS n_b,
    CAST(n_e AS DOUBLE) AS n_e,
    CAST(n_b - n AS DOUBLE) AS split_n,
    CAST(n_e - n AS DOUBLE) AS merge_n
  FROM cell_metrics
),
cl_total AS (
  SELECT SUM(n) AS n FROM cl_cells
),
cl_terms AS (
  SELECT
    b,
    e,
    n,
    n_b,
    n_e,
    {{ fdiv('n * (n - 1)', '2') }} AS pairs,
    {{ fdiv('n * split_n', '2') }} AS split_pairs,
    {{ fdiv('n * merge_n', '2') }} AS merge_pairs,
    n * ({{ ln('n_b') }} - {{ ln('n') }}) AS n_ln_b,
    n * ({{ ln('n_e') }} - {{ ln('n') }}) AS n_ln_e,
    {{ fdiv('2 * n', 'n_b + n_e') }} AS f
  FROM cl_cells
),
cl_by_b AS (
  SELECT b, MAX(n_b) AS n_b, MAX(n) AS max_n, MAX(f) AS best_f FROM cl_terms GROUP BY b
),
cl_by_e AS (
  SELECT e, MAX(n_e) AS n_e, MAX(n) AS max_n FROM cl_terms GROUP BY e
),
cl_sums AS (
  SELECT
    (SELECT n FROM cl_total) AS n,
    (SELECT SUM(pairs) FROM cl_terms) AS tp,
    (SELECT SUM(merge_pairs) FROM cl_terms) AS fp,
    (SELECT SUM(split_pairs) FROM cl_terms) AS fn,
    (SELECT SUM({{ fdiv('n_b * (n_b - 1)', '2') }}) FROM cl_by_b) AS s_b,
    (SELECT SUM({{ fdiv('n_e * (n_e - 1)', '2') }}) FROM cl_by_e) AS s_e,
    (SELECT SUM(max_n) FROM cl_by_e) AS purity_n,
    (SELECT SUM(max_n) FROM cl_by_b) AS inverse_purity_n,
    (SELECT SUM(n_b * best_f) FROM cl_by_b) AS fung_n,
    (SELECT SUM(n_ln_e) FROM cl_terms) AS n_h_c_given_k,
    (SELECT SUM(n_ln_b) FROM cl_terms) AS n_h_k_given_c,
    (SELECT SUM(bb.n_b * ({{ ln('t.n') }} - {{ ln('bb.n_b') }})) FROM cl_by_b AS bb CROSS JOIN cl_total AS t) AS n_h_c,
    (SELECT SUM(ee.n_e * ({{ ln('t.n') }} - {{ ln('ee.n_e') }})) FROM cl_by_e AS ee CROSS JOIN cl_total AS t) AS n_h_k
),
cl_entropies AS (
  SELECT
    s.*,
    {{ fdiv('s.n * (s.n - 1)', '2') }} AS all_pairs,
    {# E = S_b·S_e/C(N, 2) = 2·S_b·S_e/(N(N − 1)), the expected TP of the adjusted Rand index #}
    {{ fdiv('2 * s.s_b * s.s_e', 's.n * (s.n - 1)') }} AS expected_tp,
    {{ fdiv('s.n_h_c_given_k', 's.n') }} AS h_c_given_k,
    {{ fdiv('s.n_h_k_given_c', 's.n') }} AS h_k_given_c,
    {{ fdiv('s.n_h_c', 's.n') }} AS h_c,
    {{ fdiv('s.n_h_k', 's.n') }} AS h_k
  FROM cl_sums AS s
),
cl_scores AS (
  SELECT
    e.*,
    e.all_pairs - e.tp - e.fp - e.fn AS tn,
    COALESCE({{ fdiv('e.tp', 'e.s_e') }}, CAST(1 AS DOUBLE)) AS pairwise_precision,
    COALESCE({{ fdiv('e.tp', 'e.s_b') }}, CAST(1 AS DOUBLE)) AS pairwise_recall,
    CASE WHEN e.fp = 0 AND e.fn = 0 THEN CAST(1 AS DOUBLE)
         {# (TP − E)/((S_b + S_e)/2 − E), both sides doubled #}
         ELSE {{ fdiv('2 * (e.tp - e.expected_tp)', 'e.s_b + e.s_e - 2 * e.expected_tp') }}
    END AS adjusted_rand_index,
    CASE WHEN e.h_c = 0 THEN CAST(1 AS DOUBLE)
         ELSE GREATEST(CAST(1 AS DOUBLE) - {{ fdiv('e.h_c_given_k', 'e.h_c') }}, CAST(0 AS DOUBLE))
    END AS homogeneity,
    CASE WHEN e.h_k = 0 THEN CAST(1 AS DOUBLE)
         ELSE GREATEST(CAST(1 AS DOUBLE) - {{ fdiv('e.h_k_given_c', 'e.h_k') }}, CAST(0 AS DOUBLE))
    END AS completeness,
    {# I(C; K) = H(C) − H(C|K) #}
    CASE WHEN e.h_c = 0 AND e.h_k = 0 THEN CAST(1 AS DOUBLE)
         ELSE GREATEST({{ fdiv('2 * (e.h_c - e.h_c_given_k)', 'e.h_c + e.h_k') }}, CAST(0 AS DOUBLE))
    END AS nmi
  FROM cl_entropies AS e
)
SELECT
  n AS items,
  tp AS true_positive_pairs,
  fp AS false_positive_pairs,
  fn AS false_negative_pairs,
  tn AS true_negative_pairs,
  pairwise_precision,
  pairwise_recall,
  CASE WHEN pairwise_precision + pairwise_recall > 0
       THEN {{ fdiv('2 * pairwise_precision * pairwise_recall', 'pairwise_precision + pairwise_recall') }}
       ELSE CAST(0 AS DOUBLE) END AS pairwise_f1,
  adjusted_rand_index,
  {{ fdiv('purity_n', 'n') }} AS purity,
  {{ fdiv('inverse_purity_n', 'n') }} AS inverse_purity,
  {{ fdiv('fung_n', 'n') }} AS fmeasure,
  homogeneity,
  completeness,
  CASE WHEN homogeneity + completeness > 0
       THEN {{ fdiv('2 * homogeneity * completeness', 'homogeneity + completeness') }}
       ELSE CAST(0 AS DOUBLE) END AS v_measure,
  nmi
FROM cl_scores
