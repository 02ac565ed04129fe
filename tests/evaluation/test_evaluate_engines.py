"""Every evaluation number agrees across DuckDB, PostgreSQL and Spark (real engines,
tests/conftest.py), and with the brute-force references on the same case."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from reference import POINTWISE_METRICS, pointwise_overall
from reference_yandex import yandex_metrics

from abcde.engines import Engine
from abcde.engines.duckdb import DuckDBEngine
from abcde.evaluation.run import CLASSIC_METRICS, YANDEX_METRICS, evaluate

REL = 1e-12


def _case() -> dict[str, Any]:
    """A truth over 60 of 300 items (some absent from a run: unclustered), two actual
    runs over the rest (unlabelled items), weights log-uniform on [1e-3, 1e3]."""
    rng = random.Random(11)
    ideal = {f"i{k:03d}": f"g{rng.randrange(40)}" for k in range(300)}
    truth = {i: ideal[i] for i in sorted(ideal)[:60]}
    runs = []
    for noise in (0.1, 0.3):
        run = {i: (f"a{c}" if rng.random() > noise else f"a{rng.randrange(60)}")
               for i, c in ideal.items()}
        for i in rng.sample(sorted(truth), 3):
            del run[i]
        runs.append(run)
    weight = {i: 10 ** rng.uniform(-3, 3) for i in ideal}
    attributes = {i: {"region": rng.choice(["eu", "us", None])} for i in ideal}
    return {"truth": truth, "runs": runs, "weights": weight, "attributes": attributes}


def _numbers(engine: Engine, out: Path | None = None) -> dict[str, Any]:
    c = _case()
    res = evaluate(c["truth"], c["runs"], c["weights"], names=["low", "high"],
                   attributes=c["attributes"], slice_by="region", engine=engine, out=out)
    return res.to_dict()


@pytest.fixture(scope="module")
def duckdb_numbers() -> dict[str, Any]:
    eng = DuckDBEngine()
    try:
        return _numbers(eng)
    finally:
        eng.close()


def _flat(doc: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(doc, dict):
        out: dict[str, Any] = {}
        for k, v in doc.items():
            out.update(_flat(v, f"{prefix}/{k}"))
        return out
    if isinstance(doc, list):
        out = {}
        for k, v in enumerate(doc):
            out.update(_flat(v, f"{prefix}[{k}]"))
        return out
    return {prefix: doc}


def test_evaluate_agrees_across_engines(engine: Engine, duckdb_numbers: dict[str, Any],
                                        tmp_path: Path) -> None:
    """The numbers, and the files of --out (one evaluation per engine: Spark's is slow)."""
    got = _numbers(engine, tmp_path / "out")
    c = _case()
    _check_item_counts(tmp_path / "out", c)
    for run, actual in zip(got["runs"], c["runs"], strict=True):
        want = pointwise_overall(c["truth"], actual, c["weights"])
        for m in POINTWISE_METRICS:
            assert math.isclose(run["overall"][m], want[m], rel_tol=1e-9), m
        for kind, opt in (("basic", False), ("optimistic", True)):
            ref = yandex_metrics(c["truth"], actual, optimistic=opt)
            for m in YANDEX_METRICS:
                assert math.isclose(run["yandex"][kind][m], ref[m], rel_tol=1e-9), m
            for row in run["yandex"]["worst_themes"]:  # per-theme BCF1 (and ECC order)
                theme = ref["themes"][row["cluster_id"]]
                assert math.isclose(row[f"bcf1_{kind}"], theme["bcf1"], rel_tol=1e-9)
        eccs = [row["ecc_basic"] for row in run["yandex"]["worst_themes"]]
        assert eccs == sorted(eccs) and len(eccs) == 10
        assert set(run["classic"]) == set(CLASSIC_METRICS)
    flat_got, flat_want = _flat(got), _flat(duckdb_numbers)
    skip = ("/inputs", "/runs[0]/input", "/runs[1]/input")
    keys = [k for k in flat_want if not k.startswith(skip)]
    assert set(keys) <= set(flat_got)
    for k in keys:
        a, b = flat_got[k], flat_want[k]
        if isinstance(b, float) and not isinstance(b, bool):
            assert math.isclose(float(a), b, rel_tol=REL, abs_tol=1e-15), (k, a, b)
        elif k.endswith("reading"):
            continue
        else:
            assert a == b, (k, a, b)


def _check_item_counts(out: Path, c: dict[str, Any]) -> None:
    """The `items` of the cluster and slice files are BIGINT on every engine (a sum of
    counts is a 128-bit integer on DuckDB, which Parquet holds as DOUBLE), and count the
    items of T (both the truth and the run hold them) of each cluster and slice."""
    from duck import duck

    for name, actual in zip(("low", "high"), c["runs"], strict=True):
        shared = [i for i in c["truth"] if i in actual]
        for stem, clusters in (("truth_clusters", c["truth"]), ("actual_clusters", actual)):
            rows = duck(f"SELECT typeof(items), CAST(cluster_id AS VARCHAR), items "
                        f"FROM '{out / name / stem}.parquet'")
            assert {r[0] for r in rows} == {"BIGINT"}, (name, stem)
            assert {r[1]: r[2] for r in rows} == Counter(clusters[i] for i in shared)
        rows = duck(f"SELECT typeof(items), region, items FROM "
                    f"'{out / name}/slices_region.parquet'")
        assert {r[0] for r in rows} == {"BIGINT"}
        assert {r[1]: r[2] for r in rows} == Counter(c["attributes"][i]["region"]
                                                     for i in shared)


def _population_numbers(eng: Engine) -> dict[str, Any]:
    c = _case()
    res = evaluate(c["truth"], c["runs"], c["weights"], names=["low", "high"],
                   attributes=c["attributes"], slice_by="region", truth_sample="size",
                   uir_cases=None, engine=eng)
    doc = res.to_dict()
    return _flat({"runs": [r["population"] for r in doc["runs"]],
                  "pairs": [p["population"] for p in doc["comparisons"]]})


@pytest.fixture(scope="module")
def duckdb_population_numbers() -> dict[str, Any]:
    with DuckDBEngine() as duck:
        return _population_numbers(duck)


def test_a_truth_of_complete_clusters_agrees_across_engines(
        engine: Engine, duckdb_population_numbers: dict[str, Any]) -> None:
    """`truth_sample="size"` (docs/method.md §4.4): the population estimates, their
    intervals, slices and the paired Δ are those of DuckDB, to 1e-12."""
    want = duckdb_population_numbers
    got = _population_numbers(engine)
    assert set(got) == set(want)
    for k, b in want.items():
        a = got[k]
        if isinstance(b, float):
            assert math.isclose(a, b, rel_tol=REL, abs_tol=1e-15), (k, a, b)
        else:
            assert a == b, (k, a, b)
