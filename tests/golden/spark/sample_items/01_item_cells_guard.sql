DROP TABLE IF EXISTS `proj`.`ds`.`abcde_item_cells_guard`;

CREATE TABLE `proj`.`ds`.`abcde_item_cells_guard` AS
SELECT
  CASE
    WHEN COUNT(*) <> 1
    OR COALESCE(MIN(shape), '') <> 'base+exp+weights+attributes/31c7c565'
    THEN RAISE_ERROR(
      CONCAT(
        'abcde --reuse-cells: the cell tables under this --prefix/--schema were made by a script with other inputs or checks (a weights or attributes table, --missing-weight): run that script again with this one\'s input options, or this one without --reuse-cells (this script: base+exp+weights+attributes/31c7c565; the tables: ',
        COALESCE(COALESCE(MIN(shape), 'none'), ''),
        ')'
      )
    )
    ELSE 1
  END AS shape_match
FROM `proj`.`ds`.`abcde_cells_key` AS cells_key;
