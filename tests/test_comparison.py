"""`abcde.Comparison`: a round in one process (impact, sample-items, sample-pairs, a
simulation) gives the numbers and samples of the flat functions, each called alone, while
the population is joined once; the engine and options are checked when it is made."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import abcde
from abcde.engines.duckdb import DuckDBEngine

EX = Path(__file__).resolve().parents[1] / "examples"
INPUTS = {"base": str(EX / "base.csv"), "exp": str(EX / "exp.csv"),
          "weights": str(EX / "weights.csv")}
OPTIONS = {"attributes": str(EX / "attributes.csv"), "slice_by": "provenance"}


def close(a: object, b: object) -> bool:
    """Equal, floats to 1e-12 relative (a parallel sum's last bits vary)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12, abs=1e-15, nan_ok=True)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _executed(caplog: pytest.LogCaptureFixture, step: str) -> int:
    """How many times a step's table was computed (not read from the round's cells)."""
    return sum(r.getMessage().startswith(f"step {step}: ") and "workspace" not in
               r.getMessage() for r in caplog.records)


def test_a_round_in_one_process_equals_the_flat_functions(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    flat_impact = abcde.impact(*INPUTS.values(), **OPTIONS).to_dict()
    flat_items = abcde.sample_items(*INPUTS.values(), size=200, seed=4, **OPTIONS)
    flat_pairs = abcde.sample_pairs(*INPUTS.values(), budget=80, seed=4, **OPTIONS)
    caplog.set_level(logging.INFO, logger="abcde")
    caplog.clear()
    with abcde.Comparison(*INPUTS.values(), **OPTIONS) as c:
        impact = c.impact().to_dict()
        items = c.sample_items(200, seed=4)
        pairs = c.sample_pairs(80, seed=4, out=tmp_path / "round")
    assert close(impact, flat_impact)
    assert close(items.rows, flat_items.rows) and close(items.manifest, flat_items.manifest)
    assert close(pairs.draws, flat_pairs.draws) and pairs.questions == flat_pairs.questions
    assert pairs.manifest["sample_id"] == flat_pairs.manifest["sample_id"]
    # the one join of the population and its aggregation by cell: once for the round
    assert _executed(caplog, "cell_rows") == 1
    assert _executed(caplog, "cells") == 1 and _executed(caplog, "cell_metrics") == 1
    assert (tmp_path / "round" / "manifest.json").is_file()


def test_a_comparison_leaves_the_callers_engine_open_and_its_own_tables_gone() -> None:
    with DuckDBEngine() as engine:
        before = {r["name"] for r in engine.fetch("SELECT table_name AS name FROM "
                                                  "information_schema.tables")}
        with abcde.Comparison(*INPUTS.values(), engine=engine) as c:
            c.impact()
        after = {r["name"] for r in engine.fetch("SELECT table_name AS name FROM "
                                                 "information_schema.tables")}
        assert not engine.closed
        # the round's cells are dropped with the comparison; the pipeline's own work
        # tables stay, as a flat function's do on a caller's engine
        assert not any(t.startswith("abcde_") and t.endswith(("_cell_rows", "_cells"))
                       and t not in before for t in after if "_impact_" not in t)


def test_without_with_each_method_opens_and_closes_its_engine() -> None:
    c = abcde.Comparison(*INPUTS.values())
    assert close(c.impact().overall, abcde.impact(*INPUTS.values()).overall)
    assert not c.session.is_open


def test_a_bad_engine_is_refused_when_the_comparison_is_made() -> None:
    for make, option in (
            (lambda: abcde.Comparison(*INPUTS.values(), engine="sqlite"), "engine"),
            (lambda: abcde.EngineConfig("duckdb", threads=0), "--threads"),
            (lambda: abcde.impact(*INPUTS.values(), engine="spark", db="x.duckdb"), "--db"),
            (lambda: abcde.impact(*INPUTS.values(), engine=object()), "engine")):
        with pytest.raises(abcde.InputError) as err:
            make()
        assert err.value.option == option


def test_a_method_checks_its_options() -> None:
    c = abcde.Comparison(*INPUTS.values())
    for call, option in ((lambda: c.impact(top=-1), "top"),
                         (lambda: c.sample_items(0), "size"),
                         (lambda: c.sample_pairs(10, seed=-1), "seed"),
                         (lambda: c.sample_pairs(1, strata_allocation="equal"), "budget"),
                         (lambda: c.sample_pairs(10, population="abcde", alpha=0.5), "alpha")):
        with pytest.raises(abcde.InputError) as err:
            call()
        assert err.value.option == option
