"""Evaluation against a ground truth (pointwise, classic and Yandex metrics; `run`) and the
Unanimous Improvement Ratio between systems (`uir`, `uir_parametric`, over the score
tables of `scores`; `compare` for runs side by side); docs/method.md §4, §5, §9.

Here only what the command line needs before any of them is loaded: the tolerances of
equal scores (docs/method.md §9.2).
"""

from abcde.params import Real

#: Far above float noise (~1e-16 relative), far below any real difference of metrics.
DEFAULT_REL_TOL = 1e-9
#: The tolerances of equal scores: relative in [0, 1), absolute >= 0 (0: exact).
REL_TOL, TOL = Real(0.0, 1.0, open="hi"), Real(0.0)
