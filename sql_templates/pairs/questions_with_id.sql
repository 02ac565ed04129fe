{# The questions of a warehouse sample with the sample's id just before the verdict, as
   `abcde sample-pairs` writes them (a judgement file keyed by pair_id must carry it). #}
SELECT
{% for column in columns %}
  q.{{ column|ident }},
{% endfor %}
  m.sample_id,
  q.verdict
FROM pair_questions_raw AS q
CROSS JOIN pair_manifest AS m
