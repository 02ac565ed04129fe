"""`abcde report`: one self-contained HTML file of plots from the JSON documents of
`abcde impact`, `abcde estimate` (a judged sample), `abcde evaluate` and `abcde simulate`.

:mod:`abcde.report.figures` turns each document into a section of plotly figures, taking
every number from the document as it is (drawn by :mod:`abcde.report.plots`);
:mod:`abcde.report.page` renders them with the
plotly.js of the installed plotly wheel inlined once, behind a Content-Security-Policy
that lets the page load nothing from anywhere (docs/method.md §13).
"""
