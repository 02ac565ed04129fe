"""Quality from judged pairs (docs/method.md §8; ABCDE §5, App. B; Jaccard decomposition
§6–8), one concept per module: ``judgements`` (verdicts from files, truths, judges),
``sample`` (the judged sample as arrays), ``intervals`` (SEs, effective sizes,
intervals), ``result`` (an ``Estimate``), ``metrics`` (the metric table and its
estimator), ``slices``, ``wording`` (what ``abcde estimate`` says), ``estimate`` (the top
level), ``simulation`` (``abcde simulate``), ``exact`` (exact values against a truth),
``agreement`` and ``judging`` (the judges of ``abcde judge``).
"""
