{# Step 3 for split (side 'b') and merge (side 'e') draws (docs/method.md §6): the partner cell is
   a cell of the same {{ side }}-cluster other than the vantage cell c, picked ∝ its
   weight. The cluster's cells are laid end to end in the order of the other id's md5
   key (`order_key`: independent of the id's type and of collations); the draw's
   target pos = U·(weight of the other cells) skips c's own interval (pos ≥ lo_c →
   pos + w_c), and the same window as-of join as for strata finds the cell. Only the
   clusters that some draw needs are read. A rounding that lands on c itself moves to
   a neighbouring cell (a probability of order 1e-16). #}
{% set other = 'e' if side == 'b' else 'b' %}
{% set rest = 'split_w' if side == 'b' else 'merge_w' %}
WITH needed AS (
  SELECT DISTINCT {{ side }} FROM pair_draw_strata WHERE pair_class = '{{ pair_class }}'
),
keyed AS (
  SELECT m.b, m.e, m.w, {{ order_key('m.' ~ other) }} AS other_key
  FROM cell_metrics AS m
  JOIN needed AS n ON m.{{ side }} = n.{{ side }}
),
candidates AS (
  SELECT
    m.b,
    m.e,
    m.w,
    SUM(m.w) OVER (PARTITION BY m.{{ side }} ORDER BY m.other_key, m.{{ other }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - m.w AS lo,
    ROW_NUMBER() OVER (PARTITION BY m.{{ side }} ORDER BY m.other_key, m.{{ other }}) AS seq,
    COUNT(*) OVER (PARTITION BY m.{{ side }}) AS cells
  FROM keyed AS m
),
raw AS (
  SELECT
    s.d,
    s.b,
    s.e,
    {{ uniform(seed, literal('partner'), 's.d') }} * s.{{ rest }} AS upos
  FROM pair_draw_strata AS s
  WHERE s.pair_class = '{{ pair_class }}'
),
probes AS (
  SELECT
    r.d,
    r.{{ side }} AS g,
    c.seq AS own_seq,
    c.cells,
    CASE WHEN r.upos >= c.lo THEN r.upos + c.w ELSE r.upos END AS pos
  FROM raw AS r
  JOIN candidates AS c ON r.b = c.b AND r.e = c.e
),
stacked AS (
  SELECT {{ side }} AS g, lo AS pos, 0 AS is_draw, seq, CAST(NULL AS BIGINT) AS d,
         CAST(NULL AS BIGINT) AS own_seq, CAST(NULL AS BIGINT) AS cells
  FROM candidates
  UNION ALL
  SELECT g, pos, 1 AS is_draw, CAST(NULL AS BIGINT) AS seq, d, own_seq, cells FROM probes
),
chosen AS (
  SELECT
    g,
    d,
    is_draw,
    own_seq,
    cells,
    MAX(seq) OVER (PARTITION BY g ORDER BY pos, is_draw ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS seq
  FROM stacked
),
fixed AS (
  SELECT
    g,
    d,
    CASE
      WHEN seq <> own_seq THEN seq
      WHEN own_seq < cells THEN own_seq + 1
      ELSE own_seq - 1
    END AS seq
  FROM chosen
  WHERE is_draw = 1
)
SELECT
  f.d,
  c.b AS partner_b,
  c.e AS partner_e,
  c.w AS partner_w
FROM fixed AS f
JOIN candidates AS c ON f.g = c.{{ side }} AND f.seq = c.seq
