{# The questions for the judges: one row per unique unordered non-self pair of the sample,
   the two items (in the orientation of their first draw) with their attributes side by
   side, and an empty verdict. Nothing says how either clustering treats the pair: the
   judgement is blind. #}
WITH firsts AS (
  SELECT pair_id, item_i, item_j,
         ROW_NUMBER() OVER (PARTITION BY pair_id ORDER BY first_draw) AS k
  FROM pair_sample
  WHERE pair_class <> 'self'
)
SELECT
  f.pair_id,
  f.item_i AS item_1,
  f.item_j AS item_2
{% for name in attributes %}
  , a1.{{ name|ident }} AS {{ (name ~ '_1')|ident }}
  , a2.{{ name|ident }} AS {{ (name ~ '_2')|ident }}
{% endfor %}
  , CAST(NULL AS VARCHAR) AS verdict
FROM firsts AS f
{% if attributes %}
LEFT JOIN sample_attributes AS a1 ON f.item_i = a1.item_id
LEFT JOIN sample_attributes AS a2 ON f.item_j = a2.item_id
{% endif %}
WHERE f.k = 1
