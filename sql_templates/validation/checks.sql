{# The conditions of the input checks, one per name, over the `items` step.
   abcde.validation chooses which apply and words the messages. #}
{% macro condition(name) -%}
{%- if name == 'empty_base' -%} n_base > 0
{%- elif name == 'empty_exp' -%} n_exp > 0
{%- elif name == 'null_item_base' -%} item_id IS NULL AND n_base > 0
{%- elif name == 'null_item_exp' -%} item_id IS NULL AND n_exp > 0
{%- elif name == 'null_item_weights' -%} item_id IS NULL AND n_weights > 0
{%- elif name == 'null_item_attributes' -%} item_id IS NULL AND n_attributes > 0
{%- elif name == 'duplicate_base' -%} item_id IS NOT NULL AND n_base > 1
{%- elif name == 'duplicate_exp' -%} item_id IS NOT NULL AND n_exp > 1
{%- elif name == 'duplicate_weights' -%} item_id IS NOT NULL AND n_weights > 1
{%- elif name == 'duplicate_attributes' -%} item_id IS NOT NULL AND n_attributes > 1
{%- elif name == 'null_cluster_base' -%} item_id IS NOT NULL AND n_base = 1 AND base_cluster IS NULL
{%- elif name == 'null_cluster_exp' -%} item_id IS NOT NULL AND n_exp = 1 AND exp_cluster IS NULL
{%- elif name == 'bad_weight_weights' -%} n_weights = 1 AND NOT ({{ is_finite('table_weight') }} AND table_weight > 0)
{%- elif name == 'bad_weight_base' -%} n_base = 1 AND NOT ({{ is_finite('base_weight') }} AND base_weight > 0)
{%- elif name == 'bad_weight_exp' -%} n_exp = 1 AND NOT ({{ is_finite('exp_weight') }} AND exp_weight > 0)
{%- elif name == 'weight_mismatch' -%} n_base = 1 AND n_exp = 1 AND base_weight <> exp_weight
{%- elif name == 'missing_weight' -%} item_id IS NOT NULL AND n_base > 0 AND n_exp > 0 AND n_weights = 0
{%- elif name == 'common' -%} item_id IS NOT NULL AND n_base > 0 AND n_exp > 0
{%- else -%}{{ raise_unknown_check(name) }}
{%- endif -%}
{%- endmacro %}
