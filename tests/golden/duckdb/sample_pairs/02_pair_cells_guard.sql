DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_cells_guard";

CREATE TABLE "proj"."ds"."abcde_pair_cells_guard" AS
SELECT
  CASE
    WHEN COUNT(*) <> 1
    OR COALESCE(MIN(shape), '') <> 'base+exp+weights+attributes/31c7c565'
    THEN CAST(CONCAT(
      'abcde --reuse-cells: the cell tables under this --prefix/--schema were made by a script with other inputs or checks (a weights or attributes table, --missing-weight): run that script again with this one''s input options, or this one without --reuse-cells (this script: base+exp+weights+attributes/31c7c565; the tables: ',
      COALESCE(MIN(shape), 'none'),
      ')'
    ) AS INT)
    WHEN MIN(slice_attributes) <> 'provenance, size_class (27be33f4)'
    THEN CAST(CONCAT(
      'abcde --reuse-cells: the cell tables under this --prefix/--schema hold the slice attributes of another --slice-by, and this script reads per-slice cells of its own: give it the --slice-by of the script that made them (or none), or run it without --reuse-cells (this script: provenance, size_class (27be33f4); the tables: ',
      MIN(slice_attributes),
      ')'
    ) AS INT)
    ELSE 1
  END AS shape_match
FROM "proj"."ds"."abcde_cells_key" AS cells_key;
