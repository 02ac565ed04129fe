"""The Snowflake scripts executed on fakesnow (PyPI `fakesnow`, an in-process Snowflake
emulator that translates Snowflake SQL to DuckDB): the impact script, sample-items
reusing its cells and the evaluation script, statement by statement as written for
Snowflake, give the numbers of `abcde impact`, `abcde sample-items` and `abcde evaluate`
(DuckDB) — beside the static checks (re-parse, the trap test), not instead of them:
fakesnow runs DuckDB, not Snowflake, so it catches what its translation also catches
(unknown functions, types, names, quoting, the statements' order).

fakesnow lives in its own virtualenv, cached at $ABCDE_FAKESNOW_VENV (default
~/.cache/abcde/fakesnow-venv): it pins sqlglot ~=30.22 where abcde needs ≥ 30.30, and
imports only with snowflake-connector-python < 4. One construct it does not implement,
the hex parse of the md5 uniform `TO_NUMBER(x, 'XXXXXXXXXXXXX')`, is rewritten to
DuckDB's parse of the same digits by the runner (tests/warehouse/fakesnow_run.py)."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import abcde
from abcde.warehouse.evaluation import evaluate_pipelines
from abcde.warehouse.sampling import sample_items_pipeline, sample_pairs_pipeline
from abcde.warehouse.scripts import ScriptSpec, impact_pipeline

FAKESNOW_PINS = ("fakesnow==0.12.1", "snowflake-connector-python<4")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNNER = Path(__file__).with_name("fakesnow_run.py")


@pytest.fixture(scope="session")
def fakesnow_python() -> Path:
    venv = Path(os.environ.get("ABCDE_FAKESNOW_VENV",
                               Path.home() / ".cache" / "abcde" / "fakesnow-venv"))
    stamp = venv / (".installed-" + "-".join(FAKESNOW_PINS).replace("<", "lt")
                    .replace("=", ""))
    if not stamp.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        result = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet",
                                 *FAKESNOW_PINS], capture_output=True, text=True, timeout=900)
        if result.returncode != 0:
            pytest.fail(f"cannot install fakesnow: {result.stderr[-2000:]}")
        stamp.touch()
    return venv / "bin" / "python"


def _tables() -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for role in ("base", "exp", "weights", "attributes", "truth"):
        rows = list(csv.reader((EXAMPLES / f"{role}.csv").open()))
        cols = [(c, "DOUBLE" if c == "weight" else "VARCHAR") for c in rows[0]]
        data = [[float(v) if t == "DOUBLE" else v for v, (_, t) in zip(r, cols, strict=True)]
                for r in rows[1:]]
        out[f"db.raw.{role}"] = {"columns": cols, "rows": data}
    return out


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-12)  # type: ignore[arg-type]
    return a == b


@pytest.mark.slow
def test_snowflake_scripts_run_on_fakesnow(fakesnow_python: Path, tmp_path: Path) -> None:
    spec = ScriptSpec(base="db.raw.base", exp="db.raw.exp", weights="db.raw.weights",
                      attributes="db.raw.attributes", slicings=(("provenance",),),
                      schema="db.abcde")
    impact_p, _, _ = impact_pipeline(spec)
    items_p, _, _ = sample_items_pipeline(replace(spec, reuse_cells=True), 200, 7)
    runs = evaluate_pipelines(replace(spec, base="db.raw.truth", exp=""),
                              [("b", "db.raw.base"), ("e", "db.raw.exp")])
    pairs_p, _, _ = sample_pairs_pipeline(replace(spec, reuse_cells=True), "mixture", 60, 3)
    statements = [sql for p in (impact_p, items_p, pairs_p, *(p for _, p, _ in runs))
                  for _, sql in p.statements("snowflake")]
    queries = {"overall": "SELECT * FROM db.abcde.abcde_overall",
               "slices": "SELECT * FROM db.abcde.abcde_slices_0",
               "items": "SELECT * FROM db.abcde.abcde_item_sample ORDER BY first_draw",
               "item_manifest": "SELECT * FROM db.abcde.abcde_item_manifest",
               "item_validation": "SELECT * FROM db.abcde.abcde_item_validation",
               "pairs": "SELECT * FROM db.abcde.abcde_pair_sample ORDER BY pair_id, first_draw",
               "pair_manifest": "SELECT * FROM db.abcde.abcde_pair_manifest"}
    for name, _, _ in runs:
        for step in ("overall", "classic", "yandex"):
            queries[f"{name}_{step}"] = f"SELECT * FROM db.abcde.abcde_{name}_{step}"
    job = {"databases": ["db"], "schemas": ["db.raw", "db.abcde"], "tables": _tables(),
           "statements": statements, "queries": queries}
    # fakesnow makes a fakesnow_bucket_* directory in TMPDIR that it never removes
    run = subprocess.run([str(fakesnow_python), str(RUNNER)], input=json.dumps(job),
                         capture_output=True, text=True, timeout=1200,
                         env={**os.environ, "TMPDIR": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert "error" not in got, got
    assert len(statements) > 40

    files = {r: EXAMPLES / f"{r}.csv" for r in ("base", "exp", "weights", "attributes",
                                                  "truth")}
    want = abcde.impact(files["base"], files["exp"], files["weights"],
                        attributes=files["attributes"], slice_by="provenance")
    [overall] = got["overall"]
    assert overall["input_valid"] is True
    for k, v in want.overall.items():
        assert _close(overall[k], v), k
    slices = {r["provenance"]: r for r in got["slices"]}
    for r in want.slices[0]["rows"]:
        for k, v in r.items():
            assert _close(slices[r["provenance"]][k], v), k

    items = abcde.sample_items(files["base"], files["exp"], files["weights"],
                               attributes=files["attributes"], size=200, seed=7)
    assert [(r["item_id"], r["draw_count"]) for r in got["items"]] == \
        [(r["item_id"], r["draw_count"]) for r in items.rows]
    for g, w in zip(got["items"], items.rows, strict=True):
        assert _close(g["importance_weight"], w["importance_weight"])
    [m] = got["item_manifest"]
    assert m["sample_id"] == items.manifest["sample_id"]
    assert got["item_validation"][0]["cells_match"] == 1

    pairs = abcde.sample_pairs(files["base"], files["exp"], files["weights"],
                               attributes=files["attributes"], population="mixture",
                               budget=60, seed=3, slice_by="provenance")
    keys = ("pair_id", "item_i", "item_j", "pair_class", "draw_count", "first_draw")
    assert [tuple(r[k] for k in keys) for r in got["pairs"]] == \
        [tuple(r[k] for k in keys) for r in pairs.draws]
    [m] = got["pair_manifest"]
    assert m["budget_filled"] is True and m["input_valid"] is True

    evaluation = abcde.evaluate(files["truth"], [files["base"], files["exp"]],
                                files["weights"], names=["b", "e"])
    for name in ("b", "e"):
        r = evaluation.run(name)
        [o] = got[f"{name}_overall"]
        for k, v in r.overall.items():
            assert _close(o[k], v), (name, k)
        [c] = got[f"{name}_classic"]
        for k, v in r.classic.items():
            assert math.isclose(float(c[k]), v, rel_tol=1e-9), (name, k)
        [y] = got[f"{name}_yandex"]
        assert _close(y["ecc_basic"], r.yandex["basic"]["ecc"])
