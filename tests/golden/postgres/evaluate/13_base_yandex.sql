DROP TABLE IF EXISTS "proj"."ds"."abcde_base_yandex";

CREATE TABLE "proj"."ds"."abcde_base_yandex" AS
WITH ya_means AS (
  SELECT
    COUNT(*) AS themes,
    SUM(CASE WHEN bcr > 0 THEN 1 ELSE 0 END) AS themes_with_recall,
    AVG(bcr) AS bcr,
    AVG(ecc_basic) AS ecc_basic,
    COALESCE(AVG(CASE WHEN bcr > 0 THEN bcp_basic END), CAST(0 AS DOUBLE PRECISION)) AS bcp_basic,
    AVG(ecc_optimistic) AS ecc_optimistic,
    COALESCE(AVG(CASE WHEN bcr > 0 THEN bcp_optimistic END), CAST(0 AS DOUBLE PRECISION)) AS bcp_optimistic
  FROM "proj"."ds"."abcde_base_yandex_themes" AS yandex_themes
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    themes,
    themes_with_recall,
    ecc_basic,
    bcp_basic,
    bcr AS bcr_basic,
    CASE
      WHEN bcp_basic + bcr > 0
      THEN CAST(2 * bcp_basic * bcr AS DOUBLE PRECISION) / NULLIF(CAST(bcp_basic + bcr AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
      ELSE CAST(0 AS DOUBLE PRECISION)
    END AS bcf1_basic,
    ecc_optimistic,
    bcp_optimistic,
    bcr AS bcr_optimistic,
    CASE
      WHEN bcp_optimistic + bcr > 0
      THEN CAST(2 * bcp_optimistic * bcr AS DOUBLE PRECISION) / NULLIF(CAST(bcp_optimistic + bcr AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
      ELSE CAST(0 AS DOUBLE PRECISION)
    END AS bcf1_optimistic
  FROM ya_means
) AS t
CROSS JOIN "proj"."ds"."abcde_base_validation" AS v;
