{# Row-level input checks over `items` (one row per joined input row), one condition per
   name; cells/cell_rows.sql counts each and keeps example ids, abcde.validation words
   the messages. #}
{% macro condition(name) -%}
{%- if name == 'null_cluster_base' -%} common AND base_cluster IS NULL
{%- elif name == 'null_cluster_exp' -%} common AND exp_cluster IS NULL
{%- elif name == 'bad_weight_weights' -%} in_weights = 1 AND NOT {{ valid_weight('table_weight') }}
{%- elif name == 'bad_weight_base' -%} in_base = 1 AND NOT {{ valid_weight('base_weight') }}
{%- elif name == 'bad_weight_exp' -%} in_exp = 1 AND NOT {{ valid_weight('exp_weight') }}
{%- elif name == 'weight_mismatch' -%} common AND base_weight <> exp_weight
{%- elif name == 'missing_weight' -%} common AND in_weights = 0
{%- elif name == 'without_attributes' -%} common AND in_attributes = 0
{%- else -%}{{ raise_unknown_check(name) }}
{%- endif -%}
{%- endmacro %}
