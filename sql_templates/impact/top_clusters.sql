{# The K clusters that contribute most to the JaccardDistance; contributions equal to
   rank_key's precision are ties, broken by id (the same order on every engine). #}
SELECT *
FROM {{ relation }}
WHERE contribution > 0
ORDER BY {{ rank_key('contribution') }} DESC, cluster_id
LIMIT {{ k }}
