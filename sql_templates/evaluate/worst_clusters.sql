{# The K clusters that lose the most recall (truth) or precision (actual), i.e. the
   largest `loss` = weight(C)·(1 − metric(C))/W; ties broken by id. #}
SELECT
  cluster_id,
  items,
  weight,
  cells,
{% for m in metrics %}
  {{ m }},
{% endfor %}
  f1_of_overall,
  loss
FROM {{ relation }}
WHERE loss > 0
ORDER BY loss DESC, cluster_id
LIMIT {{ k }}
