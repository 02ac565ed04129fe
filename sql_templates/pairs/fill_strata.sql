{# The check row of a stratified sample's fills: filled when every stratum's stream held
   its budget (pairs/fill.sql per stratum); the notes of the strata that did not. #}
SELECT
  {% for h, name, classes, seed in strata %}{{ ' AND ' if not loop.first }}f{{ h }}.budget_filled{% endfor %} AS budget_filled,
  {% for h, name, classes, seed in strata %}{{ ' + ' if not loop.first }}f{{ h }}.judgeable_found{% endfor %} AS judgeable_found,
  {% for h, name, classes, seed in strata %}{{ ' AND ' if not loop.first }}f{{ h }}.budget_possible{% endfor %} AS budget_possible,
  CASE
    WHEN {% for h, name, classes, seed in strata %}{{ ' AND ' if not loop.first }}f{{ h }}.budget_filled{% endfor %} THEN 'filled'
    ELSE {% for h, name, classes, seed in strata %}{{ " || '; ' || " if not loop.first }}'{{ name }}: ' || f{{ h }}.fill_note{% endfor %}
  END AS fill_note
FROM {% for h, name, classes, seed in strata %}{{ ' CROSS JOIN ' if not loop.first }}pair_fill_{{ name }} AS f{{ h }}{% endfor %}
