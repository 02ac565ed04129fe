{# The K clusters that lose the most recall (truth) or precision (actual), i.e. the
   largest `loss` = weight(C)·(1 − metric(C))/W; losses equal to rank_key's precision
   are ties, broken by id (the same order on every engine). #}
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
ORDER BY {{ rank_key('loss') }} DESC, cluster_id
LIMIT {{ k }}
