{# The cells some draw needs: its vantage cell and its partner cell (docs/method.md §6). #}
SELECT b, e FROM pair_draw_cells
UNION
SELECT partner_b AS b, partner_e AS e FROM pair_draw_cells
