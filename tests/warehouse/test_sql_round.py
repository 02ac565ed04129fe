"""A judgement round as warehouse SQL (`abcde sql sample-items`, `abcde sql evaluate`, the
round's shared cells): the scripts executed statement by statement on DuckDB,
PostgreSQL and Spark over input tables of the engine, compared with the engines' own
path (`abcde.sample_items`, `abcde.evaluate` on DuckDB over the files) — the same items,
draw counts and order (docs/method.md §7.2), the same metrics to 1e-12 relative — and
the validation row that refuses cells made from other inputs."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import make_engine

import abcde
from abcde.engines import Engine
from abcde.sql.dialects import to_sql
from abcde.sql.pipeline import Pipeline
from abcde.warehouse.evaluation import evaluate_pipelines
from abcde.warehouse.sampling import sample_items_pipeline
from abcde.warehouse.scripts import ScriptSpec, impact_pipeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = {role: EXAMPLES / f"{role}.csv" for role in
         ("base", "exp", "weights", "attributes", "truth")}


def register(engine: Engine, *roles: str) -> None:
    for role in roles:
        ids = ["item_id", "cluster_id"] if role in ("base", "exp", "truth") else ["item_id"]
        engine.register_file(f"in_{role}", FILES[role], "csv", ids)


def run(engine: Engine, pipeline: Pipeline) -> None:
    for _, sql in pipeline.statements(engine.dialect):
        engine.execute(sql)


def rows(engine: Engine, pipeline: Pipeline, step: str, order: str | None = None,
         ) -> list[dict[str, Any]]:
    sql = f"SELECT * FROM {to_sql(pipeline.table(step), engine.dialect)}"
    return engine.fetch(sql + (f" ORDER BY {order}" if order else ""))


def close(a: object, b: object, rel: float = 1e-12) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-300)  # type: ignore[arg-type]
    return a == b


def spec(engine: Engine, **kw: Any) -> ScriptSpec:
    return ScriptSpec(**{"base": "in_base", "exp": "in_exp", "weights": "in_weights",
                         "attributes": "in_attributes", "slicings": (("provenance",),),
                         "prefix": "r_", "schema": engine.work_schema, **kw})


def test_item_sample_script_equals_sample_items(engine: Engine) -> None:
    """The script's sample on DuckDB, PostgreSQL and Spark equals `abcde.sample_items` on
    DuckDB: the same items in the same order of first draw, the same draw counts, the
    importance weights and metrics to 1e-12, the same manifest and sample id."""
    register(engine, "base", "exp", "weights", "attributes")
    pipeline, _, _ = sample_items_pipeline(spec(engine), 300, 11)
    run(engine, pipeline)
    want = abcde.sample_items(FILES["base"], FILES["exp"], FILES["weights"],
                              attributes=FILES["attributes"], size=300, seed=11)
    got = rows(engine, pipeline, "item_sample", "first_draw")
    assert [r["item_id"] for r in got] == [r["item_id"] for r in want.rows]
    assert [r["draw_count"] for r in got] == [r["draw_count"] for r in want.rows]
    assert [r["first_draw"] for r in got] == list(range(1, 301))
    for g, w in zip(got, want.rows, strict=True):
        assert g["input_valid"] is True
        for k in ("importance_weight", "jaccard_distance", "weight", "provenance",
                  "base_cluster"):
            assert close(g[k], w[k]), k
    [m] = rows(engine, pipeline, "item_manifest")
    assert m["sample_id"] == want.manifest["sample_id"]
    assert m["draws"] == want.manifest["draws"] and m["unique_items"] == 300
    assert m["input_valid"] is True
    for k, v in want.manifest["metrics"].items():
        assert close(m[k], v), k


def test_scripts_of_a_round_share_the_cells_and_refuse_other_inputs(engine: Engine) -> None:
    """impact builds the round's cells; sample-items with --reuse-cells creates no cell
    table, reads them (cells_match 1) and draws the sample of a script that builds its
    own. Cells of other inputs (a Base with one row changed) give cells_match 0 and
    input_valid FALSE in every output of the reusing script."""
    register(engine, "base", "exp", "weights", "attributes")
    first, _, _ = impact_pipeline(spec(engine))
    run(engine, first)
    reuse, _, _ = sample_items_pipeline(spec(engine, reuse_cells=True), 50, 3)
    made = [name for name, _ in reuse.statements(engine.dialect)]
    assert not {"cell_rows", "cells", "cell_metrics", "validation"} & set(made)
    run(engine, reuse)
    [v] = rows(engine, reuse, "item_validation")
    assert v["cells_match"] == 1 and v["input_valid"] is True and v["input_problems"] == 0
    alone, _, _ = sample_items_pipeline(spec(engine, prefix="alone_"), 50, 3)
    run(engine, alone)
    assert ([(r["item_id"], r["draw_count"]) for r in rows(engine, reuse, "item_sample",
                                                             "first_draw")]
            == [(r["item_id"], r["draw_count"]) for r in rows(engine, alone, "item_sample",
                                                               "first_draw")])
    changed = [line for line in FILES["base"].read_text().splitlines()]
    changed[1] = changed[1].rsplit(",", 1)[0] + ",moved"
    engine.register_rows("in_base_changed", ["item_id", "cluster_id"],
                         [tuple(line.split(",")) for line in changed[1:]])
    other, _, _ = sample_items_pipeline(spec(engine, base="in_base_changed",
                                             reuse_cells=True), 50, 3)
    run(engine, other)
    [v] = rows(engine, other, "item_validation")
    assert v["cells_match"] == 0 and v["input_valid"] is False and v["input_problems"] == 1
    assert {r["input_valid"] for r in rows(engine, other, "item_sample")} == {False}
    assert {r["input_valid"] for r in rows(engine, other, "item_manifest")} == {False}


def test_evaluate_script_equals_evaluate(engine: Engine) -> None:
    """The evaluation script of two runs on DuckDB, PostgreSQL and Spark: per run the
    pointwise overall, classic and Yandex metrics, every truth cluster and slice equal
    `abcde.evaluate` (DuckDB, files) to 1e-12 relative."""
    register(engine, "truth", "base", "exp", "weights", "attributes")
    s = spec(engine, base="in_truth", exp="")
    parts = evaluate_pipelines(s, [("b", "in_base"), ("e", "in_exp")])
    for _, pipeline, _ in parts:
        run(engine, pipeline)
    want = abcde.evaluate(FILES["truth"], [FILES["base"], FILES["exp"]], FILES["weights"],
                          names=["b", "e"], attributes=FILES["attributes"],
                          slice_by="provenance")
    for name, pipeline, outputs in parts:
        assert [o.step for o in outputs][:2] == ["validation", "overall"]
        run_want = want.run(name)
        [overall] = rows(engine, pipeline, "overall")
        assert overall["input_valid"] is True
        for k, v in run_want.overall.items():
            assert close(overall[k], v), (name, k)
        [classic] = rows(engine, pipeline, "classic")
        for k, v in run_want.classic.items():
            assert close(classic[k], v, 1e-9), (name, k)
        [yandex] = rows(engine, pipeline, "yandex")
        for kind, metrics in run_want.yandex.items():
            if isinstance(metrics, dict):
                for m, v in metrics.items():
                    assert close(yandex[f"{m}_{kind}"], v), (name, kind, m)
        got = {r["cluster_id"]: r for r in rows(engine, pipeline, "truth_clusters")}
        assert set(got) == set(run_want.cases)
        for case, metrics in run_want.cases.items():
            for m, v in metrics.items():
                assert close(got[case][m], v), (name, case, m)
        got = {r["provenance"]: r for r in rows(engine, pipeline, "slices_0")}
        for r in run_want.slices[0]["rows"]:
            for k, v in r.items():
                if v is not None:
                    assert close(got[r["provenance"]][k], v), (name, k)


@pytest.mark.parametrize("option", ["--actual", "--truth"])
def test_evaluate_script_names(option: str) -> None:
    from click.testing import CliRunner

    from abcde.cli import main

    args = {"--truth": "s.truth", "--actual": "s.run-1"} if option == "--actual" else \
        {"--truth": "s.t", "--actual": "a=s.x"}
    result = CliRunner().invoke(main, ["sql", "evaluate", "--dialect", "duckdb",
                                       *(w for k, v in args.items() for w in (k, v))])
    if option == "--actual":
        assert result.exit_code == 2 and "run name 'run-1'" in result.output
    else:
        assert result.exit_code == 0 and '"abcde_a_overall"' in result.output


def _pair_rows(engine: Engine, pipeline: Pipeline) -> list[tuple[Any, ...]]:
    return [(r["pair_id"], r["item_i"], r["item_j"], r["pair_class"], r["draw_count"],
             r["first_draw"]) for r in rows(engine, pipeline, "pair_sample",
                                            "pair_id, first_draw")]


@pytest.mark.parametrize("population", ["abcde", "jaccard"])
def test_pair_sample_script_equals_sample_pairs(engine: Engine, population: str) -> None:
    """The script's pair sample on DuckDB, PostgreSQL and Spark equals
    `abcde.sample_pairs` on DuckDB: the same pairs, classes, draw counts and draw order
    (first draws); the kept prefix ends where the engine's budget fill stops, inside a
    stream of 10·budget draws; the manifest's totals and counts are the engine's."""
    from abcde.warehouse.sampling import sample_pairs_pipeline

    register(engine, "base", "exp", "weights", "attributes")
    pipeline, _, _ = sample_pairs_pipeline(spec(engine), population, 80, 5)
    run(engine, pipeline)
    want = abcde.sample_pairs(FILES["base"], FILES["exp"], FILES["weights"],
                              attributes=FILES["attributes"], population=population,
                              budget=80, seed=5, slice_by="provenance")
    assert _pair_rows(engine, pipeline) == [
        (r["pair_id"], r["item_i"], r["item_j"], r["pair_class"], r["draw_count"],
         r["first_draw"]) for r in want.draws]
    [m] = rows(engine, pipeline, "pair_manifest")
    assert m["budget_filled"] is True and m["input_valid"] is True
    assert m["pairs_judgeable"] == 80 == want.manifest["pairs"]["judgeable"]
    for k, v in want.manifest["totals"].items():
        assert close(m[f"totals_{k}"], v), k
    for c, v in want.manifest["population_pairs"].items():
        assert m[f"population_pairs_{c}"] == v, c
    questions = rows(engine, pipeline, "pair_questions", "pair_id")
    assert [(q["pair_id"], q["item_1"], q["item_2"]) for q in questions] == \
        [(q["pair_id"], q["item_1"], q["item_2"]) for q in want.questions]
    assert {q["sample_id"] for q in questions} == {m["sample_id"]}
    slices = {r["provenance"]: r for r in rows(engine, pipeline, "pair_slices")}
    for r in want.manifest["slices"]:
        assert close(slices[r["provenance"]]["pairweight"], r["pairweight"])


def test_a_short_stream_says_so_and_a_longer_one_extends_it() -> None:
    """A stream too short for the budget keeps every draw with budget_filled FALSE; the
    same seed with a longer stream fills it, and its sample starts with the short one's
    draws (draw numbers key the uniforms: a longer stream extends a shorter one)."""
    from abcde.engines.duckdb import DuckDBEngine
    from abcde.warehouse.sampling import sample_pairs_pipeline

    with DuckDBEngine() as eng:
        register(eng, "base", "exp", "weights")
        s = spec(eng, attributes=None, slicings=())
        short, _, _ = sample_pairs_pipeline(s, "abcde", 300, 2, stream_draws=300)
        run(eng, short)
        [m] = rows(eng, short, "pair_manifest")
        assert m["budget_filled"] is False and m["judgeable_found"] < 300
        assert m["stream_draws"] == 300 and m["draws"] == 300
        assert "--stream-draws" in m["fill_note"] and m["budget_possible"] is True
        first = {(r[1], r[2]): r[5] for r in _pair_rows(eng, short)}
        long, _, _ = sample_pairs_pipeline(replace(s, prefix="long_"), "abcde", 300, 2)
        run(eng, long)
        [m] = rows(eng, long, "pair_manifest")
        assert m["budget_filled"] is True and m["pairs_judgeable"] == 300
        later = {(r[1], r[2]): r[5] for r in _pair_rows(eng, long)}
        assert all(later[k] == v for k, v in first.items())


def test_estimate_reads_a_warehouse_sample(tmp_path: Path) -> None:
    """`abcde estimate` on the script's tables — exported as Parquet and CSV files, or
    read from the DuckDB database — gives the estimates of the same sample made by
    `abcde sample-pairs` (judged by the same truth)."""
    import duckdb
    from click.testing import CliRunner

    from abcde.cli import main
    from abcde.warehouse.sampling import sample_pairs_pipeline

    db = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(db))
    for role in ("base", "exp", "weights", "attributes"):
        types = "{'item_id': 'VARCHAR'" + (", 'cluster_id': 'VARCHAR'}" if role in
                                           ("base", "exp") else "}")
        con.execute(f"CREATE TABLE in_{role} AS SELECT * FROM read_csv('{FILES[role]}', "
                    f"header = true, types = {types})")
    s = ScriptSpec(base="in_base", exp="in_exp", weights="in_weights",
                   attributes="in_attributes", slicings=(("provenance",),), prefix="wh_")
    pipeline, _, _ = sample_pairs_pipeline(s, "jaccard", 150, 9)
    for _, sql in pipeline.statements("duckdb"):
        con.execute(sql)
    for fmt in ("parquet", "csv", "parts"):
        out = tmp_path / fmt
        out.mkdir()
        for table in ("pair_manifest", "pair_sample", "pair_slices", "pair_questions"):
            # parts: a directory of part files per table, as spark's .write.parquet
            target, options = ((out / (table + ".parquet"), "FORMAT parquet, PER_THREAD_OUTPUT")
                               if fmt == "parts" else (out / (table + "." + fmt), f"FORMAT {fmt}"))
            con.execute(f"COPY wh_{table} TO '{target}' ({options})")
    con.close()
    local = tmp_path / "local"
    abcde.sample_pairs(FILES["base"], FILES["exp"], FILES["weights"],
                       attributes=FILES["attributes"], population="jaccard", budget=150,
                       seed=9, slice_by="provenance", out=local)
    ideal = EXAMPLES / "ideal.csv"
    want = abcde.estimate(str(local), truth=str(ideal))
    runner = CliRunner()
    for args in ([str(tmp_path / "parquet")], [str(tmp_path / "csv")],
                 [str(tmp_path / "parts")], ["--db", str(db), "--sample-prefix", "wh_"]):
        result = runner.invoke(main, ["estimate", *args, "--truth", str(ideal),
                                      "--format", "json"])
        assert result.exit_code == 0, result.output
        got = json.loads(result.output)
        for k in ("delta_precision", "good_split_distance", "affected_bad_index"):
            assert close(got[k]["estimate"], want[k]["estimate"], 1e-9), (args, k)
            assert close(got[k]["se"], want[k]["se"], 1e-9), (args, k)
        # neither path orders the slices: compare them by slice
        by_slice = {json.dumps(s_["slice"], sort_keys=True): s_ for s_ in got["slices"]}
        assert len(by_slice) == len(want["slices"])
        for s_ in want["slices"]:
            g = by_slice[json.dumps(s_["slice"], sort_keys=True)]
            assert g["draws"] == s_["draws"]
            assert close(g["contribution"]["estimate"], s_["contribution"]["estimate"], 1e-9)


@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def table_engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """DuckDB and PostgreSQL (Spark reads its tables by the same `engine.fetch`, and its
    pair script costs minutes on a loaded machine: its sample is compared above)."""
    yield from make_engine(request, request.param)


def test_estimate_reads_the_tables_of_the_engine(table_engine: Engine,
                                                 request: pytest.FixtureRequest) -> None:
    """The script's pair sample left as tables of DuckDB or PostgreSQL is read in place
    (`load_tables(engine=...)`; on PostgreSQL also `abcde estimate --engine postgres
    --dsn`) and gives the estimates of the same sample made by `abcde sample-pairs`."""
    from click.testing import CliRunner

    from abcde.cli import main
    from abcde.quality.estimate import estimate, load_tables
    from abcde.warehouse.sampling import sample_pairs_pipeline

    register(table_engine, "base", "exp", "weights", "attributes")
    pipeline, _, _ = sample_pairs_pipeline(spec(table_engine, prefix="est_"), "jaccard", 120, 4)
    run(table_engine, pipeline)
    ideal = str(EXAMPLES / "ideal.csv")
    local = abcde.sample_pairs(FILES["base"], FILES["exp"], FILES["weights"],
                               attributes=FILES["attributes"], population="jaccard",
                               budget=120, seed=4, slice_by="provenance")
    want = estimate(local, truth=ideal)
    got = estimate(load_tables("est_", table_engine.work_schema, engine=table_engine), truth=ideal)
    for k in ("delta_precision", "good_split_distance", "affected_bad_index"):
        assert close(got[k]["estimate"], want[k]["estimate"], 1e-9), k
        assert close(got[k]["se"], want[k]["se"], 1e-9), k
    if table_engine.dialect.name == "postgres":
        args = ["estimate", "--engine", "postgres", "--dsn",
                request.getfixturevalue("postgres_dsn"), "--sample-prefix", "est_",
                "--truth", ideal, "--format", "json"]
        if table_engine.work_schema:
            args += ["--sample-schema", table_engine.work_schema]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        doc = json.loads(result.output)
        assert close(doc["delta_precision"]["estimate"], want["delta_precision"]["estimate"],
                     1e-9)


@pytest.mark.parametrize("args, message", [
    (["--engine", "postgres"], "--engine needs --sample-prefix"),
    (["--engine", "spark", "--dsn", "postgresql://x", "--sample-prefix", "a_"],
     "--dsn is for --engine postgres"),
    ([str(EXAMPLES), "--engine", "postgres", "--sample-prefix", "a_"],
     "got SAMPLE_DIR and --engine"),
    ([str(EXAMPLES), "--sample-prefix", "a_"], "go with --db or --engine"),
    ([], "give one of SAMPLE_DIR, --db or --engine"),
])
def test_estimate_names_where_the_sample_is_once(args: list[str], message: str) -> None:
    from click.testing import CliRunner

    from abcde.cli import main

    result = CliRunner().invoke(main, ["estimate", *args, "--truth",
                                       str(EXAMPLES / "ideal.csv")])
    assert result.exit_code == 2 and message in result.output, result.output


def test_header_shows_a_flag_as_its_name() -> None:
    """`--reuse-cells` is a flag: the header's command is the one typed, not
    `--reuse-cells True` (which would not run)."""
    from click.testing import CliRunner

    from abcde.cli import main

    result = CliRunner().invoke(main, ["sql", "sample-items", "--dialect", "duckdb", "--base",
                                       "s.a", "--exp", "s.b", "--reuse-cells"])
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.output.splitlines() if x.startswith("--   abcde sql")]
    assert line.endswith("--exp s.b --reuse-cells")


@pytest.mark.parametrize("args, message", [
    (["--population", "mixed"], "--population"),
    (["--stream-draws", "50"], "--stream-draws must be between 100"),
])
def test_sql_sample_pairs_refuses_bad_options(args: list[str], message: str) -> None:
    from click.testing import CliRunner

    from abcde.cli import main

    base = ["sql", "sample-pairs", "--dialect", "duckdb", "--base", "s.a", "--exp", "s.b",
            "--budget", "100"]
    result = CliRunner().invoke(main, [*base, *args])
    assert result.exit_code == 2 and message in result.output, result.output


def test_sql_sample_pairs_writes_the_script(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from abcde.cli import main

    result = CliRunner().invoke(main, [
        "sql", "sample-pairs", "--dialect", "snowflake", "--base", "db.s.a", "--exp",
        "db.s.b", "--budget", "100", "--reuse-cells", "--schema", "db.out",
        "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "sample_pairs.sql").read_text()
    [command] = [x for x in text.splitlines() if x.startswith("--   abcde sql")]
    assert "--budget 100" in command and "--reuse-cells" in command
    for table in ("pair_sample", "pair_manifest", "pair_questions", "pair_validation"):
        assert f"CREATE TABLE db.out.abcde_{table} AS" in text, table
