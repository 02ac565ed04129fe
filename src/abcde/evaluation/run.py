"""Actual clusterings against a ground truth, one run at a time, computed per cell in the
engine ([PW] §3; docs/method.md §4, §5), and the comparison of the runs (deltas, UIR).

The truth plays Base and each run Exp in the steps of the impact metrics (`abcde.cells`):
T = the items both hold. On the cells of T, the pointwise metrics ([PW] eq. 11–18) overall,
per truth cluster, per actual cluster and per slice; the classic unweighted metrics (pair
counting, ARI [HA], purity, Fung's F-measure, V-measure and NMI [RH]); and Yandex's ECC
and BCubed ([YA]), which also count the truth items a run lacks and the run's unlabelled
items in the clusters that meet the truth. Items outside T are reported as coverage
([PW] §3.2). UIR over test cases ([UIR] §4.2) runs in Python on the per-case tables.

[PW] S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland, 2024.
arXiv:2405.10421. [YA] Yandex. Оценка качества кластеризации: свойства, метрики, код на
GitHub. Habr, post 500742, 2020 (github.com/yandex/cluster_metrics). [UIR] E. Amigó,
J. Gonzalo, J. Artiles, F. Verdejo. JAIR 42 (2011) 689–718. [HA] L. Hubert, P. Arabie.
Comparing partitions. J. Classification 2(1) (1985) 193–218. [RH] A. Rosenberg,
J. Hirschberg. V-measure. Proc. EMNLP-CoNLL 2007, 410–420.
"""

from __future__ import annotations

import contextlib
import math
import unicodedata
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from abcde.cells import add_cell_steps, add_item_steps, build_cell_rows, run_cell_steps
from abcde.engines import Engine
from abcde.engines.config import opened
from abcde.errors import InputError
from abcde.evaluation import DEFAULT_REL_TOL, REL_TOL
from abcde.evaluation.compare import compare_runs, evaluate_uir_summary, shared_cases
from abcde.evaluation.results import (
    CLASSIC_METRICS,
    DESIGNS,
    OVERALL_METRICS,
    PAIR_COUNTS,
    POINTWISE_METRICS,
    YANDEX_KINDS,
    YANDEX_METRICS,
    EvaluateResult,
    RunResult,
)
from abcde.evaluation.uir import ALPHA_SWEEP, f_alpha_metrics
from abcde.inputs.checks import coverage_report
from abcde.inputs.session import Inputs, Session, open_inputs
from abcde.inputs.sources import file_format, names_a_file
from abcde.inputs.spec import check_slice_names
from abcde.inputs.workspace import Workspace
from abcde.outputs import OutputDir, input_files, output_dir, slice_file_stems
from abcde.params import TOP, OneOf, Real, checked
from abcde.results import OUT_FORMATS, plain_row
from abcde.sql.helpers import rank_value
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render

__all__ = ["CLASSIC_METRICS", "OVERALL_METRICS", "POINTWISE_METRICS", "UIR_METRICS",
           "YANDEX_METRICS", "EvaluateResult", "RunResult", "UirOptions",
           "add_evaluation_steps", "evaluate", "evaluation_pipeline", "run_names"]

#: Per-case metrics UIR may combine: higher is better for each ([UIR] §4.1).
UIR_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy", "jaccard_index")
#: The keywords of `evaluate` that set a `UirOptions` field.
_UIR_KEYWORDS = {"uir_cases": "cases", "uir_metrics": "metrics", "alphas": "alphas",
                 "uir_rel_tol": "rel_tol"}
#: From this share of the weight of the runs' clusters of truth items on items the truth
#: does not label, a closed truth is probably not closed (a warning says so).
UNLABELLED_SHARE = 0.01
#: Below this many effective clusters per cluster of a benchmark of complete clusters, the
#: design weighs its clusters so unequally that intervals cover less than they say
#: (tests/evaluation/test_population_statistical.py): a warning says so.
LOW_EFFICIENCY = 0.25
#: Names a slice column may not have: the metric columns beside it.
SLICE_RESERVED = frozenset({"items", "weight", "cells", "loss", *OVERALL_METRICS})


