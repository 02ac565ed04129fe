"""Quality from judged pairs (docs/method.md §8; ABCDE §5, App. B; Jaccard decomposition
§6–8), one concept per module:

- ``judgements``: judgement files, the one verdict normaliser, judges (truth, callables);
- ``sample``: the judged sample — draws joined with verdicts, class tallies, the
  reweighting of unknown verdicts;
- ``intervals``: standard errors, effective sample sizes, ``interval`` (Wilson, …), MOVER;
- ``result``: an ``Estimate`` with its SE and interval, and the ways one is made;
- ``metrics``: the table of the 13 metrics and the estimator they share;
- ``slices``: per-slice ΔPrecision (ABCDE App. B);
- ``wording``: warnings, the verdict sentence, the text table of ``abcde estimate``;
- ``estimate``: the top level, ``estimate`` (``abcde.estimate``) and
  ``estimate_from_draws``;
- ``simulation``: sizing the judgement budget by simulated rounds (``abcde simulate``).
"""
