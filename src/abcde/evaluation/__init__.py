"""Evaluation against a ground truth (pointwise metrics, classic and Yandex metrics)
and the Unanimous Improvement Ratio between systems (docs/method.md §4, §5, §9).

Modules, lower ones first (each imports only those above it in this list):

* `scores`: per-case score tables — the long table read from CSV or JSONL, pivoted and
  validated;
* `uir`: UIR of two systems, the UIR matrix, reference systems, the F_α sweep, the
  reading by the 0.25 rule of thumb, and `uir_summary`, the one function that builds
  the matrix for `abcde evaluate` and `abcde uir`;
* `uir_parametric`: the parametric UIR and its bivariate-normal / Monte Carlo
  integration;
* `results`: the metric names and result classes of `abcde evaluate`'s JSON;
* `compare`: run-vs-run deltas and UIR, the UIR summary of `abcde evaluate`, and the
  report of `abcde uir`;
* `run`: the evaluation pipeline per run and `evaluate`, the public API;
* `text`: the text reports of both commands.
"""
