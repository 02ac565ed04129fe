"""`abcde dbt` writes a dbt package: its integration_tests/ project installs it
(`local: ../`), loads the example data as seeds and runs `dbt build` on dbt-duckdb and
on dbt-postgres (the test session's PostgreSQL); the tables equal `abcde impact`,
`abcde sample-items` and `abcde evaluate` on the same data; on invalid input the
validation test fails the build and the metric models are skipped.

dbt lives in its own virtualenv (tests/warehouse/venvs.py; $ABCDE_DBT_VENV): dbt pins
protobuf, click and Jinja to versions that clash with the dev tools (zetasql needs
protobuf 7), so it cannot share .venv. The first run installs it (~40 s); dbt-core stays
below 1.11, whose parser dependency downloads a binary from outside PyPI at install time.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest
from venvs import cached_venv

from abcde.cli import main
from abcde.impact.run import impact

DBT_PINS = ("dbt-core>=1.9,<1.11", "dbt-duckdb>=1.9,<1.11", "dbt-postgres>=1.9,<1.11")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROFILE = """abcde:
  target: test
  outputs:
    test:
      type: duckdb
      path: {path}
      schema: main
      threads: 2
"""


@pytest.fixture(scope="session")
def dbt_bin() -> Path:
    return cached_venv("dbt-venv", "ABCDE_DBT_VENV", DBT_PINS) / "bin" / "dbt"


def _database(path: Path, base: Path = EXAMPLES / "base.csv") -> None:
    con = duckdb.connect(str(path))
    for name, src in (("base", base), ("exp", EXAMPLES / "exp.csv"),
                      ("weights", EXAMPLES / "weights.csv"),
                      ("attributes", EXAMPLES / "attributes.csv")):
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_csv('{src}', header = true, "
                    "types = {'item_id': 'VARCHAR'})")
    con.close()


def _build(dbt_bin: Path, tmp_path: Path, db: Path) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    args = ["dbt", "--dialect", "duckdb", "--base", "main.base", "--exp", "main.exp",
            "--weights", "main.weights", "--attributes", "main.attributes",
            "--slice-by", "provenance", "--out", str(project)]
    from click.testing import CliRunner

    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    (project / "profiles.yml").write_text(PROFILE.format(path=db))
    return subprocess.run([str(dbt_bin), "build", "--project-dir", str(project),
                           "--profiles-dir", str(project)], capture_output=True, text=True,
                          timeout=600, cwd=project,
                          env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})


def _rows(con: duckdb.DuckDBPyConnection, table: str) -> list[dict[str, object]]:
    cur = con.execute(f"SELECT * FROM {table}")
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-12)  # type: ignore[arg-type]
    return a == b


def test_dbt_build_fails_on_invalid_input(dbt_bin: Path, tmp_path: Path) -> None:
    """A Base with a repeated item id: the validation test fails, metrics are skipped."""
    bad = tmp_path / "base.csv"
    lines = (EXAMPLES / "base.csv").read_text().splitlines()
    bad.write_text("\n".join([*lines, lines[1]]) + "\n")
    db = tmp_path / "warehouse.duckdb"
    _database(db, base=bad)
    run = _build(dbt_bin, tmp_path, db)
    assert run.returncode != 0
    assert "abcde_is_true_abcde_validation_input_valid" in run.stdout
    con = duckdb.connect(str(db), read_only=True)
    [validation] = _rows(con, "abcde_validation")
    assert validation["repeated_item_ids"] == 1 and validation["input_valid"] is False
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables"
                                        ).fetchall()}
    assert "abcde_overall" not in tables
    con.close()


def _dbt(tmp_path: Path, *args: str) -> object:
    from click.testing import CliRunner

    return CliRunner().invoke(main, ["dbt", "--base", "s.base", "--exp", "s.exp",
                                     "--out", str(tmp_path / "p"), *args])


def test_dbt_takes_the_schema_from_the_profile(tmp_path: Path) -> None:
    """No --schema needed, on BigQuery either; one given is refused, not ignored."""
    result = _dbt(tmp_path, "--dialect", "bigquery")
    assert result.exit_code == 0, result.output
    result = _dbt(tmp_path, "--dialect", "bigquery", "--schema", "proj.ds")
    assert result.exit_code == 2 and "profile" in result.output


@pytest.mark.parametrize("option", ["--cluster-col", "--base", "--prefix", "--slice-by"])
def test_dbt_refuses_jinja_in_names(tmp_path: Path, option: str) -> None:
    """dbt renders models and schema.yml as Jinja: `{{ 7*7 }}` would become 49."""
    result = _dbt(tmp_path, "--dialect", "duckdb", "--attributes", "s.a",
                  option, "cl{{ 7*7 }}")
    assert result.exit_code == 2, result.output
    assert "Jinja" in result.output and option in result.output
    assert not (tmp_path / "p").exists()


def test_an_edited_integration_profile_is_kept(tmp_path: Path) -> None:
    """integration_tests/profiles.yml is the user's connection once edited: writing the
    package again (other options, or --overwrite of a directory abcde did not write)
    keeps it byte for byte; a fresh package gets the example profile."""
    profiles = tmp_path / "p" / "integration_tests" / "profiles.yml"
    assert _dbt(tmp_path, "--dialect", "duckdb").exit_code == 0
    assert "type: duckdb" in profiles.read_text()
    mine = b"abcde:\n  target: prod\n  outputs: {prod: {type: snowflake}}  # mine\r\n"
    profiles.write_bytes(mine)
    result = _dbt(tmp_path, "--dialect", "snowflake", "--weights", "s.w")
    assert result.exit_code == 0, result.output
    assert profiles.read_bytes() == mine
    assert (tmp_path / "p" / "models" / "abcde_weights_in.sql").exists()  # rewritten
    (tmp_path / "p" / ".abcde-dbt.json").unlink()  # now a directory abcde did not write
    result = _dbt(tmp_path, "--dialect", "duckdb", "--overwrite")
    assert result.exit_code == 0, result.output
    assert profiles.read_bytes() == mine


@pytest.mark.parametrize(("args", "message", "example"), [
    (["--prefix", "my pre "], "--prefix 'my pre ': dbt names models", "--prefix my_pre_"),
    (["--prefix", "1x_"], "does not start with a digit", "--prefix p1x_"),
    (["--prefix", "a-b_"], "ASCII letters, digits and _", "--prefix a_b_"),
    (["--prefix", "", "--truth", "s.t", "--actual", "2024=s.r"],
     "run name '2024' starts with a digit", "--actual run_2024=s.r"),
    (["--prefix", "p" * 50 + "_", "--dialect", "postgres"],
     "PostgreSQL names are at most 63 bytes", "--prefix pppppppp")])
def test_dbt_refuses_names_its_macros_and_models_cannot_have(
        tmp_path: Path, args: list[str], message: str, example: str) -> None:
    """A model's macro is named <prefix><step>_sql and called from Jinja: 'my pre ' gave
    `{% macro my pre cells_sql() %}`, which dbt cannot parse; a table model longer
    than PostgreSQL's 63 bytes would be cut short. Refused, with the rule and a valid
    example."""
    result = _dbt(tmp_path, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and example in result.output
    assert not (tmp_path / "p").exists()


def test_dbt_takes_the_names_dbt_takes(tmp_path: Path) -> None:
    """Prefixes that make valid macro names pass, and every macro is named so."""
    for prefix in ("A_", "_x", "run2_", ""):
        result = _dbt(tmp_path, "--prefix", prefix, "--truth", "s.t", "--actual", "r1=s.r")
        assert result.exit_code == 0, result.output
        macros = (tmp_path / "p" / "macros" / "steps").iterdir()
        for text in (m.read_text() for m in macros):
            for name in re.findall(r"{% macro (.*?)\(\) %}", text):
                assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name), name


def test_dbt_spark_sources_have_no_database(tmp_path: Path) -> None:
    result = _dbt(tmp_path, "--dialect", "spark", "--weights", "cat.s.w")
    assert result.exit_code == 2 and "dbt-spark" in result.output and "s.w" in result.output
    result = _dbt(tmp_path, "--dialect", "spark", "--weights", "s.w")
    assert result.exit_code == 0, result.output
    assert "database" not in (tmp_path / "p" / "models" / "schema.yml").read_text()


def test_dbt_sources_are_quoted_like_script_names(tmp_path: Path) -> None:
    """Snowflake: lower case unquoted (its upper-case form), a reserved word as "ORDER",
    capitals quoted exactly; the same rule as `abcde sql`. The names are the defaults of
    the vars abcde_<role>_<part>."""
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["dbt", "--dialect", "snowflake", "--base", "db.s.base",
                                       "--exp", "db.S.order", "--out", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "p" / "models" / "schema.yml").read_text()
    base, exp = text.split("abcde_inputs_exp")
    assert "var('abcde_base_identifier')" in base and "identifier: false" in base
    assert "identifier: true" in exp and "schema: true" in exp and "database: false" in exp
    project = (tmp_path / "p" / "dbt_project.yml").read_text()
    assert 'abcde_exp_identifier: "ORDER"' in project and 'abcde_exp_schema: "S"' in project
    assert 'abcde_base_identifier: "base"' in project


def test_a_package_for_several_adapters_needs_one_quoting(tmp_path: Path) -> None:
    """A lower-case word is the same table unquoted on every adapter; a name Snowflake
    quotes otherwise than the others ("ORDER", capitals) asks for a package per warehouse."""
    result = _dbt(tmp_path, "--dialect", "duckdb", "--dialect", "snowflake")
    assert result.exit_code == 0, result.output
    result = _dbt(tmp_path, "--dialect", "duckdb", "--dialect", "snowflake", "--weights",
                  "s.Weights")
    assert result.exit_code == 0, result.output  # quoted exactly on both
    result = _dbt(tmp_path, "--dialect", "duckdb", "--dialect", "snowflake", "--weights",
                  "s.order")
    assert result.exit_code == 2 and "--dialect snowflake alone" in result.output


def _package(tmp_path: Path, *args: str) -> Path:
    """The package with every pipeline over the example tables, its seeds in place."""
    import shutil

    from click.testing import CliRunner

    out = tmp_path / "abcde_pkg"
    result = CliRunner().invoke(main, [
        "dbt", "--base", "base", "--exp", "exp", "--weights", "weights",
        "--attributes", "attributes", "--slice-by", "provenance", "--truth", "truth",
        "--actual", "b=base", "--actual", "e=exp", "--size", "300", "--seed", "11",
        "--budget", "80", "--pair-seed", "5",
        "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    for role in ("base", "exp", "weights", "attributes", "truth"):
        shutil.copy(EXAMPLES / f"{role}.csv", out / "integration_tests" / "seeds")
    return out / "integration_tests"


def _dbt_run(dbt_bin: Path, project: Path, env: dict[str, str], *args: str,
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(dbt_bin), *args, "--project-dir", str(project),
                           "--profiles-dir", str(project)], capture_output=True, text=True,
                          timeout=900, cwd=project,
                          env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", **env})


def _check_round(fetch: Any, size: int, seed: int, pair_seed: int) -> None:
    """The package's tables equal abcde on the example files: impact, the item sample
    (items, draw counts and order), the pair sample (pairs, draw counts and order) and
    the evaluation of both runs."""
    import abcde

    files = {r: EXAMPLES / f"{r}.csv" for r in ("base", "exp", "weights", "attributes",
                                                   "truth")}
    want = impact(files["base"], files["exp"], files["weights"],
                  attributes=files["attributes"], slice_by="provenance")
    [overall] = fetch("abcde_overall")
    assert overall["input_valid"] is True
    for k, v in want.overall.items():
        assert _close(overall[k], v), k
    slices = {r["provenance"]: r for r in fetch("abcde_slices_0")}
    assert len(slices) == len(want.slices[0]["rows"])
    for r in want.slices[0]["rows"]:
        for k, v in r.items():
            assert _close(slices[r["provenance"]][k], v), (r["provenance"], k)
    items = abcde.sample_items(files["base"], files["exp"], files["weights"],
                               attributes=files["attributes"], size=size, seed=seed)
    got = sorted(fetch("abcde_item_sample"), key=lambda r: r["first_draw"])
    assert [(r["item_id"], r["draw_count"]) for r in got] == [
        (r["item_id"], r["draw_count"]) for r in items.rows]
    for g, w in zip(got, items.rows, strict=True):
        assert _close(g["importance_weight"], w["importance_weight"])
    [m] = fetch("abcde_item_manifest")
    assert m["sample_id"] == items.manifest["sample_id"] and m["input_valid"] is True
    pairs = abcde.sample_pairs(files["base"], files["exp"], files["weights"],
                               attributes=files["attributes"], budget=80, seed=pair_seed,
                               slice_by="provenance")
    keys = ("pair_id", "item_i", "item_j", "pair_class", "draw_count", "first_draw")
    got = sorted(fetch("abcde_pair_sample"), key=lambda r: (r["pair_id"], r["first_draw"]))
    assert [tuple(r[k] for k in keys) for r in got] == \
        [tuple(r[k] for k in keys) for r in pairs.draws]
    [m] = fetch("abcde_pair_manifest")
    assert m["budget_filled"] is True and m["input_valid"] is True
    ev = abcde.evaluate(files["truth"], [files["base"], files["exp"]], files["weights"],
                        names=["b", "e"], attributes=files["attributes"],
                        slice_by="provenance")
    for name in ("b", "e"):
        [row] = fetch(f"abcde_{name}_overall")
        for k, v in ev.run(name).overall.items():
            assert _close(row[k], v), (name, k)


def _tables(manifest_path: Path) -> tuple[set[str], set[str], list[dict[str, Any]]]:
    """The package's table models: results, work tables (its own schema), all nodes."""
    manifest = json.loads(manifest_path.read_text())
    nodes = [n for n in manifest["nodes"].values() if n["resource_type"] == "model"
             and n["config"]["materialized"] == "table"]
    work = {n["name"] for n in nodes if n["config"].get("schema")}
    return {n["name"] for n in nodes} - work, work, nodes


