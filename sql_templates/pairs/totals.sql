{# Σ of the pair weights per class (SPEC §6): the multipliers of the estimators (SPEC §8).
   'stable' includes the self pairs. #}
SELECT
  COALESCE(SUM(t), CAST(0 AS DOUBLE)) AS total,
  COALESCE(SUM(CASE WHEN pair_class = 'split' THEN t END), CAST(0 AS DOUBLE)) AS split,
  COALESCE(SUM(CASE WHEN pair_class = 'merge' THEN t END), CAST(0 AS DOUBLE)) AS merge,
  COALESCE(SUM(CASE WHEN pair_class = 'stable' THEN t END), CAST(0 AS DOUBLE)) AS stable,
  COUNT(*) AS strata
FROM pair_strata