@dataclass(frozen=True)
class UirOptions:
    """What UIR compares ([UIR] §4; docs/method.md §9): the test cases ("truth_cluster",
    "slice:<column>", None/"none"), the metrics it combines, the α of the F_α sweep and
    the relative tolerance of equal scores; checked when made."""

    cases: str | None = "truth_cluster"
    metrics: str | Sequence[str] | None = ("precision", "recall")
    alphas: Sequence[float] = ALPHA_SWEEP
    rel_tol: float = DEFAULT_REL_TOL

    def __post_init__(self) -> None:
        cases = None if self.cases in (None, "none") else str(self.cases).strip()
        column = cases[len("slice:"):].strip() if cases and cases.startswith("slice:") else ""
        if cases not in (None, "truth_cluster") and not column:
            raise InputError(f"{{option}} must be truth_cluster, slice:<column> or none, not "
                             f"{self.cases!r}", option="uir_cases")
        items = self.metrics.split(",") if isinstance(self.metrics, str) else self.metrics
        metrics = tuple(dict.fromkeys(m.strip() for m in items or ("precision", "recall")
                                      if m.strip()))
        if not metrics or any(m not in UIR_METRICS for m in metrics):
            raise InputError(f"{{option}} must name metrics among {', '.join(UIR_METRICS)} "
                             f"(higher is better for each: use jaccard_index, not "
                             f"jaccard_distance), not {self.metrics!r}", option="uir_metrics")
        alphas = self.alphas
        if isinstance(alphas, str) or not isinstance(alphas, Iterable) or not list(alphas):
            raise InputError("{option} must be a non-empty list of numbers in [0, 1], not "
                             f"{alphas!r}", option="alphas")
        fields = {"cases": f"slice:{column}" if column else cases, "metrics": metrics,
                  "alphas": tuple(Real(0.0, 1.0).check("alphas", a) for a in alphas),
                  "rel_tol": REL_TOL.check("uir_rel_tol", self.rel_tol)}
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    @property
    def slice_column(self) -> str | None:
        return self.cases[len("slice:"):] if self.cases and self.cases != "truth_cluster" \
            else None


# ------------------------------------------------------------------ run names


def default_run_name(source: object, k: int, *, database: bool = False) -> str:
    """A file's stem, a table's own name, else `run_<k + 1>` (docs/method.md §4.2)."""
    if isinstance(source, Path):
        return source.stem
    if isinstance(source, str):
        path = Path(source)
        if names_a_file(path, database=database):
            stem = Path(path.stem)  # x.csv.gz → x.csv → x
            return stem.stem if file_format(stem) else stem.name
        return source.rsplit(".", 1)[-1].strip('"`[]')
    return f"run_{k + 1}"


def run_names(actual: Sequence[object], names: Sequence[str | None] | None, *,
              database: bool = False, on_disk: bool = False) -> list[str]:
    """One unique name per run, given or `default_run_name` (repeats get _k); a name is a
    directory under --out and a label, so one that cannot be either is refused, and two
    that print alike or (`on_disk`) are one directory on macOS and Windows."""
    names = [None] * len(actual) if names is None else list(names)
    if len(names) != len(actual):
        raise InputError(f"{len(names)} name(s) for {len(actual)} actual run(s)",
                         option="names", hint="Give one name per --actual.")
    defaults = [default_run_name(a, k, database=database) for k, a in enumerate(actual)]
    defaults = [f"{n}_{k + 1}" if defaults.count(n) > 1 else n for k, n in enumerate(defaults)]
    out = [str(n) if n is not None else d for n, d in zip(names, defaults, strict=True)]
    hint = "Name each run apart: --actual NAME=PATH, e.g. --actual v2=run.parquet."
    for n in out:
        bad = ("it is empty" if not n.strip() else "it is '.' or '..'" if n in (".", "..")
               else "it contains a path separator" if "/" in n or "\\" in n
               else "it contains a control character"
               if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in n)
               else None)
        if bad:
            raise InputError(f"run name {n!r} cannot be used: {bad} (run names become "
                             "directory names under --out and labels in the report)",
                             hint=hint)
    seen: dict[str, str] = {}
    for n in out:
        nfc = unicodedata.normalize("NFC", n)
        key = nfc.casefold() if on_disk else nfc
        if key in seen:
            first = seen[key]
            raise InputError(f"run names must be unique: {first!r} and {n!r} " + (
                "are one name" if first == n else "are written with different Unicode "
                "characters that print alike (e.g. é and e + a combining accent)"
                if unicodedata.normalize("NFC", first) == nfc else "differ only in case: "
                "under --out their directories would be one on a case-insensitive file "
                "system (macOS, Windows)"), hint=hint)
        seen[key] = n
    return out


