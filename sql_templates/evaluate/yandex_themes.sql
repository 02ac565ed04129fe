{# Yandex cluster_metrics per theme (truth cluster), basic and optimistic, unweighted
   item counts (Yandex article §3.1–3.2 and §4; docs/method.md §5).

   |g| counts every item of the truth file: the items of g in T plus the truth items
   the actual clustering lacks ("unclustered", outside T: recall 0). |c| counts every
   item of the actual cluster: marked(c) items present in the truth plus the unlabelled
   ones (outside T: evaluate/outside.sql). For every actual cluster c meeting g,
   common = |c ∩ g| and
     precision(c, g) = (common + r·(|c| − marked(c))) / |c|, r = 0 basic, 1 optimistic;
     recall(c, g) = common / |g|.
   ECC(g) = Σ_k recall_k·p_k·Π_{m<k}(1 − p_m), clusters by common descending (ties
   in any fixed order: equal common means equal recall, and the sum is then symmetric).
   The product is exp(Σ ln(1 − p_m)) over the preceding clusters, and 0 as soon as one
   of them has p_m = 1 (counted apart: LN(0) is never evaluated).
   BCP(g) = Σ common·precision / Σ common (NULL when no item of g is clustered);
   BCR(g) = Σ common·recall / |g|; BCF1(g) = 2·BCP(g)·BCR(g)/(BCP(g) + BCR(g)), 0 when
   both are 0 or BCP(g) is NULL (Yandex's tool prints these per theme with -v). #}
WITH yt_unclustered AS (
  SELECT b, SUM(item_rows) AS n
  FROM cell_rows
  WHERE NOT common AND one_side_id IS NOT NULL AND b IS NOT NULL
  GROUP BY b
),
{# marked(c) = N_e, the items of c in T, |g ∩ T| = N_b and whether the theme meets
   other clusters come with the cells (cells/cell_metrics.sql): no aggregation or join
   over all cells here. A theme meeting one actual cluster is its own row; only themes
   meeting several are windowed and grouped (docs/method.md §11.3) #}
yt_matchings AS (
  SELECT
    x.b,
    x.e,
    CAST(x.n AS DOUBLE) AS common,
    CAST(x.n_e AS DOUBLE) + COALESCE(CAST(l.n AS DOUBLE), CAST(0 AS DOUBLE)) AS size,
    CAST(x.n_e AS DOUBLE) AS marked,
    CAST(x.n_b AS DOUBLE) + COALESCE(CAST(unc.n AS DOUBLE), CAST(0 AS DOUBLE)) AS theme_size,
    x.n < x.n_b AS multi
  FROM cell_metrics AS x
  LEFT JOIN yt_unclustered AS unc ON x.b = unc.b
  LEFT JOIN outside AS l ON x.e = l.e
),
yt_scored AS (
  SELECT
    b,
    e,
    multi,
    common,
    theme_size,
    {{ fdiv('common', 'theme_size') }} AS recall,
    {{ fdiv('common', 'size') }} AS p_basic,
    {{ fdiv('common + (size - marked)', 'size') }} AS p_opt
  FROM yt_matchings
),
{# the clusters before each one in its theme's order #}
yt_ordered AS (
  SELECT
    s.*,
{% for kind in ('basic', 'opt') %}
    COALESCE(SUM(CASE WHEN p_{{ kind }} >= 1 THEN 1 ELSE 0 END) OVER (
      PARTITION BY b ORDER BY common DESC, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
      AS certain_before_{{ kind }},
    COALESCE(SUM({{ ln('CASE WHEN p_' ~ kind ~ ' < 1 THEN 1 - p_' ~ kind ~ ' ELSE 1 END') }}) OVER (
      PARTITION BY b ORDER BY common DESC, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
      CAST(0 AS DOUBLE)) AS ln_unmatched_before_{{ kind }}{{ ',' if not loop.last }}
{% endfor %}
  FROM yt_scored AS s
  WHERE s.multi
),
yt_per_theme AS (
  SELECT
    b,
    MAX(theme_size) AS size,
    COUNT(*) AS clusters,
    SUM(common) AS clustered,
{% for kind in ('basic', 'opt') %}
    SUM(CASE WHEN certain_before_{{ kind }} > 0 THEN CAST(0 AS DOUBLE)
             ELSE recall * p_{{ kind }} * EXP(ln_unmatched_before_{{ kind }}) END) AS ecc_{{ kind }},
    {{ fdiv('SUM(common * p_' ~ kind ~ ')', 'SUM(common)') }} AS bcp_{{ kind }},
{% endfor %}
    SUM(common * recall) AS common_recall
  FROM yt_ordered
  GROUP BY b
  UNION ALL
  {# one cluster: nothing before it (the product is 1), sums of one term #}
  SELECT
    b,
    theme_size AS size,
    CAST(1 AS BIGINT) AS clusters,
    common AS clustered,
{% for kind in ('basic', 'opt') %}
    recall * p_{{ kind }} AS ecc_{{ kind }},
    {{ fdiv('common * p_' ~ kind, 'common') }} AS bcp_{{ kind }},
{% endfor %}
    common * recall AS common_recall
  FROM yt_scored
  WHERE NOT multi
),
yt_final AS (
  SELECT
    p.b AS cluster_id,
    p.size AS items,
    p.clustered AS clustered_items,
    p.clusters AS actual_clusters,
{% for kind, name in (('basic', 'basic'), ('opt', 'optimistic')) %}
    p.ecc_{{ kind }} AS ecc_{{ name }},
    p.bcp_{{ kind }} AS bcp_{{ name }},
{% endfor %}
    COALESCE({{ fdiv('p.common_recall', 'p.size') }}, CAST(0 AS DOUBLE)) AS bcr
  FROM yt_per_theme AS p
  UNION ALL
  {# themes none of whose items the actual clustering holds: recall 0 #}
  SELECT
    unc.b AS cluster_id,
    CAST(unc.n AS DOUBLE) AS items,
    CAST(0 AS DOUBLE) AS clustered_items,
    CAST(0 AS BIGINT) AS actual_clusters,
{% for name in ('basic', 'optimistic') %}
    CAST(0 AS DOUBLE) AS ecc_{{ name }},
    CAST(NULL AS DOUBLE) AS bcp_{{ name }},
{% endfor %}
    CAST(0 AS DOUBLE) AS bcr
  FROM yt_unclustered AS unc
  WHERE NOT EXISTS (SELECT 1 FROM cell_metrics AS x WHERE x.b = unc.b)
)
{# the counts are summed in DOUBLE like every count (docs/method.md §11.1) but are whole
   numbers of items: integers in the table and in the files of --out #}
SELECT
  cluster_id,
  CAST(items AS BIGINT) AS items,
  CAST(clustered_items AS BIGINT) AS clustered_items,
  actual_clusters,
{% for name in ('basic', 'optimistic') %}
  ecc_{{ name }},
  bcp_{{ name }},
{% endfor %}
  bcr,
{% for name in ('basic', 'optimistic') %}
  {# NULL + bcr > 0 is NULL: a theme without BCP gets BCF1 0 #}
  CASE WHEN bcp_{{ name }} + bcr > 0
       THEN {{ fdiv('2 * bcp_' ~ name ~ ' * bcr', 'bcp_' ~ name ~ ' + bcr') }}
       ELSE CAST(0 AS DOUBLE) END AS bcf1_{{ name }}{{ ',' if not loop.last }}
{% endfor %}
FROM yt_final
