DROP TABLE IF EXISTS `proj`.`ds`.`abcde_pair_draw_cells_split_merge`;

CREATE TABLE `proj`.`ds`.`abcde_pair_draw_cells_split_merge` AS
SELECT
  s.d,
  s.b,
  s.e,
  s.pair_class,
  s.label,
  s.u_over_w,
  s.w,
  p.partner_b,
  p.partner_e,
  p.partner_w
FROM `proj`.`ds`.`abcde_pair_draw_strata_split_merge` AS s
JOIN `proj`.`ds`.`abcde_pair_split_partners_split_merge` AS p
  ON s.d = p.d
UNION ALL
SELECT
  s.d,
  s.b,
  s.e,
  s.pair_class,
  s.label,
  s.u_over_w,
  s.w,
  p.partner_b,
  p.partner_e,
  p.partner_w
FROM `proj`.`ds`.`abcde_pair_draw_strata_split_merge` AS s
JOIN `proj`.`ds`.`abcde_pair_merge_partners_split_merge` AS p
  ON s.d = p.d
UNION ALL
SELECT
  s.d,
  s.b,
  s.e,
  s.pair_class,
  s.label,
  s.u_over_w,
  s.w,
  s.b AS partner_b,
  s.e AS partner_e,
  s.w AS partner_w
FROM `proj`.`ds`.`abcde_pair_draw_strata_split_merge` AS s
WHERE
  s.pair_class = 'stable';
