"""The evaluation of actual clusterings against a ground truth, one run at a time,
computed per cell in the engine (docs/method.md §4, §5; [PW] §3).

The truth plays Base and each actual run plays Exp in the same steps as the impact
metrics (`abcde.cells`): T = the items both hold. On the cells of T:

* pointwise metrics ([PW] §3, eq. 11–18; docs/method.md §4): precision, recall, f1,
  accuracy, jaccard_distance, jaccard_index per cell, lifted overall, per truth cluster,
  per actual cluster and per slice, with the F1 of the overall P and R beside the
  lifted f1;
* the classic unweighted metrics (docs/method.md §5.1): pair counting, adjusted Rand
  index [HA], purity, inverse purity, Fung's F-measure [FWE], homogeneity, completeness,
  V-measure and NMI [RH];
* Yandex cluster_metrics ([YA] §3–4; docs/method.md §5.2): ECC, BCP, BCR, BCF1 [BB],
  basic and optimistic, which also count the truth items the actual lacks and the
  actual's unlabelled items in the clusters that meet the truth.

Items outside T are normal here (the truth is small) and are reported as coverage
([PW] §3.2). With several actual runs, `evaluate` compares every pair
(`abcde.evaluation.compare`): deltas of every metric and the Unanimous Improvement
Ratio over test cases (truth clusters or slices; [UIR] §4.2; docs/method.md §9), whose
arithmetic runs in Python on the per-case tables the engine returns.

References
----------
[PW] S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland,
May 2024. arXiv:2405.10421.
[YA] Yandex. Оценка качества кластеризации: свойства, метрики, код на GitHub
("Clustering quality assessment: properties, metrics, code on GitHub"). Habr, Yandex
company blog, post 500742, 2020. Reference implementation: github.com/yandex/cluster_metrics.
[UIR] E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. *Journal of
Artificial Intelligence Research* 42 (2011) 689–718. doi:10.1613/jair.3401.
[HA] L. Hubert, P. Arabie. Comparing partitions. *Journal of Classification* 2(1)
(1985) 193–218.
[RH] A. Rosenberg, J. Hirschberg. V-measure: a conditional entropy-based external
cluster evaluation measure. *Proc. EMNLP-CoNLL 2007*, 410–420.
[FWE] B. C. M. Fung, K. Wang, M. Ester. Hierarchical document clustering using frequent
itemsets. *Proc. 2003 SIAM International Conference on Data Mining*, 59–70.
[BB] A. Bagga, B. Baldwin. Algorithms for scoring coreference chains. *Proc. LREC 1998
Workshop on Linguistic Coreference*, 563–566.
"""

from __future__ import annotations

import contextlib
import math
import unicodedata
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from abcde.cells import add_cell_steps, add_item_steps, build_cell_rows, run_cell_steps
from abcde.engines import Engine
from abcde.engines.config import engine_config, opened
from abcde.errors import InputError
from abcde.evaluation.compare import compare_runs, evaluate_uir_summary, shared_cases
from abcde.evaluation.results import (
    CLASSIC_METRICS,
    OVERALL_METRICS,
    PAIR_COUNTS,
    POINTWISE_METRICS,
    YANDEX_KINDS,
    YANDEX_METRICS,
    EvaluateResult,
    RunResult,
)
from abcde.evaluation.scores import UirInputError
from abcde.evaluation.uir import ALPHA_SWEEP, DEFAULT_REL_TOL, check_alphas, f_alpha_metrics
from abcde.inputs.checks import coverage_report
from abcde.inputs.session import Inputs, open_inputs
from abcde.inputs.sources import file_format, names_a_file
from abcde.inputs.spec import InputSpec, check_slice_names
from abcde.inputs.workspace import Workspace
from abcde.outputs import OutputDir, input_files, output_dir, slice_file_stems
from abcde.params import TOP, OneOf, checked
from abcde.results import OUT_FORMATS, plain_row
from abcde.sql.helpers import rank_value
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render
from abcde.text import printing_alike

