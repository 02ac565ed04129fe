{# Overall impact metrics: m(T) = Σ_c w_c·m(c) / W (docs/method.md §3; ABCDE eq. 4–6), the
   affected/unaffected split of the JaccardIndex (Jaccard decomposition §5). #}
SELECT
  CAST(SUM(n) AS BIGINT) AS items,
  SUM(w) AS weight,
  CAST(SUM(CASE WHEN affected THEN n ELSE 0 END) AS BIGINT) AS affected_items,
  SUM(CASE WHEN affected THEN w ELSE CAST(0 AS DOUBLE) END) AS affected_weight,
{% for m in metrics %}
  {{ fdiv('SUM(w * ' ~ m ~ ')', 'SUM(w)') }} AS {{ m }},
{% endfor %}
  {{ fdiv('SUM(CASE WHEN affected THEN w * jaccard_index ELSE CAST(0 AS DOUBLE) END)', 'SUM(w)') }} AS affected_jaccard_index,
  {{ fdiv('SUM(CASE WHEN affected THEN CAST(0 AS DOUBLE) ELSE w END)', 'SUM(w)') }} AS unaffected_jaccard_index
FROM cell_metrics
