"""``abcde judge``: judge a pair sample in the browser (docs/method.md §12).

- :mod:`abcde.judge.questions` — the sample's questions as the page shows them;
- :mod:`abcde.judge.assignment` — each judge's order, the overlap, who still needs what;
- :mod:`abcde.judge.session` — one judge's round: the verdict log replayed, verdicts, undo;
- :mod:`abcde.judge.cells` — how a value is shown (text, image, link; only http(s));
- :mod:`abcde.judge.estimates` — the optional ``--show-estimates`` panel;
- :mod:`abcde.judge.app` — routes and pages, on the local server of :mod:`abcde.server`.
"""
