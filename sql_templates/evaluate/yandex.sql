{# Overall Yandex cluster_metrics from the per-theme table (article §3, §4; docs/method.md §5):
   ECC and BCR are plain means over all themes; BCP is the mean over the themes with
   BCR > 0 (at least one clustered item); BCF1 = F1(BCP, BCR) of those means. #}
WITH ya_means AS (
  SELECT
    COUNT(*) AS themes,
    SUM(CASE WHEN bcr > 0 THEN 1 ELSE 0 END) AS themes_with_recall,
    AVG(bcr) AS bcr,
{% for name in ('basic', 'optimistic') %}
    AVG(ecc_{{ name }}) AS ecc_{{ name }},
    COALESCE(AVG(CASE WHEN bcr > 0 THEN bcp_{{ name }} END), CAST(0 AS DOUBLE)) AS bcp_{{ name }}{{ ',' if not loop.last }}
{% endfor %}
  FROM yandex_themes
)
SELECT
  themes,
  themes_with_recall,
{% for name in ('basic', 'optimistic') %}
  ecc_{{ name }},
  bcp_{{ name }},
  bcr AS bcr_{{ name }},
  CASE WHEN bcp_{{ name }} + bcr > 0
       THEN {{ fdiv('2 * bcp_' ~ name ~ ' * bcr', 'bcp_' ~ name ~ ' + bcr') }}
       ELSE CAST(0 AS DOUBLE) END AS bcf1_{{ name }}{{ ',' if not loop.last }}
{% endfor %}
FROM ya_means
