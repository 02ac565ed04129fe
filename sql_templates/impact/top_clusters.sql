{# The K clusters that contribute most to the JaccardDistance; ties broken by id. #}
SELECT *
FROM {{ relation }}
WHERE contribution > 0
ORDER BY contribution DESC, cluster_id
LIMIT {{ k }}