def test_integration_tests_build_the_package_on_duckdb(dbt_bin: Path, tmp_path: Path) -> None:
    """integration_tests/ installs the package (`local: ../`) and a plain `dbt build` with
    the example profiles.yml on dbt-duckdb loads the seeds before the models that read
    them: every pipeline's tables equal abcde's; only the results are in the profile's
    schema, the work tables in <schema>_abcde_work; a pair sample short of its budget
    warns and does not fail; a var that is not an integer in range stops the compilation
    by name."""
    project = _package(tmp_path)
    db = tmp_path / "it.duckdb"
    env = {"ABCDE_DBT_DUCKDB": str(db)}
    for args in (["deps"], ["build"]):
        run = _dbt_run(dbt_bin, project, env, *args)
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "Deprecation" not in run.stdout and "Warning" not in run.stderr, run.stdout[-4000:]
    con = duckdb.connect(str(db))
    _check_round(lambda t: _rows(con, t), 300, 11, 5)
    results, work, nodes = _tables(project / "target" / "manifest.json")
    manifest = json.loads((project / "target" / "manifest.json").read_text())["nodes"]
    for role in ("base", "exp", "weights", "attributes"):  # read after the seed loads
        assert f"seed.abcde_integration_tests.{role}" in \
            manifest[f"model.abcde.abcde_{role}_in"]["depends_on"]["nodes"]
    assert {"abcde_overall", "abcde_item_sample", "abcde_pair_sample",
            "abcde_pair_manifest", "abcde_b_overall", "abcde_e_yandex"} <= results
    assert {"abcde_cell_rows", "abcde_cells", "abcde_pair_stream"} <= work
    schemas = {r[0]: r[1] for r in con.execute(
        "SELECT table_name, table_schema FROM information_schema.tables").fetchall()}
    assert {t: schemas[t] for t in results | work} == {
        **dict.fromkeys(results, "main"), **dict.fromkeys(work, "main_abcde_work")}
    for node in nodes:
        actual = [r[0] for r in con.execute(
            f"DESCRIBE {node['schema']}.{node['name']}").fetchall()]
        assert list(node["columns"]) == actual, node["name"]
        assert all(c["description"] for c in node["columns"].values()), node["name"]
    # a stream too short for the budget: the test on budget_filled warns
    con.execute("UPDATE abcde_pair_manifest SET budget_filled = FALSE")
    con.close()
    run = _dbt_run(dbt_bin, project, env, "test", "--select", "abcde_pair_manifest")
    assert run.returncode == 0, run.stdout[-4000:]
    assert re.search(r"WARN 1 abcde_is_true_abcde_pair_manifest_budget_filled", run.stdout), \
        run.stdout[-4000:]
    run = _dbt_run(dbt_bin, project, env, "compile", "--select", "abcde_item_clock",
                   "--vars", "{abcde_size: 2.5}")
    assert run.returncode != 0
    assert "var abcde_size must be an integer between 1 and 1000000000" in run.stdout


