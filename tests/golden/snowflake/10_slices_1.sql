DROP TABLE IF EXISTS proj.ds.abcde_slices_1;

CREATE TABLE proj.ds.abcde_slices_1 AS
WITH slice_cells_1 AS (
  SELECT
    b,
    e,
    s_0,
    s_1,
    SUM(item_rows) AS n,
    SUM(w) AS w,
    SUM(w2) AS w2
  FROM proj.ds.abcde_cell_rows AS cell_rows
  WHERE
    common
  GROUP BY
    b,
    e,
    s_0,
    s_1
), total AS (
  SELECT
    SUM(w) AS total_w
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
), slices_1_unflagged AS (
  SELECT
    s.s_0 AS provenance,
    s.s_1 AS size_class,
    CAST(SUM(s.n) AS BIGINT) AS items,
    SUM(s.w) AS weight,
    CAST(SUM(CASE WHEN m.affected THEN s.n ELSE 0 END) AS BIGINT) AS affected_items,
    SUM(CASE WHEN m.affected THEN s.w ELSE CAST(0 AS DOUBLE) END) AS affected_weight,
    CAST(SUM(s.w * m.split_rate) AS DOUBLE) / NULLIF(CAST(SUM(s.w) AS DOUBLE), CAST(0 AS DOUBLE)) AS split_rate,
    CAST(SUM(s.w * m.merge_rate) AS DOUBLE) / NULLIF(CAST(SUM(s.w) AS DOUBLE), CAST(0 AS DOUBLE)) AS merge_rate,
    CAST(SUM(s.w * m.jaccard_distance) AS DOUBLE) / NULLIF(CAST(SUM(s.w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_distance,
    CAST(SUM(s.w * m.split_distance) AS DOUBLE) / NULLIF(CAST(SUM(s.w) AS DOUBLE), CAST(0 AS DOUBLE)) AS split_distance,
    CAST(SUM(s.w * m.merge_distance) AS DOUBLE) / NULLIF(CAST(SUM(s.w) AS DOUBLE), CAST(0 AS DOUBLE)) AS merge_distance,
    CAST(SUM(s.w * m.jaccard_index) AS DOUBLE) / NULLIF(CAST(SUM(s.w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_index,
    CAST(SUM(s.w * m.jaccard_distance) AS DOUBLE) / NULLIF(CAST(MAX(t.total_w) AS DOUBLE), CAST(0 AS DOUBLE)) AS contribution
  FROM slice_cells_1 AS s
  JOIN proj.ds.abcde_cell_metrics AS m
    ON s.b = m.b AND s.e = m.e
  CROSS JOIN total AS t
  GROUP BY
    s.s_0,
    s.s_1
)
SELECT
  t.*,
  v.input_valid
FROM slices_1_unflagged AS t
CROSS JOIN proj.ds.abcde_validation AS v;
