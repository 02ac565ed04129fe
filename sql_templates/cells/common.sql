{# T: the items present in both clusterings, with their weight (ABCDE §3). #}
SELECT
  item_id,
  base_cluster AS b,
  exp_cluster AS e,
  {% if weight_sources %}COALESCE({{ weight_sources|join(', ') }}, {{ default_weight }}){% else %}{{ default_weight }}{% endif %} AS w
{% for col in attributes %}
  , {{ col.alias }}
{% endfor %}
FROM items
WHERE n_base > 0 AND n_exp > 0
