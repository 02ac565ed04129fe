DROP TABLE IF EXISTS proj.ds.abcde_pair_manifest;

CREATE TABLE proj.ds.abcde_pair_manifest AS
WITH pair_totals AS (
  SELECT
    COALESCE(SUM(t), CAST(0 AS DOUBLE)) AS total,
    COALESCE(SUM(CASE WHEN pair_class = 'split' THEN t END), CAST(0 AS DOUBLE)) AS split,
    COALESCE(SUM(CASE WHEN pair_class = 'merge' THEN t END), CAST(0 AS DOUBLE)) AS merge,
    COALESCE(SUM(CASE WHEN pair_class = 'stable' THEN t END), CAST(0 AS DOUBLE)) AS stable,
    COALESCE(SUM(CASE WHEN pair_class = 'split' THEN ordered_pairs END), CAST(0 AS DOUBLE)) * CAST(0.5 AS DOUBLE) AS judgeable_split,
    COALESCE(SUM(CASE WHEN pair_class = 'merge' THEN ordered_pairs END), CAST(0 AS DOUBLE)) * CAST(0.5 AS DOUBLE) AS judgeable_merge,
    COALESCE(SUM(CASE WHEN pair_class = 'stable' THEN ordered_pairs END), CAST(0 AS DOUBLE)) * CAST(0.5 AS DOUBLE) AS judgeable_stable,
    COUNT(*) AS strata
  FROM proj.ds.abcde_pair_strata AS pair_strata
), overall AS (
  SELECT
    SUM(n) AS items,
    SUM(w) AS weight,
    SUM(CASE WHEN affected THEN n ELSE 0 END) AS affected_items,
    SUM(CASE WHEN affected THEN w ELSE CAST(0 AS DOUBLE) END) AS affected_weight,
    CAST(SUM(w * split_rate) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS split_rate,
    CAST(SUM(w * merge_rate) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS merge_rate,
    CAST(SUM(w * jaccard_distance) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_distance,
    CAST(SUM(w * split_distance) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS split_distance,
    CAST(SUM(w * merge_distance) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS merge_distance,
    CAST(SUM(w * jaccard_index) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS jaccard_index,
    CAST(SUM(CASE WHEN affected THEN w * jaccard_index ELSE CAST(0 AS DOUBLE) END) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS affected_jaccard_index,
    CAST(SUM(CASE WHEN affected THEN CAST(0 AS DOUBLE) ELSE w END) AS DOUBLE) / NULLIF(CAST(SUM(w) AS DOUBLE), CAST(0 AS DOUBLE)) AS unaffected_jaccard_index
  FROM proj.ds.abcde_cell_metrics AS cell_metrics
), pair_sample_digest AS (
  SELECT
    COUNT(*) AS rows_drawn,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            TO_NUMBER(
              SUBSTRING(
                MD5(
                  CONCAT(
                    CAST('sample' AS VARCHAR),
                    ':',
                    CAST(pair_id AS VARCHAR),
                    ':',
                    CAST(item_i AS VARCHAR),
                    ':',
                    CAST(item_j AS VARCHAR),
                    ':',
                    CAST(pair_class AS VARCHAR),
                    ':',
                    CAST(draw_count AS VARCHAR),
                    ':',
                    CAST(first_draw AS VARCHAR)
                  )
                ),
                1,
                13
              ),
              'XXXXXXXXXXXXX'
            )
          ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
        ) * CAST(2147483648 AS DOUBLE)
      ) AS BIGINT)
    ) AS pair_digest
  FROM proj.ds.abcde_pair_sample AS pair_sample
), fingerprint AS (
  SELECT
    COUNT(*) AS cells,
    SUM(n) AS items,
    SUM(w) AS weight,
    SUM(
      (
        CAST((
          TO_NUMBER(
            SUBSTRING(
              MD5(
                CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
              ),
              1,
              13
            ),
            'XXXXXXXXXXXXX'
          )
        ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
      )
    ) AS cell_hash,
    SUM(
      n * (
        CAST((
          TO_NUMBER(
            SUBSTRING(
              MD5(
                CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
              ),
              1,
              13
            ),
            'XXXXXXXXXXXXX'
          )
        ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
      )
    ) AS item_hash,
    SUM(
      w * (
        CAST((
          TO_NUMBER(
            SUBSTRING(
              MD5(
                CONCAT(CAST('fingerprint' AS VARCHAR), ':', CAST(b AS VARCHAR), ':', CAST(e AS VARCHAR))
              ),
              1,
              13
            ),
            'XXXXXXXXXXXXX'
          )
        ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
      )
    ) AS weight_hash
  FROM proj.ds.abcde_cells AS cells
), drawn AS (
  SELECT
    COUNT(*) AS pairs_ordered,
    COUNT(DISTINCT pair_id) AS pairs_unordered,
    COUNT(DISTINCT CASE WHEN pair_class <> 'self' THEN pair_id END) AS pairs_judgeable,
    SUM(CASE WHEN pair_class = 'self' THEN 1 ELSE 0 END) AS pairs_self,
    COUNT(DISTINCT CASE WHEN pair_class = 'split' THEN pair_id END) AS pairs_split_pairs,
    SUM(CASE WHEN pair_class = 'split' THEN draw_count ELSE 0 END) AS pairs_split_draws,
    COUNT(DISTINCT CASE WHEN pair_class = 'merge' THEN pair_id END) AS pairs_merge_pairs,
    SUM(CASE WHEN pair_class = 'merge' THEN draw_count ELSE 0 END) AS pairs_merge_draws,
    COUNT(DISTINCT CASE WHEN pair_class = 'stable' THEN pair_id END) AS pairs_stable_pairs,
    SUM(CASE WHEN pair_class = 'stable' THEN draw_count ELSE 0 END) AS pairs_stable_draws,
    COUNT(DISTINCT CASE WHEN pair_class = 'self' THEN pair_id END) AS pairs_self_pairs,
    SUM(CASE WHEN pair_class = 'self' THEN draw_count ELSE 0 END) AS pairs_self_draws,
    SUM(draw_count) AS draws
  FROM proj.ds.abcde_pair_sample AS pair_sample
), totals AS (
  SELECT
    total AS totals_total,
    split AS totals_split,
    merge AS totals_merge,
    stable AS totals_stable,
    CAST(FLOOR(judgeable_split + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_pairs_split,
    CAST(FLOOR(judgeable_merge + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_pairs_merge,
    CAST(FLOOR(judgeable_stable + CAST(0.5 AS DOUBLE)) AS BIGINT) AS population_pairs_stable
  FROM pair_totals
), digest AS (
  SELECT
    CAST(COALESCE(pair_digest, 0) AS BIGINT) AS pair_digest
  FROM pair_sample_digest
), fp AS (
  SELECT
    cells AS fp_cells,
    items AS fp_items,
    weight AS fp_weight,
    cell_hash AS fp_cell_hash,
    item_hash AS fp_item_hash,
    weight_hash AS fp_weight_hash
  FROM fingerprint
)
SELECT
  t.*,
  v.input_valid
FROM (
  SELECT
    '0.1.0' AS abcde_version,
    'pairs' AS kind,
    'jaccard' AS population,
    7 AS seed,
    500 AS budget,
    5000 AS stream_draws,
    COALESCE(d.draws, 0) AS draws,
    fl.budget_filled,
    fl.judgeable_found,
    fl.budget_possible,
    fl.fill_note,
    FALSE AS stratified,
    d.pairs_ordered,
    d.pairs_unordered,
    d.pairs_judgeable,
    COALESCE(d.pairs_self, 0) AS pairs_self,
    d.pairs_split_pairs,
    COALESCE(d.pairs_split_draws, 0) AS pairs_split_draws,
    d.pairs_merge_pairs,
    COALESCE(d.pairs_merge_draws, 0) AS pairs_merge_draws,
    d.pairs_stable_pairs,
    COALESCE(d.pairs_stable_draws, 0) AS pairs_stable_draws,
    d.pairs_self_pairs,
    COALESCE(d.pairs_self_draws, 0) AS pairs_self_draws,
    t.*,
    fl.population_judgeable AS population_pairs_judgeable,
    o.*,
    f.*,
    g.pair_digest,
    SUBSTRING(
      MD5(
        CONCAT(
          CAST('pairs' AS VARCHAR),
          ':',
          CAST('jaccard' AS VARCHAR),
          ':',
          CAST(7 AS VARCHAR),
          ':',
          CAST(500 AS VARCHAR),
          ':',
          CAST(5000 AS VARCHAR),
          ':',
          CAST(d.pairs_ordered AS VARCHAR),
          ':',
          CAST(g.pair_digest AS VARCHAR),
          ':',
          CAST(f.fp_cells AS VARCHAR),
          ':',
          CAST(f.fp_items AS VARCHAR)
        )
      ),
      1,
      12
    ) AS sample_id
  FROM drawn AS d
  CROSS JOIN totals AS t
  CROSS JOIN proj.ds.abcde_pair_fill AS fl
  CROSS JOIN digest AS g
  CROSS JOIN fp AS f
  CROSS JOIN overall AS o
) AS t
CROSS JOIN proj.ds.abcde_pair_validation AS v;
