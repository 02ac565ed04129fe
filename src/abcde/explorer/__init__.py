"""`abcde explore SAMPLE --serve`: slicing and dicing an item sample in the browser
(ABCDE §4.1.1), on the local server of :mod:`abcde.server` with its token rules. The
estimates are those of :func:`abcde.explorer.groups.explore` (docs/method.md §13.2).
"""
