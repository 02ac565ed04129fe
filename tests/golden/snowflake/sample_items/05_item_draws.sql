DROP TABLE IF EXISTS proj.ds.abcde_item_draws;

CREATE TABLE proj.ds.abcde_item_draws AS
WITH poisson_terms AS (
  SELECT
    k,
    ln_fact
  FROM (VALUES
    (0, CAST(0.0 AS DOUBLE)),
    (1, CAST(0.0 AS DOUBLE)),
    (2, CAST(0.693147180559945 AS DOUBLE)),
    (3, CAST(1.7917594692280554 AS DOUBLE)),
    (4, CAST(3.178053830347945 AS DOUBLE)),
    (5, CAST(4.787491742782047 AS DOUBLE)),
    (6, CAST(6.579251212010102 AS DOUBLE)),
    (7, CAST(8.525161361065415 AS DOUBLE)),
    (8, CAST(10.604602902745249 AS DOUBLE)),
    (9, CAST(12.801827480081467 AS DOUBLE)),
    (10, CAST(15.104412573075514 AS DOUBLE)),
    (11, CAST(17.502307845873887 AS DOUBLE)),
    (12, CAST(19.987214495661885 AS DOUBLE)),
    (13, CAST(22.55216385312342 AS DOUBLE)),
    (14, CAST(25.191221182738683 AS DOUBLE)),
    (15, CAST(27.89927138384089 AS DOUBLE)),
    (16, CAST(30.671860106080672 AS DOUBLE)),
    (17, CAST(33.50507345013689 AS DOUBLE)),
    (18, CAST(36.39544520803305 AS DOUBLE)),
    (19, CAST(39.339884187199495 AS DOUBLE)),
    (20, CAST(42.335616460753485 AS DOUBLE)),
    (21, CAST(45.38013889847691 AS DOUBLE)),
    (22, CAST(48.47118135183522 AS DOUBLE)),
    (23, CAST(51.60667556776438 AS DOUBLE)),
    (24, CAST(54.78472939811232 AS DOUBLE)),
    (25, CAST(58.00360522298052 AS DOUBLE)),
    (26, CAST(61.26170176100201 AS DOUBLE)),
    (27, CAST(64.55753862700634 AS DOUBLE)),
    (28, CAST(67.88974313718153 AS DOUBLE)),
    (29, CAST(71.257038967168 AS DOUBLE)),
    (30, CAST(74.65823634883017 AS DOUBLE)),
    (31, CAST(78.0922235533153 AS DOUBLE)),
    (32, CAST(81.55795945611503 AS DOUBLE)),
    (33, CAST(85.05446701758152 AS DOUBLE)),
    (34, CAST(88.58082754219768 AS DOUBLE)),
    (35, CAST(92.1361756036871 AS DOUBLE)),
    (36, CAST(95.7196945421432 AS DOUBLE)),
    (37, CAST(99.33061245478743 AS DOUBLE)),
    (38, CAST(102.96819861451381 AS DOUBLE)),
    (39, CAST(106.63176026064346 AS DOUBLE)),
    (40, CAST(110.32063971475738 AS DOUBLE)),
    (41, CAST(114.03421178146169 AS DOUBLE)),
    (42, CAST(117.77188139974507 AS DOUBLE)),
    (43, CAST(121.53308151543864 AS DOUBLE)),
    (44, CAST(125.3172711493569 AS DOUBLE)),
    (45, CAST(129.12393363912722 AS DOUBLE)),
    (46, CAST(132.95257503561632 AS DOUBLE)),
    (47, CAST(136.80272263732635 AS DOUBLE)),
    (48, CAST(140.67392364823425 AS DOUBLE)),
    (49, CAST(144.5657439463449 AS DOUBLE)),
    (50, CAST(148.47776695177305 AS DOUBLE)),
    (51, CAST(152.40959258449732 AS DOUBLE)),
    (52, CAST(156.3608363030788 AS DOUBLE)),
    (53, CAST(160.3311282166309 AS DOUBLE)),
    (54, CAST(164.32011226319514 AS DOUBLE)),
    (55, CAST(168.32744544842765 AS DOUBLE)),
    (56, CAST(172.35279713916282 AS DOUBLE)),
    (57, CAST(176.39584840699737 AS DOUBLE)),
    (58, CAST(180.45629141754375 AS DOUBLE)),
    (59, CAST(184.53382886144948 AS DOUBLE)),
    (60, CAST(188.62817342367163 AS DOUBLE)),
    (61, CAST(192.7390472878449 AS DOUBLE)),
    (62, CAST(196.86618167288998 AS DOUBLE)),
    (63, CAST(201.00931639928152 AS DOUBLE)),
    (64, CAST(205.16819948264123 AS DOUBLE)),
    (65, CAST(209.34258675253685 AS DOUBLE)),
    (66, CAST(213.53224149456327 AS DOUBLE)),
    (67, CAST(217.7369341139542 AS DOUBLE)),
    (68, CAST(221.95644181913036 AS DOUBLE)),
    (69, CAST(226.1905483237276 AS DOUBLE)),
    (70, CAST(230.43904356577693 AS DOUBLE)),
    (71, CAST(234.70172344281826 AS DOUBLE)),
    (72, CAST(238.97838956183432 AS DOUBLE)),
    (73, CAST(243.26884900298276 AS DOUBLE)),
    (74, CAST(247.5729140961869 AS DOUBLE)),
    (75, CAST(251.89040220972316 AS DOUBLE)),
    (76, CAST(256.22113555000954 AS DOUBLE)),
    (77, CAST(260.5649409718632 AS DOUBLE)),
    (78, CAST(264.92164979855283 AS DOUBLE)),
    (79, CAST(269.2910976510198 AS DOUBLE)),
    (80, CAST(273.6731242856937 AS DOUBLE)),
    (81, CAST(278.0675734403661 AS DOUBLE)),
    (82, CAST(282.47429268763034 AS DOUBLE)),
    (83, CAST(286.893133295427 AS DOUBLE)),
    (84, CAST(291.32395009427034 AS DOUBLE)),
    (85, CAST(295.7666013507606 AS DOUBLE)),
    (86, CAST(300.22094864701415 AS DOUBLE)),
    (87, CAST(304.68685676566867 AS DOUBLE)),
    (88, CAST(309.16419358014696 AS DOUBLE)),
    (89, CAST(313.65282994987905 AS DOUBLE)),
    (90, CAST(318.15263962020936 AS DOUBLE)),
    (91, CAST(322.66349912672626 AS DOUBLE)),
    (92, CAST(327.1852877037752 AS DOUBLE)),
    (93, CAST(331.7178871969285 AS DOUBLE)),
    (94, CAST(336.2611819791985 AS DOUBLE)),
    (95, CAST(340.81505887079896 AS DOUBLE)),
    (96, CAST(345.37940706226686 AS DOUBLE)),
    (97, CAST(349.95411804077025 AS DOUBLE)),
    (98, CAST(354.53908551944085 AS DOUBLE)),
    (99, CAST(359.1342053695754 AS DOUBLE)),
    (100, CAST(363.73937555556347 AS DOUBLE)),
    (101, CAST(368.35449607240474 AS DOUBLE)),
    (102, CAST(372.979468885689 AS DOUBLE)),
    (103, CAST(377.6141978739186 AS DOUBLE)),
    (104, CAST(382.25858877306007 AS DOUBLE)),
    (105, CAST(386.91254912321756 AS DOUBLE)),
    (106, CAST(391.57598821732967 AS DOUBLE)),
    (107, CAST(396.2488170517915 AS DOUBLE)),
    (108, CAST(400.93094827891576 AS DOUBLE)),
    (109, CAST(405.62229616114485 AS DOUBLE)),
    (110, CAST(410.3227765269373 AS DOUBLE)),
    (111, CAST(415.03230672824964 AS DOUBLE)),
    (112, CAST(419.7508055995448 AS DOUBLE)),
    (113, CAST(424.4781934182571 AS DOUBLE)),
    (114, CAST(429.2143918666516 AS DOUBLE)),
    (115, CAST(433.9593239950148 AS DOUBLE)),
    (116, CAST(438.71291418612117 AS DOUBLE)),
    (117, CAST(443.47508812091894 AS DOUBLE)),
    (118, CAST(448.24577274538456 AS DOUBLE)),
    (119, CAST(453.0248962384962 AS DOUBLE)),
    (120, CAST(457.8123879812781 AS DOUBLE)),
    (121, CAST(462.60817852687495 AS DOUBLE)),
    (122, CAST(467.41219957160814 AS DOUBLE)),
    (123, CAST(472.2243839269806 AS DOUBLE)),
    (124, CAST(477.0446654925857 AS DOUBLE)),
    (125, CAST(481.87297922988796 AS DOUBLE)),
    (126, CAST(486.7092611368394 AS DOUBLE)),
    (127, CAST(491.553448223298 AS DOUBLE)),
    (128, CAST(496.40547848721764 AS DOUBLE)),
    (129, CAST(501.2652908915793 AS DOUBLE)),
    (130, CAST(506.13282534203495 AS DOUBLE)),
    (131, CAST(511.00802266523607 AS DOUBLE)),
    (132, CAST(515.8908245878225 AS DOUBLE)),
    (133, CAST(520.7811737160442 AS DOUBLE)),
    (134, CAST(525.679013515995 AS DOUBLE)),
    (135, CAST(530.5842882944335 AS DOUBLE)),
    (136, CAST(535.4969431801695 AS DOUBLE)),
    (137, CAST(540.4169241059976 AS DOUBLE)),
    (138, CAST(545.3441777911548 AS DOUBLE)),
    (139, CAST(550.2786517242856 AS DOUBLE)),
    (140, CAST(555.2202941468948 AS DOUBLE)),
    (141, CAST(560.1690540372731 AS DOUBLE)),
    (142, CAST(565.1248810948744 AS DOUBLE)),
    (143, CAST(570.0877257251342 AS DOUBLE)),
    (144, CAST(575.0575390247102 AS DOUBLE)),
    (145, CAST(580.0342727671308 AS DOUBLE)),
    (146, CAST(585.0178793888392 AS DOUBLE)),
    (147, CAST(590.0083119756179 AS DOUBLE)),
    (148, CAST(595.005524249382 AS DOUBLE)),
    (149, CAST(600.0094705553274 AS DOUBLE)),
    (150, CAST(605.0201058494238 AS DOUBLE)),
    (151, CAST(610.0373856862386 AS DOUBLE)),
    (152, CAST(615.0612662070849 AS DOUBLE)),
    (153, CAST(620.0917041284773 AS DOUBLE)),
    (154, CAST(625.1286567308911 AS DOUBLE)),
    (155, CAST(630.1720818478102 AS DOUBLE)),
    (156, CAST(635.2219378550598 AS DOUBLE)),
    (157, CAST(640.2781836604081 AS DOUBLE)),
    (158, CAST(645.3407786934349 AS DOUBLE)),
    (159, CAST(650.4096828956552 AS DOUBLE)),
    (160, CAST(655.4848567108891 AS DOUBLE)),
    (161, CAST(660.5662610758735 AS DOUBLE)),
    (162, CAST(665.653857411106 AS DOUBLE)),
    (163, CAST(670.7476076119127 AS DOUBLE)),
    (164, CAST(675.8474740397369 AS DOUBLE)),
    (165, CAST(680.9534195136374 AS DOUBLE)),
    (166, CAST(686.065407301994 AS DOUBLE)),
    (167, CAST(691.1834011144107 AS DOUBLE)),
    (168, CAST(696.3073650938139 AS DOUBLE)),
    (169, CAST(701.437263808737 AS DOUBLE)),
    (170, CAST(706.5730622457874 AS DOUBLE)),
    (171, CAST(711.71472580229 AS DOUBLE)),
    (172, CAST(716.8622202791034 AS DOUBLE)),
    (173, CAST(722.0155118736012 AS DOUBLE)),
    (174, CAST(727.1745671728157 AS DOUBLE)),
    (175, CAST(732.3393531467393 AS DOUBLE)),
    (176, CAST(737.5098371417773 AS DOUBLE)),
    (177, CAST(742.6859868743513 AS DOUBLE)),
    (178, CAST(747.8677704246434 AS DOUBLE)),
    (179, CAST(753.0551562304842 AS DOUBLE)),
    (180, CAST(758.2481130813743 AS DOUBLE)),
    (181, CAST(763.4466101126402 AS DOUBLE)),
    (182, CAST(768.650616799717 AS DOUBLE)),
    (183, CAST(773.8601029525585 AS DOUBLE)),
    (184, CAST(779.0750387101673 AS DOUBLE)),
    (185, CAST(784.2953945352457 AS DOUBLE)),
    (186, CAST(789.5211412089589 AS DOUBLE)),
    (187, CAST(794.7522498258135 AS DOUBLE)),
    (188, CAST(799.9886917886433 AS DOUBLE)),
    (189, CAST(805.2304388037031 AS DOUBLE)),
    (190, CAST(810.4774628758637 AS DOUBLE)),
    (191, CAST(815.7297363039103 AS DOUBLE)),
    (192, CAST(820.9872316759379 AS DOUBLE)),
    (193, CAST(826.2499218648428 AS DOUBLE)),
    (194, CAST(831.5177800239061 AS DOUBLE)),
    (195, CAST(836.79077958247 AS DOUBLE)),
    (196, CAST(842.0688942417004 AS DOUBLE)),
    (197, CAST(847.3520979704384 AS DOUBLE)),
    (198, CAST(852.640365001133 AS DOUBLE)),
    (199, CAST(857.9336698258575 AS DOUBLE)),
    (200, CAST(863.2319871924054 AS DOUBLE))) AS t(k, ln_fact)
), clock_max AS (
  SELECT
    MAX(clock_key) AS m
  FROM proj.ds.abcde_item_clock AS item_clock
), lambdas AS (
  SELECT
    c.clock_rank,
    c.item_id AS element_id,
    CASE
      WHEN c.clock_weight * (
        x.m - c.clock_key
      ) > 0
      THEN c.clock_weight * (
        x.m - c.clock_key
      )
      ELSE CAST(0 AS DOUBLE)
    END AS lam
  FROM proj.ds.abcde_item_clock AS c
  CROSS JOIN clock_max AS x
), uniforms AS (
  SELECT
    clock_rank,
    lam,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              1,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 281474976710656 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              2,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 17592186044416 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              3,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1099511627776 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              4,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 68719476736 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              5,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4294967296 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              6,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 268435456 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              7,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16777216 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              8,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1048576 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              9,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 65536 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              10,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4096 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              11,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 256 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              12,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(CAST(7 AS VARCHAR), ':', CAST('count' AS VARCHAR), ':', CAST(element_id AS VARCHAR))
              ),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) AS u,
    (
      CAST((
        (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              1,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 281474976710656 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              2,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 17592186044416 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              3,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1099511627776 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              4,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 68719476736 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              5,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4294967296 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              6,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 268435456 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              7,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16777216 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              8,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 1048576 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              9,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 65536 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              10,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 4096 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              11,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 256 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              12,
              1
            ),
            '0123456789abcdef'
          ) - 1
        ) * 16 + (
          CHARINDEX(
            SUBSTRING(
              MD5(
                CONCAT(
                  CAST(7 AS VARCHAR),
                  ':',
                  CAST('count_angle' AS VARCHAR),
                  ':',
                  CAST(element_id AS VARCHAR)
                )
              ),
              13,
              1
            ),
            '0123456789abcdef'
          ) - 1
        )
      ) * 2 + 1 AS DOUBLE) / CAST(9007199254740992 AS DOUBLE)
    ) AS v
  FROM lambdas
), small AS (
  SELECT
    clock_rank,
    lam,
    u,
    LN(CAST(lam AS DOUBLE)) AS ln_lam,
    lam + 9 * SQRT(lam) + 10 AS k_max
  FROM uniforms
  WHERE
    lam > 0 AND lam <= CAST(100.0 AS DOUBLE)
), terms AS (
  SELECT
    s.clock_rank,
    s.u,
    t.k,
    EXP(GREATEST_IGNORE_NULLS(t.k * s.ln_lam - s.lam - t.ln_fact, CAST(-700 AS DOUBLE))) AS pmf
  FROM small AS s
  JOIN poisson_terms AS t
    ON t.k <= s.k_max
), cdf AS (
  SELECT
    clock_rank,
    u,
    SUM(pmf) OVER (
      PARTITION BY clock_rank
      ORDER BY k
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS f
  FROM terms
), small_counts AS (
  SELECT
    clock_rank,
    SUM(CASE WHEN f < u THEN 1 ELSE 0 END) AS extra
  FROM cdf
  GROUP BY
    clock_rank
), normal AS (
  SELECT
    clock_rank,
    lam,
    SQRT(-2 * ln_u) * COS(CAST(6.283185307179586 AS DOUBLE) * v) AS z
  FROM (
    SELECT
      clock_rank,
      lam,
      v,
      LN(CAST(u AS DOUBLE)) AS ln_u
    FROM uniforms
    WHERE
      lam > CAST(100.0 AS DOUBLE)
  ) AS b
), large AS (
  SELECT
    clock_rank,
    lam + SQRT(lam) * z + (
      CAST(z * z - 1 AS DOUBLE) / NULLIF(CAST(6 AS DOUBLE), CAST(0 AS DOUBLE))
    ) AS x
  FROM normal
), large_counts AS (
  SELECT
    clock_rank,
    CASE
      WHEN x <= 0
      THEN CAST(0 AS DOUBLE)
      WHEN x < CAST(4503599627370496 AS DOUBLE)
      THEN CAST(FLOOR(x + CAST(0.5 AS DOUBLE)) AS DOUBLE)
      ELSE x
    END AS extra
  FROM large
)
SELECT
  u.clock_rank,
  CAST(1 AS DOUBLE) + COALESCE(CAST(s.extra AS DOUBLE), l.extra, CAST(0 AS DOUBLE)) AS draw_count
FROM uniforms AS u
LEFT JOIN small_counts AS s
  ON u.clock_rank = s.clock_rank
LEFT JOIN large_counts AS l
  ON u.clock_rank = l.clock_rank;
