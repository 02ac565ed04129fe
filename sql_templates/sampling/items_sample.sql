{# The exploration sample (ABCDE §4.1.1): each unique sampled item with its draw count
   dc(i) (sampling/draw_counts.sql) and importance weight w(i) = dc(i)/Σdc · JD(T)/JD(i)
   (eq. 25), its impact metrics and attributes, so that Σ_{i ∈ slice} w(i)·m(i)
   estimates the slice's contribution to m(T). `first_draw` is the order of first draw.
   JD(T) = Σ w_c·JD(c) / Σ w_c over the cells, a parallel sum whose last bits vary from
   run to run: rounded to 12 significant digits (an error ≤ 5e-13, far below the
   sampling error), the importance weights, and so the sample, are the same for the same
   seed. #}
WITH totals AS (
  SELECT SUM(draw_count) AS total_draws FROM item_draws
),
jd AS (
  SELECT {{ round_relative('jd_raw', 12) }} AS jd_total
  FROM (SELECT {{ fdiv('SUM(w * jaccard_distance)', 'SUM(w)') }} AS jd_raw FROM cell_metrics) AS r
)
SELECT
  s.item_id,
  s.base_cluster,
  s.exp_cluster,
  s.weight,
  c.draw_count,
  s.clock_rank AS first_draw,
  {{ fdiv('c.draw_count * j.jd_total', 't.total_draws * s.jaccard_distance') }} AS importance_weight,
{% for m in metrics %}
  s.{{ m }}{{ ',' if not loop.last or attributes }}
{% endfor %}
{% for name in attributes %}
  a.{{ name|ident }}{{ ',' if not loop.last }}
{% endfor %}
FROM item_clock AS s
JOIN item_draws AS c ON s.clock_rank = c.clock_rank
CROSS JOIN totals AS t
CROSS JOIN jd AS j
{% if attributes %}
LEFT JOIN sample_attributes AS a ON s.item_id = a.item_id
{% endif %}