def test_integration_tests_build_the_package_on_postgres(dbt_bin: Path, tmp_path: Path,
                                                          postgres_dsn: str) -> None:
    """The same project on dbt-postgres against the test session's PostgreSQL: a plain
    `dbt build` on a fresh schema (seeds, then models), with the seed and size given as
    vars on the command line, gives the sample of that seed and size; the work tables
    are in abcde_it_abcde_work."""
    from urllib.parse import urlparse

    import psycopg

    with psycopg.connect(postgres_dsn, autocommit=True) as con:
        for schema in ("abcde_it", "abcde_it_abcde_work"):
            con.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    project = _package(tmp_path)
    url = urlparse(postgres_dsn)
    env = {"ABCDE_DBT_PG_HOST": url.hostname or "127.0.0.1", "ABCDE_DBT_PG_PORT": str(url.port),
           "ABCDE_DBT_PG_USER": url.username or "postgres", "ABCDE_DBT_PG_SCHEMA": "abcde_it"}
    for args in (["deps"], ["build", "--target", "postgres", "--vars",
                            "{abcde_size: 200, abcde_seed: 3, abcde_pair_seed: 8}"]):
        run = _dbt_run(dbt_bin, project, env, *args)
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    with psycopg.connect(postgres_dsn) as con:
        def fetch(table: str) -> list[dict[str, object]]:
            cur = con.execute(f"SELECT * FROM abcde_it.{table}")
            cols = [d[0] for d in cur.description]  # type: ignore[union-attr]
            return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

        _check_round(fetch, 200, 3, 8)
        results, work, _ = _tables(project / "target" / "manifest.json")
        schemas = dict(con.execute("SELECT table_name, table_schema FROM "
                                   "information_schema.tables WHERE table_schema LIKE "
                                   "'abcde_it%'").fetchall())
        assert {t: schemas[t] for t in results | work} == {
            **dict.fromkeys(results, "abcde_it"), **dict.fromkeys(work, "abcde_it_abcde_work")}


