"""`abcde sql`: golden SQL per dialect and step, static checks for the warehouses that
cannot run here (every statement re-parsed by sqlglot in its dialect and free of the engine
traps of docs/method.md §11; BigQuery's through GoogleSQL's analyzer from PyPI
`zetasql`), every template the product renders free of the traps in every dialect, and
the scripts executed on DuckDB, PostgreSQL and Spark, equal to `abcde impact` (1e-12
relative). The golden SQL is made once per session and each statement parsed once: the
golden, trap, Snowflake and analyzer tests share them."""

from __future__ import annotations

import csv
import functools
import hashlib
import math
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from click.testing import CliRunner
from conftest import make_engine, unavailable
from sqlglot import exp

import abcde
from abcde.cli import main
from abcde.engines import Engine
from abcde.errors import InputError, TemplateError
from abcde.impact.run import impact
from abcde.quality.exact import exact_quality
from abcde.sql import templates
from abcde.sql.dialects import (
    DIALECTS,
    SNOWFLAKE_RESERVED,
    get_dialect,
    identifier,
    to_sql,
)
from abcde.sql.pipeline import Pipeline
from abcde.warehouse.evaluation import evaluate_pipelines
from abcde.warehouse.sampling import sample_items_pipeline, sample_pairs_pipeline
from abcde.warehouse.scripts import ScriptSpec, comment, impact_pipeline, script_text

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(GOLDEN))
from regenerate import SPEC, golden_files, written_files  # noqa: E402


def test_golden_sql_is_current() -> None:
    """Templates or dialects changed without `make golden`: review the diff, regenerate."""
    want, on_disk = golden_files(), written_files()
    assert sorted(on_disk) == sorted(want), "run `make golden`"
    for rel, text in want.items():
        assert on_disk[rel] == text, f"{rel} is stale: run `make golden` and review the diff"


@functools.cache
def parsed(dialect: str) -> list[tuple[Path, str, exp.Expression]]:
    """(golden file, text, tree) of every statement of the golden scripts of `dialect`
    as on disk (test_golden_sql_is_current: they are current), in order, parsed once by
    sqlglot's parser of that dialect."""
    return [(rel, sql, sqlglot.parse_one(sql, read=dialect))
            for rel, text in written_files().items() if rel.parts[0] == dialect
            for sql in (s.strip().rstrip(";") for s in text.split(";\n")) if sql]


def _is_double_cast(node: exp.Expression) -> bool:
    if isinstance(node, exp.Nullif):
        node = node.this
    return isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.DOUBLE


def _function_names(tree: exp.Expression) -> set[str]:
    names = {f.sql_name().upper() for f in tree.find_all(exp.Func)}
    return names | {f.name.upper() for f in tree.find_all(exp.Anonymous)}


def assert_no_trap(tree: exp.Expression, sql: str, allow: frozenset[str] = frozenset()) -> None:
    """A statement `sql`, parsed in its own dialect (`tree`), holds none of the engine traps
    of docs/method.md §11 (but the functions `allow`)."""
    assert not list(tree.find_all(exp.Rand)), "engine RANDOM()"
    assert not list(tree.find_all(exp.Log)), "LOG (log10 or ln depending on engine)"
    assert not list(tree.find_all(exp.IntDiv)), "integer division"
    assert not list(tree.find_all(exp.TableSample)), "TABLESAMPLE"
    for div in tree.find_all(exp.Div):
        assert _is_double_cast(div.this) and _is_double_cast(div.expression), \
            f"division with an operand not cast to DOUBLE: {div.sql()}"
    for create in tree.find_all(exp.Create):
        assert not create.args.get("replace"), "CREATE OR REPLACE"
    for select in tree.find_all(exp.Select):
        if select.args.get("qualify"):
            assert not any(isinstance(e, exp.Star) for e in select.expressions), \
                "SELECT * with QUALIFY"
    names = _function_names(tree)
    for bad in ("HASH", "ANY_VALUE", "MEDIAN", "LGAMMA", "RANDOM", "RAND", "LOG",
                "ABCDE_FDIV", "ABCDE_LN", "ABCDE_UNIFORM", "ABCDE_IS_FINITE", "ABCDE_ID_HASH"):
        assert bad in allow or bad not in names, bad
    assert "UBIGINT" not in sql.upper() and "HUGEINT" not in sql.upper()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_sql_reparses_and_avoids_every_trap(dialect: str) -> None:
    """Each statement of every golden script re-parses in its dialect and is free of the
    traps."""
    statements = parsed(dialect)
    assert statements
    for rel, sql, tree in statements:
        try:
            assert_no_trap(tree, sql)
        except AssertionError as err:
            raise AssertionError(f"{rel}: {err}") from None


def _template_names() -> tuple[list[str], set[str]]:
    """Every template file, and those that are macro libraries (imported by others)."""
    root = templates.template_dir()
    names = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.sql"))
    imported = {m for n in names for m in re.findall(
        r"{%-?\s*(?:from|import)\s+'([^']+)'", (root / n).read_text())}
    return [n for n in names if n not in imported], imported


RENDERED_TEMPLATES, _MACRO_LIBRARIES = _template_names()  # libraries: in their importers
@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Every template as the product renders it: the real pipelines run on DuckDB over
    the example data (impact with and without weights, slices and files; the script;
    evaluate; item and pair samples, plain and stratified; refused input, which takes
    the validation's slow path; the scripts of a round: sample-items building and reusing
    the cells, sample-pairs likewise, evaluate), and each template's rendered text is kept."""
    captured: dict[str, list[str]] = defaultdict(list)
    real = templates.render_text

    def spy(name: str, **context: Any) -> str:
        text = real(name, **context)
        captured[name].append(text)
        return text

    tmp = tmp_path_factory.mktemp("rendered")
    b, e, w, a, truth = (str(EXAMPLES / f"{n}.csv")
                         for n in ("base", "exp", "weights", "attributes", "truth"))
    rows = list(csv.reader(open(b)))  # noqa: SIM115 - read at once
    repeated, bad_weight, extra_weight, text_weight = (
        tmp / f for f in ("rep.csv", "bad.csv", "x.csv", "text.csv"))
    csv.writer(repeated.open("w")).writerows([*rows, rows[1]])
    csv.writer(bad_weight.open("w")).writerows([["item_id", "weight"], [rows[1][0], "-1"]])
    extra_weight.write_text(Path(w).read_text() + "not_an_item,1.0\n")
    csv.writer(text_weight.open("w")).writerows([["item_id", "weight"], [rows[1][0], "heavy"]])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(templates, "render_text", spy)
        abcde.impact(b, e, str(extra_weight), attributes=a,
                     slice_by=["provenance", "provenance,size_class"], out=tmp / "impact")
        abcde.impact(b, e)
        impact_pipeline(ScriptSpec(base=b, exp=e, weights=w, attributes=a,
                                   slicings=(("provenance",),)))
        for reuse in (False, True):
            sample_items_pipeline(ScriptSpec(base=b, exp=e, weights=w, attributes=a,
                                             reuse_cells=reuse), 50, 3)
            sample_pairs_pipeline(ScriptSpec(base=b, exp=e, weights=w, attributes=a,
                                             slicings=(("provenance",), ("size_class",)),
                                             reuse_cells=reuse), "mixture", 50, 3)
            sample_pairs_pipeline(ScriptSpec(base=b, exp=e, weights=w, attributes=a,
                                             reuse_cells=reuse), "abcde", 50, 3,
                                  strata_allocation="proportional" if reuse else 0.7)
        evaluate_pipelines(ScriptSpec(base=truth, exp="", weights=w, attributes=a,
                                      slicings=(("provenance",),)), [("r", b)])
        abcde.evaluate(truth, [b, e], w, attributes=a, slice_by="provenance",
                       out=tmp / "evaluate")
        abcde.evaluate(truth, b, w)  # one run: the cases' F_α sweep in SQL
        designed = tmp / "designed.csv"  # a truth of complete clusters, its design a column
        designed.write_text("".join(f"{line.strip()},{'p' if k == 0 else 0.5}\n"
                                    for k, line in enumerate(Path(truth).read_text().splitlines())))
        abcde.evaluate(str(designed), [b, e], w, attributes=a, slice_by="provenance",
                       truth_sample="p")
        abcde.sample_items(b, e, w, attributes=a, size=50, seed=3)
        abcde.sample_pairs(b, e, w, attributes=a, budget=50, seed=3, slice_by="provenance")
        abcde.sample_pairs(b, e, w, budget=50, seed=3, population="jaccard")
        with pytest.raises(InputError, match="cost ceiling"):  # pairs/fits.sql
            abcde.sample_pairs(b, e, w, budget=200, seed=3, max_stream_draws=199)
        abcde.sample_pairs_stratified(b, e, w, attributes=a, budget=50, seed=3,
                                      slice_by="provenance")
        exact_quality(b, e, w, truth=truth)
        for args in ((str(repeated), e, None), (b, e, str(bad_weight)),
                     (b, e, str(text_weight))):
            with pytest.raises(InputError):
                abcde.impact(*args)
    # each distinct text once (the pipelines render many templates alike)
    return {name: list(dict.fromkeys(texts)) for name, texts in captured.items()}