def _as_runs(actual: object, names: Sequence[str | None] | None,
             ) -> tuple[list[object], Sequence[str | None] | None]:
    """The runs of a list, of one clustering, or of a dict name -> table or path."""
    if isinstance(actual, list | tuple):
        return list(actual), names
    if isinstance(actual, Mapping) and actual and all(
            isinstance(v, Path) or hasattr(v, "columns") or hasattr(v, "column_names")
            for v in actual.values()):
        if names is not None:
            raise InputError("{option} names the runs of a list; the keys of a dict of runs "
                             "are their names", option="names", hint="Give one of the two.")
        return list(actual.values()), [str(k) for k in actual]
    return [actual], names


# ------------------------------------------------------------------ pipeline


def add_evaluation_steps(pipeline: Pipeline, inputs: Inputs, slicings: Sequence[Sequence[str]],
                         slice_cells: Sequence[str] | None = None, *, tables: bool = True,
                         complete: bool = False) -> list[str]:
    """Every evaluation step after `cell_rows` (docs/method.md §4, §5; `complete`: a
    truth of complete clusters, §4.4; `slice_cells`: a warehouse script's); the
    per-slicing steps."""
    if slice_cells is None:
        slice_cells = add_cell_steps(pipeline, inputs, slicings)
    if complete:
        pipeline.add("run_weight", render("evaluate/run_weight.sql"), materialise=True)
    pipeline.add("pointwise_cells", render("evaluate/pointwise_cells.sql", complete=complete))
    pipeline.add("overall", render("evaluate/pointwise_overall.sql", metrics=POINTWISE_METRICS))
    for side, name, loss in (("b", "truth_clusters", "recall"),
                             ("e", "actual_clusters", "precision")):
        pipeline.add(name, render("evaluate/pointwise_clusters.sql", side=side,
                                  metrics=POINTWISE_METRICS, loss_metric=loss),
                     materialise=tables)
    steps = [pipeline.add(f"slices_{k}", render(
        "evaluate/pointwise_slices.sql", slice_columns=[inputs.attribute(c) for c in slicing],
        slice_cells=cells, metrics=POINTWISE_METRICS, by_cluster=False), materialise=tables)
        for k, (slicing, cells) in enumerate(zip(slicings, slice_cells, strict=True))]
    pipeline.add("classic", render("evaluate/classic.sql"))
    pipeline.add("outside", render("evaluate/outside.sql"), materialise=True)
    pipeline.add("yandex_themes", render("evaluate/yandex_themes.sql"), materialise=True)
    pipeline.add("yandex", render("evaluate/yandex.sql"))
    if complete:
        pipeline.add("benchmark_clusters", render(
            "evaluate/benchmark_clusters.sql", metrics=POINTWISE_METRICS,
            design="truth_design" in pipeline.steps))
        for k, (slicing, cells) in enumerate(zip(slicings, slice_cells, strict=True)):
            pipeline.add(f"benchmark_slices_{k}", render(
                "evaluate/pointwise_slices.sql", by_cluster=True, slice_cells=cells,
                slice_columns=[inputs.attribute(c) for c in slicing],
                metrics=POINTWISE_METRICS))
    return steps


