DROP TABLE IF EXISTS proj.ds.abcde_base_yandex_themes;

CREATE TABLE proj.ds.abcde_base_yandex_themes AS
WITH yt_unclustered AS (
  SELECT
    b,
    SUM(item_rows) AS n
  FROM proj.ds.abcde_base_cell_rows AS cell_rows
  WHERE
    NOT common AND NOT one_side_id IS NULL AND NOT b IS NULL
  GROUP BY
    b
), yt_unlabelled AS (
  SELECT
    e,
    SUM(item_rows) AS n
  FROM proj.ds.abcde_base_cell_rows AS cell_rows
  WHERE
    NOT common AND NOT one_side_id IS NULL AND NOT e IS NULL
  GROUP BY
    e
), yt_marked AS (
  SELECT
    e,
    SUM(CAST(n AS DOUBLE)) AS marked
  FROM proj.ds.abcde_base_cells AS cells
  GROUP BY
    e
), yt_clustered AS (
  SELECT
    b,
    SUM(CAST(n AS DOUBLE)) AS n
  FROM proj.ds.abcde_base_cells AS cells
  GROUP BY
    b
), yt_themes AS (
  SELECT
    COALESCE(c.b, u.b) AS b,
    COALESCE(c.n, CAST(0 AS DOUBLE)) + COALESCE(CAST(u.n AS DOUBLE), CAST(0 AS DOUBLE)) AS size
  FROM yt_clustered AS c
  FULL OUTER JOIN yt_unclustered AS u
    ON c.b = u.b
), yt_matchings AS (
  SELECT
    x.b,
    x.e,
    CAST(x.n AS DOUBLE) AS common,
    m.marked + COALESCE(CAST(l.n AS DOUBLE), CAST(0 AS DOUBLE)) AS size,
    m.marked,
    t.size AS theme_size
  FROM proj.ds.abcde_base_cells AS x
  JOIN yt_marked AS m
    ON x.e = m.e
  JOIN yt_themes AS t
    ON x.b = t.b
  LEFT JOIN yt_unlabelled AS l
    ON x.e = l.e
), yt_scored AS (
  SELECT
    b,
    e,
    common,
    CAST(common AS DOUBLE) / NULLIF(CAST(theme_size AS DOUBLE), CAST(0 AS DOUBLE)) AS recall,
    CAST(common AS DOUBLE) / NULLIF(CAST(size AS DOUBLE), CAST(0 AS DOUBLE)) AS p_basic,
    CAST(common + (
      size - marked
    ) AS DOUBLE) / NULLIF(CAST(size AS DOUBLE), CAST(0 AS DOUBLE)) AS p_opt
  FROM yt_matchings
), yt_ordered AS (
  SELECT
    s.*,
    COALESCE(
      SUM(CASE WHEN p_basic >= 1 THEN 1 ELSE 0 END) OVER (
        PARTITION BY b
        ORDER BY common DESC NULLS LAST, e
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ),
      0
    ) AS certain_before_basic,
    COALESCE(
      SUM(LN(CAST(CASE WHEN p_basic < 1 THEN 1 - p_basic ELSE 1 END AS DOUBLE))) OVER (
        PARTITION BY b
        ORDER BY common DESC NULLS LAST, e
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ),
      CAST(0 AS DOUBLE)
    ) AS ln_unmatched_before_basic,
    COALESCE(
      SUM(CASE WHEN p_opt >= 1 THEN 1 ELSE 0 END) OVER (
        PARTITION BY b
        ORDER BY common DESC NULLS LAST, e
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ),
      0
    ) AS certain_before_opt,
    COALESCE(
      SUM(LN(CAST(CASE WHEN p_opt < 1 THEN 1 - p_opt ELSE 1 END AS DOUBLE))) OVER (
        PARTITION BY b
        ORDER BY common DESC NULLS LAST, e
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ),
      CAST(0 AS DOUBLE)
    ) AS ln_unmatched_before_opt
  FROM yt_scored AS s
), yt_per_theme AS (
  SELECT
    b,
    COUNT(*) AS clusters,
    SUM(common) AS clustered,
    SUM(
      CASE
        WHEN certain_before_basic > 0
        THEN CAST(0 AS DOUBLE)
        ELSE recall * p_basic * EXP(ln_unmatched_before_basic)
      END
    ) AS ecc_basic,
    CAST(SUM(common * p_basic) AS DOUBLE) / NULLIF(CAST(SUM(common) AS DOUBLE), CAST(0 AS DOUBLE)) AS bcp_basic,
    SUM(
      CASE
        WHEN certain_before_opt > 0
        THEN CAST(0 AS DOUBLE)
        ELSE recall * p_opt * EXP(ln_unmatched_before_opt)
      END
    ) AS ecc_opt,
    CAST(SUM(common * p_opt) AS DOUBLE) / NULLIF(CAST(SUM(common) AS DOUBLE), CAST(0 AS DOUBLE)) AS bcp_opt,
    SUM(common * recall) AS common_recall
  FROM yt_ordered
  GROUP BY
    b
), yt_final AS (
  SELECT
    t.b AS cluster_id,
    t.size AS items,
    COALESCE(p.clustered, CAST(0 AS DOUBLE)) AS clustered_items,
    COALESCE(p.clusters, 0) AS actual_clusters,
    COALESCE(p.ecc_basic, CAST(0 AS DOUBLE)) AS ecc_basic,
    p.bcp_basic AS bcp_basic,
    COALESCE(p.ecc_opt, CAST(0 AS DOUBLE)) AS ecc_optimistic,
    p.bcp_opt AS bcp_optimistic,
    COALESCE(
      CAST(p.common_recall AS DOUBLE) / NULLIF(CAST(t.size AS DOUBLE), CAST(0 AS DOUBLE)),
      CAST(0 AS DOUBLE)
    ) AS bcr
  FROM yt_themes AS t
  LEFT JOIN yt_per_theme AS p
    ON t.b = p.b
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    cluster_id,
    items,
    clustered_items,
    actual_clusters,
    ecc_basic,
    bcp_basic,
    ecc_optimistic,
    bcp_optimistic,
    bcr,
    CASE
      WHEN bcp_basic + bcr > 0
      THEN CAST(2 * bcp_basic * bcr AS DOUBLE) / NULLIF(CAST(bcp_basic + bcr AS DOUBLE), CAST(0 AS DOUBLE))
      ELSE CAST(0 AS DOUBLE)
    END AS bcf1_basic,
    CASE
      WHEN bcp_optimistic + bcr > 0
      THEN CAST(2 * bcp_optimistic * bcr AS DOUBLE) / NULLIF(CAST(bcp_optimistic + bcr AS DOUBLE), CAST(0 AS DOUBLE))
      ELSE CAST(0 AS DOUBLE)
    END AS bcf1_optimistic
  FROM yt_final
) AS t
CROSS JOIN proj.ds.abcde_base_validation AS v;
