"""No window whose input grows with the items, cells or strata runs in one partition
(issue 36: Spark moves such a window's rows to a single task, BigQuery to one worker):
every window without PARTITION BY, in every pipeline's SQL for every dialect, ranges over
a relation of O(buckets) or O(budget) rows, named here with why."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from abcde.sql.dialects import DIALECTS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "golden"))
from regenerate import written_files

SMALL = {
    "bucket_totals": "pairs/strata.sql: one row per bucket of strata (at most 256)",
    "bucket_stacked": "pairs/draw_strata.sql: the buckets' offsets and the draws",
    "bucket_pairs": "pairs/fill.sql: one row per bucket of draw numbers (at most 256)",
    "unordered": "pairs/sample.sql: the ordered pairs of the kept draws (O(budget))",
    "top_n": "sampling/clock.sql: the N smallest clock keys (O(size))",
}


def unpartitioned_sources(sql: str, dialect: str) -> Iterator[str]:
    """The relation each window without PARTITION BY of `sql` ranges over (the FROM of
    its SELECT, by name or alias; '?' when that is no single relation)."""
    for statement in sqlglot.parse(sql, read=dialect):
        for window in statement.find_all(exp.Window):
            if window.args.get("partition_by"):
                continue
            select = window.find_ancestor(exp.Select)
            source = select.args.get("from_") if select is not None else None
            if source is None or select.args.get("joins"):
                yield "?"
                continue
            table = source.this
            yield table.alias_or_name if isinstance(table, exp.Table) else table.alias or "?"


def script_statements() -> Iterator[tuple[str, str, str]]:
    for path, sql in written_files().items():
        yield path.parts[0], str(path), sql


def test_no_window_over_a_growing_table_runs_in_one_partition() -> None:
    """Every script (impact, sample-items, sample-pairs plain and stratified, evaluate),
    for every dialect, as `abcde sql` writes it (the golden files: test_golden_sql_is_current)."""
    seen = set()
    for dialect, where, sql in script_statements():
        for source in unpartitioned_sources(sql, dialect):
            assert source in SMALL, f"{where}: a window without PARTITION BY over {source}"
            seen.add(source)
    assert seen == set(SMALL) and {d for d, _, _ in script_statements()} == set(DIALECTS)


@pytest.fixture()
def executed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL the DuckDB engine runs (statements and queries)."""
    from abcde.engines.duckdb import DuckDBEngine

    seen: list[str] = []
    for name in ("execute", "fetch"):
        real = getattr(DuckDBEngine, name)

        def spy(self, sql, *args, _real=real, **kwargs):
            seen.append(sql)
            return _real(self, sql, *args, **kwargs)

        monkeypatch.setattr(DuckDBEngine, name, spy)
    return seen


def test_the_engines_runs_have_no_such_window_either(executed: list[str],
                                                     tmp_path: Path) -> None:
    """The engine route (its own steps: the budget fill's streams, the checks that run
    on failure such as validation/duplicates.sql) on DuckDB."""
    import abcde
    from abcde.errors import InputError

    base = {i: i // 3 for i in range(60)}
    exp_ = {i: (i // 2) % 17 for i in range(60)}
    attrs = {i: {"colour": "red" if i % 2 else "blue"} for i in range(60)}
    abcde.sample_pairs(base, exp_, attributes=attrs, slice_by="colour", budget=30, seed=2)
    abcde.sample_pairs_stratified(base, exp_, budget=30, seed=2)
    abcde.sample_items(base, exp_, size=20, seed=2)
    repeated = tmp_path / "base.csv"
    repeated.write_text("item_id,cluster_id\na,1\na,2\nb,1\n")
    with pytest.raises(InputError, match="more than one row"):
        abcde.impact(str(repeated), str(repeated))
    assert any("repeated_ids" in sql for sql in executed)
    for sql in executed:
        for source in unpartitioned_sources(sql, "duckdb"):
            assert source in SMALL, f"a window without PARTITION BY over {source}:\n{sql}"


def single_partition_inputs(spark: object, sql: str) -> list[tuple[str, int]]:
    """Run `sql` on Spark and return, for every operator of its executed physical plan
    (subqueries included) that needs all rows in one partition (AllTuples: a window
    without PARTITION BY, a global limit, an aggregate without GROUP BY), its name and
    the rows that reached it (the metrics of the nearest operator below that counts)."""
    qe = spark.sql(sql)._jdf.queryExecution()  # type: ignore[attr-defined]
    qe.toRdd().count()
    out, stack = [], [qe.executedPlan()]
    while stack:
        node = stack.pop()
        needs = node.requiredChildDistribution()
        if any(str(needs.apply(k)) == "AllTuples" for k in range(needs.size())):
            below = node.children().apply(0)
            while not any(below.metrics().get(m).isDefined()
                          for m in ("shuffleRecordsWritten", "numOutputRows")):
                below = below.children().apply(0)
            metric = next(below.metrics().get(m) for m in ("shuffleRecordsWritten",
                                                           "numOutputRows")
                          if below.metrics().get(m).isDefined())
            out.append((node.nodeName(), int(metric.get().value())))
        for seq in (node.children(), node.subqueries()):
            stack += [seq.apply(k) for k in range(seq.size())]
    return out


@pytest.mark.spark
def test_spark_plans_move_no_growing_table_to_one_partition(spark_session: object) -> None:
    """The samplers' steps on Spark (adaptive execution off, so that the plan run is the
    plan inspected): every operator that needs its input in one partition receives
    O(budget + buckets) rows — the draws, the kept pairs, the buckets, partial
    aggregates —, here at most 2·(draws + 256) with 6,000 strata (each Base cluster of 6
    items split into 3 cells of 2)."""
    from abcde.engines.spark import SparkEngine
    from abcde.inputs.session import open_inputs
    from abcde.inputs.spec import InputSpec
    from abcde.sampling.items import add_item_sample_steps, prepare_items
    from abcde.sampling.pairs import add_sample_steps, fill_budget, prepare
    from abcde.sql.dialects import to_sql

    base = {i: i // 6 for i in range(6_000)}
    exp_ = {i: i // 2 for i in range(6_000)}
    eng = SparkEngine(spark_session)
    spark_session.conf.set("spark.sql.adaptive.enabled", "false")  # type: ignore[attr-defined]
    try:
        inputs = open_inputs(eng, InputSpec(base, exp_))
        pipeline, _ = prepare(eng, inputs, "mixture")
        strata = pipeline.fetch(eng, "pair_totals")
        assert sum(int(r["strata"]) for r in strata) == 6_000
        p, n, _ = fill_budget(eng, pipeline, 20, seed=3)
        p.run(eng, *add_sample_steps(p, inputs, [], ["pair_kept"]))
        items = prepare_items(eng, inputs)
        items.run(eng, *add_item_sample_steps(items, inputs, 20, 3, []))
        steps = [(q, name) for q in (p, items) for name, step in q.steps.items()
                 if step.materialise and name in q.built and name not in q.provided]
        assert {"pair_strata", "pair_draw_strata", "pair_fill", "pair_kept", "item_clock"} <= {
            name for _, name in steps}
        for q, name in steps:
            seen = single_partition_inputs(spark_session, to_sql(q.query(name), "spark"))
            assert all(rows <= 2 * (n + 256) for _, rows in seen), (name, seen)
    finally:
        spark_session.conf.unset("spark.sql.adaptive.enabled")  # type: ignore[attr-defined]
        eng.close()