def evaluation_pipeline(inputs: Inputs, slicings: Sequence[Sequence[str]] = (),
                        prefix: str = "abcde_eval_") -> Pipeline:
    """The whole evaluation of one run as a pipeline (e.g. to emit its SQL)."""
    pipeline = Pipeline(prefix=prefix)
    add_item_steps(pipeline, inputs)
    add_evaluation_steps(pipeline, inputs, slicings)
    return pipeline


# ------------------------------------------------------------------ API


@checked(top=TOP, out_format=OneOf(OUT_FORMATS))
def evaluate(truth: object, actual: object, weights: object | None = None, *,
             names: Sequence[str | None] | None = None, uir: UirOptions | None = None,
             truth_sample: str | None = None, top: int = 10, out: str | Path | None = None,
             out_format: str = "parquet", **inputs: Any) -> EvaluateResult:
    """How well each actual clustering matches the truth, and how the runs compare.

    Parameters
    ----------
    truth
        The ground truth clustering (CSV/Parquet path, table of `db`, DataFrame or
        {item: cluster} mapping).
    actual
        One actual clustering or a list of them, in the same forms; or a dict name ->
        clustering whose values are DataFrames, Arrow tables or Paths (the keys name the
        runs).
    weights
        Item weights (default: the clusterings' weight column if any, else 1).
    names
        Names of the runs (default: file stems, table names, run_<k>).
    uir
        What UIR compares (`UirOptions`: cases, metrics, alphas, rel_tol); the keywords
        `uir_cases`, `uir_metrics`, `alphas` and `uir_rel_tol` set the same.
    truth_sample
        None: the truth labels a closed set of items, and the runs are scored on the
        items they share with it. Else the truth is a sample of complete true clusters
        of the runs' population, drawn with probability ∝ size ("size"), uniformly
        ("uniform"), or with the inclusion probabilities in this column of the truth:
        every pointwise metric of the population is estimated with a 95% interval, per
        run, per slice and paired between runs (docs/method.md §4.4).
    top
        How many worst truth/actual clusters and Yandex themes to list.
    out, out_format
        A directory: every truth/actual cluster, slice and Yandex theme of each run is
        written under out/<run name>/ ("parquet" or "csv"), each run's directory replaced
        whole once every file is written.
    **inputs
        The inputs and the engine, as `abcde.Comparison` takes them: `attributes`,
        `slice_by`, `item_col`, `cluster_col`, `weight_col`, `missing_weight`, `engine`,
        `db`, `memory_limit`, `threads`, `workspace`.

    Returns
    -------
    EvaluateResult
        Per run the pointwise, classic and Yandex metrics, coverage, worst clusters and
        slices (with `truth_sample`, ``population``: the estimates with intervals, which
        ``overall`` then holds); per pair of runs the deltas and UIR; the UIR summary;
        ``warnings``. ``to_dict()`` is the JSON.

    References
    ----------
    S. van Staden. Pointwise Metrics for Clustering Evaluation. arXiv:2405.10421, §3.
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718. O. Binette et al. Estimating the performance of entity resolution
    algorithms. The American Statistician 77(4) (2023) 370–380. Yandex (the module
    docstring). docs/method.md §4, §5, §9.
    """
    if truth_sample is not None and not (isinstance(truth_sample, str) and truth_sample):
        raise InputError("{option} must be size, uniform or a column of the truth, not "
                         f"{truth_sample!r}", option="truth_sample")
    legacy = {_UIR_KEYWORDS[k]: inputs.pop(k) for k in list(inputs) if k in _UIR_KEYWORDS}
    uir = replace(uir or UirOptions(), **legacy)
    session = Session.of(truth, None, weights, roles=("truth", "actual"), **inputs)
    runs, names = _as_runs(actual, names)
    if not runs:
        raise InputError("no actual clustering given", option="actual",
                         hint="Give --actual at least once.")
    config = session.engine_config
    labels = run_names(runs, names, database=inputs.get("db") is not None
                       or (isinstance(config, Engine) and config.user_db is not None),
                       on_disk=out is not None)
    spec = session.spec
    slicings = [list(s) for s in spec.slicings]
    if uir.slice_column is not None and [uir.slice_column] not in slicings:
        slicings.append([uir.slice_column])
        spec = replace(spec, slicings=tuple(map(tuple, slicings)))
    check_slice_names(slicings, SLICE_RESERVED)
    # per-case scores leave the engine only when UIR compares runs over them
    fetch_cases = uir.cases is not None and (uir.slice_column is not None or len(runs) > 1)
    # the output's temporary place is made before the work; replaced only on success
    with (output_dir(out, replaces=[f"{n}/" for n in labels],
                     inputs=input_files(spec.base, spec.weights, spec.attributes, *runs))
          if out is not None else contextlib.nullcontext()) as od, \
            opened(config) as eng, Workspace.opened(eng, session.location) as ws:
        plan = _Plan(slicings, top, uir, out_format, fetch_cases, truth_sample)
        results, sweep = [], None
        for k, (name, source) in enumerate(zip(labels, runs, strict=True)):
            run_inputs = open_inputs(eng, replace(spec, exp=source))
            run_inputs.workspace = ws
            result, sweep = _run_one(eng, run_inputs, name, k, plan, od)
            results.append(result)
        described = run_inputs.description()
        input_doc = {"truth": described["truth"], "weights": described["weights"],
                     "attributes": described["attributes"], "truth_sample": truth_sample,
                     "actual": {r.name: r.label for r in results}}
        shared = shared_cases(results)
        uir_doc, pairs = (evaluate_uir_summary(results, uir.cases, uir.metrics, uir.alphas,
                                               shared, uir.rel_tol)
                          if uir.cases is not None else (None, {}))
        if uir_doc is not None and sweep is not None:  # one run: counted and swept in SQL
            uir_doc["n_cases"], f_alpha = sweep
            if f_alpha is not None and sweep[0]:
                uir_doc["f_alpha"] = {results[0].name: f_alpha}
        comparisons = [compare_runs(a, b, uir.metrics if uir.cases else None, shared,
                                    uir.rel_tol, pairs) for a, b in combinations(results, 2)]
    return EvaluateResult(inputs=input_doc, runs=results, comparisons=comparisons,
                          uir=uir_doc, warnings=_warnings(results, truth_sample))


