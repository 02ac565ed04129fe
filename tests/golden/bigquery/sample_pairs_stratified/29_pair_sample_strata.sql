DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_sample_strata`;

CREATE TABLE `proj`.`ds`.`abcde_pair_sample_strata` AS
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    0 AS stratum_index,
    'split_merge' AS name,
    'split,merge' AS classes,
    a.budget_split_merge AS budget,
    14 AS seed,
    a.q_split_merge AS q,
    a.pairs_split_merge AS population_pairs,
    CASE WHEN a.budget_split_merge = 0 THEN 0 ELSE 5000 END AS stream_draws,
    COALESCE(d.draws, 0) AS draws,
    COALESCE(d.pairs_ordered, 0) AS pairs_ordered,
    COALESCE(d.pairs_unordered, 0) AS pairs_unordered,
    COALESCE(d.pairs_unordered, 0) AS pairs_judgeable,
    COALESCE(d.pairs_split_pairs, 0) AS pairs_split_pairs,
    COALESCE(d.pairs_split_draws, 0) AS pairs_split_draws,
    COALESCE(d.pairs_merge_pairs, 0) AS pairs_merge_pairs,
    COALESCE(d.pairs_merge_draws, 0) AS pairs_merge_draws,
    COALESCE(d.pairs_stable_pairs, 0) AS pairs_stable_pairs,
    COALESCE(d.pairs_stable_draws, 0) AS pairs_stable_draws,
    f.budget_filled,
    f.fill_note
  FROM `proj`.`ds`.`abcde_pair_allocation` AS a
  CROSS JOIN `proj`.`ds`.`abcde_pair_fill_split_merge` AS f
  CROSS JOIN (
    SELECT
      SUM(draw_count) AS draws,
      COUNT(*) AS pairs_ordered,
      COUNT(DISTINCT pair_id) AS pairs_unordered,
      COUNT(DISTINCT CASE WHEN pair_class = 'split' THEN pair_id END) AS pairs_split_pairs,
      SUM(CASE WHEN pair_class = 'split' THEN draw_count ELSE 0 END) AS pairs_split_draws,
      COUNT(DISTINCT CASE WHEN pair_class = 'merge' THEN pair_id END) AS pairs_merge_pairs,
      SUM(CASE WHEN pair_class = 'merge' THEN draw_count ELSE 0 END) AS pairs_merge_draws,
      COUNT(DISTINCT CASE WHEN pair_class = 'stable' THEN pair_id END) AS pairs_stable_pairs,
      SUM(CASE WHEN pair_class = 'stable' THEN draw_count ELSE 0 END) AS pairs_stable_draws
    FROM `proj`.`ds`.`abcde_pair_sample` AS pair_sample
    WHERE
      stratum = 'split_merge'
  ) AS d
  UNION ALL
  SELECT
    1 AS stratum_index,
    'stable' AS name,
    'stable' AS classes,
    a.budget_stable AS budget,
    15 AS seed,
    a.q_stable AS q,
    a.pairs_stable AS population_pairs,
    CASE WHEN a.budget_stable = 0 THEN 0 ELSE 5000 END AS stream_draws,
    COALESCE(d.draws, 0) AS draws,
    COALESCE(d.pairs_ordered, 0) AS pairs_ordered,
    COALESCE(d.pairs_unordered, 0) AS pairs_unordered,
    COALESCE(d.pairs_unordered, 0) AS pairs_judgeable,
    COALESCE(d.pairs_split_pairs, 0) AS pairs_split_pairs,
    COALESCE(d.pairs_split_draws, 0) AS pairs_split_draws,
    COALESCE(d.pairs_merge_pairs, 0) AS pairs_merge_pairs,
    COALESCE(d.pairs_merge_draws, 0) AS pairs_merge_draws,
    COALESCE(d.pairs_stable_pairs, 0) AS pairs_stable_pairs,
    COALESCE(d.pairs_stable_draws, 0) AS pairs_stable_draws,
    f.budget_filled,
    f.fill_note
  FROM `proj`.`ds`.`abcde_pair_allocation` AS a
  CROSS JOIN `proj`.`ds`.`abcde_pair_fill_stable` AS f
  CROSS JOIN (
    SELECT
      SUM(draw_count) AS draws,
      COUNT(*) AS pairs_ordered,
      COUNT(DISTINCT pair_id) AS pairs_unordered,
      COUNT(DISTINCT CASE WHEN pair_class = 'split' THEN pair_id END) AS pairs_split_pairs,
      SUM(CASE WHEN pair_class = 'split' THEN draw_count ELSE 0 END) AS pairs_split_draws,
      COUNT(DISTINCT CASE WHEN pair_class = 'merge' THEN pair_id END) AS pairs_merge_pairs,
      SUM(CASE WHEN pair_class = 'merge' THEN draw_count ELSE 0 END) AS pairs_merge_draws,
      COUNT(DISTINCT CASE WHEN pair_class = 'stable' THEN pair_id END) AS pairs_stable_pairs,
      SUM(CASE WHEN pair_class = 'stable' THEN draw_count ELSE 0 END) AS pairs_stable_draws
    FROM `proj`.`ds`.`abcde_pair_sample` AS pair_sample
    WHERE
      stratum = 'stable'
  ) AS d
) AS t
CROSS JOIN `proj`.`ds`.`abcde_pair_validation` AS v;
