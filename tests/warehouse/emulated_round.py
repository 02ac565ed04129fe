"""A judgement round's scripts for a warehouse emulator, and the check of what they made.

`round_job` writes the job an emulator's runner executes (tests/warehouse/fakesnow_run.py,
bqemulator_run.py): the example tables to load, then each script
of the round *whole*, as `abcde sql` writes it for the dialect — impact, sample-items,
sample-pairs (plain, then stratified) reusing the impact script's cells, evaluate — with
queries of their tables after each. `check_round` compares the tables with the CLI's
path on DuckDB over the same files (`abcde.impact`, `sample_items`, `sample_pairs`,
`sample_pairs_stratified`, `evaluate`): the same numbers to 1e-12 relative and the same
samples (items, pairs, strata, draw counts, order, sample ids); and the md5 uniform of
every example item id bit-identical to its definition (docs/method.md §10.1).

The runner prints one JSON object to the file named on its command line: {query name:
rows as dicts with lower-case keys}, or {"error": ...} naming the step that failed."""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import math
import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

import abcde
from abcde.sql.dialects import to_sql
from abcde.warehouse.evaluation import evaluate_pipelines
from abcde.warehouse.sampling import sample_items_pipeline, sample_pairs_pipeline
from abcde.warehouse.scripts import ScriptSpec, impact_pipeline, script_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = {r: EXAMPLES / f"{r}.csv" for r in ("base", "exp", "weights", "attributes", "truth")}
ITEMS = {"size": 200, "seed": 7}
PAIRS = {"population": "mixture", "budget": 60, "seed": 3}
STRATA = {"population": "mixture", "budget": 60, "seed": 4, "strata_allocation": 0.8}


def _inputs() -> dict[str, dict[str, Any]]:
    """The example files as the runners load them into <database>.raw.<role>: ids as
    text, weights as doubles."""
    out = {}
    for role, path in FILES.items():
        header, *data = list(csv.reader(path.open()))
        out[role] = {"columns": header, "rows": [
            [float(v) if c == "weight" else v for c, v in zip(header, row, strict=True)]
            for row in data]}
    return out


def round_job(dialect: str, database: str) -> dict[str, Any]:
    """The job: `inputs` (role -> columns and rows, which the runner loads as
    <database>.raw.<role>), then `steps` — ("script", name, text), ("query", name, sql)
    or ("fails", name, script: its error message is the result) — in order."""
    spec = ScriptSpec(**{r: f"{database}.raw.{r}" for r in ("base", "exp", "weights",
                                                             "attributes")},
                      slicings=(("provenance",),), schema=f"{database}.abcde")
    reuse = replace(spec, reuse_cells=True)
    steps: list[list[str]] = []

    def script(name: str, parts: list[Any], kind: str, **queries: tuple[Any, str, str]
               ) -> None:
        of = truth if kind == "evaluate" else spec
        steps.append(["script", name, script_text(of, parts, dialect, kind=kind)])
        for query, (pipeline, step, order) in queries.items():
            sql = f"SELECT * FROM {to_sql(pipeline.table(step), dialect)}"
            steps.append(["query", query, sql + (f" ORDER BY {order}" if order else "")])

    impact, _, outputs = impact_pipeline(spec)
    script("impact", [(impact, outputs)], "impact", overall=(impact, "overall", ""),
           slices=(impact, "slices_0", ""))
    uniform = sqlglot.parse_one("SELECT item_id, ABCDE_UNIFORM('7', item_id) AS u FROM t")
    uniform.find(exp.Table).replace(exp.to_table(f"{database}.raw.base"))
    steps.append(["query", "uniform", to_sql(uniform, dialect)])
    # reusing cells where no script made them: the first statement stops the script
    missing = replace(reuse, prefix="none_")
    p, _, outputs = sample_items_pipeline(missing, ITEMS["size"], ITEMS["seed"])
    steps.append(["fails", "missing_cells", script_text(missing, [(p, outputs)], dialect,
                                                        kind="sample-items")])
    items, _, outputs = sample_items_pipeline(reuse, ITEMS["size"], ITEMS["seed"])
    script("sample_items", [(items, outputs)], "sample-items",
           items=(items, "item_sample", "first_draw"),
           item_manifest=(items, "item_manifest", ""),
           item_validation=(items, "item_validation", ""))
    for name, options in (("pairs", PAIRS), ("strata", STRATA)):
        p, _, outputs = sample_pairs_pipeline(reuse, **options)
        tables = {f"{name}_sample": (p, "pair_sample", "pair_id, first_draw"),
                  f"{name}_manifest": (p, "pair_manifest", ""),
                  f"{name}_slices": (p, "pair_slices", ""),
                  f"{name}_questions": (p, "pair_questions", "pair_id")}
        if name == "strata":
            tables["strata_strata"] = (p, "pair_sample_strata", "")
        script(f"sample_pairs_{name}", [(p, outputs)], "sample-pairs", **tables)
    # as `abcde sql evaluate --truth T --actual b=BASE --actual e=EXP`
    truth = replace(spec, base=f"{database}.raw.truth", exp=spec.base,
                    roles=("truth", "actual"))
    runs = evaluate_pipelines(truth, [("b", spec.base), ("e", spec.exp)])
    script("evaluate", [(p, o) for _, p, o in runs], "evaluate", **{
        f"{name}_{step}": (p, step, "") for name, p, _ in runs
        for step in ("overall", "classic", "yandex")})
    return {"inputs": _inputs(), "steps": steps}


