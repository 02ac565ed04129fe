DROP TABLE IF EXISTS `proj`.`ds`.`abcde_item_sample`;

CREATE TABLE `proj`.`ds`.`abcde_item_sample` AS
WITH totals AS (
  SELECT
    SUM(draw_count) AS total_draws
  FROM `proj`.`ds`.`abcde_item_draws` AS item_draws
), jd AS (
  SELECT
    (
      CASE
        WHEN jd_raw > 0
        THEN (
          CAST(FLOOR(
            CAST(jd_raw AS FLOAT64) * EXP(-FLOOR(LN(CAST(jd_raw AS FLOAT64)) + CAST(0.5 AS FLOAT64))) * CAST(1000000000000 AS FLOAT64) + CAST(0.5 AS FLOAT64)
          ) AS FLOAT64) / NULLIF(CAST(CAST(1000000000000 AS FLOAT64) AS FLOAT64), CAST(0 AS FLOAT64))
        ) * EXP(FLOOR(LN(CAST(jd_raw AS FLOAT64)) + CAST(0.5 AS FLOAT64)))
      END
    ) AS jd_total
  FROM (
    SELECT
      CAST(SUM(w * jaccard_distance) AS FLOAT64) / NULLIF(CAST(SUM(w) AS FLOAT64), CAST(0 AS FLOAT64)) AS jd_raw
    FROM `proj`.`ds`.`abcde_cell_metrics` AS cell_metrics
  ) AS r
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    s.item_id,
    s.base_cluster,
    s.exp_cluster,
    s.weight,
    c.draw_count,
    s.clock_rank AS first_draw,
    CAST(c.draw_count * j.jd_total AS FLOAT64) / NULLIF(CAST(t.total_draws * s.jaccard_distance AS FLOAT64), CAST(0 AS FLOAT64)) AS importance_weight,
    s.split_rate,
    s.merge_rate,
    s.jaccard_distance,
    s.split_distance,
    s.merge_distance,
    s.jaccard_index,
    a.`provenance`,
    a.`size_class`
  FROM `proj`.`ds`.`abcde_item_clock` AS s
  JOIN `proj`.`ds`.`abcde_item_draws` AS c
    ON s.clock_rank = c.clock_rank
  CROSS JOIN totals AS t
  CROSS JOIN jd AS j
  LEFT JOIN `proj`.`ds`.`abcde_sample_attributes` AS a
    ON s.item_id = a.item_id
) AS t
CROSS JOIN `proj`.`ds`.`abcde_item_validation` AS v;