def test_dbt_build_with_a_quote_in_a_table_name(dbt_bin: Path, tmp_path: Path) -> None:
    """dbt's `quoting:` does not escape a '"' inside a name (issue 12): the source names
    it escaped, as `abcde sql` does, and `dbt build` gives `abcde impact`'s numbers."""
    db = tmp_path / "warehouse.duckdb"
    con = duckdb.connect(str(db))
    for name, src in (('"we""ird"', EXAMPLES / "base.csv"), ("exp", EXAMPLES / "exp.csv")):
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_csv('{src}', header = true, "
                    "types = {'item_id': 'VARCHAR'})")
    con.close()
    from click.testing import CliRunner

    project = tmp_path / "project"
    result = CliRunner().invoke(main, ["dbt", "--dialect", "duckdb", "--base", 'main.we"ird',
                                       "--exp", "main.exp", "--out", str(project)])
    assert result.exit_code == 0, result.output
    (project / "profiles.yml").write_text(PROFILE.format(path=db))
    run = subprocess.run([str(dbt_bin), "build", "--project-dir", str(project),
                          "--profiles-dir", str(project)], capture_output=True, text=True,
                         timeout=600, cwd=project,
                         env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    want = impact(EXAMPLES / "base.csv", EXAMPLES / "exp.csv").overall
    con = duckdb.connect(str(db), read_only=True)
    [overall] = _rows(con, "abcde_overall")
    con.close()
    for k, v in want.items():
        assert _close(overall[k], v), k
