DROP TABLE IF EXISTS proj.ds.abcde_pair_fill;

CREATE TABLE proj.ds.abcde_pair_fill AS
SELECT
  f0.budget_filled AND f1.budget_filled AS budget_filled,
  f0.judgeable_found + f1.judgeable_found AS judgeable_found,
  f0.budget_possible AND f1.budget_possible AS budget_possible,
  CASE
    WHEN f0.budget_filled AND f1.budget_filled
    THEN 'filled'
    ELSE 'split_merge: ' || f0.fill_note || '; ' || 'stable: ' || f1.fill_note
  END AS fill_note
FROM proj.ds.abcde_pair_fill_split_merge AS f0
CROSS JOIN proj.ds.abcde_pair_fill_stable AS f1;
