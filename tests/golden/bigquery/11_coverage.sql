DROP TABLE IF EXISTS `proj`.`ds`.`abcde_coverage`;

CREATE TABLE `proj`.`ds`.`abcde_coverage` AS
WITH one_side AS (
  SELECT
    one_side_id AS item_id,
    CASE WHEN side = 1 THEN 'base' ELSE 'exp' END AS side,
    w
  FROM `proj`.`ds`.`abcde_cell_rows` AS cell_rows
  WHERE
    NOT common AND NOT one_side_id IS NULL
), ranked AS (
  SELECT
    side,
    item_id,
    w,
    ROW_NUMBER() OVER (PARTITION BY side ORDER BY item_id NULLS LAST) AS k
  FROM one_side
), coverage_unflagged AS (
  SELECT
    side,
    COUNT(*) AS items,
    SUM(
      CASE
        WHEN COALESCE(CAST(w AS FLOAT64) - CAST(w AS FLOAT64) = CAST(0 AS FLOAT64), FALSE)
        THEN w
      END
    ) AS weight,
    CAST(SUM(
      CASE
        WHEN COALESCE(CAST(w AS FLOAT64) - CAST(w AS FLOAT64) = CAST(0 AS FLOAT64), FALSE)
        THEN 0
        ELSE 1
      END
    ) AS INT64) AS items_without_weight,
    MIN(CASE WHEN k = 1 THEN item_id END) AS example_1,
    MIN(CASE WHEN k = 2 THEN item_id END) AS example_2,
    MIN(CASE WHEN k = 3 THEN item_id END) AS example_3,
    MIN(CASE WHEN k = 4 THEN item_id END) AS example_4,
    MIN(CASE WHEN k = 5 THEN item_id END) AS example_5,
    MIN(CASE WHEN k = 6 THEN item_id END) AS example_6,
    MIN(CASE WHEN k = 7 THEN item_id END) AS example_7,
    MIN(CASE WHEN k = 8 THEN item_id END) AS example_8,
    MIN(CASE WHEN k = 9 THEN item_id END) AS example_9,
    MIN(CASE WHEN k = 10 THEN item_id END) AS example_10
  FROM ranked
  GROUP BY
    side
)
SELECT
  t.*,
  v.input_valid
FROM coverage_unflagged AS t
CROSS JOIN `proj`.`ds`.`abcde_validation` AS v;
