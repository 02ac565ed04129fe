"""`abcde sql evaluate`: the evaluation of actual runs against a ground truth as standalone
SQL (docs/method.md §4–5) — per run the steps of `abcde.evaluation.run.add_evaluation_steps`
over named tables with its own validation row, under the prefix `<prefix><run>_`. The
comparison of runs (deltas, UIR) is Python's, on these small tables (`abcde uir`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from abcde.errors import InputError
from abcde.evaluation.run import SLICE_RESERVED, add_evaluation_steps
from abcde.inputs.spec import check_slice_names
from abcde.sql.pipeline import Pipeline
from abcde.warehouse import scripts
from abcde.warehouse.scripts import Output, ScriptSpec

_RUN_NAME = re.compile(r"[A-Za-z0-9_]+")
DOCS = {
    "overall": "Pointwise metrics of the run over T, the items truth and run share "
               "(pointwise paper §3, eq. 11–18), and the F1 of the overall P and R.",
    "truth_clusters": "Pointwise metrics of every truth cluster (the UIR test cases), and "
                      "its loss weight·(1 − recall)/W.",
    "actual_clusters": "Pointwise metrics of every actual cluster, and its loss "
                       "weight·(1 − precision)/W.",
    "classic": "Classic unweighted metrics (one row): pair counting, adjusted Rand index, "
               "purity, inverse purity, Fung's F-measure, homogeneity, completeness, "
               "V-measure, NMI (docs/method.md §5.1).",
    "yandex": "Yandex cluster metrics (one row): ECC, BCP, BCR, BCF1, basic and optimistic "
              "(docs/method.md §5.2).",
    "yandex_themes": "Yandex metrics of every theme (truth cluster).",
}


def run_name(name: str | None, table: str) -> str:
    """Given, else the table's own name (`proj.ds.run_v1` → `run_v1`): part of table
    names, so letters, digits and `_` only."""
    out = name if name is not None else table.rsplit(".", 1)[-1]
    if not _RUN_NAME.fullmatch(out):
        raise InputError(f"run name {out!r} cannot be part of a table name (letters, "
                         "digits and _ only)", hint="Name the run: --actual NAME=TABLE.")
    return out


def evaluate_pipelines(spec: ScriptSpec, actual: Sequence[tuple[str | None, str]],
                       relations: dict[str, str] | None = None,
                       ) -> list[tuple[str, Pipeline, list[Output]]]:
    """(run name, pipeline, outputs) per actual run (at least one: `sql evaluate` and
    `dbt --truth` require --actual), `spec.base` the truth, with cells of its own;
    `relations`: the inputs' SQL relations (role -> relation, a run's as `actual_<k>`)."""
    names = [run_name(n, t) for n, t in actual]
    # engines match table names case-insensitively: runs A and a would share tables
    folded = [n.lower() for n in names]
    dup = sorted({n for n in names if folded.count(n.lower()) > 1})
    if dup:
        raise InputError(f"run names must be unique, ignoring case (they name the runs' "
                         f"tables); repeated: {', '.join(dup)}",
                         hint="Name the runs: --actual NAME=TABLE.")
    # input_valid: the slice tables carry it too
    check_slice_names(spec.slicings, SLICE_RESERVED, scripts.VERDICT_COLUMN)
    out = []
    for k, (name, (_, table)) in enumerate(zip(names, actual, strict=True)):
        run_spec = replace(spec, exp=table, prefix=f"{spec.prefix}{name}_")
        rel = None
        if relations is not None:
            rel = {**relations, "exp": relations[f"actual_{k}"]}
        cells = scripts.build_cells(run_spec, rel, "evaluate")
        pipeline, inputs = cells.pipeline, cells.inputs
        slice_steps = add_evaluation_steps(pipeline, inputs, spec.slicings, cells.slice_steps)
        for step in ("overall", "truth_clusters", "actual_clusters", "classic", "yandex",
                     "yandex_themes"):
            scripts.flag_in_place(cells, step, None, DOCS[step])
        for slicing, step in zip(spec.slicings, slice_steps, strict=True):
            scripts.flag_in_place(cells, step, None,
                          f"Pointwise metrics per value of {', '.join(slicing)}.")
        if relations is None:
            others = [(f"--actual {n}", t) for j, (n, (_, t))
                      in enumerate(zip(names, actual, strict=True)) if j != k]
            scripts.check_unshadowed(run_spec, pipeline, others)
        out.append((name, pipeline, cells.outputs))
    return out
