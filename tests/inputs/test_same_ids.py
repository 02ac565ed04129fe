"""The inner join of `cell_rows` (abcde.cells.same_ids): taken only when Base and Exp
hold the same ids as many times each, none NULL — checked here against a count of the
ids by hand, on inputs with ids repeated, missing on one side and NULL — and then giving
exactly the rows of the FULL JOIN, on DuckDB and PostgreSQL (Spark keeps the FULL
JOIN). Inputs it must not take are still refused or reported as before."""

from __future__ import annotations

import csv
import logging
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from abcde.cells import _run_cell_rows, add_item_steps, same_ids
from abcde.engines import Engine
from abcde.engines.duckdb import DuckDBEngine
from abcde.errors import InputError
from abcde.impact.run import impact
from abcde.inputs.checks import add_input_counts
from abcde.inputs.session import Session
from abcde.inputs.spec import InputSpec
from abcde.sql.pipeline import Pipeline


def _write(path: Path, rows: list[tuple[Any, ...]], header: tuple[str, ...]) -> str:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(["" if v is None else v for v in r] for r in rows)
    return str(path)


def _decide(tmp_path: Path, base_ids: list[int | None], exp_ids: list[int | None]) -> bool:
    """same_ids of abcde's input_counts for clusterings with these item ids."""
    base = _write(tmp_path / "base.csv", [(i, k % 3) for k, i in enumerate(base_ids)],
                  ("item_id", "cluster_id"))
    exp = _write(tmp_path / "exp.csv", [(i, k % 2) for k, i in enumerate(exp_ids)],
                 ("item_id", "cluster_id"))
    with DuckDBEngine() as eng, Session(InputSpec.of(base, exp), eng).using() as (_, inputs):
        pipeline = Pipeline(prefix="t_", schema=eng.work_schema)
        add_item_steps(pipeline, inputs)
        add_input_counts(pipeline, inputs, id_sums=True)
        return same_ids(pipeline.fetch(eng, "input_counts"))


ids = st.lists(st.one_of(st.integers(1, 6), st.none()), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base_ids=ids, exp_ids=ids)
@example(base_ids=[1, 1, 2, 2], exp_ids=[1, 1, 3, 3])  # as many rows, same odd-count ids
@example(base_ids=[1, 2], exp_ids=[1, 1])  # the join has as many rows as either input
@example(base_ids=[1, 1], exp_ids=[1, 1])  # repeated alike: taken, refused later
@example(base_ids=[1, None], exp_ids=[1, None])
def test_inner_join_only_for_the_same_ids(tmp_path: Path, base_ids: list[int | None],
                                          exp_ids: list[int | None]) -> None:
    """Taken exactly when the multisets of ids are equal and hold no NULL (a hash
    collision, about 2^-64, aside)."""
    want = None not in base_ids and Counter(base_ids) == Counter(exp_ids)
    assert _decide(tmp_path, base_ids, exp_ids) == want


def _clean_case(seed: int, n: int = 300) -> dict[str, str | dict[Any, Any]]:
    """The same string ids on both sides; splits, merges and moves; weights over 12
    orders of magnitude; attributes with NULLs."""
    rng = random.Random(seed)
    base = {f"i{k:04d}": f"c{rng.randrange(n // 5)}" for k in range(n)}
    exp = {i: (f"x{c}" if rng.random() < 0.7 else f"x{rng.randrange(n // 7)}")
           for i, c in base.items()}
    weights = {i: 10 ** rng.uniform(-6, 6) for i in base}
    attributes = {i: {"region": rng.choice(["eu", "us", None]), "tier": rng.choice([1, 2])}
                  for i in base}
    return {"base": base, "exp": exp, "weights": weights, "attributes": attributes}


def _rows(engine: Engine, pipeline: Pipeline) -> list[tuple[Any, ...]]:
    rows = pipeline.fetch(engine, "cell_rows")
    cols = list(rows[0])
    out = [tuple(round(v, 9) if isinstance(v, float) else v for v in r.values())
           for r in rows]
    return [tuple(cols), *sorted(out, key=repr)]


@pytest.mark.parametrize("squares", [False, True])
def test_inner_join_gives_the_rows_of_the_full_join(engine: Engine, squares: bool,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """Every column and row of `cell_rows`, by the inner join and by the FULL JOIN: equal
    (sums to 9 digits: a parallel sum's last bits vary), with slices and Σw²."""
    case = _clean_case(4)
    spec = InputSpec.of(case["base"], case["exp"], case["weights"],
                        attributes=case["attributes"], slice_by=["region,tier"])
    with Session(spec, engine).using() as (eng, inputs):
        full = Pipeline(prefix="full_", schema=eng.work_schema)
        add_item_steps(full, inputs, squares=squares)
        full.run(eng, "cell_rows")
        inner = Pipeline(prefix="inner_", schema=eng.work_schema)
        add_item_steps(inner, inputs, squares=squares)
        with caplog.at_level(logging.INFO, logger="abcde"):
            _run_cell_rows(eng, inner, inputs)
        # DuckDB and PostgreSQL take the inner join; Spark keeps the FULL JOIN (its
        # dialect has no id_hash: docs/method.md §2.5)
        took = any("inner join" in r.getMessage() for r in caplog.records)
        assert took == (eng.dialect.id_hash is not None)
        assert _rows(eng, inner) == _rows(eng, full)
        assert inner.digest("cell_rows") == full.digest("cell_rows")  # a workspace key


def test_ids_repeated_alike_on_both_sides_are_still_refused(tmp_path: Path) -> None:
    """Repeated ids pass the multiset test; the checks after the join name them."""
    base = _write(tmp_path / "b.csv", [(1, "a"), (1, "a"), (2, "b")], ("item_id", "cluster_id"))
    exp = _write(tmp_path / "e.csv", [(1, "x"), (1, "x"), (2, "y")], ("item_id", "cluster_id"))
    with pytest.raises(InputError, match="appear on more than one row") as err:
        impact(base, exp)
    text = str(err.value)  # both clusterings named, with the id (read from CSV: text)
    assert "2 problems" in text and "b.csv" in text and "e.csv" in text
    assert text.count("'1' (2 rows)") == 2


def test_ids_outside_t_take_the_full_join_and_are_reported(tmp_path: Path) -> None:
    """An id in one clustering only: the FULL JOIN, and the coverage names it."""
    base = _write(tmp_path / "b.csv", [(1, "a"), (2, "a"), (3, "b")], ("item_id", "cluster_id"))
    exp = _write(tmp_path / "e.csv", [(1, "x"), (2, "y"), (4, "y")], ("item_id", "cluster_id"))
    cov = impact(base, exp).coverage
    assert (cov["only_in_base"]["examples"], cov["only_in_exp"]["examples"]) == (["3"], ["4"])
