"""The same seed and inputs give the same samples on DuckDB, PostgreSQL and Spark
(docs/method.md §10–11: md5 uniforms are bit-identical across engines; floats agree to ~1e-16)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from abcde.engines.duckdb import DuckDBEngine
from abcde.sampling.items import sample_items
from abcde.sampling.pairs import sample_pairs


def _case() -> tuple[dict, dict, dict, dict]:
    rng = np.random.default_rng(41)
    n = 12
    base = {f"i{k:02d}": int(rng.integers(0, 4)) for k in range(n)}
    exp = {i: f"x{int(rng.integers(0, 4))}" for i in base}
    weight = {i: float(np.exp(rng.normal())) for i in base}
    attrs = {i: {"color": ["red", "green"][int(rng.integers(0, 2))]} for i in base}
    return base, exp, weight, attrs


def _same(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert set(x) == set(y)
        for k, v in x.items():
            if isinstance(v, float):
                assert y[k] == pytest.approx(v, rel=1e-12, abs=1e-300), k
            else:
                assert y[k] == v, k


@functools.cache
def _on_duckdb(sampler: Callable[..., Any], **design: str) -> Any:
    """The DuckDB sample of `_case` that each engine's is compared with, drawn once
    for the three engines (each test reads it, none changes it)."""
    base, exp, weight, attrs = _case()
    options = ({"size": 5} if sampler is sample_items
               else {"budget": 12, "slice_by": "color", **design})
    with DuckDBEngine() as duck:
        return sampler(base, exp, weight, attributes=attrs, seed=7, engine=duck, **options)


@pytest.mark.parametrize("population", ["mixture", "jaccard"])
def test_identical_pair_samples_on_every_engine(engine, population: str) -> None:
    """Budget fill included: the stream (stable partners that skip the vantage item
    among them), the cut, the classes' totals and design quantities, the exact self
    parts and the slices agree."""
    base, exp, weight, attrs = _case()
    ref = _on_duckdb(sample_pairs, population=population)
    got = sample_pairs(base, exp, weight, attributes=attrs, budget=12, seed=7,
                       population=population, engine=engine, slice_by="color")
    assert {r["pair_class"] for r in ref.draws} == {"split", "merge", "stable"}
    _same(ref.draws, got.draws)
    _same(ref.questions, got.questions)
    for k, entry in ref.manifest["classes"].items():
        _same([entry], [got.manifest["classes"][k]])
    _same([ref.manifest["exact"]], [got.manifest["exact"]])
    key = sorted(ref.manifest["slices"], key=lambda r: r["color"])
    _same(key, sorted(got.manifest["slices"], key=lambda r: r["color"]))
    assert got.manifest["fingerprint"]["sha256"] == ref.manifest["fingerprint"]["sha256"]


def test_identical_item_samples_on_every_engine(engine) -> None:
    base, exp, weight, attrs = _case()
    ref = _on_duckdb(sample_items)
    got = sample_items(base, exp, weight, attributes=attrs, size=5, seed=7, engine=engine)
    _same(ref.rows, got.rows)


def _large_cells() -> tuple[dict, dict, dict]:
    """Cells of 40–150 items (several of pairs/stream.sql's blocks of 32 each), heavy
    and light weights side by side."""
    rng = np.random.default_rng(43)
    n = 400
    base = {f"i{k:03d}": int(rng.integers(0, 3)) for k in range(n)}
    exp = {i: f"x{b}" if rng.random() < 0.6 else f"y{int(rng.integers(0, 2))}"
           for i, b in base.items()}
    weight = {i: float(np.exp(2 * rng.normal())) for i in base}
    return base, exp, weight


def _many_blocks(design: str, engine: object) -> Any:
    from abcde.sampling.stratified import sample_pairs_stratified

    base, exp, weight = _large_cells()
    if design == "stratified":
        return sample_pairs_stratified(base, exp, weight, budget=40, seed=3,
                                       allocation="equal", engine=engine)
    return sample_pairs(base, exp, weight, budget=40, seed=3, engine=engine)


@functools.cache
def _many_blocks_on_duckdb(design: str) -> Any:
    with DuckDBEngine() as duck:
        return _many_blocks(design, duck)


@pytest.mark.parametrize("design", ["mixture", "stratified"])
def test_identical_pair_samples_with_cells_of_many_blocks(engine, design: str) -> None:
    """The block as-of of pairs/stream.sql picks the same items on every engine (and in
    both designs: the stratified one runs the stream once per stratum)."""
    ref = _many_blocks_on_duckdb(design)
    got = _many_blocks(design, engine)
    assert {r["pair_class"] for r in ref.draws} == {"split", "merge", "stable"}
    _same(ref.draws, got.draws)
    _same(ref.questions, got.questions)


@pytest.mark.postgres
def test_manifest_slices_come_in_the_order_of_their_values_on_every_engine(
        postgres_dsn: str) -> None:
    """A GROUP BY has no order: the manifest's slices (and `abcde estimate`'s) came in
    DuckDB's hash order, another from run to run, and in another on PostgreSQL. Now by
    value, text in code point order ('B' < 'a'), NULL last, on both."""
    from abcde.engines.postgres import PostgresEngine

    base, exp, weight, _ = _case()
    colors = ["a", "B", "c", "D", "e", "F", "g", None]
    attrs = {i: {"color": colors[k % len(colors)]} for k, i in enumerate(base)}
    want = [*sorted(c for c in colors if c is not None), None]
    with DuckDBEngine() as duck, PostgresEngine(postgres_dsn) as pg:
        for engine in (duck, pg):
            got = sample_pairs(base, exp, weight, attributes=attrs, budget=8, seed=7,
                               engine=engine, slice_by="color")
            assert [r["color"] for r in got.manifest["slices"]] == want, type(engine)


def test_a_warehouse_manifests_slices_come_in_the_order_of_their_values() -> None:
    """The pair_slices table of a script, read back in any row order: each slicing's
    slices by value (NULL last), the slicings in the order the table holds them."""
    import random

    from abcde.sample_files.exported import manifest_from_rows
    from abcde.sampling.pairs import CLASS_KEYS, DESIGN_VERSION, TOTAL_COLUMNS

    row = {"population": "mixture", "alpha": 0.5, "design_version": DESIGN_VERSION,
           "weight": 1.0}
    row |= {f"classes_{k}_{c}": 1.0 for k in CLASS_KEYS for c in TOTAL_COLUMNS}
    slices = [{"slice_columns": "color", "color": c, "weight": 1.0} for c in "cBaD"]
    slices += [{"slice_columns": "color", "color": None, "weight": 1.0}]
    slices += [{"slice_columns": "size,kind", "size": s, "kind": k, "weight": 1.0}
               for s in (2, 10, 1) for k in ("y", "x")]
    random.Random(3).shuffle(slices)
    slices.sort(key=lambda r: r["slice_columns"] != "color")  # color's rows first
    got = manifest_from_rows(row, slices)["slices"]
    assert [r.get("color", (r.get("size"), r.get("kind"))) for r in got] == \
        ["B", "D", "a", "c", None, (1, "x"), (1, "y"), (2, "x"), (2, "y"), (10, "x"),
         (10, "y")]
