"""Evaluation of actual clusterings against a ground truth (pointwise paper §3; SPEC §4,
§5, §9), computed per cell in the engine.

The truth plays Base and each actual run plays Exp in the same steps as the impact
metrics (`abcde.cells`): T = the items both hold. On the cells of T:

* pointwise metrics (pointwise paper §3, eq. 11–18): precision, recall, f1, accuracy,
  jaccard_distance, jaccard_index per cell, lifted overall, per truth cluster, per
  actual cluster and per slice, with the F1 of the overall P and R beside the lifted f1;
* the classic unweighted metrics (pair counting, adjusted Rand index, purity, inverse
  purity, Fung's F-measure, homogeneity/completeness/V-measure, NMI; SPEC §5);
* Yandex cluster_metrics (ECC, BCP, BCR, BCF1, basic and optimistic; Yandex article
  §3–4), which also count the truth items the actual lacks and the actual's unlabelled
  items in the clusters that meet the truth.

Items outside T are normal here (the truth is small) and are reported as coverage
(pointwise paper §3.2). With several actual runs, every pair is compared: deltas of
every metric (pointwise paper §3.2) and the Unanimous Improvement Ratio over test cases
(truth clusters or slices; Amigó et al. 2011 §4.2), whose estimator-free arithmetic
runs in Python (`abcde.evaluation.uir`) on the per-case tables the engine returns.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from abcde.cells import add_cell_steps, add_item_steps
from abcde.engines import Engine
from abcde.errors import InputError
from abcde.evaluation.uir import (
    ALPHA_SWEEP,
    DEFAULT_REL_TOL,
    UIR_ROBUST_THRESHOLD,
    UirInputError,
    case_differences,
    f_alpha_metrics,
    f_alpha_sweep,
    improved_systems,
    interpret_uir,
    parametric_uir,
    reference_system,
    uir,
    uir_matrix,
)
from abcde.inputs.checks import coverage_report
from abcde.inputs.session import EngineOptions, Inputs, open_inputs
from abcde.inputs.sources import file_format, names_a_file
from abcde.inputs.spec import InputSpec, check_slice_names
from abcde.results import OUT_FORMATS, plain_row
from abcde.sql.helpers import rank_value
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render

#: Pointwise metrics per cell (pointwise paper eq. 11–15; SPEC §4).
POINTWISE_METRICS = ("precision", "recall", "f1", "accuracy", "jaccard_distance",
                     "jaccard_index")
#: Keys of `overall`: the lifted metrics and the F1 of the overall P and R.
OVERALL_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy",
                   "jaccard_distance", "jaccard_index")
CLASSIC_METRICS = ("pairwise_precision", "pairwise_recall", "pairwise_f1",
                   "adjusted_rand_index", "purity", "inverse_purity", "fmeasure",
                   "homogeneity", "completeness", "v_measure", "nmi")
PAIR_COUNTS = ("true_positive_pairs", "false_positive_pairs", "false_negative_pairs",
               "true_negative_pairs")
YANDEX_METRICS = ("ecc", "bcp", "bcr", "bcf1")
YANDEX_KINDS = ("basic", "optimistic")
#: Per-case metrics UIR may combine: higher is better for each (UIR §4.1).
UIR_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy", "jaccard_index")
DEFAULT_UIR_METRICS = ("precision", "recall")


@dataclass
class RunResult:
    """One actual run evaluated against the truth."""

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
        return {"name": self.name, "input": self.label, "overall": self.overall,
                "coverage": self.coverage, "classic": self.classic,
                "pair_counts": self.pair_counts, "yandex": self.yandex,
                "worst_truth_clusters": self.worst_truth_clusters,
                "worst_actual_clusters": self.worst_actual_clusters,
                "slices": self.slices, "files": self.files}


@dataclass
class EvaluateResult:
    """What `abcde evaluate` reports; `to_dict()` is the JSON document."""

    inputs: dict[str, Any]
    runs: list[RunResult]
    comparisons: list[dict[str, Any]]
    uir: dict[str, Any] | None

    def run(self, name: str) -> RunResult:
        for r in self.runs:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "runs": [r.to_dict() for r in self.runs],
                "comparisons": self.comparisons, "uir": self.uir}


# ------------------------------------------------------------------ options


@dataclass(frozen=True)
class CaseSpec:
    """The UIR test cases: every truth cluster, or every value of a slice column."""

    kind: str  # "truth_cluster" or "slice"
    column: str | None = None

    @property
    def label(self) -> str:
        return self.kind if self.column is None else f"slice:{self.column}"


def parse_uir_cases(spec: str | None) -> CaseSpec | None:
    """'truth_cluster' | 'slice:<col>' | None/'none' (no UIR)."""
    if spec is None or spec == "none":
        return None
    if spec == "truth_cluster":
        return CaseSpec("truth_cluster")
    if spec.startswith("slice:") and spec[len("slice:"):].strip():
        return CaseSpec("slice", spec[len("slice:"):].strip())
    raise InputError(f"unknown UIR test cases {spec!r}",
                     hint="Use --uir-cases truth_cluster or --uir-cases slice:<column>.")


def parse_uir_metrics(metrics: str | Sequence[str] | None) -> tuple[str, ...]:
    """'precision,recall' or a sequence -> validated metric names (higher is better)."""
    if metrics is None:
        return DEFAULT_UIR_METRICS
    items = metrics.split(",") if isinstance(metrics, str) else list(metrics)
    out = tuple(dict.fromkeys(m.strip() for m in items if m.strip()))
    bad = [m for m in out if m not in UIR_METRICS]
    if not out or bad:
        hint = "Choose from " + ", ".join(UIR_METRICS) + "."
        if "jaccard_distance" in bad:
            hint += " (UIR needs higher-is-better metrics: use jaccard_index.)"
        raise InputError(f"unknown UIR metric(s): {', '.join(bad) or '(none)'}", hint=hint)
    return out


def default_run_name(source: object, k: int, *, database: bool = False) -> str:
    """A file's name without its suffix; a table's own name (`main.run_v1` → `run_v1`,
    without the schema); `run_<k + 1>` for anything else. Files and tables are told apart
    as `abcde.inputs.sources.open_source` does (`names_a_file`)."""
    if isinstance(source, Path):
        return source.stem
    if isinstance(source, str):
        path = Path(source)
        if names_a_file(path, database=database):
            stem = Path(path.stem)  # x.csv.gz → x.csv → x
            return stem.stem if file_format(stem) else stem.name
        return source.rsplit(".", 1)[-1].strip('"`[]')
    return f"run_{k + 1}"


def check_run_name(name: str) -> None:
    """Refuse a name that cannot serve as the directory `--out DIR/<name>/` (and as a
    plain label): empty, `.`/`..`, path separators, control characters."""
    bad = None
    if not name.strip():
        bad = "it is empty"
    elif name in (".", ".."):
        bad = "it is '.' or '..'"
    elif "/" in name or "\\" in name:
        bad = "it contains a path separator"
    elif any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name):
        bad = "it contains a control character"
    if bad:
        raise InputError(f"run name {name!r} cannot be used: {bad} (run names become "
                         "directory names under --out and labels in the report)",
                         hint="Name the run with NAME=PATH, e.g. --actual v2=run.parquet.")


def run_names(actual: Sequence[object], names: Sequence[str | None] | None, *,
              database: bool = False) -> list[str]:
    """Names of the runs: given, else `default_run_name` (default names repeated among
    all runs get a suffix _k, k = the run's position). A None in `names` asks for the
    default of that run."""
    if names is None:
        names = [None] * len(actual)
    if len(names) != len(actual):
        raise InputError(f"{len(names)} name(s) for {len(actual)} actual run(s)",
                         hint="Give one name per --actual.")
    defaults = [default_run_name(a, k, database=database) for k, a in enumerate(actual)]
    defaults = [f"{n}_{k + 1}" if defaults.count(n) > 1 else n
                for k, n in enumerate(defaults)]
    out = [str(n) if n is not None else d for n, d in zip(names, defaults, strict=True)]
    for n in out:
        check_run_name(n)
    dup = sorted({n for n in out if out.count(n) > 1})
    if dup:
        raise InputError(f"run names must be unique; repeated: {', '.join(dup)}")
    return out


def _as_runs(actual: object) -> list[object]:
    if isinstance(actual, list | tuple):
        return list(actual)
    return [actual]


# ------------------------------------------------------------------ pipeline


def add_evaluation_steps(pipeline: Pipeline, inputs: Inputs,
                         slicings: Sequence[Sequence[str]]) -> list[str]:
    """Every evaluation step after `cell_rows` (validated) and the cell steps.

    Returns the names of the per-slicing result steps. Materialised: the cells, the
    truth/actual cluster tables and the Yandex per-theme table (each read again).
    """
    slice_cells = add_cell_steps(pipeline, inputs, slicings)
    pipeline.add("pointwise_cells", render("evaluate/pointwise_cells.sql"))
    pipeline.add("overall", render("evaluate/pointwise_overall.sql",
                                   metrics=POINTWISE_METRICS))
    for side, name, loss in (("b", "truth_clusters", "recall"),
                             ("e", "actual_clusters", "precision")):
        pipeline.add(name, render("evaluate/pointwise_clusters.sql", side=side,
                                  metrics=POINTWISE_METRICS, loss_metric=loss),
                     materialise=True)
    slice_steps = []
    for k, (slicing, step) in enumerate(zip(slicings, slice_cells, strict=True)):
        attrs = [inputs.attribute(c) for c in slicing]
        slice_steps.append(pipeline.add(f"slices_{k}", render(
            "evaluate/pointwise_slices.sql", slice_columns=attrs, slice_cells=step,
            metrics=POINTWISE_METRICS), materialise=True))
    pipeline.add("classic", render("evaluate/classic.sql"))
    pipeline.add("yandex_themes", render("evaluate/yandex_themes.sql"), materialise=True)
    pipeline.add("yandex", render("evaluate/yandex.sql"))
    return slice_steps


def evaluation_pipeline(inputs: Inputs, slicings: Sequence[Sequence[str]] = (),
                        prefix: str = "abcde_eval_") -> Pipeline:
    """The whole evaluation as a pipeline (e.g. to emit its SQL for another engine)."""
    pipeline = Pipeline(prefix=prefix)
    add_item_steps(pipeline, inputs)
    add_evaluation_steps(pipeline, inputs, slicings)
    return pipeline


# ------------------------------------------------------------------ API


def evaluate(truth: object, actual: object, weights: object | None = None, *,
             names: Sequence[str | None] | None = None, attributes: object | None = None,
             slice_by: str | Sequence[str] | Sequence[Sequence[str]] | None = None,
             uir_cases: str | None = "truth_cluster",
             uir_metrics: str | Sequence[str] | None = None,
             alphas: Sequence[float] = ALPHA_SWEEP, uir_rel_tol: float = DEFAULT_REL_TOL,
             item_col: str = "item_id", cluster_col: str = "cluster_id",
             weight_col: str = "weight", missing_weight: float | None = None, top: int = 10,
             out: str | Path | None = None, out_format: str = "parquet",
             engine: Engine | None = None, db: str | Path | None = None,
             memory_limit: str | None = None, threads: int | None = None) -> EvaluateResult:
    """How well each actual clustering matches the truth, and how the runs compare.

    `actual` is one clustering or a list of them (CSV/Parquet paths, tables of `db`,
    DataFrames or {item: cluster} mappings); `names` names the runs (default: file
    stems, table names). `uir_cases` is "truth_cluster", "slice:<column>" (an attribute
    column) or None; `uir_metrics` the per-case metrics UIR combines (default precision,
    recall); per-case scores equal to `uir_rel_tol` (relative) tie. With `out`, every
    truth/actual cluster, slice and Yandex theme of each run is written under
    out/<run name>/.
    """
    runs = _as_runs(actual)
    if not runs:
        raise InputError("no actual clustering given", hint="Give --actual at least once.")
    labels = run_names(runs, names, database=db is not None
                       or (engine is not None and engine.user_db is not None))
    spec = InputSpec.of(truth, None, weights, attributes=attributes, slice_by=slice_by,
                        item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
                        missing_weight=missing_weight, roles=("truth", "actual"))
    slicings = [list(s) for s in spec.slicings]
    cases = parse_uir_cases(uir_cases)
    metrics = parse_uir_metrics(uir_metrics)
    if cases is not None and cases.kind == "slice" and [cases.column] not in slicings:
        slicings.append([cases.column])  # type: ignore[list-item]
        spec = replace(spec, slicings=tuple(tuple(sl) for sl in slicings))
    check_slice_names(slicings, {"items", "weight", "cells", "loss", *OVERALL_METRICS})
    if top < 0:
        raise ValueError("top must be >= 0")
    if not (math.isfinite(uir_rel_tol) and 0 <= uir_rel_tol < 1):
        raise InputError(f"the UIR relative tolerance must lie in [0, 1), got {uir_rel_tol!r}")
    if out_format not in OUT_FORMATS:
        raise ValueError(f"out_format must be one of {OUT_FORMATS}")
    with EngineOptions(engine, db, memory_limit, threads).open() as eng:
        results = []
        input_doc: dict[str, Any] = {}
        for k, (name, source) in enumerate(zip(labels, runs, strict=True)):
            inputs = open_inputs(eng, replace(spec, exp=source))
            input_doc = {"truth": inputs.base.label, "weights": inputs.weights_description,
                         "attributes": inputs.attributes.label if inputs.attributes else None}
            results.append(_run_one(eng, inputs, name, k, slicings, top, cases,
                                    Path(out) / name if out else None, out_format))
    input_doc["actual"] = {r.name: r.label for r in results}
    shared = _shared_cases(results)
    uir_doc = _uir_summary(results, cases, metrics, alphas, shared, uir_rel_tol) if cases \
        else None
    comparisons = [_compare(a, b, metrics if cases else None, shared, uir_rel_tol)
                   for a, b in combinations(results, 2)]
    return EvaluateResult(inputs=input_doc, runs=results, comparisons=comparisons,
                          uir=uir_doc)


def _run_one(engine: Engine, inputs: Inputs, name: str, k: int,
             slicings: list[list[str]], top: int, cases: CaseSpec | None,
             out: Path | None, out_format: str) -> RunResult:
    pipeline = Pipeline(prefix=f"abcde_eval{k}_")
    add_item_steps(pipeline, inputs)
    pipeline.run(engine, "cell_rows")
    checked = validate_inputs(engine, pipeline, inputs)
    slice_steps = add_evaluation_steps(pipeline, inputs, slicings)
    pipeline.run(engine, "cells", "cell_metrics", "truth_clusters", "actual_clusters",
                 "yandex_themes", *slice_steps)

    overall = plain_row(pipeline.fetch(engine, "overall")[0])
    coverage = coverage_report(engine, pipeline, inputs, overall, checked)
    classic_row = plain_row(pipeline.fetch(engine, "classic")[0])
    yandex_row = plain_row(pipeline.fetch(engine, "yandex")[0])

    worst = {}
    for side in ("truth_clusters", "actual_clusters"):
        step = f"worst_{side}"
        pipeline.add(step, render("evaluate/worst_clusters.sql",
                                  relation=side, metrics=POINTWISE_METRICS, k=top))
        worst[side] = [_finite(plain_row(r)) for r in pipeline.fetch(engine, step)]
    pipeline.add("yandex_worst_themes", render("evaluate/yandex_worst_themes.sql", k=top))
    worst_themes = [_finite(plain_row(r)) for r in pipeline.fetch(engine, "yandex_worst_themes")]
    for r in worst_themes:  # counts summed in DOUBLE (SPEC §5)
        for c in ("items", "clustered_items", "actual_clusters"):
            r[c] = int(r[c])

    slices = []
    for slicing, step in zip(slicings, slice_steps, strict=True):
        rows = [_finite(plain_row(r)) for r in pipeline.fetch(engine, step)]
        rows.sort(key=lambda r: (-rank_value(r["weight"]), *(str(r[c]) for c in slicing)))
        slices.append({"slice_by": slicing, "rows": rows})

    case_rows: dict[Hashable, dict[str, float]] = {}
    if cases is not None:
        if cases.kind == "truth_cluster":
            rows = pipeline.fetch(engine, "truth_clusters")
            case_rows = {r["cluster_id"]: _case_metrics(r) for r in rows}
        else:
            found = next(s for s in slices if s["slice_by"] == [cases.column])
            case_rows = {r[cases.column]: _case_metrics(r) for r in found["rows"]}

    result = RunResult(
        name=name, label=inputs.exp.label,
        overall={"items": int(overall["items"]), "weight": float(overall["weight"]),
                 **{m: overall[m] for m in OVERALL_METRICS}},
        coverage=coverage,
        classic={m: classic_row[m] for m in CLASSIC_METRICS},
        pair_counts={m: float(classic_row[m]) for m in PAIR_COUNTS},
        yandex={kind: {m: yandex_row[f"{m}_{kind}"] for m in YANDEX_METRICS}
                for kind in YANDEX_KINDS}
        | {"themes": int(yandex_row["themes"]),
           "themes_with_recall": int(yandex_row["themes_with_recall"] or 0),
           "worst_themes": worst_themes},
        worst_truth_clusters=worst["truth_clusters"],
        worst_actual_clusters=worst["actual_clusters"],
        slices=slices, cases=case_rows)
    if out is not None:
        result.files = _write(engine, pipeline, out, out_format, slicings, slice_steps)
    return result


def validate_inputs(engine: Engine, pipeline: Pipeline, inputs: Inputs) -> dict[str, Any]:
    """`abcde.inputs.checks.validate` (the same checks as the impact metrics)."""
    from abcde.inputs.checks import validate

    return validate(engine, pipeline, inputs)


def _case_metrics(row: Mapping[str, Any]) -> dict[str, float]:
    return {m: float(row[m]) for m in UIR_METRICS if row.get(m) is not None}


def _finite(row: dict[str, Any]) -> dict[str, Any]:
    """None for a NaN (never in JSON); metrics of non-empty sets are always finite."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in row.items()}


def _write(engine: Engine, pipeline: Pipeline, out: Path, fmt: str,
           slicings: list[list[str]], slice_steps: list[str]) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    suffix = "parquet" if fmt == "parquet" else "csv"
    files = {}
    named = [(n, n) for n in ("truth_clusters", "actual_clusters", "yandex_themes")]
    named += [(f"slices_{'_'.join(s)}", step) for s, step in zip(slicings, slice_steps,
                                                                   strict=True)]
    for name, step in named:
        path = out / f"{name}.{suffix}"
        engine.write(pipeline.physical_name(step), path, fmt)
        files[name] = str(path)
    return files


# ------------------------------------------------------------------ comparisons


def _delta(a: Any, b: Any) -> float | None:
    if a is None or b is None:
        return None
    return float(b) - float(a)


def _shared_cases(runs: list[RunResult]) -> list[Hashable]:
    """The UIR test cases every run has (in the first run's order): one set of cases for
    the matrix and every pairwise comparison, so each pair has a single UIR."""
    return [c for c in runs[0].cases if all(c in r.cases for r in runs[1:])]


def _compare(a: RunResult, b: RunResult, metrics: Sequence[str] | None,
             shared: list[Hashable], rel_tol: float) -> dict[str, Any]:
    """Deltas experiment − baseline of every metric (pointwise paper §3.2) and
    UIR(experiment, baseline) over the test cases every run has (Amigó et al. §4.2;
    the same cases as the UIR matrix) with the parametric UIR (§8)."""
    doc: dict[str, Any] = {
        "baseline": a.name, "experiment": b.name,
        "deltas": {
            "overall": {m: _delta(a.overall[m], b.overall[m]) for m in OVERALL_METRICS},
            "classic": {m: _delta(a.classic[m], b.classic[m]) for m in CLASSIC_METRICS},
            "yandex": {kind: {m: _delta(a.yandex[kind][m], b.yandex[kind][m])
                              for m in YANDEX_METRICS} for kind in YANDEX_KINDS},
        },
        "items_in_both": {a.name: a.overall["items"], b.name: b.overall["items"]},
        "uir": None,
    }
    if metrics is None:
        return doc
    if not shared:
        doc["uir"] = {"error": "no test case is shared by every run"}
        return doc
    sb = {c: b.cases[c] for c in shared}
    sa = {c: a.cases[c] for c in shared}
    res = uir(sb, sa, metrics, rel_tol=rel_tol)
    every = set(a.cases) | set(b.cases)
    entry: dict[str, Any] = {
        "value": res.uir, "experiment_ge_baseline": res.a_ge_b,
        "baseline_ge_experiment": res.b_ge_a, "ties": res.ties, "biased": res.biased,
        "n_cases": res.n_cases,
        "cases_excluded": len(every) - len(shared),
        "reading": interpret_uir(res, names=(b.name, a.name))}
    try:
        p = parametric_uir(case_differences(sb, sa, metrics, rel_tol=rel_tol))
        entry["parametric"] = {"value": p.uir, "p_experiment_ge_baseline": p.p_a_ge_b,
                               "p_baseline_ge_experiment": p.p_b_ge_a, "method": p.method}
    except UirInputError as err:
        entry["parametric"] = {"value": None, "error": str(err)}
    doc["uir"] = entry
    return doc


def _uir_summary(runs: list[RunResult], cases: CaseSpec, metrics: Sequence[str],
                 alphas: Sequence[float], shared: list[Hashable],
                 rel_tol: float) -> dict[str, Any]:
    """The UIR matrix over the cases every run has, each run's reference system
    (§6.4), the systems each improves by UIR ≥ 0.25 (§6.3), and mean F_α per run over
    the two UIR metrics (§2.1; none with another number of metrics)."""
    every = set().union(*(set(r.cases) for r in runs))
    pr = f_alpha_metrics(metrics)
    doc: dict[str, Any] = {"cases": cases.label, "metrics": list(metrics),
                           "threshold": UIR_ROBUST_THRESHOLD, "rel_tol": rel_tol,
                           "n_cases": len(shared),
                           "cases_excluded": len(every) - len(shared),
                           "matrix": None, "reference_systems": None, "improves": None,
                           "f_alpha_metrics": list(pr) if pr else None, "f_alpha": None,
                           "f_alpha_note": None}
    if pr is None:
        doc["f_alpha_note"] = (f"no F_alpha sweep: F_alpha combines two metrics, "
                               f"{len(metrics)} selected")
    if not shared:
        return doc
    table = {r.name: {c: r.cases[c] for c in shared} for r in runs}
    if pr is not None:
        sweep = f_alpha_sweep(table, *pr, alphas=alphas)
        doc["f_alpha"] = {s: {f"{a:g}": v for a, v in per.items()}
                          for s, per in sweep.items()}
    if len(runs) >= 2:
        matrix = uir_matrix(table, metrics, rel_tol=rel_tol)
        doc["matrix"] = matrix
        doc["reference_systems"] = {
            s: {"reference": ref.reference, "uir": ref.uir, "tied": list(ref.tied),
                "robust": ref.uir >= UIR_ROBUST_THRESHOLD}
            for s, ref in reference_system(matrix).items()}
        doc["improves"] = improved_systems(matrix)
    return doc