@pytest.mark.parametrize(("template", "dialect"),
                         [(t, d) for t in RENDERED_TEMPLATES for d in DIALECTS])
def test_every_template_compiles_free_of_traps(rendered: dict[str, list[str]],
                                               template: str, dialect: str) -> None:
    """The engine traps of docs/method.md §11, for every template the product renders (not
    only the scripts): each distinct rendering the real pipelines made, written for the
    dialect and parsed back in it."""
    assert template in rendered, f"{template} was not rendered by any pipeline run here"
    target = get_dialect(dialect)
    for text in rendered[template]:
        tree = sqlglot.parse_one(text, read="duckdb")
        if (("ABCDE_TABLE_EXISTS" in text and target.table_exists(None, "s", "t") is None)
                or ("ABCDE_ID_HASH" in text and target.id_hash is None)):
            # no information_schema (Spark), no id hash (the warehouses, Spark): the step
            # is not in its scripts, and the helper has no form there
            with pytest.raises(TemplateError, match="has no"):
                to_sql(tree, target)
            continue
        # the id sums of abcde.cells.same_ids, run by an engine and compared within the
        # run: the engine's own hash (DuckDB's HASH) is no trap there
        allow = (frozenset(_function_names(sqlglot.parse_one(target.id_hash, read=dialect)))
                 if "ABCDE_ID_HASH" in text else frozenset())
        sql = to_sql(tree, target)
        assert_no_trap(sqlglot.parse_one(sql, read=dialect), sql, allow)


def test_snowflake_names_fold_like_unquoted_names() -> None:
    """Snowflake matches quoted names exactly: lower-case names are written unquoted."""
    text = "".join(t for r, t in written_files().items() if r.parts[0] == "snowflake")
    assert '"item_id"' not in text and "proj.ds.base" in text


@pytest.fixture(scope="module")
def zetasql_service() -> Any:
    """ZetaSQL's local service (one per process): WebAssembly that wasmtime compiles in
    ~30-70 s, so its compilation cache is turned on (wasmtime's own, keyed by the module
    and the compiler: a later run loads the compiled code in < 1 s)."""
    try:
        import zetasql.core.wasm_client as wasm_client
        from zetasql.core.local_service import ZetaSqlLocalService
    except ImportError:
        unavailable("zetasql is not installed (pip install zetasql; part of abcde[dev])")

    class CachedConfig(wasm_client.Config):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.cache = True

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(wasm_client, "Config", CachedConfig)
        return ZetaSqlLocalService.get_instance()


def _bigquery_catalog(builtins: Any, tables: dict[str, list[tuple[str, Any]]]) -> Any:
    """Tables proj.ds.t as table t of catalog ds inside catalog proj (the path
    `proj`.`ds`.`t` resolves through nested catalogs), and the dataset's view of its
    tables, INFORMATION_SCHEMA.TABLES, as --reuse-cells looks them up; inside `builtins`,
    the catalog of GoogleSQL's built-in functions. The catalog is written as zetasql's
    protocol buffers directly: its Python models take seconds per statement."""
    from zetasql.wasi._pb2.zetasql.proto.simple_catalog_pb2 import SimpleCatalogProto
    from zetasql.wasi._pb2.zetasql.public.simple_table_pb2 import (
        SimpleColumnProto,
        SimpleTableProto,
    )

    dataset, views = SimpleCatalogProto(name="ds"), SimpleCatalogProto(name="INFORMATION_SCHEMA")
    for name, cols in tables.items():
        *inside, table_name = name.split(".", 2)[-1].split(".")
        (views if inside else dataset).table.append(SimpleTableProto(name=table_name, column=[
            SimpleColumnProto(name=col, type=kind, is_writable_column=True)
            for col, kind in cols]))
    dataset.catalog.append(views)
    root = SimpleCatalogProto()
    root.CopyFrom(builtins)
    root.catalog.append(SimpleCatalogProto(name="proj", catalog=[dataset]))
    return root


def _language() -> Any:
    from zetasql.types import LanguageOptions
    from zetasql.types.proto_model import ProductMode

    language = LanguageOptions.maximum_features()
    language.product_mode = ProductMode.PRODUCT_EXTERNAL
    return language


def _construct(tree: exp.Expression, tables: dict[str, list[tuple[str, Any]]]) -> str:
    """A statement up to the names of the tables it creates and reads (each read table
    stands for its columns) and the values of its literals (each stands for its type):
    two statements of one construct resolve alike, to tables of the same columns."""
    def generic(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table):
            name = ".".join(p.name for p in node.parts)
            columns = repr(tables.get(name, name if "." not in name else "created"))
            return exp.to_table("t_" + hashlib.md5(columns.encode()).hexdigest()[:12])
        if isinstance(node, exp.Literal):
            return (exp.Literal.string("") if node.is_string else
                    exp.Literal.number(1 if node.is_int else 0.5))
        return node

    return tree.transform(generic).sql("bigquery")


