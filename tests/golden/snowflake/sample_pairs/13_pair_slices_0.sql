DROP TABLE IF EXISTS proj.ds.abcde_pair_slices_0;

CREATE TABLE proj.ds.abcde_pair_slices_0 AS
WITH slice_cells_0 AS (
  SELECT
    b,
    e,
    s_0,
    SUM(item_rows) AS n,
    SUM(w) AS w
  FROM proj.ds.abcde_cell_rows AS cell_rows
  WHERE
    common
  GROUP BY
    b,
    e,
    s_0
), total AS (
  SELECT
    SUM(w) AS total_w
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
)
SELECT
  s.s_0 AS provenance,
  SUM(s.w) AS weight,
  SUM(
    CASE
      WHEN m.affected
      THEN CAST(s.w AS DOUBLE) / NULLIF(CAST(t.total_w AS DOUBLE), CAST(0 AS DOUBLE))
      ELSE CAST(0 AS DOUBLE)
    END
  ) AS pairweight
FROM slice_cells_0 AS s
JOIN proj.ds.abcde_cell_metrics AS m
  ON s.b = m.b AND s.e = m.e
CROSS JOIN total AS t
GROUP BY
  s.s_0;
