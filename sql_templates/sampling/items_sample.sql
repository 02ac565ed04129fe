{# The exploration sample (ABCDE §4.1.1): each unique sampled item with its draw count
   dc(i) and importance weight w(i) = dc(i)/Σdc · JD(T)/JD(i) (eq. 25), its impact
   metrics and attributes, so that Σ_{i ∈ slice} w(i)·m(i) estimates the slice's
   contribution to m(T). `first_draw` is the order of first draw. #}
SELECT
  s.item_id,
  s.base_cluster,
  s.exp_cluster,
  s.weight,
  c.draw_count,
  s.clock_rank AS first_draw,
  {{ fdiv('c.draw_count * ' ~ jd_total, literal(total_draws) ~ ' * s.jaccard_distance') }} AS importance_weight,
{% for m in metrics %}
  s.{{ m }}{{ ',' if not loop.last or attributes }}
{% endfor %}
{% for name in attributes %}
  a.{{ name|ident }}{{ ',' if not loop.last }}
{% endfor %}
FROM item_clock AS s
JOIN {{ counts }} AS c ON s.clock_rank = c.clock_rank
{% if attributes %}
LEFT JOIN sample_attributes AS a ON s.item_id = a.item_id
{% endif %}