@pytest.mark.slow
def test_bigquery_sql_passes_the_googlesql_analyzer(zetasql_service: Any) -> None:
    """Every construct of the golden BigQuery scripts resolves in GoogleSQL's analyzer
    (external product mode) with the input tables declared and each created table added
    with the columns the analyzer resolved: unknown functions, signatures and strict types
    fail here, which bqemulator (DuckDB underneath) accepts — CONCAT(1, 'a'), TRY_CAST,
    HASH, IF(c, 1, 'a') run there. Each construct is analyzed once (`_construct`: the DROP
    statements are one, an evaluation's second run is the first's), and the catalog is
    registered once per level of each script (the statements that read only tables made
    before it), not once per statement. Requests and answers are zetasql's protocol
    buffers (its Python models of a resolved tree took most of this test's time)."""
    from google.protobuf.empty_pb2 import Empty
    from zetasql.api import CatalogBuilder
    from zetasql.types import AnalyzerOptions, ZetaSQLBuiltinFunctionOptions
    from zetasql.wasi._pb2.zetasql.local_service import local_service_pb2 as service
    from zetasql.wasi._pb2.zetasql.public.type_pb2 import TYPE_DOUBLE, TYPE_STRING, TypeProto

    def call(method: str, request: Any, answer: Any) -> Any:
        return zetasql_service.wasm_client.call_grpc_func(
            f"ZetaSqlLocalService_{method}", request, answer)

    s, f = TypeProto(type_kind=TYPE_STRING), TypeProto(type_kind=TYPE_DOUBLE)
    tables: dict[str, list[tuple[str, Any]]] = {
        "proj.ds.base": [("item_id", s), ("cluster_id", s)],
        "proj.ds.exp": [("item_id", s), ("cluster_id", s)],
        "proj.ds.weights": [("item_id", s), ("weight", f)],
        "proj.ds.attributes": [("item_id", s), ("provenance", s), ("size_class", s)],
        "proj.ds.truth": [("item_id", s), ("cluster_id", s)],
        "proj.ds.INFORMATION_SCHEMA.TABLES": [
            ("table_catalog", s), ("table_schema", s), ("table_name", s)]}
    options = AnalyzerOptions(language_options=_language()).to_proto()
    builtins = CatalogBuilder("bigquery").with_builtin_functions(
        ZetaSQLBuiltinFunctionOptions(language_options=_language())).build().to_proto()
    scripts: dict[Path, list[tuple[str, exp.Expression]]] = defaultdict(list)
    for rel, sql, tree in parsed("bigquery"):
        scripts[rel.parent].append((sql, tree))
    resolved: dict[str, list[tuple[str, Any]] | None] = {}
    analyzed = 0
    for statements in scripts.values():
        # the level of a statement: 1 + the highest level of the tables it reads that
        # its script creates (0: none)
        made: dict[str, int] = {}
        levels: dict[int, list[tuple[str, exp.Expression]]] = defaultdict(list)
        for sql, tree in statements:
            created = (".".join(p.name for p in tree.this.parts)
                       if isinstance(tree, exp.Create) else None)
            read = [".".join(p.name for p in t.parts) for t in tree.find_all(exp.Table)]
            level = 1 + max((made[r] for r in read if r in made and r != created),
                            default=-1)
            if created:
                made[created] = level
            levels[level].append((sql, tree))
        for level in sorted(levels):
            registered = None
            for sql, tree in levels[level]:
                key = _construct(tree, tables)
                if key not in resolved:
                    if registered is None:
                        registered = call("RegisterCatalog", service.RegisterCatalogRequest(
                            simple_catalog=_bigquery_catalog(builtins, tables)),
                            service.RegisterResponse).registered_id
                    stmt = call("Analyze", service.AnalyzeRequest(
                        sql_statement=sql, options=options, registered_catalog_id=registered),
                        service.AnalyzeResponse).resolved_statement
                    analyzed += 1
                    kind = stmt.WhichOneof("node")
                    if kind == "resolved_create_statement_node":
                        create = stmt.resolved_create_statement_node
                        base = create.resolved_create_table_stmt_base_node
                        kind = base.WhichOneof("node")
                    assert kind in ("resolved_create_table_as_select_stmt_node",
                                    "resolved_drop_stmt_node"), kind
                    resolved[key] = ([(c.name, c.type) for c in base.
                                      resolved_create_table_as_select_stmt_node.parent.
                                      column_definition_list]
                                     if kind != "resolved_drop_stmt_node" else None)
                if resolved[key] is not None:
                    tables[".".join(p.name for p in tree.this.parts)] = resolved[key]
            if registered is not None:
                call("UnregisterCatalog", service.UnregisterRequest(registered_id=registered),
                     Empty)
    assert "proj.ds.abcde_overall" in tables and "proj.ds.abcde_exp_yandex" in tables
    assert analyzed < len(parsed("bigquery")) * 2 // 3, analyzed


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("command", ["sql impact", "dbt"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0", "1e101", "1e-101"])
def test_missing_weight_must_be_a_weight_in_range(command: str, value: str,
                                                         tmp_path: Path) -> None:
    """As in `abcde impact`: NaN would be pasted as a column name `nan`, -1 would weigh
    items -1 with input_valid TRUE."""
    result = _invoke(*command.split(), "--dialect", "duckdb", "--base", "b", "--exp", "e",
                     "--weights", "w", f"--missing-weight={value}", "--out", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert "--missing-weight must be a number in [1e-100, 1e100]" in result.output


def test_missing_weight_weighs_the_items_the_weights_table_lacks() -> None:
    """--missing-weight 2.5: the script's total weight is the given weights plus 2.5 per
    item of T without one (DuckDB; the sum by hand)."""
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE b AS SELECT * FROM (VALUES ('a', '1'), ('b', '1'), ('c', '2')) "
                "t(item_id, cluster_id)")
    con.execute("CREATE TABLE e AS SELECT * FROM b")
    con.execute("CREATE TABLE w AS SELECT 'a' AS item_id, 4.0 AS weight")
    pipeline, _, _ = impact_pipeline(ScriptSpec(base="b", exp="e", weights="w", missing_weight=2.5))
    for _, sql in pipeline.statements("duckdb"):
        con.execute(sql)
    weight, valid = con.execute(f"SELECT weight, input_valid FROM "
                                f"{pipeline.physical_name('overall')}").fetchone()
    assert weight == 4.0 + 2 * 2.5 and valid is True


@pytest.mark.parametrize(("dialect", "option", "name", "bare"), [
    ("bigquery", "--base", "`proj.ds.base`", "proj.ds.base"),  # as the console shows it
    ("snowflake", "--base", '"DB"."RAW"."BASE"', "DB.RAW.BASE"),
    ("postgres", "--exp", '"raw"."exp"', "raw.exp"),
    ("spark", "--weights", "`raw`.`w`", "raw.w"),
    ("snowflake", "--item-col", '"ID"', "ID"),
    ("duckdb", "--schema", '"out"', "out"),
])
def test_a_name_given_with_quotes_is_refused(tmp_path: Path, dialect: str, option: str,
                                             name: str, bare: str) -> None:
    """A name typed already quoted was quoted again, quotes and all ("\"raw\""."\"exp\"",
    `\\`proj`.`ds`.`base\\``): the script read tables no warehouse holds and failed only
    when run. sql and dbt refuse it (exit 2), saying how to give it."""
    args = {"--base": "raw.base", "--exp": "raw.exp", "--weights": "raw.w", option: name}
    opts = [w for k, v in args.items() for w in (k, v)]
    schema = () if option == "--schema" else ("--schema", "proj.out")  # BigQuery's
    commands = [("sql", "impact", "--dialect", dialect, *schema, *opts)]
    if option != "--schema":  # dbt takes no --schema
        commands.append(("dbt", "--dialect", dialect, "--out", str(tmp_path / "pkg"), *opts))
    for command in commands:
        result = _invoke(*command)
        assert result.exit_code == 2, result.output
        assert f"{option} {name!r} is written with quotes" in result.output, result.output
        assert f"e.g. {option} {bare} " in result.output, result.output
    assert not (tmp_path / "pkg").exists()


def test_a_bigquery_table_in_the_bq_tools_form_is_refused(tmp_path: Path) -> None:
    """proj:ds.base (the bq tool's form, which the export step's `bq extract` uses) was
    read as the dataset `proj:ds`, which cannot exist; proj.ds.base, my-proj.ds.base
    and a wildcard table proj.ds.t_* still pass, and other dialects are not concerned."""
    result = _invoke("sql", "impact", "--dialect", "bigquery", "--base", "proj:ds.base",
                     "--exp", "proj.ds.exp", "--schema", "proj.out")
    assert result.exit_code == 2, result.output
    assert "'proj:ds' is the bq tool's PROJECT:DATASET, written proj.ds in SQL" in \
        result.output
    for name in ("proj.ds.base", "my-proj.ds.base", "proj.ds.t_*"):
        result = _invoke("sql", "impact", "--dialect", "bigquery", "--base", name,
                         "--exp", "proj.ds.exp", "--schema", "proj.out")
        assert result.exit_code == 0, result.output
    result = _invoke("sql", "impact", "--dialect", "postgres", "--base", "a:b.base",
                     "--exp", "raw.exp")
    assert result.exit_code == 0, result.output
    # a package for every adapter: a PostgreSQL schema BigQuery could not hold passes
    result = _invoke("dbt", "--base", "raw-data.base", "--exp", "raw.exp", "--out",
                     str(tmp_path / "pkg"))
    assert result.exit_code == 0, result.output


def test_a_table_name_that_is_a_file_here_is_refused(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`abcde sql impact --base base.csv`: the script would read the table `csv` of the
    schema `base`; with base.csv a file here, the user meant the file. Each table option
    of sql and dbt refuses it (exit 2, naming the option); a name that is no file is a
    table, as before."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.csv").write_text("item_id,cluster_id\n1,1\n")
    tables = {"--base": "b", "--exp": "e", "--weights": "w", "--attributes": "a"}
    for option in tables:
        args = {**tables, option: "base.csv"}
        result = _invoke("sql", "impact", "--dialect", "duckdb",
                         *(w for k, v in args.items() for w in (k, v)))
        assert result.exit_code == 2, result.output
        assert f"{option} base.csv is a file" in result.output, result.output
    for args in (("sql", "evaluate", "--dialect", "duckdb", "--truth", "t", "--actual",
                  "x=base.csv"),
                 ("dbt", "--base", "b", "--exp", "e", "--truth", "base.csv",
                  "--out", str(tmp_path / "pkg"))):
        result = _invoke(*args)
        assert result.exit_code == 2 and "base.csv is a file" in result.output, result.output
    assert not (tmp_path / "pkg").exists()
    result = _invoke("sql", "impact", "--dialect", "duckdb", "--base", "base.parquet",
                     "--exp", "e")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("option", "value"), [
    ("--base", "p.d.base\nDROP TABLE precious; --"), ("--exp", "e\r"),
    ("--item-col", "id\x00"), ("--prefix", "x\u2028"), ("--schema", "s\x85"),
    ("--slice-by", "a\u202e")])
def test_names_with_control_characters_stay_names(option: str, value: str) -> None:
    """A line break in a name cannot end the header's comment (`comment`) nor a quoted
    name: the script's statements are only the DROP and CREATE of abcde's tables, and
    run on DuckDB they leave a table `precious` alone."""
    import duckdb

    args = {"--base": "b", "--exp": "e", "--attributes": "a", option: value}
    result = _invoke("sql", "impact", "--dialect", "duckdb",
                     *(w for k, v in args.items() for w in (k, v)))
    assert result.exit_code == 0, result.output
    for tree in filter(None, sqlglot.parse(result.output, read="duckdb")):
        assert isinstance(tree, exp.Drop | exp.Create), tree
        table = tree.find(exp.Table)  # the one dropped or created
        assert table.name.startswith(value if option == "--prefix" else "abcde_"), table
    con = duckdb.connect()
    con.execute("CREATE TABLE precious AS SELECT 1 AS x")
    with pytest.raises(duckdb.Error):  # its input tables do not exist here
        con.execute(result.output)
    assert con.execute("SELECT x FROM precious").fetchall() == [(1,)]


def test_an_empty_column_name_is_refused() -> None:
    result = _invoke("sql", "impact", "--dialect", "duckdb", "--base", "b", "--exp", "e",
                     "--cluster-col", "")
    assert result.exit_code == 2 and "--cluster-col" in result.output, result.output


def test_every_header_line_is_a_comment() -> None:
    """Whatever text a header line holds, DuckDB runs the block as comments only."""
    import duckdb

    lines = ["ok", "a\nDROP TABLE precious; --", "b\rDROP TABLE precious;",
             "c\u2028DROP TABLE precious;", "", "d\r\nDROP TABLE precious;"]
    text = comment(lines)
    assert all(line.startswith("--") for line in text.splitlines())
    con = duckdb.connect()
    assert con.execute(text + "SELECT 42").fetchone() == (42,)


def test_header_command_is_the_command_run() -> None:
    """Options of the group (-v) are not repeated into the command."""
    result = _invoke("-v", "sql", "impact", "--dialect", "duckdb", "--base", "my base",
                     "--exp", "e", "--slice-by", "x", "--slice-by", "y,z",
                     "--attributes", "a")
    assert result.exit_code == 0, result.output
    assert ("--   abcde sql impact --dialect duckdb --base 'my base' --exp e "
            "--attributes a --slice-by x --slice-by y,z\n") in result.output


def test_header_input_lines_keep_label_and_table_apart() -> None:
    """A run name long enough to fill the label column (`actual base`) is still followed
    by a space before its table; an attributes table read without --slice-by (for its
    checks only) lists its item column alone, with no dangling comma."""
    result = _invoke("sql", "evaluate", "--dialect", "duckdb", "--truth", "t",
                     "--actual", "base", "--actual", "a_long_run=x", "--attributes", "a")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert '--   actual base "base" (item_id, cluster_id)' in lines
    assert '--   actual a_long_run "x" (item_id, cluster_id)' in lines
    assert '--   attributes "a" (item_id)' in lines
    assert '--   truth      "t" (item_id, cluster_id)' in lines


@pytest.mark.parametrize(("option", "name"), [
    ("--base", "cells"), ("--exp", "overall"), ("--base", "repeated"), ("--base", "Cells"),
    ("--weights", "base_in"), ("--attributes", "items")])
def test_unqualified_input_named_like_a_relation_of_the_script_is_refused(
        option: str, name: str) -> None:
    """`FROM cells` inside a query with a CTE (or step) `cells` reads abcde's relation."""
    args = {"--base": "b", "--exp": "e", option: name}
    result = _invoke("sql", "impact", "--dialect", "duckdb",
                     *(w for k, v in args.items() for w in (k, v)))
    assert result.exit_code == 2, result.output
    assert f"may not be named {name!r}" in result.output and "Qualify" in result.output


@pytest.mark.parametrize(("command", "args"), [
    ("impact", ("--weights", "abcde_overall")),
    ("impact", ("--exp", "my_validation", "--prefix", "my_")),
    ("impact", ("--base", "main.abcde_cells")),
    ("impact", ("--base", "MAIN.Abcde_Coverage")),
    ("impact", ("--base", "ds.abcde_cells_key", "--schema", "ds")),
    ("impact", ("--base", "other.abcde_cells", "--schema", "ds")),
    ("impact", ("--base", "abcde_cells", "--schema", "ds")),
    ("impact", ("--base", "my_base")),
    ("sample-items", ("--exp", "abcde_item_sample", "--size", "5")),
    ("sample-pairs", ("--weights", "p.ds.abcde_pair_stream", "--schema", "ds",
                      "--budget", "5")),
])
def test_a_script_never_drops_its_own_input(command: str, args: tuple[str, ...]) -> None:
    """Run in DuckDB (schemas `main` and `ds`), a script either is refused (exit 2) or
    leaves every input table as it was: an input named like one of the tables the
    script drops and creates must not be overwritten."""
    import duckdb

    opts = {"--base": "b", "--exp": "e", "--weights": "w"}
    given = dict(zip(args[::2], args[1::2], strict=True))
    opts.update({k: v for k, v in given.items() if k in opts})
    rest = [w for k, v in given.items() if k not in opts for w in (k, v)]
    result = _invoke("sql", command, "--dialect", "duckdb",
                     *(w for k, v in opts.items() for w in (k, v)), *rest)
    if result.exit_code == 2:
        assert "destroy the input" in result.output, result.output
        return
    assert result.exit_code == 0, result.output
    con = duckdb.connect()
    con.execute("CREATE SCHEMA ds")
    con.execute("CREATE SCHEMA other")
    rows = {"--base": "('a', '1'), ('b', '1'), ('c', '2')",
            "--exp": "('a', '1'), ('b', '2'), ('c', '2')"}
    for option, name in opts.items():
        table = name.split(".")[-2:] if "." in name else [name]
        if option == "--weights":
            con.execute(f"CREATE TABLE {'.'.join(table)} AS SELECT * FROM (VALUES "
                        "('a', 1.0), ('b', 2.0), ('c', 3.0)) t(item_id, weight)")
        else:
            con.execute(f"CREATE TABLE {'.'.join(table)} AS SELECT * FROM (VALUES "
                        f"{rows[option]}) t(item_id, cluster_id)")
    before = {n: con.execute(f"SELECT * FROM {n.split('.', 1)[-1] if n.count('.') == 2 else n}"
                             " ORDER BY ALL").fetchall() for n in opts.values()}
    con.execute(result.output.split("\n", 1)[1] if result.output.startswith("warning")
                else result.output)
    for name, want in before.items():
        table = name.split(".", 1)[-1] if name.count(".") == 2 else name
        assert con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall() == want, name


def test_qualified_input_named_like_a_step_is_read_as_the_table() -> None:
    """Base `main.cells` and Exp `main.overall` (DuckDB): the metrics of those tables —
    Base {a, b}, {c}; Exp {a}, {b, c}: three items, every one affected."""
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE cells AS SELECT * FROM (VALUES ('a', '1'), ('b', '1'), "
                "('c', '2')) t(item_id, cluster_id)")
    con.execute("CREATE TABLE overall AS SELECT * FROM (VALUES ('a', '1'), ('b', '2'), "
                "('c', '2')) t(item_id, cluster_id)")
    pipeline, _, _ = impact_pipeline(ScriptSpec(base="main.cells", exp="main.overall"))
    for _, sql in pipeline.statements("duckdb"):
        con.execute(sql)
    items, affected = con.execute(f"SELECT items, affected_items FROM "
                                  f"{pipeline.physical_name('overall')}").fetchone()
    assert (items, affected) == (3, 3)


@pytest.mark.parametrize(("name", "written"), [
    ("item_id", "item_id"), ("date", "date"), ("format", "format"), ("value", "value"),
    ("order", '"ORDER"'), ("group", '"GROUP"'), ("qualify", '"QUALIFY"'),
    ("Base", '"Base"'), ("BASE", '"BASE"'), ("my-col", '"my-col"')])
def test_snowflake_writes_a_lower_case_name_as_its_upper_case_form(name: str,
                                                                   written: str) -> None:
    """Snowflake's documented reserved words (ORDER, GROUP, QUALIFY; not the type words
    DATE, nor FORMAT or VALUE) are quoted in upper case: the name Snowflake stores for a
    column created unquoted; other lower-case names stay unquoted."""
    assert identifier(name, "snowflake").sql("snowflake") == written
    assert ("ORDER" in SNOWFLAKE_RESERVED and "DATE" not in SNOWFLAKE_RESERVED
            and "FORMAT" not in SNOWFLAKE_RESERVED)


def test_snowflake_slice_columns_are_quoted_only_when_reserved() -> None:
    result = _invoke("sql", "impact", "--dialect", "snowflake", "--base", "db.s.b", "--exp",
                     "db.s.e", "--attributes", "db.s.a", "--slice-by", "format,date,order")
    assert result.exit_code == 0, result.output
    body = result.output.split("\n\n", 1)[1]
    for cast in ("CAST(format AS VARCHAR)", "CAST(date AS VARCHAR)", 'CAST("ORDER" AS VARCHAR)'):
        assert cast in body, cast
    assert '"format"' not in body and '"date"' not in body
    for statement in body.split(";\n"):
        if statement.strip():
            sqlglot.parse_one(statement, read="snowflake")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_inputs_and_outputs_follow_one_case_rule(dialect: str) -> None:
    """A name with capitals is quoted, exactly as given, whether it names an input or the
    schema and prefix of the outputs; a lower-case name is quoted too, except on
    Snowflake, where it is written unquoted (its upper-case form)."""
    q = "`" if dialect in ("bigquery", "spark") else '"'
    spec = ScriptSpec(base="Db.S.Base", exp="db.s.exp", prefix="X_", schema="Db.Out")
    pipeline, _, outputs = impact_pipeline(spec)
    text = script_text(spec, [(pipeline, outputs)], dialect).split("\n\n", 1)[1]
    assert f"FROM {q}Db{q}.{q}S{q}.{q}Base{q}" in text
    assert f"CREATE TABLE {q}Db{q}.{q}Out{q}.{q}X_overall{q}" in text
    lower = "db.s.exp" if dialect == "snowflake" else f"{q}db{q}.{q}s{q}.{q}exp{q}"
    assert f"FROM {lower}" in text


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


@pytest.mark.parametrize(("command", "name"), [
    (["impact"], "impact.sql"), (["sample-items"], "sample_items.sql"),
    (["sample-pairs", "--budget", "10"], "sample_pairs.sql"),
    (["evaluate", "--truth", "s.t", "--actual", "s.a"], "evaluate.sql")])
def test_an_existing_script_is_replaced_only_with_overwrite(command: list[str], name: str,
                                                             tmp_path: Path) -> None:
    """As the samplers treat their files: a script already in --out (perhaps edited by
    hand) is kept, exit 2, unless --overwrite."""
    args = ["sql", *command, "--dialect", "duckdb", "--out", str(tmp_path)]
    if command[0] != "evaluate":
        args += ["--base", "s.b", "--exp", "s.e"]
    (tmp_path / name).write_text("-- my edits\n")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / name} already exists" in result.output
    assert "--overwrite" in result.output
    assert (tmp_path / name).read_text() == "-- my edits\n"
    result = CliRunner().invoke(main, [*args, "--overwrite"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / name).read_text().startswith("-- abcde ")
    # the header's command shows the flag as typed
    [line] = [x for x in (tmp_path / name).read_text().splitlines()
              if x.startswith("--   abcde sql")]
    assert line.endswith("--overwrite")


@pytest.mark.parametrize("options", [
    ["--slice-by", "split_rate"], ["--slice-by", "provenance,provenance"],
    ["--slice-by", "provenance", "--slice-by", "country,jaccard_distance"],
    ["--item-col", "item_id", "--cluster-col", "item_id"],
    ["--weights", "{weights}", "--weight-col", "cluster_id"],
    ["--missing-weight", "2"]])
@pytest.mark.parametrize("command", [["sql", "impact", "--dialect", "duckdb"],
                                     ["sql", "sample-pairs", "--dialect", "duckdb",
                                      "--budget", "9"],
                                     ["dbt", "--dialect", "duckdb", "--out", "{tmp}/p"]])
def test_scripts_refuse_the_options_impact_refuses(command: list[str], options: list[str],
                                                   tmp_path: Path) -> None:
    """A slice column named like a metric or twice in a slicing, two options naming one
    column, --missing-weight without weights: `abcde impact` refuses them before reading
    the inputs, and a script gets the same message (not a script that fails in the
    warehouse, or silently computes every item as its own cluster). (The pair samplers
    refuse only the names of their per-slice totals: the test below.)"""
    if "sample-pairs" in command and "--slice-by" in options:
        pytest.skip("abcde sample-pairs accepts these slice columns")
    files = {"base": EXAMPLES / "base.csv", "exp": EXAMPLES / "exp.csv",
             "weights": EXAMPLES / "weights.csv", "attributes": EXAMPLES / "attributes.csv"}
    slices = "--slice-by" in options
    opts = [o.replace("{weights}", str(files["weights"])) for o in options]
    engine = CliRunner().invoke(main, [
        "impact", "--base", str(files["base"]), "--exp", str(files["exp"]),
        *(["--attributes", str(files["attributes"])] if slices else []), *opts])
    assert engine.exit_code == 2, engine.output
    opts = [o.replace(str(files["weights"]), "s.w") for o in opts]
    script = CliRunner().invoke(main, [
        *(c.replace("{tmp}", str(tmp_path)) for c in command), "--base", "s.b", "--exp",
        "s.e", *(["--attributes", "s.a"] if slices else []), *opts])
    assert script.exit_code == 2, script.output
    assert script.output == engine.output


@pytest.mark.parametrize("name", ["weight", "pairweight", "stable_plus"])
@pytest.mark.parametrize("strata", [[], ["--strata-allocation", "equal"]])
def test_pair_samples_refuse_a_slice_named_like_a_slice_total(name: str, strata: list[str],
                                                              tmp_path: Path) -> None:
    """A slice column named like a total of the per-slice rows (weight, pairweight, ...)
    overwrote the slice's value there: in the engines' manifest, so that `abcde estimate`
    found no slice column, and in a script's pair_slices table, which on DuckDB held the
    value under the total's name and the total nowhere. `abcde sample-pairs` refuses it,
    and `abcde sql sample-pairs` and `abcde dbt` with the same message (exit 2)."""
    attrs = tmp_path / "attributes.csv"
    attrs.write_text(f"item_id,{name}\nimg_000000,crawl\n")
    engine = CliRunner().invoke(main, [
        "sample-pairs", str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
        "--attributes", str(attrs), "--slice-by", name, "--budget", "9", *strata,
        "--out", str(tmp_path / "s")])
    assert engine.exit_code == 2, engine.output
    assert f"slice columns may not be named {name}" in engine.output
    assert not (tmp_path / "s").exists()
    tables = ["--base", "s.b", "--exp", "s.e", "--attributes", "s.a", "--slice-by", name]
    for command in (["sql", "sample-pairs", "--dialect", "duckdb", "--budget", "9", *strata],
                    ["dbt", "--dialect", "duckdb", "--out", str(tmp_path / "p")]):
        script = CliRunner().invoke(main, [*command, *tables])
        assert script.exit_code == 2, (command, script.output)
        assert script.output == engine.output, command


VERDICT = ("input_valid (the column of the script's validation verdict, in its validation "
           "row and in every output table)")


@pytest.mark.parametrize(("name", "what"), [
    ("slice_columns", "slice_columns (the column of pair_slices naming each row's slicing)"),
    ("input_valid", VERDICT)])
def test_pair_script_refuses_a_slice_named_like_a_column_of_pair_slices(name: str,
                                                                        what: str) -> None:
    """pair_slices also names each row's slicing (slice_columns) and carries
    input_valid: a slice column so named would be a second column of that name. The
    refusal says what the column is (it called both "a metric's name")."""
    result = CliRunner().invoke(main, [
        "sql", "sample-pairs", "--dialect", "duckdb", "--budget", "9", "--base", "s.b",
        "--exp", "s.e", "--attributes", "s.a", "--slice-by", f"provenance,{name}"])
    assert result.exit_code == 2, result.output
    assert f"slice columns may not be named {what}\n" in result.output, result.output


@pytest.mark.parametrize("command", [
    ["sql", "impact", "--base", "s.b", "--exp", "s.e"],
    ["sql", "evaluate", "--truth", "s.t", "--actual", "a=s.a"],
    ["dbt", "--base", "s.b", "--exp", "s.e", "--out", "/tmp/never-written-misc2"]])
def test_scripts_refuse_a_slice_named_input_valid_for_what_it_is(command: list[str]) -> None:
    """A slice column input_valid is refused as the script's verdict column, not "a
    metric's name"; `sql evaluate` did not refuse it and wrote slice tables with two
    input_valid columns. A metric's name still says so, both kinds in one message."""
    args = [*command, "--dialect", "duckdb", "--attributes", "s.at", "--slice-by"]
    result = CliRunner().invoke(main, [*args, "input_valid"])
    assert result.exit_code == 2, result.output
    assert result.output == ("error: table attributes: slice columns may not be named "
                             f"{VERDICT}\n  Rename the column.\n"), result.output
    result = CliRunner().invoke(main, [*args, "weight,input_valid"])
    assert result.exit_code == 2, result.output
    assert (f"may not be named {VERDICT}, weight (a metric's name)\n") in result.output
    assert not Path("/tmp/never-written-misc2").exists()


@pytest.mark.parametrize(("dialect", "args", "message", "example"), [
    ("spark", ["--prefix", "my pre "], "--prefix 'my pre ': Spark table and schema names "
     "hold only ASCII letters, digits and _", "--prefix my_pre_"),
    ("spark", ["--schema", "my-db"], "--schema 'my-db': Spark", "--schema my_db"),
    ("bigquery", ["--schema", "p.my-ds"], "--schema 'p.my-ds': BigQuery dataset names",
     "--schema p.my_ds"),
    ("bigquery", ["--schema", "p.ds", "--prefix", "a/b"], "--prefix 'a/b': BigQuery table "
     "names", "--prefix a_b"),
    ("postgres", ["--prefix", "x" * 51 + "_"], "makes the table name '" + "x" * 51
     + "_cell_metrics': PostgreSQL names are at most 63 bytes", "--prefix xxxxxxxx")])
def test_scripts_refuse_names_the_target_cannot_create(dialect: str, args: list[str],
                                                       message: str, example: str) -> None:
    """Names are quoted, but Spark's catalog takes only [A-Za-z0-9_] for tables and
    schemas (INVALID_SCHEMA_OR_RELATION_NAME, measured on Spark 4), BigQuery datasets
    likewise and its tables no '/', and PostgreSQL cuts a name past 63 bytes short:
    refused with the rule and a valid example, exit 2."""
    result = CliRunner().invoke(main, ["sql", "impact", "--dialect", dialect, "--base", "s.b",
                                       "--exp", "s.e", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and example in result.output


def test_evaluate_run_names_make_table_names_the_target_can_create() -> None:
    run = "r" * 50
    result = CliRunner().invoke(main, ["sql", "evaluate", "--dialect", "postgres", "--truth",
                                       "s.t", "--actual", f"{run}=s.a"])
    assert result.exit_code == 2, result.output
    assert f"--prefix 'abcde_' with run name '{run}'" in result.output
    assert "63 bytes" in result.output
    for dialect in ("duckdb", "snowflake"):  # 63 bytes is PostgreSQL's limit only
        result = CliRunner().invoke(main, ["sql", "evaluate", "--dialect", dialect,
                                           "--truth", "s.t", "--actual", f"{run}=s.a"])
        assert result.exit_code == 0, result.output


INT64_MAX = 2**63 - 1


@pytest.mark.parametrize("seed", [2**62, INT64_MAX, 2**64 - 1, 10**40])
@pytest.mark.parametrize("command", [
    ["sql", "sample-items", "--dialect", "bigquery", "--schema", "p.d", "--seed"],
    ["sql", "sample-pairs", "--dialect", "bigquery", "--schema", "p.d", "--budget", "9",
     "--strata-allocation", "equal", "--seed"],
    ["dbt", "--out", "{tmp}/p", "--seed"], ["dbt", "--out", "{tmp}/p", "--pair-seed"],
    ["sample-items", "--out", "{tmp}/s.parquet", "--seed"],
    ["sample-pairs", "--out", "{tmp}/s", "--budget", "9", "--seed"]])
def test_seeds_beyond_what_every_warehouse_holds_are_refused(command: list[str], seed: int,
                                                             tmp_path: Path) -> None:
    """One bound for the warehouse and the engine commands alike (a seed means the same
    sample everywhere): a seed the script would write as a literal BigQuery's INT64
    cannot hold — itself, or 2·seed + 1 of a stratified sample's second stratum — is
    refused with the range, exit 2, before anything is read or written."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    result = CliRunner().invoke(main, [*args, str(seed), "--base", "s.b", "--exp", "s.e"])
    assert result.exit_code == 2, result.output
    assert "seed" in result.output and "4,611,686,018,427,387,903" in result.output
    assert list(tmp_path.iterdir()) == []


def test_the_largest_seed_is_written_as_literals_int64_holds() -> None:
    """At the largest seed every integer literal of the stratified BigQuery script (the
    seed, 2·seed and 2·seed + 1 of the strata) fits in INT64."""
    result = CliRunner().invoke(main, [
        "sql", "sample-pairs", "--dialect", "bigquery", "--schema", "p.d", "--base", "s.b",
        "--exp", "s.e", "--budget", "9", "--strata-allocation", "equal",
        "--seed", str(2**62 - 1)])
    assert result.exit_code == 0, result.output
    numbers = [int(lit.this) for tree in sqlglot.parse(result.output, read="bigquery")
               if tree is not None for lit in tree.find_all(exp.Literal)
               if not lit.is_string and lit.this.isdigit()]
    assert 2**63 - 1 in numbers and 2**63 - 2 in numbers  # the strata's seeds
    assert max(numbers) <= INT64_MAX


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-12)  # type: ignore[arg-type]
    return a == b


def test_script_runs_on_real_engines_and_equals_impact(engine: Engine, tmp_path: Path) -> None:
    """The script, statement by statement on DuckDB and PostgreSQL, and on Spark whole
    from pyspark (`spark.sql` of BEGIN <script> END), over input tables of the engine:
    its tables equal `abcde impact` (DuckDB, files) to 1e-12.
    Names with capitals are used as given, inputs and outputs alike: on PostgreSQL (case-
    sensitive when quoted) the tables are found, and created, exactly as named."""
    for role in ("base", "exp", "weights", "attributes"):
        ids = ["item_id", "cluster_id"] if role in ("base", "exp") else ["item_id"]
        engine.register_file(f"In_{role}", EXAMPLES / f"{role}.csv", "csv", ids)
    spec = ScriptSpec(base="In_base", exp="In_exp", weights="In_weights",
                      attributes="In_attributes", slicings=(("provenance",),),
                      prefix="Script_", schema=engine.work_schema)
    pipeline, _, outputs = impact_pipeline(spec)
    if engine.dialect.name == "spark":
        # the pyspark route of docs/warehouse.md: the whole script, header and all,
        # as one SQL script (Spark's BEGIN … END)
        text = script_text(spec, [(pipeline, outputs)], "spark")
        engine.spark.sql("BEGIN\n" + text + "\nEND")
    else:
        for _, sql in pipeline.statements(engine.dialect):
            engine.execute(sql)
    want = impact(EXAMPLES / "base.csv", EXAMPLES / "exp.csv", EXAMPLES / "weights.csv",
                  attributes=EXAMPLES / "attributes.csv", slice_by="provenance", top=10_000)
    if engine.dialect.name == "postgres":
        created = {r["table_name"] for r in engine.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            f"'{engine.work_schema}'")}
        assert "Script_overall" in created and "script_overall" not in created

    def rows(step: str) -> list[dict[str, Any]]:
        return engine.fetch(f"SELECT * FROM {to_sql(pipeline.table(step), engine.dialect)}")

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
        spec = ScriptSpec(base="b", exp="e", weights="w")
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


def run_validation(engine: Engine, pipeline: Pipeline) -> None:
    """Run the script's statements up to its validation row (what the validation tests
    read; every output's verdict: test_script_flags_invalid_input)."""
    for name, sql in pipeline.statements(engine.dialect):
        if name in ("cell_rows", "validation"):
            engine.execute(sql)


def test_an_empty_weights_or_attributes_table_fails_validation(engine: Engine) -> None:
    """`abcde impact` refuses an empty weights or attributes table ("is empty (no
    rows)"), even with --missing-weight; the script counts it (empty_weights,
    empty_attributes) and input_valid is FALSE, on each engine, instead of weighing
    every item --missing-weight or giving every item a NULL slice."""
    engine.register_rows("eb", ["item_id", "cluster_id"], [("a", "1"), ("c", "1"),
                                                           ("d", "2")])
    engine.register_rows("ee", ["item_id", "cluster_id"], [("a", "1"), ("c", "2"),
                                                           ("d", "2")])
    engine.register_rows("ew", ["item_id", "weight"], [])
    engine.register_rows("ea", ["item_id", "provenance"], [])
    spec = ScriptSpec(base="eb", exp="ee", weights="ew", missing_weight=1.0,
                      attributes="ea", slicings=(("provenance",),), prefix="empty_",
                      schema=engine.work_schema)
    pipeline, _, outputs = impact_pipeline(spec)
    run_validation(engine, pipeline)
    [v] = engine.fetch(f"SELECT * FROM {to_sql(pipeline.table('validation'), engine.dialect)}")
    assert (v["empty_weights"], v["empty_attributes"]) == (1, 1)
    assert v["input_problems"] == 2 and v["input_valid"] is False
    [validation] = [o for o in outputs if o.step == "validation"]
    assert list(v) == list(validation.columns)


def test_validation_names_the_side_input_and_an_id_it_repeats(engine: Engine) -> None:
    """A weights table with id 'c' on two rows and an attributes table with 'a' and
    'z' (in no clustering) on two rows each: the validation row says which table repeats
    how many ids and names the least of them, on each engine (repeated_item_ids alone
    only flags the input as invalid)."""
    engine.register_rows("rb", ["item_id", "cluster_id"], [("a", "1"), ("c", "1"),
                                                           ("d", "2")])
    engine.register_rows("re", ["item_id", "cluster_id"], [("a", "1"), ("c", "2"),
                                                           ("d", "2")])
    engine.register_rows("rw", ["item_id", "weight"], [("a", 1.0), ("c", 2.0), ("c", 3.0),
                                                       ("d", 1.0), ("y", 1.0)])
    engine.register_rows("ra", ["item_id", "provenance"], [("z", "x"), ("z", "y"),
                                                           ("d", "x"), ("a", "x"),
                                                           ("a", "y"), ("c", "x")])
    spec = ScriptSpec(base="rb", exp="re", weights="rw", attributes="ra",
                      slicings=(("provenance",),), prefix="rep_", schema=engine.work_schema)
    pipeline, _, outputs = impact_pipeline(spec)
    run_validation(engine, pipeline)
    [v] = engine.fetch(f"SELECT * FROM {to_sql(pipeline.table('validation'), engine.dialect)}")
    assert v["repeated_item_ids"] == 1 and v["input_valid"] is False
    assert (v["repeated_ids_weights"], v["repeated_ids_weights_example"]) == (1, "c")
    assert (v["repeated_ids_attributes"], v["repeated_ids_attributes_example"]) == (2, "a")
    [validation] = [o for o in outputs if o.step == "validation"]
    assert list(v) == list(validation.columns)
    # an id on one row of each side input: test_validation_counts_side_rows_matching_no_item


def test_spec_from_regenerate_is_the_documented_one() -> None:
    assert SPEC.schema == "proj.ds" and SPEC.slicings[0] == ("provenance",)
    assert isinstance(SPEC, ScriptSpec)


def _unused_inputs(engine: Engine) -> None:
    """Clusterings a, c, d (+ f in Exp only); weights of them all and of x and y (in
    neither clustering); attributes of a, c, d, f and z (in neither)."""
    engine.register_rows("ub", ["item_id", "cluster_id"], [("a", "1"), ("c", "1"),
                                                           ("d", "2")])
    engine.register_rows("ue", ["item_id", "cluster_id"], [("a", "1"), ("c", "2"),
                                                           ("d", "2"), ("f", "3")])
    engine.register_rows("uw", ["item_id", "weight"], [("a", 1.0), ("c", 2.0), ("d", 1.0),
                                                       ("f", 1.0), ("x", 1.0), ("y", 3.0)])
    engine.register_rows("ua", ["item_id", "provenance"], [("a", "p"), ("c", "q"),
                                                           ("d", "p"), ("f", "p"),
                                                           ("z", "q")])


@pytest.fixture(scope="module", params=[
    "duckdb", pytest.param("postgres", marks=pytest.mark.postgres),
    pytest.param("spark", marks=pytest.mark.spark)])
def unused_run(request: pytest.FixtureRequest) -> Iterator[tuple[Engine, Pipeline, list]]:
    """The impact script over `_unused_inputs`, run once per engine for the tests that
    read its tables (a Spark run of the script costs half a minute)."""
    engines = make_engine(request, request.param)
    engine = next(engines)
    try:
        _unused_inputs(engine)
        spec = ScriptSpec(base="ub", exp="ue", weights="uw", attributes="ua",
                          slicings=(("provenance",),), prefix="unused_",
                          schema=engine.work_schema)
        pipeline, _, outputs = impact_pipeline(spec)
        for _, sql in pipeline.statements(engine.dialect):
            engine.execute(sql)
        yield engine, pipeline, outputs
    finally:
        engines.close()


def test_validation_counts_side_rows_matching_no_item(
        unused_run: tuple[Engine, Pipeline, list]) -> None:
    """`abcde impact` reports unused_weights and unused_attributes (rows of the side
    input matching no item of either clustering); the script's validation row counts
    them too, on each engine — an id in only one clustering (f) is matched, not unused.
    Side inputs that repeat no id give 0 and NULL (and without attributes, no column)."""
    engine, pipeline, outputs = unused_run
    [v] = engine.fetch(f"SELECT * FROM {to_sql(pipeline.table('validation'), engine.dialect)}")
    assert (v["unused_weights"], v["unused_attributes"]) == (2, 1)
    assert v["input_valid"] is True and v["without_attributes"] == 0
    assert v["repeated_item_ids"] == 0
    for side in ("weights", "attributes"):
        assert (v[f"repeated_ids_{side}"], v[f"repeated_ids_{side}_example"]) == (0, None)
    [validation] = [o for o in outputs if o.step == "validation"]
    assert list(v) == list(validation.columns)
    _, _, outputs = impact_pipeline(ScriptSpec(base="ub", exp="ue", weights="uw"))
    [validation] = [o for o in outputs if o.step == "validation"]
    assert "repeated_ids_weights" in validation.columns
    assert "repeated_ids_attributes" not in validation.columns


def test_unused_rows_equal_impact_on_the_same_duckdb_tables(tmp_path: Path) -> None:
    """The script run on a DuckDB file gives the unused_weights and unused_attributes rows
    `abcde impact --db` reports for the same tables (and none without side inputs)."""
    import json

    import duckdb

    from abcde.engines.duckdb import DuckDBEngine

    db = tmp_path / "in.duckdb"
    with DuckDBEngine() as eng:
        _unused_inputs(eng)
        eng.execute(f"ATTACH '{db}' AS f")
        for name in ("ub", "ue", "uw", "ua"):
            eng.execute(f"CREATE TABLE f.{name} AS SELECT * FROM {name}")
    spec = ScriptSpec(base="ub", exp="ue", weights="uw", attributes="ua",
                      slicings=(("provenance",),))
    pipeline, _, _ = impact_pipeline(spec)
    with duckdb.connect(str(db)) as con:
        for _, sql in pipeline.statements("duckdb"):
            con.execute(sql)
        cur = con.execute(f"SELECT * FROM {pipeline.physical_name('validation')}")
        v = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    result = _invoke("impact", "--db", str(db), "--base", "ub", "--exp", "ue", "--weights",
                     "uw", "--attributes", "ua", "--slice-by", "provenance", "--format", "json")
    assert result.exit_code == 0, result.output
    coverage = json.loads(result.output)["coverage"]
    assert coverage["unused_weights"] == {"rows": 2, "examples": ["x", "y"]}
    assert coverage["unused_attributes"] == {"rows": 1, "examples": ["z"]}
    assert v["unused_weights"] == coverage["unused_weights"]["rows"]
    assert v["unused_attributes"] == coverage["unused_attributes"]["rows"]
    pipeline, _, outputs = impact_pipeline(ScriptSpec(base="ub", exp="ue"))
    assert not any(c.startswith("unused") for o in outputs for c in o.columns)


INTEGER_TYPES = {"bigint", "integer", "int"}


def test_every_count_of_the_script_is_an_integer(
        unused_run: tuple[Engine, Pipeline, list]) -> None:
    """Counts are integers on every engine: on PostgreSQL a SUM of integers is NUMERIC
    (psycopg gives Decimal), on DuckDB a HUGEINT; the script casts them to BIGINT — every
    count of the validation row, and items, affected_items, cells and
    items_without_weight of the output tables."""
    engine, pipeline, outputs = unused_run
    typeof = "pg_typeof" if engine.dialect.name == "postgres" else "typeof"
    counts = {"items", "affected_items", "cells", "items_without_weight"}
    checked = []
    for o in outputs:
        names = [c for c in o.columns if c != "input_valid" and not c.endswith("_example")
                 ] if o.step == "validation" else [c for c in o.columns if c in counts]
        if not names:
            continue
        table = to_sql(pipeline.table(o.step), engine.dialect)
        # one query per table: the type of each of its count columns
        select = ", ".join(f"{typeof}({to_sql(exp.column(c, quoted=True), engine.dialect)})"
                           f" AS t{k}" for k, c in enumerate(names))
        [row] = engine.fetch(f"SELECT {select} FROM {table} LIMIT 1")
        for k, column in enumerate(names):
            assert str(row[f"t{k}"]).lower() in INTEGER_TYPES, (o.step, column, row[f"t{k}"])
            checked.append((o.step, column))
    assert ("validation", "unused_weights") in checked and ("slices_0", "items") in checked
    [v] = engine.fetch(f"SELECT * FROM {to_sql(pipeline.table('validation'), engine.dialect)}")
    assert all(type(v[c]) is int for s, c in checked if s == "validation")


# One slice value per item and column: floats of every layout (Python writes 1e15 and
# 1.5e15 positionally where PostgreSQL writes exponents), NaN and ±inf, -0.0, the least
# subnormal and the largest double; a real (widened to a double, as abcde impact reads
# it), a decimal, integers beyond 2^53, booleans and dates; and NULLs.
SLICE_VALUES = {
    "f": ("DOUBLE PRECISION", ["1.0", "NaN", "Infinity", "-Infinity", "-0.0", "0.1", "1e15",
                               "1.5e15", "1e16", "1e-05", "0.0001", "123456789012345",
                               "1234567890123456.8", "1e22", "5e-324",
                               "1.7976931348623157e308", "-2.5", None]),
    "r": ("REAL", ["0.1", "1", "NaN", "3.4e38", "1e-07", "-0", "Infinity", "16777217",
                   None]),
    "n": ("DECIMAL(20,3)", ["1.250", "0", "-3.5", "1234567890123456.789", "100", None]),
    "i": ("BIGINT", ["1", "-3", "9007199254740993", "0", None]),
    "b": ("BOOLEAN", ["true", "false", None]),
    "d": ("DATE", ["2024-01-05", "1999-12-31", "0001-01-01", None]),
}
SLICE_ITEMS = 18


def _slice_tables_sql(schema: str | None) -> list[str]:
    """CREATE and INSERT of the typed attributes table `sl_a` (DuckDB and PostgreSQL)."""
    q = f'"{schema}".' if schema else ""
    cols = ", ".join(f"{c} {t}" for c, (t, _) in SLICE_VALUES.items())
    rows = []
    for k in range(SLICE_ITEMS):
        values = [f"'{k}'"]
        for t, vals in SLICE_VALUES.values():
            v = vals[k % len(vals)]
            values.append("NULL" if v is None else f"CAST('{v}' AS {t})")
        rows.append(f"({', '.join(values)})")
    return [f"CREATE TABLE {q}sl_a (item_id VARCHAR, {cols})",
            f"INSERT INTO {q}sl_a VALUES {', '.join(rows)}"]


@pytest.mark.parametrize("engine_name", [
    "duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_slice_keys_are_the_text_impact_gives_on_every_engine(
        request: pytest.FixtureRequest, engine_name: str, tmp_path: Path) -> None:
    """A script's slice key of a float, real, decimal, integer, boolean or date column is
    the text `abcde impact` (DuckDB) gives for the value in JSON — 1.0, -0.0,
    1000000000000000.0, 1e+16, NaN, Infinity, true, 1999-12-31 — on DuckDB and on
    PostgreSQL (whose own text is 1, -0, 1e+15, and for a real 0.1 where abcde reads
    0.10000000149011612), with the same items per key."""
    import json

    import duckdb
    from conftest import make_engine

    con = duckdb.connect()
    for sql in _slice_tables_sql(None):
        con.execute(sql)
    con.execute(f"COPY sl_a TO '{tmp_path / 'a.parquet'}'")
    ids = [(str(k), str(k % 3)) for k in range(SLICE_ITEMS)]
    for name, pairs in (("b", ids), ("e", [(i, str(int(c) % 2)) for i, c in ids])):
        (tmp_path / f"{name}.csv").write_text(
            "item_id,cluster_id\n" + "".join(f"{i},{c}\n" for i, c in pairs))
    want = impact(tmp_path / "b.csv", tmp_path / "e.csv", attributes=tmp_path / "a.parquet",
                  slice_by=[[c] for c in SLICE_VALUES])
    engines = make_engine(request, engine_name)
    engine = next(engines)
    try:
        engine.register_rows("sl_b", ["item_id", "cluster_id"], ids)
        engine.register_rows("sl_e", ["item_id", "cluster_id"],
                             [(i, str(int(c) % 2)) for i, c in ids])
        for sql in _slice_tables_sql(engine.work_schema):
            engine.execute(sql)
        a = f"{engine.work_schema}.sl_a" if engine.work_schema else "sl_a"
        spec = ScriptSpec(base="sl_b", exp="sl_e", attributes=a,
                          slicings=tuple((c,) for c in SLICE_VALUES), prefix="sl_",
                          schema=engine.work_schema)
        pipeline, _, _ = impact_pipeline(spec)
        for _, sql in pipeline.statements(engine.dialect):
            engine.execute(sql)
        for k, column in enumerate(SLICE_VALUES):
            got = {r[column]: r["items"] for r in engine.fetch(
                f"SELECT * FROM {to_sql(pipeline.table(f'slices_{k}'), engine.dialect)}")}
            json_rows = json.loads(json.dumps(want.slices[k]["rows"]))
            expected = {None if r[column] is None else
                        r[column] if isinstance(r[column], str) else json.dumps(r[column]):
                        r["items"] for r in json_rows}
            assert got == expected, column
    finally:
        engines.close()


PSQL_ADVICE = ("-- Run it with psql as `psql -v ON_ERROR_STOP=1 -f <this file>`: without\n"
               "-- ON_ERROR_STOP, psql goes on after a failing statement (e.g. a --reuse-cells\n"
               "-- guard's stop) and runs the rest of the script.\n")


@pytest.mark.parametrize("command", [
    ["impact"], ["sample-items"], ["sample-pairs", "--budget", "10"],
    ["evaluate", "--truth", "s.t", "--actual", "s.a"]])
def test_postgres_header_says_to_run_psql_with_on_error_stop(command: list[str]) -> None:
    """psql's default goes on after a failing statement: a PostgreSQL script's header
    says how to run it so that a guard's stop stops it (other dialects' do not)."""
    args = ["sql", *command] + ([] if command[0] == "evaluate" else
                                ["--base", "s.b", "--exp", "s.e"])
    for dialect in ("postgres", "duckdb"):
        result = CliRunner().invoke(main, [*args, "--dialect", dialect])
        assert result.exit_code == 0, result.output
        head = result.output.split("\n\n")[0]
        assert (PSQL_ADVICE in head) == (dialect == "postgres"), head


def test_psql_as_the_header_says_stops_at_the_guard(postgres_dsn: str,
                                                     tmp_path: Path) -> None:
    """Run as the header says, a --reuse-cells script without cell tables stops at its
    first statement with abcde's message (exit 3, nothing created); without
    ON_ERROR_STOP psql went on to the statements after it (more errors, exit 0)."""
    import shutil
    import subprocess

    import psycopg

    if shutil.which("psql") is None:
        unavailable("psql is not installed (apt-get install postgresql-client)")
    result = CliRunner().invoke(main, [
        "sql", "sample-items", "--dialect", "postgres", "--base", "s.b", "--exp", "s.e",
        "--reuse-cells", "--prefix", "psql_absent_", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    script = tmp_path / "sample_items.sql"
    stop = subprocess.run(["psql", "-X", "-q", "-d", postgres_dsn, "-v", "ON_ERROR_STOP=1",
                           "-f", str(script)], capture_output=True, text=True, timeout=60)
    assert stop.returncode == 3, stop.stderr
    assert stop.stderr.count("ERROR:") == 1 and "abcde --reuse-cells:" in stop.stderr
    with psycopg.connect(postgres_dsn) as conn:
        made = conn.execute("SELECT count(*) FROM information_schema.tables WHERE "
                            "table_name LIKE 'psql_absent_%'").fetchone()
    assert made == (0,)
    goes_on = subprocess.run(["psql", "-X", "-q", "-d", postgres_dsn, "-f", str(script)],
                             capture_output=True, text=True, timeout=60)
    assert goes_on.returncode == 0 and goes_on.stderr.count("ERROR:") > 1, goes_on.stderr
