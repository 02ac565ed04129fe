"""Evaluation against a ground truth (pointwise metrics, classic and Yandex metrics)
and the Unanimous Improvement Ratio between systems."""
