{# The draws of a stratified sample (abcde.sampling.stratified): each stratum's sample
   (pairs/sample.sql over its own stream) with its name in `stratum`, pair ids made
   unique across strata by the previous strata's largest, as the engines number them. #}
WITH offsets AS (
  SELECT
{% for h, name, classes, seed in strata %}
    (SELECT COALESCE(MAX(pair_id), 0) FROM pair_sample_{{ name }}) AS top_{{ h }}{{ ',' if not loop.last }}
{% endfor %}
)
{% for h, name, classes, seed in strata %}
SELECT
  s.pair_id{% for k in range(h) %} + o.top_{{ k }}{% endfor %} AS pair_id,
{% for c in columns %}
  s.{{ c|ident }},
{% endfor %}
  '{{ name }}' AS stratum
FROM pair_sample_{{ name }} AS s
CROSS JOIN offsets AS o
{{ 'UNION ALL' if not loop.last }}
{% endfor %}
