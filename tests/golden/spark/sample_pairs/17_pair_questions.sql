DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_questions`;

CREATE TABLE `proj`.`ds`.`abcde_pair_questions` AS
WITH firsts AS (
  SELECT
    pair_id,
    item_i,
    item_j,
    ROW_NUMBER() OVER (PARTITION BY pair_id ORDER BY first_draw NULLS LAST) AS k
  FROM `proj`.`ds`.`abcde_pair_sample` AS pair_sample
  WHERE
    pair_class <> 'self'
), pair_questions_raw AS (
  SELECT
    f.pair_id,
    f.item_i AS item_1,
    f.item_j AS item_2,
    a1.`provenance` AS `provenance_1`,
    a2.`provenance` AS `provenance_2`,
    a1.`size_class` AS `size_class_1`,
    a2.`size_class` AS `size_class_2`,
    CAST(NULL AS STRING) AS verdict
  FROM firsts AS f
  LEFT JOIN `proj`.`ds`.`abcde_sample_attributes` AS a1
    ON f.item_i = a1.item_id
  LEFT JOIN `proj`.`ds`.`abcde_sample_attributes` AS a2
    ON f.item_j = a2.item_id
  WHERE
    f.k = 1
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    q.`pair_id`,
    q.`item_1`,
    q.`item_2`,
    q.`provenance_1`,
    q.`provenance_2`,
    q.`size_class_1`,
    q.`size_class_2`,
    m.sample_id,
    q.verdict
  FROM pair_questions_raw AS q
  CROSS JOIN `proj`.`ds`.`abcde_pair_manifest` AS m
) AS t
CROSS JOIN `proj`.`ds`.`abcde_pair_validation` AS v;
