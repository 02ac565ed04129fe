DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_cells_exist";

CREATE TABLE "proj"."ds"."abcde_pair_cells_exist" AS
SELECT
  CASE
    WHEN missing = ''
    THEN 1
    ELSE CAST(CONCAT(
      'abcde --reuse-cells: the cell tables of the round do not exist under --prefix abcde_ --schema proj.ds; missing: ',
      SUBSTRING(missing, 3),
      '. Make them first: run `abcde sql impact` with --prefix abcde_ --schema proj.ds and this script''s input options (or the round''s first script, without --reuse-cells), or run this script without --reuse-cells.'
    ) AS INT)
  END AS cells_exist
FROM (
  SELECT
    CONCAT(
      CASE
        WHEN (
          (
            SELECT
              COUNT(*)
            FROM information_schema.tables
            WHERE
              LOWER(table_name) = LOWER('abcde_cell_rows')
              AND LOWER(table_schema) = LOWER('ds')
              AND LOWER(table_catalog) = LOWER('proj')
          ) > 0
        )
        THEN ''
        ELSE ', proj.ds.abcde_cell_rows'
      END,
      CASE
        WHEN (
          (
            SELECT
              COUNT(*)
            FROM information_schema.tables
            WHERE
              LOWER(table_name) = LOWER('abcde_validation')
              AND LOWER(table_schema) = LOWER('ds')
              AND LOWER(table_catalog) = LOWER('proj')
          ) > 0
        )
        THEN ''
        ELSE ', proj.ds.abcde_validation'
      END,
      CASE
        WHEN (
          (
            SELECT
              COUNT(*)
            FROM information_schema.tables
            WHERE
              LOWER(table_name) = LOWER('abcde_cells')
              AND LOWER(table_schema) = LOWER('ds')
              AND LOWER(table_catalog) = LOWER('proj')
          ) > 0
        )
        THEN ''
        ELSE ', proj.ds.abcde_cells'
      END,
      CASE
        WHEN (
          (
            SELECT
              COUNT(*)
            FROM information_schema.tables
            WHERE
              LOWER(table_name) = LOWER('abcde_cell_metrics')
              AND LOWER(table_schema) = LOWER('ds')
              AND LOWER(table_catalog) = LOWER('proj')
          ) > 0
        )
        THEN ''
        ELSE ', proj.ds.abcde_cell_metrics'
      END,
      CASE
        WHEN (
          (
            SELECT
              COUNT(*)
            FROM information_schema.tables
            WHERE
              LOWER(table_name) = LOWER('abcde_cells_key')
              AND LOWER(table_schema) = LOWER('ds')
              AND LOWER(table_catalog) = LOWER('proj')
          ) > 0
        )
        THEN ''
        ELSE ', proj.ds.abcde_cells_key'
      END
    ) AS missing
) AS m;
