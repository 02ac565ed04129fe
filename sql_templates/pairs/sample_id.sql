{# The sample's id, the same on every engine and in the warehouse scripts: `stream` names
   the stream of draws (docs/method.md §7.10: the design, the seed, the stratification,
   the stream version and the inputs' cell and item counts — integers and text only,
   whose md5 every engine computes alike) and `sample_id` the sample,
   s<stream>-<b budget | d draws>-<hash of what was drawn> (pairs/sample_digest.sql): a
   judgement file of another sample of the stream is recognised by the prefix. The
   stream's length is no part of it: a longer stream holds the same sample. #}
WITH parts AS (
  SELECT
    SUBSTR({{ md5_hex("'stream'", literal(population), literal(alpha|string), seed|string, literal(allocation|string if stratified else ''), version|string, 'CAST(f.cells AS BIGINT)', 'CAST(f.items AS BIGINT)') }}, 1, 16) AS stream,
    CAST(COALESCE(g.rows_drawn, 0) AS BIGINT) AS rows_drawn,
    CAST(COALESCE(g.pair_digest, 0) AS BIGINT) AS pair_digest
  FROM fingerprint AS f
  CROSS JOIN pair_sample_digest AS g
)
SELECT
  stream,
  rows_drawn,
  pair_digest,
  's' || SUBSTR(stream, 1, 8) || '-{{ size }}-' || SUBSTR({{ md5_hex("'pairs'", 'stream', literal(size), 'rows_drawn', 'pair_digest') }}, 1, 8) AS sample_id
FROM parts
