DROP TABLE IF EXISTS proj.ds.abcde_base_outside;

CREATE TABLE proj.ds.abcde_base_outside AS
SELECT
  e,
  SUM(item_rows) AS n,
  SUM(w) AS w,
  SUM(
    CASE
      WHEN (
        COALESCE(CAST(w AS DOUBLE) - CAST(w AS DOUBLE) = CAST(0 AS DOUBLE), FALSE)
        AND w >= CAST(1e-100 AS DOUBLE)
        AND w <= CAST(1e+100 AS DOUBLE)
      )
      THEN 0
      ELSE item_rows
    END
  ) AS unweighted
FROM proj.ds.abcde_base_cell_rows AS cell_rows
WHERE
  NOT common
  AND NOT one_side_id IS NULL
  AND NOT e IS NULL
  AND e IN (
    SELECT
      e
    FROM proj.ds.abcde_base_cells AS cells
  )
GROUP BY
  e;
