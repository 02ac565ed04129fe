"""What `abcde evaluate` reports: the metric names of its JSON and the result classes of
one run and of the whole evaluation (docs/method.md §4, §5, §9). Imports nothing heavy:
the text report and the command line read it without numpy."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from abcde.results import summary_repr

#: Pointwise metrics per cell (pointwise paper eq. 11–15; docs/method.md §4.1).
POINTWISE_METRICS = ("precision", "recall", "f1", "accuracy", "jaccard_distance",
                     "jaccard_index")
#: Keys of `overall`: the lifted metrics and the F1 of the overall P and R (§4.2).
OVERALL_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy",
                   "jaccard_distance", "jaccard_index")
#: The classic unweighted metrics (§5.1) and the pair counts behind the pairwise ones.
CLASSIC_METRICS = ("pairwise_precision", "pairwise_recall", "pairwise_f1",
                   "adjusted_rand_index", "purity", "inverse_purity", "fmeasure",
                   "homogeneity", "completeness", "v_measure", "nmi")
PAIR_COUNTS = ("true_positive_pairs", "false_positive_pairs", "false_negative_pairs",
               "true_negative_pairs")
#: Yandex cluster_metrics, each basic and optimistic (§5.2).
YANDEX_METRICS = ("ecc", "bcp", "bcr", "bcf1")
YANDEX_KINDS = ("basic", "optimistic")
#: The designs of a truth of complete clusters named by a word; any other value of
#: `truth_sample` names a column of the truth (docs/method.md §4.4).
DESIGNS = ("size", "uniform")
#: A population estimate (a truth of complete clusters, docs/method.md §4.4) is not
#: conclusive below this effective number of sampled clusters, or of clusters carrying
#: its loss (or a difference): an interval resting on a handful of them can cover far
#: less than it says.
MIN_CLUSTERS, MIN_LOSS_CLUSTERS = 30.0, 10.0


@dataclass
class RunResult:
    """One actual run against the truth; `cases` (the UIR test cases, case -> {metric:
    value}) is not part of the JSON."""

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
    cases: dict[Hashable, dict[str, float]] = field(default_factory=dict)
    #: With a truth of complete clusters: the estimates (JSON), and the per-cluster sums
    #: they come from (`abcde.evaluation.population.Sample`, not JSON), which pair runs.
    population: dict[str, Any] | None = None
    sample: Any = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "input": self.label, "overall": self.overall,
                **({"population": self.population} if self.population else {}),
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
    warnings: list[str] = field(default_factory=list)

    def run(self, name: str) -> RunResult:
        """The run called `name` (KeyError if there is none)."""
        return {r.name: r for r in self.runs}[name]

    def to_dict(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "runs": [r.to_dict() for r in self.runs],
                "comparisons": self.comparisons, "uir": self.uir, "warnings": self.warnings}

    __repr__ = summary_repr
