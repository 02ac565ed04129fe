{# The sample: the kept draws of each stream (pairs/sample.sql) — one, or one per stratum
   of a stratified sample (abcde.sampling.stratified), named in `stratum`, pair ids made
   unique across strata by adding the previous strata's largest — with the vantage item's
   attributes (ABCDE App. B.1). #}
WITH
{% if strata %}
offsets AS (
  SELECT
{% for step, name in parts %}
    (SELECT COALESCE(MAX(pair_id), 0) FROM {{ step }}) AS top_{{ loop.index0 }}{{ ',' if not loop.last }}
{% endfor %}
),
{% endif %}
drawn AS (
{% for step, name in parts %}
  SELECT
    s.pair_id{% for k in range(loop.index0) %} + o.top_{{ k }}{% endfor %} AS pair_id,
{% for c in columns %}
    s.{{ c|ident }}{{ ',' if not loop.last or strata }}
{% endfor %}
{% if strata %}
    '{{ name }}' AS stratum
{% endif %}
  FROM {{ step }} AS s
{% if strata %}
  CROSS JOIN offsets AS o
{% endif %}
  {{ 'UNION ALL' if not loop.last }}
{% endfor %}
)
SELECT
  d.pair_id
{% for c in columns %}
  , d.{{ c|ident }}
{% endfor %}
{% for name in attributes %}
  , a.{{ name|ident }}
{% endfor %}
{% if strata %}
  , d.stratum
{% endif %}
FROM drawn AS d
{% if attributes %}
LEFT JOIN sample_attributes AS a ON d.item_i = a.item_id
{% endif %}
