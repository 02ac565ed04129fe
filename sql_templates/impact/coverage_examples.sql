{# Example ids of one coverage class. #}
SELECT item_id
FROM items
WHERE
{% if kind == 'only_base' %}
  n_base > 0 AND n_exp = 0
{% elif kind == 'only_exp' %}
  n_base = 0 AND n_exp > 0
{% elif kind == 'unused_weights' %}
  n_base = 0 AND n_exp = 0 AND n_weights > 0
{% elif kind == 'unused_attributes' %}
  n_base = 0 AND n_exp = 0 AND n_attributes > 0
{% elif kind == 'without_attributes' %}
  n_base > 0 AND n_exp > 0 AND n_attributes = 0
{% endif %}
ORDER BY item_id
LIMIT {{ limit }}