@dataclass(frozen=True)
class _Plan:
    """What every run of one evaluation computes."""

    slicings: list[list[str]]
    top: int
    uir: UirOptions
    out_format: str
    fetch_cases: bool
    truth_sample: str | None


def _run_one(engine: Engine, inputs: Inputs, name: str, k: int, plan: _Plan,
             out: OutputDir | None,
             ) -> tuple[RunResult, tuple[int, dict[str, float] | None] | None]:
    """One run: its steps, results and files; with one run and truth-cluster cases, the
    number of cases and their F_α sweep from SQL."""
    slicings, uir, design = plan.slicings, plan.uir, plan.truth_sample
    pipeline = Pipeline(prefix=f"abcde_eval{k}_", schema=engine.work_schema)
    add_item_steps(pipeline, inputs)
    checked = build_cell_rows(engine, pipeline, inputs)
    if design not in (None, *DESIGNS):
        inputs.base.require(design, "--truth-sample", "inclusion probabilities")
        if inputs.base.category(design) not in ("integer", "float", "decimal"):
            raise InputError(f"column {design!r} holds {inputs.base.columns[design]}, not "
                             "inclusion probabilities", table=inputs.base.label,
                             option="truth_sample")
        pipeline.add("truth_design", render(
            "evaluate/truth_design.sql", relation=inputs.base.relation, column=design,
            cluster_col=inputs.columns.cluster, cluster_type=inputs.base_cluster_type))
    slice_steps = add_evaluation_steps(pipeline, inputs, slicings, tables=out is not None,
                                       complete=design is not None)
    truth_cases = plan.fetch_cases and uir.slice_column is None
    pipeline.steps["truth_clusters"].materialise |= truth_cases or design is not None
    run_cell_steps(engine, pipeline, inputs, "cells", "cell_metrics")
    pipeline.run(engine, "outside")
    if design is not None:
        pipeline.run(engine, "run_weight")
        unweighted = int(pipeline.fetch(engine, "run_weight")[0]["unweighted"] or 0)
        if unweighted:
            raise InputError(f"{unweighted:,} item(s) of the run have no weight: a truth of "
                             "complete clusters counts every item of the run's clusters",
                             table=inputs.weights.label if inputs.weights else None,
                             option="missing_weight",
                             hint="Add their weights, or give them one with --missing-weight.")
    pipeline.run(engine, *(s for s in ("truth_clusters", "actual_clusters", *slice_steps)
                           if pipeline.steps[s].materialise), "yandex_themes")

    def rows(step: str, template: str | None = None, **values: Any) -> list[dict[str, Any]]:
        if template is not None:
            pipeline.add(step, render(template, **values))
        return [_finite(plain_row(r, text=values.get("text", ())))
                for r in pipeline.fetch(engine, step)]

    overall, classic, yandex = (rows(s)[0] for s in ("overall", "classic", "yandex"))
    worst = {side: rows(f"worst_{side}", "evaluate/worst_clusters.sql", relation=side,
                        metrics=POINTWISE_METRICS, k=plan.top)
             for side in ("truth_clusters", "actual_clusters")}
    slices = []
    for slicing, step in zip(slicings, slice_steps, strict=True):
        # a NaN or infinite slice value is 'NaN', 'Infinity', '-Infinity', as in impact
        found = rows(step, text=slicing)
        found.sort(key=lambda r: (-rank_value(r["weight"]), *(str(r[c]) for c in slicing)))
        slices.append({"slice_by": slicing, "rows": found})
    cases: dict[Hashable, dict[str, float]] = {}
    if truth_cases:
        cases = {r["cluster_id"]: _case(r) for r in pipeline.fetch(engine, "truth_clusters")}
    elif plan.fetch_cases:
        found = next(s["rows"] for s in slices if s["slice_by"] == [uir.slice_column])
        cases = {r[uir.slice_column]: _case(r) for r in found}
    sweep = None
    if uir.cases == "truth_cluster" and not plan.fetch_cases:
        pair = f_alpha_metrics(uir.metrics)
        row = rows("case_sweep", "evaluate/case_sweep.sql", relation="truth_clusters",
                   alphas=[repr(a) for a in uir.alphas],
                   p=pair[0] if pair else "precision", r=pair[1] if pair else "recall")[0]
        sweep = (int(row["n_cases"]), {f"{a:g}": float(row[f"f_{j}"])
                                       for j, a in enumerate(uir.alphas)} if pair else None)
    coverage = coverage_report(engine, pipeline, inputs, overall, checked)
    unlabelled = rows("unlabelled", "evaluate/unlabelled.sql")[0]
    coverage["unlabelled_in_run_clusters"] = {"items": int(unlabelled["items"]),
                                              "weight": unlabelled["weight"],
                                              "share": unlabelled["share"]}
    result = RunResult(
        name=name, label=inputs.exp.label,
        overall={"items": int(overall["items"]), "weight": float(overall["weight"]),
                 **{m: overall[m] for m in OVERALL_METRICS}},
        coverage=coverage,
        classic={m: classic[m] for m in CLASSIC_METRICS},
        pair_counts={m: float(classic[m]) for m in PAIR_COUNTS},
        yandex={kind: {m: yandex[f"{m}_{kind}"] for m in YANDEX_METRICS}
                for kind in YANDEX_KINDS}
        | {"themes": int(yandex["themes"]),
           "themes_with_recall": int(yandex["themes_with_recall"] or 0),
           "worst_themes": rows("yandex_worst_themes", "evaluate/yandex_worst_themes.sql",
                                k=plan.top)},
        worst_truth_clusters=worst["truth_clusters"],
        worst_actual_clusters=worst["actual_clusters"], slices=slices, cases=cases)
    if design is not None:
        _estimate(engine, pipeline, inputs, result, design, slicings)
    if out is not None:
        result.files = _write(engine, pipeline, out, name, plan.out_format, slicings,
                              slice_steps)
        for entry, stem in zip(result.slices, slice_file_stems(slicings), strict=True):
            entry["file"] = result.files[stem]
    return result, sweep


