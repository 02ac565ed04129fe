{# The one pass over the population: the two clusterings FULL JOINed on item id, with
   weights and attributes LEFT JOINed on. One row per (base row, exp row) match, so an id
   repeated in an input multiplies its rows (abcde.validation compares row counts).
   `common` marks T, the items in both clusterings (ABCDE §3). With `cells`, only the
   items of T in those cells (a relation with columns b, e). With `common_only`, an
   inner join: the same rows when every id of each clustering is in the other and none
   is NULL (abcde.cells.same_ids), and cheaper to aggregate (cells/cell_rows.sql). #}
SELECT
  COALESCE(b.item_id, e.item_id) AS item_id,
  COALESCE(b.in_input, 0) AS in_base,
  COALESCE(e.in_input, 0) AS in_exp,
  (b.item_id IS NOT NULL AND e.item_id IS NOT NULL) AS common,
  {# which inputs hold the row: 1 Base only, 2 Exp only, 3 both (T) #}
  COALESCE(b.in_input, 0) + 2 * COALESCE(e.in_input, 0) AS side,
  b.cluster_id AS base_cluster,
  e.cluster_id AS exp_cluster,
  {% if base_weight %}b.weight{% else %}CAST(NULL AS DOUBLE){% endif %} AS base_weight,
  {% if exp_weight %}e.weight{% else %}CAST(NULL AS DOUBLE){% endif %} AS exp_weight,
{% if weights_table %}
  COALESCE(w.in_input, 0) AS in_weights,
  w.weight AS table_weight,
{% else %}
  0 AS in_weights,
  CAST(NULL AS DOUBLE) AS table_weight,
{% endif %}
  {# the sources by expression, not by the aliases above: a lateral alias is not
     portable (PostgreSQL and BigQuery refuse it) #}
  {% set source_expr = {'table_weight': 'w.weight', 'base_weight': 'b.weight', 'exp_weight': 'e.weight'} %}
  {% if weight_sources %}COALESCE({% for s in weight_sources %}{{ source_expr[s] }}, {% endfor %}{{ default_weight }}){% else %}{{ default_weight }}{% endif %} AS w,
{% if attributes_table %}
  COALESCE(a.in_input, 0) AS in_attributes
{% for col in attributes %}
  , a.{{ col.alias }}
{% endfor %}
{% else %}
  0 AS in_attributes
{% endif %}
{% if cells %}
{# only the items of T in the given cells (b, e): each side restricted to its clusters
   first, so that the join sees only their rows #}
FROM (SELECT * FROM base_in WHERE cluster_id IN (SELECT b FROM {{ cells }})) AS b
JOIN (SELECT * FROM exp_in WHERE cluster_id IN (SELECT e FROM {{ cells }})) AS e
  ON b.item_id = e.item_id
{% elif common_only %}
FROM base_in AS b
JOIN exp_in AS e ON b.item_id = e.item_id
{% else %}
FROM base_in AS b
FULL OUTER JOIN exp_in AS e ON b.item_id = e.item_id
{% endif %}
{% if weights_table %}
LEFT JOIN weights_in AS w ON w.item_id = COALESCE(b.item_id, e.item_id)
{% endif %}
{% if attributes_table %}
LEFT JOIN attributes_in AS a ON a.item_id = COALESCE(b.item_id, e.item_id)
{% endif %}
