"""Regenerate the golden SQL of `abcde sql impact` — one file per dialect per
materialised pipeline step, tests/golden/<dialect>/<NN>_<step>.sql, for the spec below —
and of the other scripts of a round under tests/golden/<dialect>/<script>/ (sample-items
reusing the impact script's cells, evaluate of two runs). Run `make golden` (or
`.venv/bin/python tests/golden/regenerate.py`) after changing a template or
abcde.sql.dialects, and review the diff: it shows what each warehouse will run.
"""

from __future__ import annotations

import functools
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from abcde.inputs.spec import Columns
from abcde.sql.dialects import DIALECTS
from abcde.warehouse.evaluation import evaluate_pipelines
from abcde.warehouse.sampling import sample_items_pipeline, sample_pairs_pipeline
from abcde.warehouse.scripts import ScriptSpec, impact_pipeline, statements

GOLDEN = Path(__file__).resolve().parent

SPEC = ScriptSpec(base="proj.ds.base", exp="proj.ds.exp", weights="proj.ds.weights",
                  attributes="proj.ds.attributes",
                  slicings=(("provenance",), ("provenance", "size_class")),
                  columns=Columns("item_id", "cluster_id", "weight"), prefix="abcde_",
                  schema="proj.ds")

# The other scripts of the round, in the order a round runs them (the BigQuery analyzer
# test reads the tables each one creates): sample-items reading the impact script's
# cells, sample-pairs likewise, and evaluate of two runs against proj.ds.truth.
ITEMS_SPEC = replace(SPEC, reuse_cells=True)
ITEMS = {"size": 1000, "seed": 7}
PAIRS = {"population": "mixture", "budget": 500, "seed": 7}
EVALUATE_SPEC = replace(SPEC, base="proj.ds.truth", exp="", slicings=(("provenance",),))
EVALUATE_RUNS = [("base", "proj.ds.base"), ("exp", "proj.ds.exp")]


def script_pipelines() -> dict[str, list]:
    """Script name -> its pipelines, for the golden files beyond impact."""
    items, _, _ = sample_items_pipeline(ITEMS_SPEC, **ITEMS)
    pairs, _, _ = sample_pairs_pipeline(ITEMS_SPEC, **PAIRS)
    stratified, _, _ = sample_pairs_pipeline(ITEMS_SPEC, **PAIRS, strata_allocation="equal")
    return {"sample_items": [items], "sample_pairs": [pairs],
            "sample_pairs_stratified": [stratified],
            "evaluate": [p for _, p, _ in evaluate_pipelines(EVALUATE_SPEC, EVALUATE_RUNS)]}


@functools.cache
def golden_files() -> dict[Path, str]:
    """Relative path -> SQL text, for every dialect and step (made once per process: the
    tests share it; do not edit the dict)."""
    out = {}
    impact = impact_pipeline(SPEC)[0]
    scripts = script_pipelines()
    for dialect in DIALECTS:
        for k, (step, sql) in enumerate(statements(impact, dialect), start=1):
            out[Path(dialect) / f"{k:02d}_{step}.sql"] = sql
        for name, pipelines in scripts.items():
            k = 0
            for pipeline in pipelines:
                for step, sql in statements(pipeline, dialect):
                    k += 1
                    label = f"{pipeline.prefix[len(SPEC.prefix):]}{step}"
                    out[Path(dialect) / name / f"{k:02d}_{label}.sql"] = sql
    return out


@functools.cache
def written_files() -> dict[Path, str]:
    """The golden files as they are on disk, by relative path (in order within each
    script): for the tests that only read the SQL — one test, test_golden_sql_is_current,
    checks they are golden_files(), which takes ~15 s to make."""
    return {p.relative_to(GOLDEN): p.read_text() for d in DIALECTS
            for p in sorted((GOLDEN / d).rglob("*.sql"))}


def main() -> int:
    for dialect in DIALECTS:
        shutil.rmtree(GOLDEN / dialect, ignore_errors=True)
    files = golden_files()
    for rel, text in files.items():
        path = GOLDEN / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    print(f"wrote {len(files)} files under {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
