{# Every draw with its vantage cell c = (b, e) and its partner cell: a cell of the same
   Base cluster (split), of the same Exp cluster (merge), or c itself (stable: a partner
   other than the vantage item, pairs/stream.sql), docs/method.md §6. #}
SELECT s.d, s.b, s.e, s.pair_class, s.label, s.u_over_w, s.w,
       p.partner_b, p.partner_e, p.partner_w
FROM pair_draw_strata AS s
JOIN pair_split_partners AS p ON s.d = p.d
UNION ALL
SELECT s.d, s.b, s.e, s.pair_class, s.label, s.u_over_w, s.w,
       p.partner_b, p.partner_e, p.partner_w
FROM pair_draw_strata AS s
JOIN pair_merge_partners AS p ON s.d = p.d
UNION ALL
SELECT s.d, s.b, s.e, s.pair_class, s.label, s.u_over_w, s.w,
       s.b AS partner_b, s.e AS partner_e, s.w AS partner_w
FROM pair_draw_strata AS s
WHERE s.pair_class = 'stable'
