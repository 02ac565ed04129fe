{# Totals over `cell_rows`: rows of each input seen by the join, T, items outside T,
   NULL ids, ids repeated on one side, and every row-level check. #}
SELECT
  SUM(base_rows) AS joined_base_rows,
  SUM(exp_rows) AS joined_exp_rows,
  SUM(weight_rows) AS matched_weight_rows,
  SUM(attribute_rows) AS matched_attribute_rows,
  SUM(CASE WHEN common THEN item_rows ELSE 0 END) AS common_rows,
  SUM(CASE WHEN NOT common AND one_side_id IS NULL THEN base_rows ELSE 0 END) AS null_item_base,
  SUM(CASE WHEN NOT common AND one_side_id IS NULL THEN exp_rows ELSE 0 END) AS null_item_exp,
  SUM(CASE WHEN NOT common AND one_side_id IS NOT NULL AND item_rows > 1 THEN 1 ELSE 0 END) AS repeated_one_side
{% for name in checks %}
  , SUM({{ name }}_n) AS {{ name }}
{% endfor %}
FROM cell_rows
