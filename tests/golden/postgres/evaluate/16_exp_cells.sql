DROP TABLE IF EXISTS "proj"."ds"."abcde_exp_cells";

CREATE TABLE "proj"."ds"."abcde_exp_cells" AS
SELECT
  b,
  e,
  SUM(item_rows) AS n,
  SUM(w) AS w,
  SUM(w2) AS w2
FROM "proj"."ds"."abcde_exp_cell_rows" AS cell_rows
WHERE
  common
GROUP BY
  b,
  e;
