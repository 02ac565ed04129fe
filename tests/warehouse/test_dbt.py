"""`abcde dbt` emits a dbt project that `dbt build` runs unchanged (dbt-core + dbt-duckdb
against the example data), and its tables equal `abcde impact`'s numbers (1e-12
relative); on invalid input the validation test fails the build and the metric models
are skipped.

dbt lives in its own virtualenv, cached at $ABCDE_DBT_VENV (default
~/.cache/abcde/dbt-venv): dbt pins protobuf, click and Jinja to versions that clash with
the dev tools (zetasql needs protobuf 7), so it cannot share .venv. The first run
installs it (~20 s); dbt-core stays below 1.11, whose parser dependency downloads a
binary from outside PyPI at install time.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from abcde.cli import main
from abcde.impact.run import impact

DBT_PINS = ("dbt-core>=1.9,<1.11", "dbt-duckdb>=1.9,<1.11")
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
    venv = Path(os.environ.get("ABCDE_DBT_VENV",
                               Path.home() / ".cache" / "abcde" / "dbt-venv"))
    dbt = venv / "bin" / "dbt"
    stamp = venv / (".installed-" + "-".join(DBT_PINS).replace("<", "lt").replace(">", "gt")
                    .replace("=", "").replace(",", "_"))
    if not stamp.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        result = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", *DBT_PINS],
                                capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            pytest.fail(f"cannot install dbt: {result.stderr[-2000:]}")
        stamp.touch()
    return dbt


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


def test_dbt_build_equals_abcde_impact(dbt_bin: Path, tmp_path: Path) -> None:
    """The tables equal `abcde impact`'s; dbt warns of no deprecation; every table model,
    work tables included, documents exactly the columns it has."""
    db = tmp_path / "warehouse.duckdb"
    _database(db)
    run = _build(dbt_bin, tmp_path, db)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "Deprecation" not in run.stdout, run.stdout[-4000:]

    want = impact(EXAMPLES / "base.csv", EXAMPLES / "exp.csv", EXAMPLES / "weights.csv",
                  attributes=EXAMPLES / "attributes.csv", slice_by="provenance",
                  out=tmp_path / "files", out_format="parquet")
    con = duckdb.connect(str(db), read_only=True)
    [overall] = _rows(con, "abcde_overall")
    assert overall["input_valid"] is True
    for k, v in want.overall.items():
        assert _close(overall[k], v), k
    for name in ("base_clusters", "exp_clusters"):
        got = {r["cluster_id"]: r for r in _rows(con, f"abcde_{name}")}
        files = {r["cluster_id"]: r for r in _rows(
            con, f"read_parquet('{want.files[name]}')")}
        assert set(got) == set(files), name
        for cid, row in files.items():
            for k, v in row.items():
                assert _close(got[cid][k], v), (name, cid, k)
    got = {r["provenance"]: r for r in _rows(con, "abcde_slices_0")}
    want_slices = {r["provenance"]: r for r in want.slices[0]["rows"]}
    assert set(got) == set(want_slices)
    for key, row in want_slices.items():
        for k, v in row.items():
            assert _close(got[key][k], v), (key, k)

    manifest = json.loads((tmp_path / "project" / "target" / "manifest.json").read_text())
    tables = [n for n in manifest["nodes"].values() if n["resource_type"] == "model"
              and n["config"]["materialized"] == "table"]
    assert {"abcde_cell_rows", "abcde_cell_metrics", "abcde_overall"} <= {
        n["name"] for n in tables}
    for node in tables:
        actual = [r[0] for r in con.execute(f"DESCRIBE {node['name']}").fetchall()]
        documented = list(node["columns"])
        assert documented == actual, node["name"]
        assert all(c["description"] for c in node["columns"].values()), node["name"]
    con.close()


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


def test_dbt_spark_sources_have_no_database(tmp_path: Path) -> None:
    result = _dbt(tmp_path, "--dialect", "spark", "--weights", "cat.s.w")
    assert result.exit_code == 2 and "dbt-spark" in result.output and "s.w" in result.output
    result = _dbt(tmp_path, "--dialect", "spark", "--weights", "s.w")
    assert result.exit_code == 0, result.output
    assert "database" not in (tmp_path / "p" / "models" / "schema.yml").read_text()


def test_dbt_sources_are_quoted_like_script_names(tmp_path: Path) -> None:
    """Snowflake: lower case unquoted (its upper-case form), a reserved word as "ORDER",
    capitals quoted exactly; the same rule as `abcde sql`."""
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["dbt", "--dialect", "snowflake", "--base", "db.s.base",
                                       "--exp", "db.S.order", "--out", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "p" / "models" / "schema.yml").read_text()
    base, exp = text.split("abcde_inputs_exp")
    assert 'identifier: "base"' in base and "identifier: false" in base
    assert '"S"' in exp and 'identifier: "ORDER"' in exp and "identifier: true" in exp
    assert "schema: true" in exp and "database: false" in exp


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
