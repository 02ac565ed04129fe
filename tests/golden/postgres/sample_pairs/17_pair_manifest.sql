DROP TABLE IF EXISTS "proj"."ds"."abcde_pair_manifest";

CREATE TABLE "proj"."ds"."abcde_pair_manifest" AS
WITH total AS (
  SELECT
    SUM(w) AS total_w
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
), pair_self AS (
  SELECT
    COALESCE(
      SUM(
        CASE
          WHEN m.affected
          THEN (
            CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          ) * (
            CAST(CAST(m.w2 AS DOUBLE PRECISION) / NULLIF(CAST(m.w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS DOUBLE PRECISION) / NULLIF(CAST(m.w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          ) * (
            CAST(m.split_w - m.merge_w AS DOUBLE PRECISION) / NULLIF(CAST(m.w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          )
        END
      ),
      CAST(0 AS DOUBLE PRECISION)
    ) AS delta_precision,
    COALESCE(
      SUM(
        CASE
          WHEN m.affected
          THEN (
            CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          ) * (
            CAST(CAST(m.w2 AS DOUBLE PRECISION) / NULLIF(CAST(m.w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS DOUBLE PRECISION) / NULLIF(CAST(m.w_b AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          ) * (
            CAST(ABS(m.split_w - m.merge_w) AS DOUBLE PRECISION) / NULLIF(CAST(m.w_e AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          )
        END
      ),
      CAST(0 AS DOUBLE PRECISION)
    ) AS u_self,
    COALESCE(
      SUM(
        CASE
          WHEN m.affected
          THEN (
            CAST(m.w AS DOUBLE PRECISION) / NULLIF(CAST(t.total_w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          ) * (
            CAST(CAST(m.w2 AS DOUBLE PRECISION) / NULLIF(CAST(m.w AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS DOUBLE PRECISION) / NULLIF(CAST(m.u AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION))
          )
        END
      ),
      CAST(0 AS DOUBLE PRECISION)
    ) AS affected_good_index
  FROM "proj"."ds"."abcde_cell_metrics" AS m
  CROSS JOIN total AS t
), overall AS (
  SELECT
    CAST(SUM(n) AS BIGINT) AS items,
    SUM(w) AS weight,
    CAST(SUM(CASE WHEN affected THEN n ELSE 0 END) AS BIGINT) AS affected_items,
    SUM(CASE WHEN affected THEN w ELSE CAST(0 AS DOUBLE PRECISION) END) AS affected_weight,
    CAST(SUM(w * split_rate) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_rate,
    CAST(SUM(w * merge_rate) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_rate,
    CAST(SUM(w * jaccard_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_distance,
    CAST(SUM(w * split_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS split_distance,
    CAST(SUM(w * merge_distance) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS merge_distance,
    CAST(SUM(w * jaccard_index) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS jaccard_index,
    CAST(SUM(CASE WHEN affected THEN w * jaccard_index ELSE CAST(0 AS DOUBLE PRECISION) END) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS affected_jaccard_index,
    CAST(SUM(CASE WHEN affected THEN CAST(0 AS DOUBLE PRECISION) ELSE w END) AS DOUBLE PRECISION) / NULLIF(CAST(SUM(w) AS DOUBLE PRECISION), CAST(0 AS DOUBLE PRECISION)) AS unaffected_jaccard_index
  FROM "proj"."ds"."abcde_cell_metrics" AS cell_metrics
), fingerprint AS (
  SELECT
    COUNT(*) AS cells,
    SUM(n) AS items,
    SUM(w) AS weight,
    SUM(
      (
        CAST((
          CAST(CAST('x' || LPAD(
            SUBSTRING(MD5(
              CAST('fingerprint' AS VARCHAR) || ':' || CAST(b AS VARCHAR) || ':' || CAST(e AS VARCHAR)
            ) FROM 1 FOR 13),
            16,
            '0'
          ) AS BIT(64)) AS BIGINT)
        ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
      )
    ) AS cell_hash,
    SUM(
      n * (
        CAST((
          CAST(CAST('x' || LPAD(
            SUBSTRING(MD5(
              CAST('fingerprint' AS VARCHAR) || ':' || CAST(b AS VARCHAR) || ':' || CAST(e AS VARCHAR)
            ) FROM 1 FOR 13),
            16,
            '0'
          ) AS BIT(64)) AS BIGINT)
        ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
      )
    ) AS item_hash,
    SUM(
      w * (
        CAST((
          CAST(CAST('x' || LPAD(
            SUBSTRING(MD5(
              CAST('fingerprint' AS VARCHAR) || ':' || CAST(b AS VARCHAR) || ':' || CAST(e AS VARCHAR)
            ) FROM 1 FOR 13),
            16,
            '0'
          ) AS BIT(64)) AS BIGINT)
        ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
      )
    ) AS weight_hash
  FROM "proj"."ds"."abcde_cells" AS cells
), pair_sample_digest AS (
  SELECT
    COUNT(*) AS rows_drawn,
    SUM(
      CAST(FLOOR(
        (
          CAST((
            CAST(CAST('x' || LPAD(
              SUBSTRING(MD5(
                CAST('sample' AS VARCHAR) || ':' || CAST(pair_id AS VARCHAR) || ':' || CAST(item_i AS VARCHAR) || ':' || CAST(item_j AS VARCHAR) || ':' || CAST(pair_class AS VARCHAR) || ':' || CAST(draw_count AS VARCHAR) || ':' || CAST(first_draw AS VARCHAR)
              ) FROM 1 FOR 13),
              16,
              '0'
            ) AS BIT(64)) AS BIGINT)
          ) * 2 + 1 AS DOUBLE PRECISION) / CAST(9007199254740992 AS DOUBLE PRECISION)
        ) * CAST(2147483648 AS DOUBLE PRECISION)
      ) AS BIGINT)
    ) AS pair_digest
  FROM "proj"."ds"."abcde_pair_sample" AS pair_sample
), parts AS (
  SELECT
    SUBSTRING(MD5(
      CAST('stream' AS VARCHAR) || ':' || CAST('mixture' AS VARCHAR) || ':' || CAST('0.5' AS VARCHAR) || ':' || CAST(7 AS VARCHAR) || ':' || CAST('' AS VARCHAR) || ':' || CAST(1 AS VARCHAR) || ':' || CAST(CAST(f.cells AS BIGINT) AS VARCHAR) || ':' || CAST(CAST(f.items AS BIGINT) AS VARCHAR)
    ) FROM 1 FOR 16) AS stream,
    CAST(COALESCE(g.rows_drawn, 0) AS BIGINT) AS rows_drawn,
    CAST(COALESCE(g.pair_digest, 0) AS BIGINT) AS pair_digest
  FROM fingerprint AS f
  CROSS JOIN pair_sample_digest AS g
), pair_sample_id AS (
  SELECT
    stream,
    rows_drawn,
    pair_digest,
    's' || SUBSTRING(stream FROM 1 FOR 8) || '-b500-' || SUBSTRING(MD5(
      CAST('pairs' AS VARCHAR) || ':' || CAST(stream AS VARCHAR) || ':' || CAST('b500' AS VARCHAR) || ':' || CAST(rows_drawn AS VARCHAR) || ':' || CAST(pair_digest AS VARCHAR)
    ) FROM 1 FOR 8) AS sample_id
  FROM parts
), drawn AS (
  SELECT
    COUNT(*) AS pairs_ordered,
    COUNT(DISTINCT pair_id) AS pairs_unordered,
    COUNT(DISTINCT CASE WHEN pair_class = 'split' THEN pair_id END) AS pairs_split_pairs,
    SUM(CASE WHEN pair_class = 'split' THEN draw_count ELSE 0 END) AS pairs_split_draws,
    COUNT(DISTINCT CASE WHEN pair_class = 'merge' THEN pair_id END) AS pairs_merge_pairs,
    SUM(CASE WHEN pair_class = 'merge' THEN draw_count ELSE 0 END) AS pairs_merge_draws,
    COUNT(DISTINCT CASE WHEN pair_class = 'stable' THEN pair_id END) AS pairs_stable_pairs,
    SUM(CASE WHEN pair_class = 'stable' THEN draw_count ELSE 0 END) AS pairs_stable_draws,
    SUM(draw_count) AS draws
  FROM "proj"."ds"."abcde_pair_sample" AS pair_sample
), classes AS (
  SELECT
    COALESCE(MAX(CASE WHEN class_key = 'split' THEN u END), CAST(0 AS DOUBLE PRECISION)) AS classes_split_u,
    COALESCE(MAX(CASE WHEN class_key = 'split' THEN w END), CAST(0 AS DOUBLE PRECISION)) AS classes_split_w,
    COALESCE(MAX(CASE WHEN class_key = 'split' THEN q END), CAST(0 AS DOUBLE PRECISION)) AS classes_split_q,
    COALESCE(MAX(CASE WHEN class_key = 'split' THEN u_square END), CAST(0 AS DOUBLE PRECISION)) AS classes_split_u_square,
    COALESCE(MAX(CASE WHEN class_key = 'split' THEN w_square END), CAST(0 AS DOUBLE PRECISION)) AS classes_split_w_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'split' THEN u_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_split_u_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'split' THEN w_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_split_w_uncovered,
    COALESCE(MAX(CASE WHEN class_key = 'split' THEN judgeable END), CAST(0 AS DOUBLE PRECISION)) AS classes_split_judgeable,
    COALESCE(MAX(CASE WHEN class_key = 'merge' THEN u END), CAST(0 AS DOUBLE PRECISION)) AS classes_merge_u,
    COALESCE(MAX(CASE WHEN class_key = 'merge' THEN w END), CAST(0 AS DOUBLE PRECISION)) AS classes_merge_w,
    COALESCE(MAX(CASE WHEN class_key = 'merge' THEN q END), CAST(0 AS DOUBLE PRECISION)) AS classes_merge_q,
    COALESCE(MAX(CASE WHEN class_key = 'merge' THEN u_square END), CAST(0 AS DOUBLE PRECISION)) AS classes_merge_u_square,
    COALESCE(MAX(CASE WHEN class_key = 'merge' THEN w_square END), CAST(0 AS DOUBLE PRECISION)) AS classes_merge_w_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'merge' THEN u_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_merge_u_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'merge' THEN w_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_merge_w_uncovered,
    COALESCE(MAX(CASE WHEN class_key = 'merge' THEN judgeable END), CAST(0 AS DOUBLE PRECISION)) AS classes_merge_judgeable,
    COALESCE(MAX(CASE WHEN class_key = 'stable_plus' THEN u END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_plus_u,
    COALESCE(MAX(CASE WHEN class_key = 'stable_plus' THEN w END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_plus_w,
    COALESCE(MAX(CASE WHEN class_key = 'stable_plus' THEN q END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_plus_q,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_plus' THEN u_square END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_plus_u_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_plus' THEN w_square END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_plus_w_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_plus' THEN u_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_plus_u_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_plus' THEN w_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_plus_w_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_plus' THEN judgeable END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_plus_judgeable,
    COALESCE(MAX(CASE WHEN class_key = 'stable_minus' THEN u END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_minus_u,
    COALESCE(MAX(CASE WHEN class_key = 'stable_minus' THEN w END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_minus_w,
    COALESCE(MAX(CASE WHEN class_key = 'stable_minus' THEN q END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_minus_q,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_minus' THEN u_square END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_minus_u_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_minus' THEN w_square END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_minus_w_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_minus' THEN u_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_minus_u_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_minus' THEN w_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_minus_w_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_minus' THEN judgeable END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_minus_judgeable,
    COALESCE(MAX(CASE WHEN class_key = 'stable_zero' THEN u END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_zero_u,
    COALESCE(MAX(CASE WHEN class_key = 'stable_zero' THEN w END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_zero_w,
    COALESCE(MAX(CASE WHEN class_key = 'stable_zero' THEN q END), CAST(0 AS DOUBLE PRECISION)) AS classes_stable_zero_q,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_zero' THEN u_square END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_zero_u_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_zero' THEN w_square END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_zero_w_square,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_zero' THEN u_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_zero_u_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_zero' THEN w_uncovered END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_zero_w_uncovered,
    COALESCE(
      MAX(CASE WHEN class_key = 'stable_zero' THEN judgeable END),
      CAST(0 AS DOUBLE PRECISION)
    ) AS classes_stable_zero_judgeable
  FROM "proj"."ds"."abcde_pair_totals" AS pair_totals
), self_parts AS (
  SELECT
    delta_precision AS exact_delta_precision,
    affected_good_index AS exact_affected_good_index,
    u_self AS exact_u_self
  FROM pair_self
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
    2 AS design_version,
    'mixture' AS population,
    CAST(0.5 AS DOUBLE PRECISION) AS alpha,
    7 AS seed,
    500 AS budget,
    5000 AS stream_draws,
    COALESCE(d.draws, 0) AS draws,
    fl.budget_filled,
    fl.judgeable_found,
    fl.budget_possible,
    fl.fill_note,
    FALSE AS stratified,
    CAST(NULL AS TEXT) AS strata_allocation,
    d.pairs_ordered,
    d.pairs_unordered,
    d.pairs_unordered AS pairs_judgeable,
    d.pairs_split_pairs,
    COALESCE(d.pairs_split_draws, 0) AS pairs_split_draws,
    d.pairs_merge_pairs,
    COALESCE(d.pairs_merge_draws, 0) AS pairs_merge_draws,
    d.pairs_stable_pairs,
    COALESCE(d.pairs_stable_draws, 0) AS pairs_stable_draws,
    c.classes_split_u,
    c.classes_split_w,
    c.classes_split_q,
    c.classes_split_u_square,
    c.classes_split_w_square,
    c.classes_split_u_uncovered,
    c.classes_split_w_uncovered,
    c.classes_split_judgeable,
    c.classes_merge_u,
    c.classes_merge_w,
    c.classes_merge_q,
    c.classes_merge_u_square,
    c.classes_merge_w_square,
    c.classes_merge_u_uncovered,
    c.classes_merge_w_uncovered,
    c.classes_merge_judgeable,
    c.classes_stable_plus_u,
    c.classes_stable_plus_w,
    c.classes_stable_plus_q,
    c.classes_stable_plus_u_square,
    c.classes_stable_plus_w_square,
    c.classes_stable_plus_u_uncovered,
    c.classes_stable_plus_w_uncovered,
    c.classes_stable_plus_judgeable,
    c.classes_stable_minus_u,
    c.classes_stable_minus_w,
    c.classes_stable_minus_q,
    c.classes_stable_minus_u_square,
    c.classes_stable_minus_w_square,
    c.classes_stable_minus_u_uncovered,
    c.classes_stable_minus_w_uncovered,
    c.classes_stable_minus_judgeable,
    c.classes_stable_zero_u,
    c.classes_stable_zero_w,
    c.classes_stable_zero_q,
    c.classes_stable_zero_u_square,
    c.classes_stable_zero_w_square,
    c.classes_stable_zero_u_uncovered,
    c.classes_stable_zero_w_uncovered,
    c.classes_stable_zero_judgeable,
    x.exact_delta_precision,
    x.exact_affected_good_index,
    x.exact_u_self,
    o.items,
    o.weight,
    o.affected_items,
    o.affected_weight,
    o.split_rate,
    o.merge_rate,
    o.jaccard_distance,
    o.split_distance,
    o.merge_distance,
    o.jaccard_index,
    o.affected_jaccard_index,
    o.unaffected_jaccard_index,
    f.fp_cells,
    f.fp_items,
    f.fp_weight,
    f.fp_cell_hash,
    f.fp_item_hash,
    f.fp_weight_hash,
    i.pair_digest,
    i.sample_id
  FROM drawn AS d
  CROSS JOIN classes AS c
  CROSS JOIN self_parts AS x
  CROSS JOIN "proj"."ds"."abcde_pair_fill" AS fl
  CROSS JOIN pair_sample_id AS i
  CROSS JOIN fp AS f
  CROSS JOIN overall AS o
) AS t
CROSS JOIN "proj"."ds"."abcde_pair_validation" AS v;
