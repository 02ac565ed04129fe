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
    CAST(n_e - n AS DOUBLE) AS merge_n,
    n < n_b AS multi_b,
    n < n_e AS multi_e
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
    multi_b,
    multi_e,
    {{ fdiv('n * (n - 1)', '2') }} AS pairs,
    {{ fdiv('n * split_n', '2') }} AS split_pairs,
    {{ fdiv('n * merge_n', '2') }} AS merge_pairs,
    {# C(N_b, 2) = Σ_{c ⊂ b} n_c·(N_b − 1)/2: cluster sums as sums over cells #}
    {{ fdiv('n * (n_b - 1)', '2') }} AS b_pairs_share,
    {{ fdiv('n * (n_e - 1)', '2') }} AS e_pairs_share,
    n * ({{ ln('n_b') }} - {{ ln('n') }}) AS n_ln_b,
    n * ({{ ln('n_e') }} - {{ ln('n') }}) AS n_ln_e,
    {{ fdiv('2 * n', 'n_b + n_e') }} AS f
  FROM cl_cells
),
{# maxima over a cluster's cells: a cluster with one cell is its own maximum, so only
   clusters split over several cells are grouped (most clusters of a good run have one
   cell; a GROUP BY over all of them was most of this query's time) #}
cl_by_b AS (
  SELECT b, MAX(n_b) AS n_b, MAX(n) AS max_n, MAX(f) AS best_f
  FROM cl_terms WHERE multi_b GROUP BY b
),
cl_by_e AS (
  SELECT e, MAX(n) AS max_n FROM cl_terms WHERE multi_e GROUP BY e
),
cl_cell_sums AS (
  SELECT
    SUM(c.pairs) AS tp,
    SUM(c.merge_pairs) AS fp,
    SUM(c.split_pairs) AS fn,
    SUM(c.b_pairs_share) AS s_b,
    SUM(c.e_pairs_share) AS s_e,
    SUM(CASE WHEN c.multi_e THEN CAST(0 AS DOUBLE) ELSE c.n END) AS single_e_n,
    SUM(CASE WHEN c.multi_b THEN CAST(0 AS DOUBLE) ELSE c.n END) AS single_b_n,
    SUM(CASE WHEN c.multi_b THEN CAST(0 AS DOUBLE) ELSE c.n_b * c.f END) AS single_b_fung,
    SUM(c.n_ln_e) AS n_h_c_given_k,
    SUM(c.n_ln_b) AS n_h_k_given_c,
    {# Σ_b N_b·ln(N/N_b) = Σ_c n_c·ln(N/N_b): every term ≥ 0, no cancellation #}
    SUM(c.n * ({{ ln('t.n') }} - {{ ln('c.n_b') }})) AS n_h_c,
    SUM(c.n * ({{ ln('t.n') }} - {{ ln('c.n_e') }})) AS n_h_k
  FROM cl_terms AS c CROSS JOIN cl_total AS t
),
cl_sums AS (
  SELECT
    (SELECT n FROM cl_total) AS n,
    s.tp,
    s.fp,
    s.fn,
    s.s_b,
    s.s_e,
    s.single_e_n + COALESCE((SELECT SUM(max_n) FROM cl_by_e), CAST(0 AS DOUBLE)) AS purity_n,
    s.single_b_n + COALESCE((SELECT SUM(max_n) FROM cl_by_b), CAST(0 AS DOUBLE))
      AS inverse_purity_n,
    s.single_b_fung + COALESCE((SELECT SUM(n_b * best_f) FROM cl_by_b), CAST(0 AS DOUBLE))
      AS fung_n,
    s.n_h_c_given_k,
    s.n_h_k_given_c,
    s.n_h_c,
    s.n_h_k
  FROM cl_cell_sums AS s
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
