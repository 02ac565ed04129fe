DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_fill`;

CREATE TABLE `proj`.`ds`.`abcde_pair_fill` AS
WITH pair_totals AS (
  SELECT
    COALESCE(SUM(t), CAST(0 AS FLOAT64)) AS total,
    COALESCE(SUM(CASE WHEN pair_class = 'split' THEN t END), CAST(0 AS FLOAT64)) AS split,
    COALESCE(SUM(CASE WHEN pair_class = 'merge' THEN t END), CAST(0 AS FLOAT64)) AS `merge`,
    COALESCE(SUM(CASE WHEN pair_class = 'stable' THEN t END), CAST(0 AS FLOAT64)) AS stable,
    COALESCE(SUM(CASE WHEN pair_class = 'split' THEN ordered_pairs END), CAST(0 AS FLOAT64)) * CAST(0.5 AS FLOAT64) AS judgeable_split,
    COALESCE(SUM(CASE WHEN pair_class = 'merge' THEN ordered_pairs END), CAST(0 AS FLOAT64)) * CAST(0.5 AS FLOAT64) AS judgeable_merge,
    COALESCE(SUM(CASE WHEN pair_class = 'stable' THEN ordered_pairs END), CAST(0 AS FLOAT64)) * CAST(0.5 AS FLOAT64) AS judgeable_stable,
    COUNT(*) AS strata
  FROM `proj`.`ds`.`abcde_pair_strata` AS pair_strata
), firsts AS (
  SELECT
    LEAST(item_i, item_j) AS lo_item,
    GREATEST(item_i, item_j) AS hi_item,
    MIN(d) AS first_d
  FROM `proj`.`ds`.`abcde_pair_stream` AS pair_stream
  WHERE
    item_i <> item_j
  GROUP BY
    LEAST(item_i, item_j),
    GREATEST(item_i, item_j)
), ranked AS (
  SELECT
    first_d,
    ROW_NUMBER() OVER (ORDER BY first_d NULLS LAST) AS judge_rank
  FROM firsts
), pair_budget AS (
  SELECT
    COUNT(*) AS judgeable,
    MAX(CASE WHEN judge_rank = 500 THEN first_d END) AS cut
  FROM ranked
), found AS (
  SELECT
    judgeable,
    cut
  FROM pair_budget
), population AS (
  SELECT
    CAST(FLOOR(judgeable_split + judgeable_merge + judgeable_stable + CAST(0.5 AS FLOAT64)) AS INT64) AS population_judgeable
  FROM pair_totals
)
SELECT
  NOT f.cut IS NULL AS budget_filled,
  f.judgeable AS judgeable_found,
  COALESCE(f.cut, 4999) AS cut,
  p.population_judgeable,
  p.population_judgeable >= 500 AS budget_possible,
  CASE
    WHEN NOT f.cut IS NULL
    THEN 'filled'
    WHEN p.population_judgeable < 500
    THEN 'the population holds only ' || CAST(p.population_judgeable AS STRING) || ' judgeable pairs: lower --budget'
    ELSE 'the stream of 5000 draws holds only ' || CAST(f.judgeable AS STRING) || ' judgeable pairs: run again with a larger --stream-draws (the same seed extends this sample)'
  END AS fill_note
FROM found AS f
CROSS JOIN population AS p;
