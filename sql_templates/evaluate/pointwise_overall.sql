{# Pointwise metrics lifted to T: m(T) = Σ_c w_c·m(c) / W (pointwise paper eq. 16–18),
   and f1_of_overall = F1 of the overall P and R, which differs from the lifted
   per-item f1 (docs/method.md §4: report both). #}
WITH po_lifted AS (
  SELECT
    SUM(n) AS items,
    SUM(w) AS weight,
{% for m in metrics %}
    {{ fdiv('SUM(w * ' ~ m ~ ')', 'SUM(w)') }} AS {{ m }}{{ ',' if not loop.last }}
{% endfor %}
  FROM pointwise_cells
)
SELECT
  items,
  weight,
{% for m in metrics %}
  {{ m }},
{% endfor %}
  {{ fdiv('2 * precision * recall', 'precision + recall') }} AS f1_of_overall
FROM po_lifted
