{# Yandex cluster_metrics per theme (truth cluster), basic and optimistic, unweighted
   item counts (Yandex article §3.1–3.2 and §4; docs/method.md §5).

   |g| counts every item of the truth file: the items of g in T plus the truth items
   the actual clustering lacks ("unclustered", outside T: recall 0). |c| counts every
   item of the actual cluster: marked(c) items present in the truth plus the unlabelled
   ones (outside T). For every actual cluster c meeting g, common = |c ∩ g| and
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
yt_unlabelled AS (
  SELECT e, SUM(item_rows) AS n
  FROM cell_rows
  WHERE NOT common AND one_side_id IS NOT NULL AND e IS NOT NULL
    {# only clusters that meet the truth: with a small truth and a large run, most
       rows of cell_rows are the run's own items #}
    AND e IN (SELECT e FROM cells)
  GROUP BY e
),
yt_clustered AS (
  SELECT b, SUM(CAST(n AS DOUBLE)) AS n FROM cells GROUP BY b
),
yt_themes AS (
  SELECT
    COALESCE(c.b, u.b) AS b,
    COALESCE(c.n, CAST(0 AS DOUBLE)) + COALESCE(CAST(u.n AS DOUBLE), CAST(0 AS DOUBLE)) AS size
  FROM yt_clustered AS c
  FULL OUTER JOIN yt_unclustered AS u ON c.b = u.b
),
{# marked(c) = N_e, the items of c in T, and whether the theme meets other clusters
   come with the cells (cells/cell_metrics.sql) #}
yt_matchings AS (
  SELECT
    x.b,
    x.e,
    CAST(x.n AS DOUBLE) AS common,
    CAST(x.n_e AS DOUBLE) + COALESCE(CAST(l.n AS DOUBLE), CAST(0 AS DOUBLE)) AS size,
    CAST(x.n_e AS DOUBLE) AS marked,
    t.size AS theme_size,
    x.n < x.n_b AS multi
  FROM cell_metrics AS x
  JOIN yt_themes AS t ON x.b = t.b
  LEFT JOIN yt_unlabelled AS l ON x.e = l.e
),
yt_scored AS (
  SELECT
    b,
    e,
    multi,
    common,
    {{ fdiv('common', 'theme_size') }} AS recall,
    {{ fdiv('common', 'size') }} AS p_basic,
    {{ fdiv('common + (size - marked)', 'size') }} AS p_opt
  FROM yt_matchings
),
{# the clusters before each one in its theme's order: only themes that meet more than
   one actual cluster have any, so the windows run on those alone (docs/method.md §11.3) #}
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
  UNION ALL
  SELECT
    s.*,
{% for kind in ('basic', 'opt') %}
    CAST(0 AS BIGINT) AS certain_before_{{ kind }},
    CAST(0 AS DOUBLE) AS ln_unmatched_before_{{ kind }}{{ ',' if not loop.last }}
{% endfor %}
  FROM yt_scored AS s
  WHERE NOT s.multi
),
yt_per_theme AS (
  SELECT
    b,
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
),
yt_final AS (
  SELECT
    t.b AS cluster_id,
    t.size AS items,
    COALESCE(p.clustered, CAST(0 AS DOUBLE)) AS clustered_items,
    COALESCE(p.clusters, 0) AS actual_clusters,
{% for kind, name in (('basic', 'basic'), ('opt', 'optimistic')) %}
    COALESCE(p.ecc_{{ kind }}, CAST(0 AS DOUBLE)) AS ecc_{{ name }},
    p.bcp_{{ kind }} AS bcp_{{ name }},
{% endfor %}
    COALESCE({{ fdiv('p.common_recall', 't.size') }}, CAST(0 AS DOUBLE)) AS bcr
  FROM yt_themes AS t
  LEFT JOIN yt_per_theme AS p ON t.b = p.b
)
SELECT
  cluster_id,
  items,
  clustered_items,
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
