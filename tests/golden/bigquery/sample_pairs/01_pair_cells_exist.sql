DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_cells_exist`;

CREATE TABLE `proj`.`ds`.`abcde_pair_cells_exist` AS
SELECT
  CASE
    WHEN missing = ''
    THEN 1
    ELSE CAST(CONCAT(
      'abcde --reuse-cells: the cell tables of the round do not exist under --prefix abcde_ --schema proj.ds; missing: ',
      COALESCE(SUBSTRING(missing, 3), ''),
      '. Make them first: run `abcde sql impact` with --prefix abcde_ --schema proj.ds and this script\'s input options (or the round\'s first script, without --reuse-cells), or run this script without --reuse-cells.'
    ) AS INT64)
  END AS cells_exist
FROM (
  SELECT
    CONCAT(
      COALESCE(
        CASE
          WHEN (
            (
              SELECT
                COUNT(*)
              FROM `proj`.`ds`.INFORMATION_SCHEMA.TABLES
              WHERE
                table_name = 'abcde_cell_rows'
            ) > 0
          )
          THEN ''
          ELSE ', proj.ds.abcde_cell_rows'
        END,
        ''
      ),
      COALESCE(
        CASE
          WHEN (
            (
              SELECT
                COUNT(*)
              FROM `proj`.`ds`.INFORMATION_SCHEMA.TABLES
              WHERE
                table_name = 'abcde_validation'
            ) > 0
          )
          THEN ''
          ELSE ', proj.ds.abcde_validation'
        END,
        ''
      ),
      COALESCE(
        CASE
          WHEN (
            (
              SELECT
                COUNT(*)
              FROM `proj`.`ds`.INFORMATION_SCHEMA.TABLES
              WHERE
                table_name = 'abcde_cells'
            ) > 0
          )
          THEN ''
          ELSE ', proj.ds.abcde_cells'
        END,
        ''
      ),
      COALESCE(
        CASE
          WHEN (
            (
              SELECT
                COUNT(*)
              FROM `proj`.`ds`.INFORMATION_SCHEMA.TABLES
              WHERE
                table_name = 'abcde_cell_metrics'
            ) > 0
          )
          THEN ''
          ELSE ', proj.ds.abcde_cell_metrics'
        END,
        ''
      ),
      COALESCE(
        CASE
          WHEN (
            (
              SELECT
                COUNT(*)
              FROM `proj`.`ds`.INFORMATION_SCHEMA.TABLES
              WHERE
                table_name = 'abcde_cells_key'
            ) > 0
          )
          THEN ''
          ELSE ', proj.ds.abcde_cells_key'
        END,
        ''
      )
    ) AS missing
) AS m;
