DROP TABLE IF EXISTS proj.ds.abcde_sample_attributes;

CREATE TABLE proj.ds.abcde_sample_attributes AS
WITH pair_sample_items AS (
  SELECT
    item_i AS item_id
  FROM proj.ds.abcde_pair_kept_split_merge AS pair_kept_split_merge
  UNION
  SELECT
    item_j AS item_id
  FROM proj.ds.abcde_pair_kept_split_merge AS pair_kept_split_merge
  UNION
  SELECT
    item_i AS item_id
  FROM proj.ds.abcde_pair_kept_stable AS pair_kept_stable
  UNION
  SELECT
    item_j AS item_id
  FROM proj.ds.abcde_pair_kept_stable AS pair_kept_stable
)
SELECT
  CAST(item_id AS VARCHAR) AS item_id,
  provenance AS provenance,
  size_class AS size_class
FROM proj.ds.attributes
WHERE
  CAST(item_id AS VARCHAR) IN (
    SELECT
      item_id
    FROM pair_sample_items
  );