__all__ = [
    "CLASSIC_METRICS",
    "DEFAULT_UIR_METRICS",
    "OVERALL_METRICS",
    "POINTWISE_METRICS",
    "UIR_METRICS",
    "YANDEX_METRICS",
    "CaseSpec",
    "EvaluateResult",
    "RunResult",
    "add_evaluation_steps",
    "check_run_name",
    "default_run_name",
    "evaluate",
    "evaluation_pipeline",
    "parse_uir_cases",
    "parse_uir_metrics",
    "run_names",
]

#: Per-case metrics UIR may combine: higher is better for each ([UIR] §4.1).
UIR_METRICS = ("precision", "recall", "f1", "f1_of_overall", "accuracy", "jaccard_index")
DEFAULT_UIR_METRICS = ("precision", "recall")


# ------------------------------------------------------------------ options


@dataclass(frozen=True)
class CaseSpec:
    """The UIR test cases: every truth cluster, or every value of a slice column."""

    kind: str  # "truth_cluster" or "slice"
    column: str | None = None

    @property
    def label(self) -> str:
        """The option's value: truth_cluster or slice:<column>."""
        return self.kind if self.column is None else f"slice:{self.column}"


def parse_uir_cases(spec: str | None) -> CaseSpec | None:
    """The UIR test cases named by ``--uir-cases``.

    Parameters
    ----------
    spec : str or None
        "truth_cluster", "slice:<column>", or None / "none" for no UIR.

    Returns
    -------
    CaseSpec or None
        None when no UIR is wanted.

    Raises
    ------
    InputError
        Any other value.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §4.2 (test cases T). docs/method.md §9.1.
    """
    if spec is None or spec == "none":
        return None
    if spec == "truth_cluster":
        return CaseSpec("truth_cluster")
    if spec.startswith("slice:") and spec[len("slice:"):].strip():
        return CaseSpec("slice", spec[len("slice:"):].strip())
    raise InputError(f"unknown UIR test cases {spec!r}",
                     hint="Use --uir-cases truth_cluster, slice:<column> or none "
                          "(no UIR).")


