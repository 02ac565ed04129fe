DROP TABLE IF EXISTS `proj`.`ds`.`abcde_sample_attributes`;

CREATE TABLE `proj`.`ds`.`abcde_sample_attributes` AS
SELECT
  CAST(`item_id` AS STRING) AS item_id,
  `provenance` AS `provenance`,
  `size_class` AS `size_class`
FROM `proj`.`ds`.`attributes`
WHERE
  CAST(`item_id` AS STRING) IN (
    SELECT
      item_id
    FROM `proj`.`ds`.`abcde_item_clock` AS item_clock
  );
