{# The K themes (truth clusters) with the lowest ECC (basic), i.e. the largest share
   (1 − ECC(g))/themes of the overall ECC loss, since overall ECC is the plain mean over
   themes (Yandex article §3.2). ECCs equal to rank_key's precision are ties, broken by
   id (the same order on every engine). #}
SELECT
  cluster_id,
  items,
  clustered_items,
  actual_clusters,
  ecc_basic,
  bcp_basic,
  bcr,
  bcf1_basic,
  ecc_optimistic,
  bcp_optimistic,
  bcf1_optimistic
FROM yandex_themes
WHERE ecc_basic < 1
ORDER BY {{ rank_key('1 - ecc_basic') }} DESC, cluster_id
LIMIT {{ k }}