def parse_uir_metrics(metrics: str | Sequence[str] | None) -> tuple[str, ...]:
    """The per-case metrics UIR combines, named by ``--uir-metrics``.

    Parameters
    ----------
    metrics : str, sequence of str or None
        "precision,recall" or a sequence of names from `UIR_METRICS` (higher is better
        for each); None gives precision and recall. Repeated names count once.

    Returns
    -------
    tuple of str
        The metric names in their order.

    Raises
    ------
    InputError
        No name, or a name not in `UIR_METRICS` (jaccard_distance: use jaccard_index).

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
    unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
    689–718, §4.1 (every metric higher-is-better). docs/method.md §9.1.
    """
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
    """The name of a run that was given none.

    A file's name without its suffix; a table's own name (`main.run_v1` → `run_v1`,
    without the schema); `run_<k + 1>` for anything else. Files and tables are told
    apart as `abcde.inputs.sources.open_source` does (`names_a_file`).

    Parameters
    ----------
    source : object
        The actual clustering as given (path, table name, DataFrame, mapping).
    k : int
        The run's position, from 0.
    database : bool
        Whether a database is open (a bare name then names a table).

    Returns
    -------
    str
        The default name.

    References
    ----------
    docs/method.md §4.2 (several actual runs, compared by name).
    """
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
    plain label).

    Parameters
    ----------
    name : str
        A run name.

    Returns
    -------
    None

    Raises
    ------
    InputError
        The name is empty, `.` or `..`, or holds a path separator or a control
        character.

    References
    ----------
    docs/method.md §1.4 (bad input is refused with one message naming the problem).
    """
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
    """The names of the runs: given, else `default_run_name`.

    Parameters
    ----------
    actual : sequence
        The actual clusterings as given.
    names : sequence of str or None, or None
        One name per run; a None asks for the default of that run. Default names
        repeated among all runs get a suffix _k, k = the run's position from 1.
    database : bool
        Whether a database is open (see `default_run_name`).

    Returns
    -------
    list of str
        One unique, usable name per run.

    Raises
    ------
    InputError
        Not one name per run, an unusable name (`check_run_name`), a repeated name.

    References
    ----------
    docs/method.md §4.2.
    """
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
    # é composed and e + a combining accent print alike: two runs the output could not
    # tell apart
    nfc = [unicodedata.normalize("NFC", n) for n in out]
    dup = sorted({n for n in nfc if nfc.count(n) > 1})
    if dup:
        alike = sorted(unicodedata.normalize("NFC", g[0]) for g in printing_alike(out))
        raise InputError(f"run names must be unique; repeated: {', '.join(dup)}"
                         + (f" ({', '.join(alike)}: written with different Unicode "
                            "characters that print alike, e.g. é and e + a combining "
                            "accent)" if alike else ""),
                         hint="Name each run apart: --actual NAME=PATH (a run is named "
                              "after its file otherwise).")
    return out


def check_run_dirs(names: Sequence[str]) -> None:
    """Refuse run names that differ only in case or Unicode normalisation (`A`, `a`;
    `é` composed or not) before they become directories under --out: macOS and Windows
    file systems take them for one directory, so one run's files would replace the
    other's.

    Parameters
    ----------
    names : sequence of str
        The runs' names (`run_names`), each unique as text.

    Returns
    -------
    None

    Raises
    ------
    InputError
        Naming the names that would share a directory.

    References
    ----------
    docs/method.md §1.4 (bad input is refused with one message naming the problem).
    """
    seen: dict[str, str] = {}
    for name in names:
        key = unicodedata.normalize("NFC", name).casefold()
        if key in seen:
            raise InputError(
                f"run names {seen[key]!r} and {name!r} differ only in case (or in Unicode "
                "normalisation): under --out their directories would be one on a "
                "case-insensitive file system (macOS, Windows), and one run's files would "
                "replace the other's",
                hint="Name the runs apart: --actual NAME=PATH, e.g. --actual A2=a.csv.")
        seen[key] = name


def _as_runs(actual: object, names: Sequence[str | None] | None,
             ) -> tuple[list[object], Sequence[str | None] | None]:
    """The runs and their names: a list (or tuple) of clusterings, one clustering, or a
    dict name -> clustering whose values are tables or paths (a dict of ids is one
    clustering {item: cluster}; {'a': df_a, 'b': df_b} was read as one, of items 'a' and
    'b', and refused as sharing no item with the truth)."""
    if isinstance(actual, list | tuple):
        return list(actual), names
    if isinstance(actual, Mapping) and actual and all(
            isinstance(v, Path) or hasattr(v, "columns") or hasattr(v, "column_names")
            for v in actual.values()):
        if names is not None:
            raise InputError("names= names the runs of a list; the keys of a dict of runs "
                             "are their names", hint="Give one of the two.")
        return list(actual.values()), [str(k) for k in actual]
    return [actual], names


# ------------------------------------------------------------------ pipeline


def add_evaluation_steps(pipeline: Pipeline, inputs: Inputs,
                         slicings: Sequence[Sequence[str]],
                         slice_cells: Sequence[str] | None = None, *,
                         tables: bool = True) -> list[str]:
    """Every evaluation step after `cell_rows` (validated) and the cell steps.

    Materialised: the cells and the Yandex per-theme table (each read again), and with
    `tables` the truth/actual cluster and slice tables (to be written out; without, the
    queries that read them compute them inline).

    Parameters
    ----------
    pipeline : Pipeline
        Holding the item steps (`abcde.cells.add_item_steps`).
    inputs : Inputs
        The opened truth (as Base), actual run (as Exp), weights and attributes.
    slicings : sequence of sequences of str
        The attribute columns of each slicing.
    slice_cells : sequence of str, optional
        The slice-cell steps when the pipeline already has the cell steps
        (`abcde.cells.add_cell_steps`, e.g. a warehouse script's); else they are added.
    tables : bool
        Materialise the truth/actual cluster and slice tables (to write them out).

    Returns
    -------
    list of str
        The names of the per-slicing result steps.

    References
    ----------
    S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland, 2024.
    arXiv:2405.10421, §3, eq. 11–18. L. Hubert, P. Arabie. Comparing partitions. Journal
    of Classification 2(1) (1985) 193–218. A. Rosenberg, J. Hirschberg. V-measure: a
    conditional entropy-based external cluster evaluation measure. Proc. EMNLP-CoNLL
    2007, 410–420. Yandex. Оценка качества кластеризации: свойства, метрики, код на
    GitHub. Habr, post 500742, 2020, §3–4 (github.com/yandex/cluster_metrics).
    docs/method.md §4, §5.
    """
    if slice_cells is None:
        slice_cells = add_cell_steps(pipeline, inputs, slicings)
    pipeline.add("pointwise_cells", render("evaluate/pointwise_cells.sql"))
    pipeline.add("overall", render("evaluate/pointwise_overall.sql",
                                   metrics=POINTWISE_METRICS))
    for side, name, loss in (("b", "truth_clusters", "recall"),
                             ("e", "actual_clusters", "precision")):
        pipeline.add(name, render("evaluate/pointwise_clusters.sql", side=side,
                                  metrics=POINTWISE_METRICS, loss_metric=loss),
                     materialise=tables)
    slice_steps = []
    for k, (slicing, step) in enumerate(zip(slicings, slice_cells, strict=True)):
        attrs = [inputs.attribute(c) for c in slicing]
        slice_steps.append(pipeline.add(f"slices_{k}", render(
            "evaluate/pointwise_slices.sql", slice_columns=attrs, slice_cells=step,
            metrics=POINTWISE_METRICS), materialise=tables))
    pipeline.add("classic", render("evaluate/classic.sql"))
    pipeline.add("yandex_themes", render("evaluate/yandex_themes.sql"), materialise=True)
    pipeline.add("yandex", render("evaluate/yandex.sql"))
    return slice_steps


def evaluation_pipeline(inputs: Inputs, slicings: Sequence[Sequence[str]] = (),
                        prefix: str = "abcde_eval_") -> Pipeline:
    """The whole evaluation of one run as a pipeline (e.g. to emit its SQL for another
    engine).

    Parameters
    ----------
    inputs : Inputs
        The opened truth, actual run, weights and attributes.
    slicings : sequence of sequences of str
        The attribute columns of each slicing.
    prefix : str
        Prefix of the physical names of materialised steps.

    Returns
    -------
    Pipeline
        The item steps followed by `add_evaluation_steps`.

    References
    ----------
    S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland, 2024.
    arXiv:2405.10421, §3. docs/method.md §2, §4, §5.
    """
    pipeline = Pipeline(prefix=prefix)
    add_item_steps(pipeline, inputs)
    add_evaluation_steps(pipeline, inputs, slicings)
    return pipeline


# ------------------------------------------------------------------ API


@checked(top=TOP, out_format=OneOf(OUT_FORMATS))
def evaluate(truth: object, actual: object, weights: object | None = None, *,
             names: Sequence[str | None] | None = None, attributes: object | None = None,
             slice_by: str | Sequence[str] | Sequence[Sequence[str]] | None = None,
             uir_cases: str | None = "truth_cluster",
             uir_metrics: str | Sequence[str] | None = None,
             alphas: Sequence[float] = ALPHA_SWEEP, uir_rel_tol: float = DEFAULT_REL_TOL,
             item_col: str = "item_id", cluster_col: str = "cluster_id",
             weight_col: str = "weight", missing_weight: float | None = None, top: int = 10,
             out: str | Path | None = None, out_format: str = "parquet",
             engine: Engine | str | None = None, db: str | Path | None = None,
             memory_limit: str | None = None, threads: int | None = None,
             workspace: str | Path | None = None) -> EvaluateResult:
    """How well each actual clustering matches the truth, and how the runs compare.

    Parameters
    ----------
    truth : object
        The ground truth clustering (CSV/Parquet path, table of `db`, DataFrame or
        {item: cluster} mapping).
    actual : object, list or dict
        One actual clustering or a list of them, in the same forms; or a dict name ->
        clustering whose values are DataFrames, Arrow tables or Paths (the keys name the
        runs).
    weights : object, optional
        Item weights (default: the clusterings' weight column if any, else 1).
    names : sequence of str or None, optional
        Names of the runs (default: file stems, table names; see `run_names`).
    attributes : object, optional
        Item attributes to slice by.
    slice_by : str or sequence, optional
        Attribute column(s) per slicing ("a,b" slices by the pair).
    uir_cases : str or None
        "truth_cluster", "slice:<column>" (an attribute column) or None (no UIR).
    uir_metrics : str or sequence of str, optional
        The per-case metrics UIR combines (default precision, recall).
    alphas : sequence of float
        The α values of the F_α sweep.
    uir_rel_tol : float
        Per-case scores equal to this relative tolerance tie (docs/method.md §9.2).
    item_col, cluster_col, weight_col : str
        Column names of the inputs.
    missing_weight : float, optional
        Weight of the items the weights table lacks (default: refuse).
    top : int
        How many worst truth/actual clusters and Yandex themes to list.
    out : str or Path, optional
        A directory: every truth/actual cluster, slice and Yandex theme of each run is
        written under out/<run name>/, atomically (`abcde.outputs.output_dir`): each
        run's directory is replaced whole once every file is written, other entries of
        `out` are kept, and an unwritable `out` is refused before the work.
    out_format : str
        "parquet" or "csv".
    engine : Engine, optional
        An open engine (default: DuckDB, opened with `db`, `memory_limit`, `threads`).
    db, memory_limit, threads
        DuckDB options when no engine is given.
    workspace : str or Path, optional
        Where the cells of each run are kept between calls on the same inputs (a DuckDB
        file, a PostgreSQL schema, a Spark database; `abcde.inputs.workspace`).

    Returns
    -------
    EvaluateResult
        Per run the pointwise, classic and Yandex metrics, coverage, worst clusters and
        slices; per pair of runs the deltas and UIR (`abcde.evaluation.compare`); the
        UIR summary (matrix, reference systems, F_α sweep). ``to_dict()`` is the JSON.

    Raises
    ------
    InputError
        Bad input (docs/method.md §1.4), bad run names, UIR options or tolerance.

    References
    ----------
    S. van Staden. Pointwise Metrics for Clustering Evaluation. Google Switzerland, 2024.
    arXiv:2405.10421, §3, §3.2. Yandex. Оценка качества кластеризации: свойства,
    метрики, код на GitHub. Habr, post 500742, 2020 (github.com/yandex/cluster_metrics).
    L. Hubert, P. Arabie. Comparing partitions. Journal of Classification 2(1) (1985)
    193–218. A. Rosenberg, J. Hirschberg. V-measure: a conditional entropy-based external
    cluster evaluation measure. Proc. EMNLP-CoNLL 2007, 410–420. E. Amigó, J. Gonzalo,
    J. Artiles, F. Verdejo. Combining evaluation metrics via the unanimous improvement
    ratio and its application to clustering tasks. JAIR 42 (2011) 689–718.
    docs/method.md §4, §5, §9.
    """
    config = engine_config(engine, db=db, memory_limit=memory_limit, threads=threads)
    runs, names = _as_runs(actual, names)
    if not runs:
        raise InputError("no actual clustering given", hint="Give --actual at least once.")
    labels = run_names(runs, names, database=db is not None
                       or (isinstance(config, Engine) and config.user_db is not None))
    if out is not None:
        check_run_dirs(labels)
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
    if not (math.isfinite(uir_rel_tol) and 0 <= uir_rel_tol < 1):
        raise InputError(f"the UIR relative tolerance must lie in [0, 1), got {uir_rel_tol!r}")
    if cases is not None and f_alpha_metrics(metrics) is not None:
        # checked before the work: a single run's sweep runs in SQL, where an α outside
        # [0, 1] gave a meaningless F_α and a NaN an engine error
        try:
            alphas = check_alphas(alphas)
        except UirInputError as err:
            raise InputError(str(err), hint="alphas=[0.0, 0.5, 1.0]: the weights of "
                             "precision in F_α, each in [0, 1].") from err
    # per-case scores leave the engine only when UIR compares runs over them: every
    # truth cluster is a case, so with one run its count and F_α sweep are computed there
    fetch_cases = cases is not None and (cases.kind == "slice" or len(runs) > 1)
    # the output directory's temporary place is made before the work (an unwritable --out
    # is refused at once); the runs' files replace the old ones only once all are written
    with (output_dir(out, replaces=[f"{n}/" for n in labels],
                     inputs=input_files(spec.base, spec.weights, spec.attributes, *runs))
          if out is not None
          else contextlib.nullcontext()) as od, \
            opened(config) as eng, \
            Workspace.opened(eng, workspace) as ws:
        results = []
        sweeps = []
        input_doc: dict[str, Any] = {}
        for k, (name, source) in enumerate(zip(labels, runs, strict=True)):
            inputs = open_inputs(eng, replace(spec, exp=source))
            inputs.workspace = ws
            input_doc = {"truth": inputs.base.label, "weights": inputs.weights_description,
                         "attributes": inputs.attributes.label if inputs.attributes else None}
            result, sweep = _run_one(eng, inputs, name, k, slicings, top, cases,
                                     od, name, out_format, fetch_cases=fetch_cases,
                                     sweep=None if fetch_cases or cases is None
                                     else (f_alpha_metrics(metrics), tuple(alphas)))
            results.append(result)
            sweeps.append(sweep)
        # the comparisons and UIR before the with block ends: --out is committed only
        # when the whole command has succeeded (an interrupt or error leaves it as it was)
        input_doc["actual"] = {r.name: r.label for r in results}
        shared = shared_cases(results)
        pairs: dict[tuple[str, str], Any] = {}
        uir_doc = evaluate_uir_summary(results, cases.label, metrics, alphas, shared,
                                       uir_rel_tol, pairs_out=pairs) if cases else None
        if uir_doc is not None and not fetch_cases and sweeps[0] is not None:
            n_cases, f_alpha = sweeps[0]
            uir_doc["n_cases"] = n_cases
            if f_alpha is not None and n_cases:
                uir_doc["f_alpha"] = {results[0].name: f_alpha}
        comparisons = [compare_runs(a, b, metrics if cases else None, shared, uir_rel_tol,
                                    known=pairs)  # each pair's UIR computed once
                       for a, b in combinations(results, 2)]
    return EvaluateResult(inputs=input_doc, runs=results, comparisons=comparisons,
                          uir=uir_doc)


def _run_one(engine: Engine, inputs: Inputs, name: str, k: int,
             slicings: list[list[str]], top: int, cases: CaseSpec | None,
             out: OutputDir | None, name_dir: str, out_format: str, *,
             fetch_cases: bool = True,
             sweep: tuple[tuple[str, str] | None, tuple[float, ...]] | None = None,
             ) -> tuple[RunResult, tuple[int, dict[str, float] | None] | None]:
    """One run: validate, run the steps, fetch the small results (docs/method.md §4–§5).
    Per-case scores are fetched only with `fetch_cases`; `sweep` = ((P, R) metrics or
    None, alphas) asks instead for the number of truth-cluster cases and their F_α
    sweep, computed in the engine (returned beside the run)."""
    pipeline = Pipeline(prefix=f"abcde_eval{k}_", schema=engine.work_schema)
    add_item_steps(pipeline, inputs)
    checked = build_cell_rows(engine, pipeline, inputs)
    truth_cases = fetch_cases and cases is not None and cases.kind == "truth_cluster"
    slice_steps = add_evaluation_steps(pipeline, inputs, slicings, tables=out is not None)
    if truth_cases:
        pipeline.steps["truth_clusters"].materialise = True
    run_cell_steps(engine, pipeline, inputs, "cells", "cell_metrics")
    pipeline.run(engine, *(s for s in ("truth_clusters", "actual_clusters", *slice_steps)
                           if pipeline.steps[s].materialise), "yandex_themes")

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

    slices = []
    for slicing, step in zip(slicings, slice_steps, strict=True):
        # a NaN or infinite slice value becomes 'NaN', 'Infinity', '-Infinity' as in
        # impact: as None (like NULL) such slices merged into one UIR case
        rows = [_finite(plain_row(r, text=slicing)) for r in pipeline.fetch(engine, step)]
        rows.sort(key=lambda r: (-rank_value(r["weight"]), *(str(r[c]) for c in slicing)))
        slices.append({"slice_by": slicing, "rows": rows})

    case_rows: dict[Hashable, dict[str, float]] = {}
    swept = None
    if sweep is not None:
        pair, alphas = sweep
        pipeline.add("case_sweep", render(
            "evaluate/case_sweep.sql", relation="truth_clusters",
            alphas=[repr(float(a)) for a in alphas],
            p=pair[0] if pair else "precision", r=pair[1] if pair else "recall"))
        row = pipeline.fetch(engine, "case_sweep")[0]
        swept = (int(row["n_cases"]),
                 {f"{a:g}": float(row[f"f_{j}"]) for j, a in enumerate(alphas)}
                 if pair else None)
    if fetch_cases and cases is not None:
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
        result.files = _write(engine, pipeline, out, name_dir, out_format, slicings,
                              slice_steps)
        for entry, stem in zip(result.slices, slice_file_stems(slicings), strict=True):
            entry["file"] = result.files[stem]
    return result, swept


def _case_metrics(row: Mapping[str, Any]) -> dict[str, float]:
    return {m: float(row[m]) for m in UIR_METRICS if row.get(m) is not None}


def _finite(row: dict[str, Any]) -> dict[str, Any]:
    """None for a NaN (never in JSON); metrics of non-empty sets are always finite."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in row.items()}


def _write(engine: Engine, pipeline: Pipeline, out: OutputDir, run: str, fmt: str,
           slicings: list[list[str]], slice_steps: list[str]) -> dict[str, str]:
    """A run's clusters, slices and Yandex themes as files under `run`/ of the temporary
    directory of `abcde.outputs.output_dir`; returns where they end up."""
    directory = out.path / run
    directory.mkdir(parents=True, exist_ok=True)
    suffix = "parquet" if fmt == "parquet" else "csv"
    files = {}
    # each table in the order of its key (a cluster id, a slice's values): the same
    # inputs give the same files on every engine and in every run
    named = [(n, n, ["cluster_id"])
             for n in ("truth_clusters", "actual_clusters", "yandex_themes")]
    # as `impact --out` names them: a column name is no path, two slicings never one file
    named += list(zip(slice_file_stems(slicings), slice_steps, slicings, strict=True))
    for name, step, key in named:
        path = directory / f"{name}.{suffix}"
        engine.write(pipeline.physical_name(step), path, fmt, order_by=key)
        files[name] = str(out.final(path))
    return files
