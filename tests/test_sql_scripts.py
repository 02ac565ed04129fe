"""`abcde sql impact`: golden SQL per dialect and step, static checks for the two
warehouses that cannot run here (Snowflake: sqlglot re-parse + the ENGINES.md traps;
BigQuery: the GoogleSQL analyzer from PyPI `zetasql`), and the script itself executed
on DuckDB, PostgreSQL and Spark, equal to `abcde impact` (1e-12 relative)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from click.testing import CliRunner
from conftest import unavailable
from sqlglot import exp

from abcde.cli import main
from abcde.dialects import DIALECTS
from abcde.engines import Engine
from abcde.impact import impact
from abcde.scripts import ScriptSpec, impact_pipeline

GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(GOLDEN))
from regenerate import SPEC, golden_files  # noqa: E402


def test_golden_sql_is_current() -> None:
    """Templates or dialects changed without `make golden`: review the diff, regenerate."""
    want = golden_files()
    on_disk = {p.relative_to(GOLDEN): p.read_text() for d in DIALECTS
               for p in sorted((GOLDEN / d).glob("*.sql"))}
    assert sorted(on_disk) == sorted(want), "run `make golden`"
    for rel, text in want.items():
        assert on_disk[rel] == text, f"{rel} is stale: run `make golden` and review the diff"


def _statements(dialect: str) -> list[str]:
    return [s.strip() for text in golden_files().values() if text
            for s in text.split(";\n") if s.strip()] if dialect == "all" else [
        s.strip() for rel, text in golden_files().items() if rel.parts[0] == dialect
        for s in text.split(";\n") if s.strip().rstrip(";")]


def _is_double_cast(node: exp.Expression) -> bool:
    if isinstance(node, exp.Nullif):
        node = node.this
    return isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.DOUBLE


@pytest.mark.parametrize("dialect", DIALECTS)
def test_sql_reparses_and_avoids_every_trap(dialect: str) -> None:
    """Each statement re-parses in its own dialect (for Snowflake: sqlglot's Snowflake
    parser), and none holds a trap of ENGINES.md."""
    statements = _statements(dialect)
    assert statements
    for sql in statements:
        tree = sqlglot.parse_one(sql.rstrip(";"), read=dialect)
        assert not list(tree.find_all(exp.Rand)), "engine RANDOM()"
        assert not list(tree.find_all(exp.Log)), "LOG (log10 or ln depending on engine)"
        assert not list(tree.find_all(exp.IntDiv)), "integer division"
        assert not list(tree.find_all(exp.TableSample)), "TABLESAMPLE"
        for div in tree.find_all(exp.Div):
            assert _is_double_cast(div.this) and _is_double_cast(div.expression), \
                f"division with an operand not cast to DOUBLE: {div.sql(dialect)}"
        for create in tree.find_all(exp.Create):
            assert not create.args.get("replace"), "CREATE OR REPLACE"
        for select in tree.find_all(exp.Select):
            if select.args.get("qualify"):
                assert not any(isinstance(e, exp.Star) for e in select.expressions), \
                    "SELECT * with QUALIFY"
        names = {f.sql_name().upper() for f in tree.find_all(exp.Func)}
        names |= {f.name.upper() for f in tree.find_all(exp.Anonymous)}
        for bad in ("HASH", "ANY_VALUE", "MEDIAN", "LGAMMA", "RANDOM", "RAND", "LOG",
                    "ABCDE_FDIV", "ABCDE_LN", "ABCDE_UNIFORM", "ABCDE_IS_FINITE"):
            assert bad not in names, bad
        assert "UBIGINT" not in sql.upper() and "HUGEINT" not in sql.upper()


def test_snowflake_names_fold_like_unquoted_names() -> None:
    """Snowflake matches quoted names exactly: lower-case names are written unquoted."""
    text = "".join(t for r, t in golden_files().items() if r.parts[0] == "snowflake")
    assert '"item_id"' not in text and "proj.ds.base" in text


@pytest.fixture(scope="module")
def zetasql_analyzer() -> Any:
    try:
        from zetasql.api import Analyzer  # noqa: F401
    except ImportError:
        unavailable("zetasql is not installed (pip install zetasql; part of abcde[dev])")
    return _bigquery_analyzer


def _bigquery_analyzer() -> tuple[Any, Any]:
    from zetasql.api import Analyzer, CatalogBuilder, TableBuilder
    from zetasql.types import (
        AnalyzerOptions,
        LanguageOptions,
        SimpleCatalog,
        TypeKind,
        ZetaSQLBuiltinFunctionOptions,
    )
    from zetasql.types.proto_model import ProductMode

    language = LanguageOptions.maximum_features()
    language.product_mode = ProductMode.PRODUCT_EXTERNAL
    s, f = TypeKind.TYPE_STRING, TypeKind.TYPE_DOUBLE
    declared = {"proj.ds.base": [("item_id", s), ("cluster_id", s)],
                "proj.ds.exp": [("item_id", s), ("cluster_id", s)],
                "proj.ds.weights": [("item_id", s), ("weight", f)],
                "proj.ds.attributes": [("item_id", s), ("provenance", s),
                                       ("size_class", s)]}
    return language, (Analyzer, CatalogBuilder, TableBuilder, AnalyzerOptions,
                      ZetaSQLBuiltinFunctionOptions, SimpleCatalog, declared)


@pytest.mark.slow
def test_bigquery_sql_passes_the_googlesql_analyzer(zetasql_analyzer: Any) -> None:
    """Every statement of the BigQuery script resolves in GoogleSQL's analyzer (external
    product mode) with the input tables declared; each created table is added to the
    catalog with the columns the analyzer resolved. Unknown functions, bad types and
    unknown columns fail here. (~40 s: the analyzer is WebAssembly.)"""
    language, (Analyzer, CatalogBuilder, TableBuilder, AnalyzerOptions, FnOptions,
               SimpleCatalog, declared) = zetasql_analyzer()
    tables = {name: list(cols) for name, cols in declared.items()}

    def analyzer() -> Any:
        """Tables proj.ds.t as table t of catalog ds inside catalog proj (the path
        `proj`.`ds`.`t` resolves through nested catalogs)."""
        dataset = CatalogBuilder("ds")
        for name, cols in tables.items():
            table = TableBuilder(name.split(".")[-1])
            for col, kind in cols:
                table.add_column(col, kind)
            dataset.add_table(table.build())
        project = SimpleCatalog(name="proj", catalog=[dataset.build()])
        root = CatalogBuilder("bigquery").with_builtin_functions(
            FnOptions(language_options=language)).build()
        root.catalog.append(project)
        return Analyzer(AnalyzerOptions(language_options=language), root)

    statements = _statements("bigquery")
    for sql in statements:
        stmt = analyzer().analyze_statement(sql.rstrip(";"))
        kind = type(stmt).__name__
        if kind == "ResolvedCreateTableAsSelectStmt":
            name = ".".join(stmt.name_path)
            tables[name] = [(c.name, c.type) for c in stmt.column_definition_list]
        else:
            assert kind == "ResolvedDropStmt", kind
    assert "proj.ds.abcde_overall" in tables


def test_cli_writes_a_script_with_its_header(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["sql", "impact", "--dialect", "bigquery", "--base", "b",
                                  "--exp", "e"])
    assert result.exit_code != 0 and "--schema" in result.output
    result = runner.invoke(main, ["sql", "impact", "--dialect", "snowflake", "--base",
                                  "db.s.base", "--exp", "db.s.exp", "--weights", "db.s.w",
                                  "--prefix", "run1_", "--schema", "db.out",
                                  "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "impact.sql").read_text()
    head = text.split("\n\n")[0]
    for needle in ("abcde 0.1.0", "db.s.base", "db.s.w", "db.out.run1_overall",
                   "input_valid", "item ids string"):
        assert needle in head, needle
    assert "CREATE OR REPLACE" not in text


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-12)  # type: ignore[arg-type]
    return a == b


def test_script_runs_on_real_engines_and_equals_impact(engine: Engine, tmp_path: Path) -> None:
    """The script, statement by statement, on DuckDB, PostgreSQL and Spark, over input
    tables of the engine: its tables equal `abcde impact` (DuckDB, files) to 1e-12."""
    for role in ("base", "exp", "weights", "attributes"):
        ids = ["item_id", "cluster_id"] if role in ("base", "exp") else ["item_id"]
        engine.register_file(f"in_{role}", EXAMPLES / f"{role}.csv", "csv", ids)
    spec = ScriptSpec("in_base", "in_exp", "in_weights", "in_attributes",
                      [["provenance"]], prefix="script_", schema=engine.work_schema)
    pipeline, _, _ = impact_pipeline(spec)
    for _, sql in pipeline.statements(engine.dialect):
        engine.execute(sql)
    want = impact(EXAMPLES / "base.csv", EXAMPLES / "exp.csv", EXAMPLES / "weights.csv",
                  attributes=EXAMPLES / "attributes.csv", slice_by="provenance", top=10_000)

    def rows(step: str) -> list[dict[str, Any]]:
        return engine.fetch(f"SELECT * FROM {pipeline.physical_name(step)}")

    [validation] = rows("validation")
    assert validation["input_valid"] is True and validation["input_problems"] == 0
    [overall] = rows("overall")
    for k, v in want.overall.items():
        assert _close(overall[k], v), k
    got = {r["cluster_id"]: r for r in rows("base_clusters")}
    assert len(got) == len({r["cluster_id"] for r in rows("base_clusters")})
    for r in want.top_base_clusters:
        for k, v in r.items():
            assert _close(got[r["cluster_id"]][k], v), (r["cluster_id"], k)
    got = {r["provenance"]: r for r in rows("slices_0")}
    for r in want.slices[0]["rows"]:
        for k, v in r.items():
            assert _close(got[r["provenance"]][k], v), (r["provenance"], k)
    assert all(r["input_valid"] is True for r in rows("coverage"))


def test_script_flags_invalid_input(tmp_path: Path) -> None:
    """Repeated ids, a bad weight, a NULL cluster: counted, and input_valid is FALSE in
    every output table (DuckDB)."""
    from abcde.engines.duckdb import DuckDBEngine

    with DuckDBEngine() as eng:
        eng.register_rows("b", ["item_id", "cluster_id"], [("a", "1"), ("a", "2"),
                                                            ("c", None), ("d", "3")])
        eng.register_rows("e", ["item_id", "cluster_id"], [("a", "1"), ("c", "1"),
                                                            ("d", "3")])
        eng.register_rows("w", ["item_id", "weight"], [("a", 1.0), ("c", -1.0), ("d", 2.0)])
        spec = ScriptSpec("b", "e", "w")
        pipeline, _, outputs = impact_pipeline(spec)
        for _, sql in pipeline.statements("duckdb"):
            eng.execute(sql)
        [v] = eng.fetch(f"SELECT * FROM {pipeline.physical_name('validation')}")
        assert v["repeated_item_ids"] == 1 and v["bad_weight_weights"] == 1
        assert v["null_cluster_base"] == 1 and v["input_problems"] == 3
        assert v["input_valid"] is False and v["bad_weight_weights_example"] == "c"
        for o in outputs:
            flags = eng.fetch(f"SELECT DISTINCT input_valid FROM "
                              f"{pipeline.physical_name(o.step)}")
            assert flags in ([{"input_valid": False}], []), o.step


def test_spec_from_regenerate_is_the_documented_one() -> None:
    assert SPEC.schema == "proj.ds" and SPEC.slice_by[0] == ["provenance"]
    assert isinstance(SPEC, ScriptSpec)
