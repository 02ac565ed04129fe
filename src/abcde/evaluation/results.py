"""What `abcde evaluate` reports: the metric names of its JSON document and the result
classes of one run and of the whole evaluation (docs/method.md §4, §5, §9).

Below the pipeline (`abcde.evaluation.run`), the comparisons (`abcde.evaluation.compare`)
and the text report (`abcde.evaluation.text`), which all read these names; it imports
nothing heavy, so the command line can use it without loading numpy.

References
----------
[PW] S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland,
May 2024. arXiv:2405.10421.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from abcde.results import summary_repr

#: Pointwise metrics per cell ([PW] eq. 11–15; docs/method.md §4.1).
POINTWISE_METRICS = ("precision", "recall", "f1", "accuracy", "jaccard_distance",
                     "jaccard_index")
#: Keys of `overall`: the lifted metrics and the F1 of the overall P and R (docs/method.md §4.2).
OVERALL_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy",
                   "jaccard_distance", "jaccard_index")
#: The classic unweighted metrics (docs/method.md §5.1).
CLASSIC_METRICS = ("pairwise_precision", "pairwise_recall", "pairwise_f1",
                   "adjusted_rand_index", "purity", "inverse_purity", "fmeasure",
                   "homogeneity", "completeness", "v_measure", "nmi")
#: The pair counts behind the pairwise metrics (docs/method.md §5.1).
PAIR_COUNTS = ("true_positive_pairs", "false_positive_pairs", "false_negative_pairs",
               "true_negative_pairs")
#: Yandex cluster_metrics, each in a basic and an optimistic variant (docs/method.md §5.2).
YANDEX_METRICS = ("ecc", "bcp", "bcr", "bcf1")
YANDEX_KINDS = ("basic", "optimistic")


@dataclass
class RunResult:
    """One actual run evaluated against the truth (docs/method.md §4, §5)."""

    name: str
    label: str
    overall: dict[str, Any]
    coverage: dict[str, Any]
    classic: dict[str, Any]
    pair_counts: dict[str, float]
    yandex: dict[str, Any]
    worst_truth_clusters: list[dict[str, Any]]
    worst_actual_clusters: list[dict[str, Any]]
    slices: list[dict[str, Any]]
    files: dict[str, str] = field(default_factory=dict)
    #: The UIR test cases: case -> {metric: value} (not part of the JSON).
    cases: dict[Hashable, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The run's part of the JSON document (everything but `cases`)."""
        return {"name": self.name, "input": self.label, "overall": self.overall,
                "coverage": self.coverage, "classic": self.classic,
                "pair_counts": self.pair_counts, "yandex": self.yandex,
                "worst_truth_clusters": self.worst_truth_clusters,
                "worst_actual_clusters": self.worst_actual_clusters,
                "slices": self.slices, "files": self.files}

    __repr__ = summary_repr


@dataclass
class EvaluateResult:
    """What `abcde evaluate` reports; `to_dict()` is the JSON document."""

    inputs: dict[str, Any]
    runs: list[RunResult]
    comparisons: list[dict[str, Any]]
    uir: dict[str, Any] | None

    def run(self, name: str) -> RunResult:
        """The run called `name` (KeyError if there is none)."""
        for r in self.runs:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: inputs, runs, comparisons and the UIR summary."""
        return {"inputs": self.inputs, "runs": [r.to_dict() for r in self.runs],
                "comparisons": self.comparisons, "uir": self.uir}

    __repr__ = summary_repr