def run_job(python: Path, runner: Path, job: dict[str, Any], tmp_path: Path,
            env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `runner` with the emulator's `python` (its own virtualenv) on `job`."""
    out = tmp_path / "result.json"
    run = subprocess.run([str(python), str(runner), str(out)], input=json.dumps(job),
                         capture_output=True, text=True, timeout=1200,
                         env={**os.environ, "TMPDIR": str(tmp_path), **(env or {})})
    assert run.returncode == 0 and out.exists(), run.stderr[-3000:]
    got = json.loads(out.read_text())
    assert "error" not in got, got["error"]
    return got


def close(a: object, b: object, rel: float = 1e-12) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-300)  # type: ignore[arg-type]
    return a == b


@functools.cache
def _cli() -> dict[str, Any]:
    """What the CLI's path (DuckDB over the files) gives for the round of `round_job`."""
    f = FILES
    sides = (f["base"], f["exp"], f["weights"])
    return {
        "impact": abcde.impact(*sides, attributes=f["attributes"], slice_by="provenance"),
        "items": abcde.sample_items(*sides, attributes=f["attributes"], **ITEMS),
        "pairs": abcde.sample_pairs(*sides, attributes=f["attributes"],
                                    slice_by="provenance", **PAIRS),
        "strata": abcde.sample_pairs_stratified(
            *sides, attributes=f["attributes"], slice_by="provenance",
            **{k: v for k, v in STRATA.items() if k != "strata_allocation"},
            allocation=STRATA["strata_allocation"]),
        "evaluate": abcde.evaluate(f["truth"], [f["base"], f["exp"]], f["weights"],
                                   names=["b", "e"]),
    }


def md5_uniform(*parts: object) -> float:
    """docs/method.md §10.1, in Python."""
    n = int(hashlib.md5(":".join(map(str, parts)).encode()).hexdigest()[:13], 16)
    return (2 * n + 1) / 2**53


def check_round(got: dict[str, Any]) -> None:
    """The emulator's tables equal the CLI's results (`_cli`)."""
    from abcde.sample_files.exported import manifest_from_rows

    want = _cli()
    stop = got["missing_cells"]  # the warehouse's own error, holding abcde's message
    assert stop and "abcde --reuse-cells: the cell tables of the round do not exist" in stop
    assert "none_cells_key" in stop and "none_cell_rows" in stop, stop
    assert len(got["uniform"]) == 3700
    for r in got["uniform"]:
        assert r["u"] == md5_uniform(7, r["item_id"]), r
    [overall] = got["overall"]
    assert overall["input_valid"] is True
    for k, v in want["impact"].overall.items():
        assert close(overall[k], v), k
    slices = {r["provenance"]: r for r in got["slices"]}
    assert len(slices) == len(want["impact"].slices[0]["rows"])
    for r in want["impact"].slices[0]["rows"]:
        for k, v in r.items():
            assert close(slices[r["provenance"]][k], v), (r["provenance"], k)

    items = want["items"]
    assert [(r["item_id"], r["draw_count"]) for r in got["items"]] == \
        [(r["item_id"], r["draw_count"]) for r in items.rows]
    for g, w in zip(got["items"], items.rows, strict=True):
        assert close(g["importance_weight"], w["importance_weight"]) and g["input_valid"]
    [m] = got["item_manifest"]
    assert m["sample_id"] == items.manifest["sample_id"] and m["input_valid"] is True
    assert got["item_validation"][0]["cells_match"] == 1

    keys = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count", "first_draw")
    for name in ("pairs", "strata"):
        sample = want[name]
        extra = ("stratum",) if name == "strata" else ()
        assert [tuple(r[k] for k in keys + extra) for r in got[f"{name}_sample"]] == \
            [tuple(r[k] for k in keys + extra) for r in sample.draws], name
        for g, w in zip(got[f"{name}_sample"], sample.draws, strict=True):
            assert close(g["u_over_w"], w["u_over_w"]) and g["input_valid"] is True
        [m] = got[f"{name}_manifest"]
        assert m["budget_filled"] is True and m["input_valid"] is True
        manifest = manifest_from_rows(m, got[f"{name}_slices"], got.get(f"{name}_strata", ()))
        for k in ("pairs", "design", "population_pairs", "draws"):
            assert manifest[k] == sample.manifest[k], (name, k)
        for key, entry in sample.manifest["classes"].items():
            for k, v in entry.items():
                assert close(manifest["classes"][key][k], v), (name, key, k)
        for section in ("exact", "totals", "metrics"):
            for k, v in sample.manifest[section].items():
                assert close(manifest[section][k], v), (name, section, k)
        for g_s, w_s in zip(manifest.get("strata", ()), sample.manifest.get("strata", ()),
                            strict=True):
            for k, v in w_s.items():
                if k != "stream_draws":  # the engines grow their stream; a script's is fixed
                    assert close(g_s[k], v), (name, k)
        got_slices = {r["provenance"]: r for r in manifest["slices"]}
        for r in sample.manifest["slices"]:
            for k, v in r.items():
                assert close(got_slices[r["provenance"]][k], v), (name, r["provenance"], k)
        questions = got[f"{name}_questions"]
        assert [(q["pair_id"], q["item_1"], q["item_2"]) for q in questions] == \
            [(q["pair_id"], q["item_1"], q["item_2"]) for q in sample.questions], name
        assert {q["sample_id"] for q in questions} == {m["sample_id"]}

    for name in ("b", "e"):
        r = want["evaluate"].run(name)
        [o] = got[f"{name}_overall"]
        for k, v in r.overall.items():
            assert close(o[k], v), (name, k)
        [c] = got[f"{name}_classic"]
        for k, v in r.classic.items():
            assert close(c[k], v, 1e-9), (name, k)
        [y] = got[f"{name}_yandex"]
        assert close(y["ecc_basic"], r.yandex["basic"]["ecc"]), name
