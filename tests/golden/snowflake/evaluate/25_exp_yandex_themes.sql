DROP TABLE IF EXISTS proj.ds.abcde_exp_yandex_themes;

CREATE TABLE proj.ds.abcde_exp_yandex_themes AS
WITH yt_unclustered AS (
  SELECT
    b,
    SUM(item_rows) AS n
  FROM proj.ds.abcde_exp_cell_rows AS cell_rows
  WHERE
    NOT common AND NOT one_side_id IS NULL AND NOT b IS NULL
  GROUP BY
    b
), yt_matchings AS (
  SELECT
    x.b,
    x.e,
    CAST(x.n AS DOUBLE) AS common,
    CAST(x.n_e AS DOUBLE) + COALESCE(CAST(l.n AS DOUBLE), CAST(0 AS DOUBLE)) AS size,
    CAST(x.n_e AS DOUBLE) AS marked,
    CAST(x.n_b AS DOUBLE) + COALESCE(CAST(unc.n AS DOUBLE), CAST(0 AS DOUBLE)) AS theme_size,
    x.n < x.n_b AS multi
  FROM proj.ds.abcde_exp_cell_metrics AS x
  LEFT JOIN yt_unclustered AS unc
    ON x.b = unc.b
  LEFT JOIN proj.ds.abcde_exp_outside AS l
    ON x.e = l.e
), yt_scored AS (
  SELECT
    b,
    e,
    multi,
    common,
    theme_size,
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
  WHERE
    s.multi
), yt_per_theme AS (
  SELECT
    b,
    MAX(theme_size) AS size,
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
  UNION ALL
  SELECT
    b,
    theme_size AS size,
    CAST(1 AS BIGINT) AS clusters,
    common AS clustered,
    recall * p_basic AS ecc_basic,
    CAST(common * p_basic AS DOUBLE) / NULLIF(CAST(common AS DOUBLE), CAST(0 AS DOUBLE)) AS bcp_basic,
    recall * p_opt AS ecc_opt,
    CAST(common * p_opt AS DOUBLE) / NULLIF(CAST(common AS DOUBLE), CAST(0 AS DOUBLE)) AS bcp_opt,
    common * recall AS common_recall
  FROM yt_scored
  WHERE
    NOT multi
), yt_final AS (
  SELECT
    p.b AS cluster_id,
    p.size AS items,
    p.clustered AS clustered_items,
    p.clusters AS actual_clusters,
    p.ecc_basic AS ecc_basic,
    p.bcp_basic AS bcp_basic,
    p.ecc_opt AS ecc_optimistic,
    p.bcp_opt AS bcp_optimistic,
    COALESCE(
      CAST(p.common_recall AS DOUBLE) / NULLIF(CAST(p.size AS DOUBLE), CAST(0 AS DOUBLE)),
      CAST(0 AS DOUBLE)
    ) AS bcr
  FROM yt_per_theme AS p
  UNION ALL
  SELECT
    unc.b AS cluster_id,
    CAST(unc.n AS DOUBLE) AS items,
    CAST(0 AS DOUBLE) AS clustered_items,
    CAST(0 AS BIGINT) AS actual_clusters,
    CAST(0 AS DOUBLE) AS ecc_basic,
    CAST(NULL AS DOUBLE) AS bcp_basic,
    CAST(0 AS DOUBLE) AS ecc_optimistic,
    CAST(NULL AS DOUBLE) AS bcp_optimistic,
    CAST(0 AS DOUBLE) AS bcr
  FROM yt_unclustered AS unc
  WHERE
    NOT EXISTS(
      SELECT
        1
      FROM proj.ds.abcde_exp_cell_metrics AS x
      WHERE
        x.b = unc.b
    )
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    cluster_id,
    CAST(items AS BIGINT) AS items,
    CAST(clustered_items AS BIGINT) AS clustered_items,
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
CROSS JOIN proj.ds.abcde_exp_validation AS v;
