-- benchmarks/handwritten.sql in Spark SQL: the overall impact metrics (docs/method.md
-- §3) written by hand the straightforward way — join the three Parquet files on
-- item_id, group items into cells (b, e), cluster weights/sizes by grouping the cells,
-- per-cell metrics, weighted sums. Placeholders {base}, {exp}, {weights} are Parquet
-- paths (Python str.format). Items without a weight count with weight 1.
WITH items AS (
    SELECT b.cluster_id AS b, e.cluster_id AS e, COALESCE(w.weight, 1.0D) AS w
    FROM parquet.`{base}` AS b
    JOIN parquet.`{exp}` AS e ON e.item_id = b.item_id
    LEFT JOIN parquet.`{weights}` AS w ON w.item_id = b.item_id
),
cells AS (
    SELECT b, e, SUM(w) AS w_c, COUNT(*) AS n_c
    FROM items
    GROUP BY b, e
),
base_clusters AS (
    SELECT b, SUM(w_c) AS w_b, SUM(n_c) AS n_b FROM cells GROUP BY b
),
exp_clusters AS (
    SELECT e, SUM(w_c) AS w_e, SUM(n_c) AS n_e FROM cells GROUP BY e
),
per_cell AS (
    SELECT c.w_c, c.n_c, bc.w_b, ec.w_e,
           bc.w_b + ec.w_e - c.w_c AS u_c,
           NOT (c.n_c = bc.n_b AND c.n_c = ec.n_e) AS affected
    FROM cells AS c
    JOIN base_clusters AS bc ON bc.b = c.b
    JOIN exp_clusters AS ec ON ec.e = c.e
)
SELECT
    SUM(n_c) AS items,
    SUM(w_c) AS weight,
    SUM(CASE WHEN affected THEN n_c ELSE 0 END) AS affected_items,
    SUM(CASE WHEN affected THEN w_c ELSE 0.0D END) AS affected_weight,
    SUM(w_c * (w_b - w_c) / w_b) / SUM(w_c) AS split_rate,
    SUM(w_c * (w_e - w_c) / w_e) / SUM(w_c) AS merge_rate,
    SUM(w_c * (w_b + w_e - 2 * w_c) / u_c) / SUM(w_c) AS jaccard_distance,
    SUM(w_c * (w_b - w_c) / u_c) / SUM(w_c) AS split_distance,
    SUM(w_c * (w_e - w_c) / u_c) / SUM(w_c) AS merge_distance,
    SUM(w_c * w_c / u_c) / SUM(w_c) AS jaccard_index,
    SUM(CASE WHEN affected THEN w_c * w_c / u_c ELSE 0.0D END) / SUM(w_c)
        AS affected_jaccard_index,
    SUM(CASE WHEN affected THEN 0.0D ELSE w_c END) / SUM(w_c) AS unaffected_jaccard_index
FROM per_cell
