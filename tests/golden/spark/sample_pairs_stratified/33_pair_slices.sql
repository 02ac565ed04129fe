DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_slices`;

CREATE TABLE `proj`.`ds`.`abcde_pair_slices` AS
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    `provenance`,
    CAST(NULL AS STRING) AS `size_class`,
    `weight`,
    `split`,
    `merge`,
    `stable_plus`,
    `stable_minus`,
    `self_delta_precision`,
    `pairweight`,
    'provenance' AS slice_columns
  FROM `proj`.`ds`.`abcde_pair_slices_0` AS pair_slices_0
  UNION ALL
  SELECT
    `provenance`,
    `size_class`,
    `weight`,
    `split`,
    `merge`,
    `stable_plus`,
    `stable_minus`,
    `self_delta_precision`,
    `pairweight`,
    'provenance,size_class' AS slice_columns
  FROM `proj`.`ds`.`abcde_pair_slices_1` AS pair_slices_1
) AS t
CROSS JOIN `proj`.`ds`.`abcde_pair_validation` AS v;