def _estimate(engine: Engine, pipeline: Pipeline, inputs: Inputs, result: RunResult,
              design: str, slicings: list[list[str]]) -> None:
    """The population's metrics from a truth of complete clusters (docs/method.md §4.4)."""
    from abcde.evaluation.population import Sample, population_doc  # numpy

    sample = Sample.of(pipeline.fetch(engine, "benchmark_clusters"), design)
    slices = []
    for k, slicing in enumerate(slicings):
        aliases = {inputs.attribute(c).alias: c for c in slicing}
        found = [{aliases.get(c, c): v for c, v in plain_row(r, text=list(aliases)).items()}
                 for r in pipeline.fetch(engine, f"benchmark_slices_{k}")]
        slices.append((slicing, found))
    result.population, result.sample = population_doc(sample, design, slices), sample
    result.overall.update({m: v["estimate"]
                           for m, v in result.population["metrics"].items()})


def _warnings(results: Sequence[RunResult], truth_sample: str | None) -> list[str]:
    """Where a closed truth looks like a sample, and where a benchmark's design weighs its
    clusters very unequally."""
    out = []
    for r in results:
        share = r.coverage["unlabelled_in_run_clusters"]["share"]
        if truth_sample is None and share >= UNLABELLED_SHARE:
            kind = ("probably a sample of complete true clusters: --truth-sample (Python: "
                    "truth_sample=) size, uniform or a column of inclusion probabilities "
                    "estimates the population's metrics" if share < 0.5 else
                    "probably a sample of items, not of whole clusters: the metrics on the "
                    "items both hold are what it can tell")
            out.append(f"{r.name}: {share:.1%} of the weight of the run's clusters of truth "
                       "items (averaged over the truth's clusters) is on items the truth "
                       f"does not label, merges the metrics leave out. The truth is {kind} "
                       "(docs/evaluation.md).")
        p = r.population
        if p is not None and p["effective_clusters"] < LOW_EFFICIENCY * p["clusters"]:
            out.append(f"{r.name}: the design weighs the benchmark's clusters very unequally "
                       f"({p['effective_clusters']:.0f} effective of {p['clusters']:,}): the "
                       "intervals can cover less than they say; a benchmark drawn with "
                       "probability proportional to size avoids this (docs/evaluation.md).")
    return out


def _case(row: Mapping[str, Any]) -> dict[str, float]:
    return {m: float(row[m]) for m in UIR_METRICS if row.get(m) is not None}


def _finite(row: dict[str, Any]) -> dict[str, Any]:
    """None for a NaN (never in JSON); metrics of non-empty sets are always finite."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in row.items()}


def _write(engine: Engine, pipeline: Pipeline, out: OutputDir, run: str, fmt: str,
           slicings: list[list[str]], slice_steps: list[str]) -> dict[str, str]:
    """A run's clusters, slices and themes as files under `run`/, in key order."""
    directory = out.path / run
    directory.mkdir(parents=True, exist_ok=True)
    named = [(n, n, ["cluster_id"]) for n in ("truth_clusters", "actual_clusters",
                                              "yandex_themes")]
    named += list(zip(slice_file_stems(slicings), slice_steps, slicings, strict=True))
    files = {}
    for name, step, key in named:
        path = directory / f"{name}.{fmt}"
        engine.write(pipeline.physical_name(step), path, fmt, order_by=key)
        files[name] = str(out.final(path))
    return files
