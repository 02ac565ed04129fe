"""`abcde dbt`: the impact pipeline (abcde.warehouse.scripts) as a dbt project — one model per
pipeline step, `ref()` between them, `source()` for the input tables, and a schema.yml
with column docs and the tests that hold on valid input.

Materialised steps become `table` models, the others `ephemeral` (inlined as CTEs, as
the pipeline inlines them); the results are built in the profile's schema, the work
tables in dbt's custom schema of var abcde_work_schema. The `validation` model's test
`abcde_is_true` on `input_valid` (a generic test the project ships, without arguments,
so that it reads the same in every dbt version) fails `dbt build` on invalid input, and
dbt then skips every model downstream of it: metrics of invalid input are not built; on
`abcde_pair_manifest.budget_filled` it only warns (a smaller sample is still valid).

Models are built where the dbt profile says. Input tables are sources quoted by the rule
of abcde.sql.dialects (exact names; on Snowflake a lower-case name is its upper-case form),
as in `abcde sql`. dbt renders every model and schema.yml as Jinja, so a name holding
Jinja syntax is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from sqlglot import exp

from abcde.errors import InputError
from abcde.inputs.records import load_json
from abcde.inputs.spec import WEIGHT_RANGE_TEXT
from abcde.outputs import output_dir
from abcde.sampling import MAX_SEED
from abcde.sampling.clocks import check_count, check_seed
from abcde.sql.dialects import SNOWFLAKE_RESERVED, Dialect, get_dialect, identifier, to_sql
from abcde.sql.pipeline import Pipeline
from abcde.version import __version__
from abcde.warehouse.scripts import (
    Output,
    ScriptSpec,
    check_created_names,
    check_dialect_names,
    impact_pipeline,
    quiet_sqlglot,
)

SOURCE = "abcde_inputs"
_REF = "abcde_dbt_ref__"
_SRC = "abcde_dbt_source__"
_PLACEHOLDER = re.compile(r"[`\"]?(abcde_dbt_ref__|abcde_dbt_source__)(\w+)[`\"]?")

COLUMN_DOCS = {
    "items": "Number of items (of T, the items in both clusterings).",
    "weight": "Total weight of the items.",
    "affected_items": "Items whose Base and Exp clusters differ as sets (ABCDE eq. 7).",
    "affected_weight": "Weight of the affected items.",
    "split_rate": "Weighted mean of weight(Base(i) minus Exp(i)) / weight(Base(i)) (ABCDE eq. 1).",
    "merge_rate": "Weighted mean of weight(Exp(i) minus Base(i)) / weight(Exp(i)) (ABCDE eq. 2).",
    "jaccard_distance": "Weighted mean Jaccard distance of Base(i) and Exp(i) (ABCDE eq. 3).",
    "split_distance": "Split part of the JaccardDistance (Jaccard decomposition eq. 2).",
    "merge_distance": "Merge part of the JaccardDistance (Jaccard decomposition eq. 3).",
    "jaccard_index": "1 - JaccardDistance (Jaccard decomposition eq. 37).",
    "affected_jaccard_index": "JaccardIndex mass of the affected items "
                              "(Jaccard decomposition eq. 48).",
    "unaffected_jaccard_index": "Weight share of unaffected items (Jaccard decomposition eq. 52).",
    "contribution": "weight(C) * JaccardDistance(C) / weight(T): share of the overall "
                    "JaccardDistance (ABCDE §4.1).",
    "cluster_id": "The cluster id.",
    "cells": "Number of cells (Base cluster, Exp cluster) the cluster meets.",
    "input_valid": "TRUE when the input passed every check (see the validation model).",
    "input_problems": "Number of failed input checks.",
    "side": "base: items only in Base; exp: items only in Exp.",
    "b": "Base cluster id.", "e": "Exp cluster id.", "n": "Items of the cell.",
    "w": "Weight of the cell.",
    "items_in_both": "Rows of items in both clusterings (|T| on valid input).",
    "empty_base": "1 when the Base table has no rows.",
    "empty_exp": "1 when the Exp table has no rows.",
    **{f"empty_{n}": f"1 when the {n} table has no rows." for n in ("weights", "attributes")},
    "null_item_ids": "Rows with a NULL item id, over all inputs.",
    "repeated_item_ids": "1 when an input repeats an item id.",
    **{f"repeated_ids_{n}": f"Item ids on more than one row of the {n} table (they fail "
                            "repeated_item_ids when a clustering holds them)."
       for n in ("weights", "attributes")},
    **{f"repeated_ids_{n}_example": f"The least item id on more than one row of the {n} "
                                    "table (NULL if none)." for n in ("weights", "attributes")},
    "null_cluster_base": "Items of T with a NULL Base cluster id.",
    "null_cluster_exp": "Items of T with a NULL Exp cluster id.",
    "bad_weight_weights": f"Weights that are NULL, NaN, infinite or outside {WEIGHT_RANGE_TEXT}.",
    "missing_weight": "Items of T the weights table lacks.",
    "no_common_items": "1 when the clusterings have no item id in common.",
    "without_attributes": "Items of T without a row in the attributes table (not an error).",
    "budget_filled": "TRUE when the kept prefix of the stream holds --budget unique "
                     "judgeable pairs; FALSE: a smaller sample, fill_note says what to do.",
    **{f"unused_{n}": f"Rows of the {n} table whose item id is in neither clustering "
                      f"(not an error; abcde impact reports them as unused_{n})."
       for n in ("weights", "attributes")},
}
# columns of the work models, where they differ from (or are missing in) COLUMN_DOCS
WORK_DOCS = {
    "cell_rows": {
        "side": "Which clusterings hold the rows: 1 Base only, 2 Exp only, 3 both (T).",
        "common": "side = 3: the rows are items of T.",
        "one_side_id": "Item id of an item in only one clustering (NULL for items of T).",
        "item_rows": "Input rows of the group.",
        "weight_rows": "Rows of the group the weights table matched.",
        "attribute_rows": "Rows of the group the attributes table matched.",
        "w": "Weight of the group.",
    },
    "cell_metrics": {
        "n_b": "Items of T in Base cluster b.", "n_e": "Items of T in Exp cluster e.",
        "w_b": "Weight of Base cluster b.", "w_e": "Weight of Exp cluster e.",
        "u": "Weight of the union of b and e.",
        "split_w": "Weight of b outside e (W_b - w_c, summed from the other cells of b).",
        "merge_w": "Weight of e outside b (W_e - w_c, summed from the other cells of e).",
        "affected": "TRUE when b and e differ as sets (ABCDE eq. 7).",
    },
}
TRUE_TEST = "abcde_is_true"
TRUE_TEST_SQL = f"""{{# abcde {__version__}: rows where the column is not TRUE (FALSE or NULL)
   fail the test #}}
{{% test {TRUE_TEST}(model, column_name) %}}
select {{{{ column_name }}}} from {{{{ model }}}} where not coalesce({{{{ column_name }}}}, false)
{{% endtest %}}
"""
# tests that hold on valid input, per output step
TESTS = {
    "validation": {"input_valid": ["not_null", TRUE_TEST]},
    "overall": {"items": ["not_null"], "weight": ["not_null"], "input_valid": ["not_null"]},
    "base_clusters": {"cluster_id": ["not_null", "unique"]},
    "exp_clusters": {"cluster_id": ["not_null", "unique"]},
    "coverage": {"side": ["not_null", "unique"]},
    "cells": {"b": ["not_null"], "e": ["not_null"], "w": ["not_null"]},
    # a pair sample short of its budget is valid but smaller than asked: a warning
    "pair_manifest": {"budget_filled": [{TRUE_TEST: {"config": {"severity": "warn"}}}]},
}


def _yaml(value: object, indent: int = 0) -> str:
    """A small YAML writer (JSON scalars are valid YAML), to need no YAML library."""
    pad = "  " * indent
    if isinstance(value, dict):
        return "".join(
            f"{pad}{k}:\n{_yaml(v, indent + 1)}" if isinstance(v, dict | list) and v
            else f"{pad}{k}: {json.dumps(v)}\n" for k, v in value.items())
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, dict):
                body = _yaml(v, indent + 1).lstrip()
                out.append(f"{pad}- {body}")
            else:
                out.append(f"{pad}- {json.dumps(v)}\n")
        return "".join(out)
    return f"{pad}{json.dumps(value)}\n"


_JINJA = ("{{", "{%", "{#")
# a Jinja (Python) identifier: what a model's macro `<prefix><step>_sql` must be
_MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_names(spec: ScriptSpec, dialect: str | Dialect) -> None:
    """Names dbt would render as Jinja, and sources the dbt adapter cannot name (dbt-spark:
    no database), are refused; so are names the dialect cannot hold
    (abcde.warehouse.scripts.check_dialect_names)."""
    check_dialect_names(spec, get_dialect(dialect).name)
    for option, name in spec.names().items():
        if any(j in name for j in _JINJA):
            raise InputError(f"{option} {name!r} holds Jinja syntax, which dbt would run",
                             hint="Rename it, without '{{', '{%' or '{#'.")
    if spec.prefix and not _MACRO_NAME.fullmatch(spec.prefix):
        example = re.sub(r"[^A-Za-z0-9_]", "_", spec.prefix)[:20]
        raise InputError(
            f"--prefix {spec.prefix!r}: dbt names models, their files and macros "
            "<prefix><step>, so a prefix holds only ASCII letters, digits and _, and does "
            "not start with a digit",
            hint=f"Give a prefix so named, e.g. --prefix "
                 f"{'p' if example[0].isdigit() else ''}{example}.")
    target = get_dialect(dialect)
    for role, name in spec.tables().items():
        if not target.dbt_source_has_database and name.count(".") > 1:
            raise InputError(f"{spec.option(role)} {name!r}: dbt-{target.name} sources have "
                             "a schema but no database", hint=f"Name it schema.table, e.g. "
                             f"{'.'.join(name.split('.')[-2:])}.")


def _plain(name: str, dialects: Sequence[str]) -> bool:
    """A lower-case word that no adapter of the package reserves: written unquoted, it
    names the same table everywhere (Snowflake folds it to upper case, as abcde's rule
    says; the others keep it or ignore case)."""
    import sqlglot

    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        return False
    for d in dialects:
        tokens = sqlglot.Dialect.get_or_raise(get_dialect(d).sqlglot_name).tokenizer_class.KEYWORDS
        if name.upper() in tokens:
            return False
    return name.upper() not in SNOWFLAKE_RESERVED


def _source(role: str, name: str, dialect: str, dialects: Sequence[str] = (),
            ) -> tuple[dict[str, object], dict[str, object]]:
    """A dbt source for one input table: its database, schema and table are the vars
    abcde_<role>_{database,schema,identifier}, quoted by abcde's rule (abcde.sql.dialects),
    which must be the same for every adapter of the package; and the defaults of those
    vars (the name given, as the rule writes it)."""
    parts = dict(zip(["identifier", "schema", "database"], reversed(name.split(".")),
                     strict=False))
    where: dict[str, object] = {}
    quoting = {}
    defaults: dict[str, object] = {}
    for key in ("database", "schema", "identifier"):
        if key not in parts:
            continue
        ident = identifier(parts[key], dialect)
        forms = {(bool(i.quoted), i.this) for i in (identifier(parts[key], d)
                                                     for d in (dialect, *dialects))}
        if len(forms) > 1 and _plain(parts[key], dialects):
            # a lower-case word: unquoted, it is the same table on every adapter
            quoting[key], defaults[f"abcde_{role}_{key}"] = False, parts[key]
            continue
        for other in dialects:
            form = identifier(parts[key], other)
            if (bool(form.quoted), form.this) != (bool(ident.quoted), ident.this):
                raise InputError(
                    f"{name!r}: {get_dialect(dialect).title} and "
                    f"{get_dialect(other).title} quote {parts[key]!r} differently "
                    "(abcde's name rule), and a dbt source has one name and quoting",
                    hint="Write a package per warehouse: --dialect "
                         f"{get_dialect(other).name} alone.")
        written = to_sql(ident, dialect)
        if ident.quoted and written != f"{written[0]}{ident.this}{written[-1]}":
            # a quote character inside the name: dbt's quoting does not escape it, so the
            # part goes in escaped as `abcde sql` writes it, and dbt leaves it as is
            quoting[key], defaults[f"abcde_{role}_{key}"] = False, written
            continue
        quoting[key], defaults[f"abcde_{role}_{key}"] = bool(ident.quoted), ident.this
    # an empty var (or none given) means the target's: the integration tests' seeds
    with_database = all(get_dialect(d).dbt_source_has_database for d in (dialect, *dialects))
    for key in ("database", "schema") if with_database else ("schema",):
        where[key] = f"{{{{ var('abcde_{role}_{key}', '') or target.{key} }}}}"
    table = {"name": role, "identifier": f"{{{{ var('abcde_{role}_identifier') }}}}",
             "description": f"The {role} input (default {name}; var abcde_{role}_identifier)."}
    return {"name": f"{SOURCE}_{role}", "description": f"The {role} input of abcde.",
            **where, "quoting": quoting, "tables": [table]}, defaults


# vars of the package besides INT_VARS: the custom schema of the work tables, and whether
# the inputs are seeds of the project (integration_tests/ sets it)
WORK_SCHEMA = "abcde_work_schema"
SEED_INPUTS = "abcde_inputs_are_seeds"
SEED_SENTINEL = 918_273_645
SIZE_SENTINEL = 827_364_519
PAIR_SEED_SENTINEL = 716_253_849
INT_VARS = {  # var -> (sentinel rendered in its place, minimum, maximum, what it is)
    "abcde_seed": (SEED_SENTINEL, 0, MAX_SEED, "seed of the item sample"),
    "abcde_size": (SIZE_SENTINEL, 1, 10**9, "unique affected items of the item sample"),
    "abcde_pair_seed": (PAIR_SEED_SENTINEL, 0, MAX_SEED, "seed of the pair sample"),
}
INT_VAR_SQL = f"""{{# abcde {__version__}: an integer option of the package (a dbt var), checked:
   a value that is not an integer in [minimum, maximum] stops the compilation with its
   name, instead of drawing another sample than the one asked for #}}
{{% macro int_var(name, minimum, maximum) %}}
  {{%- set value = var(name) -%}}
  {{%- if value is number and value == value | int and minimum <= value <= maximum -%}}
    {{{{ return(value | int) }}}}
  {{%- else -%}}
    {{{{ exceptions.raise_compiler_error("abcde: var " ~ name ~ " must be an integer between "
       ~ minimum ~ " and " ~ maximum ~ ", got " ~ value) }}}}
  {{%- endif -%}}
{{% endmacro %}}
"""
PROFILES_EXAMPLE = """# An example profiles.yml for the integration tests (and your own project):
# the profile is named abcde; pick a target with `dbt build --target postgres`.
abcde:
  target: duckdb
  outputs:
    duckdb:
      type: duckdb
      path: "{{ env_var('ABCDE_DBT_DUCKDB', 'abcde_integration.duckdb') }}"
      schema: main
      threads: 2
    postgres:
      type: postgres
      host: "{{ env_var('ABCDE_DBT_PG_HOST', '127.0.0.1') }}"
      port: "{{ env_var('ABCDE_DBT_PG_PORT', '5432') | as_number }}"
      user: "{{ env_var('ABCDE_DBT_PG_USER', 'postgres') }}"
      password: "{{ env_var('ABCDE_DBT_PG_PASSWORD', '') }}"
      dbname: "{{ env_var('ABCDE_DBT_PG_DBNAME', 'postgres') }}"
      schema: "{{ env_var('ABCDE_DBT_PG_SCHEMA', 'abcde_it') }}"
      threads: 2
    # bigquery: {type: bigquery, method: oauth, project: PROJ, dataset: DS, threads: 4}
    # snowflake: {type: snowflake, account: ..., user: ..., database: DB, schema: S, ...}
    # spark: {type: spark, method: thrift, host: ..., schema: S}
"""


@dataclass(frozen=True)
class DbtRound:
    """What the package computes besides impact: the item sample (`size`, `seed`: the
    defaults of the vars abcde_size and abcde_seed), the pair sample (`population`,
    `alpha`, `budget`, `stream_draws` fixed; `pair_seed` the default of the var
    abcde_pair_seed) and, with a `truth`, the evaluation of the `actual` runs ((name or
    None, table) each)."""

    size: int = 1_000_000
    seed: int = 0
    truth: str | None = None
    actual: tuple[tuple[str | None, str], ...] = ()
    population: str = "mixture"
    alpha: float | None = None
    budget: int = 1000
    pair_seed: int = 0
    stream_draws: int | None = None


def _pipelines(spec: ScriptSpec, round_: DbtRound, relations: dict[str, str],
               ) -> list[tuple[Pipeline, list[Output]]]:
    """The pipelines of the package with sentinel seed and size (abcde.warehouse): impact,
    the item sample (same cells: in dbt one model each, built once) and the evaluations."""
    from abcde.warehouse.evaluation import evaluate_pipelines
    from abcde.warehouse.sampling import sample_items_pipeline, sample_pairs_pipeline

    check_count("--size", round_.size, maximum=10**9)
    check_seed(round_.seed)
    base = {k: v for k, v in relations.items() if k in spec.tables()}
    parts: list[tuple[Pipeline, list[Output]]] = []
    impact, _, outputs = impact_pipeline(spec, base)
    parts.append((impact, outputs))
    items, _, outputs = sample_items_pipeline(spec, SIZE_SENTINEL, SEED_SENTINEL, base)
    parts.append((items, outputs))
    check_seed(round_.pair_seed)
    pairs, _, outputs = sample_pairs_pipeline(
        spec, round_.population, round_.budget, PAIR_SEED_SENTINEL, alpha=round_.alpha,
        stream_draws=round_.stream_draws, relations=base)
    parts.append((pairs, outputs))
    if round_.truth is not None:
        ev_spec = replace(spec, base=round_.truth, exp="", roles=("truth", "actual"))
        rel = {**base, "base": relations["truth"],
               **{f"actual_{k}": relations[f"actual_{k}"] for k in range(len(round_.actual))}}
        parts += [(p, o) for _, p, o in evaluate_pipelines(ev_spec, list(round_.actual), rel)]
    return parts


def _tags(parts: Sequence[tuple[Pipeline, list[Output]]]) -> list[str]:
    """A short name per pipeline of `_pipelines`, for models whose step name clashes."""
    return ["impact", "item", "pair", *(f"evaluate{k}" for k in range(len(parts) - 3))]


def _step_sql(query: exp.Query, names: set[str], model: dict[str, str], dialect: str,
              ) -> tuple[str, list[str], list[str]]:
    """The step's SQL for `dialect` with ref()/source() in place of the other steps and
    inputs, and the checked vars in place of the sentinels; the models it refs and the
    input roles it reads."""
    def visit(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and not node.db and node.name in names:
            table = exp.to_table(f"{_REF}{node.name}")
            table.set("alias", node.args.get("alias") or exp.TableAlias(
                this=exp.to_identifier(node.name)))
            return table
        return node

    with quiet_sqlglot():
        sql = to_sql(query.transform(visit), dialect, pretty=True)
    refs: list[str] = []
    roles: list[str] = []

    def sub(m: re.Match[str]) -> str:
        if m.group(1) == _REF:
            refs.append(model[m.group(2)])
            return f"{{{{ ref('{model[m.group(2)]}') }}}}"
        roles.append(m.group(2))
        return f"{{{{ source('{SOURCE}_{m.group(2)}', '{m.group(2)}') }}}}"

    sql = _PLACEHOLDER.sub(sub, sql)
    for var, (sentinel, low, high, _) in INT_VARS.items():
        sql = re.sub(rf"\b{sentinel}\b", f"{{{{ abcde.int_var('{var}', {low}, {high}) }}}}",
                     sql)
    return sql, list(dict.fromkeys(refs)), list(dict.fromkeys(roles))


MARKER = ".abcde-dbt.json"
# what `abcde dbt` writes into a project directory (and `--overwrite` replaces in one it
# did not write)
PROJECT_ENTRIES = ("dbt_project.yml", "models/", "macros/", "integration_tests/")


def _replaced(out: Path, overwrite: bool) -> list[str]:
    """The entries of an existing `out` that the new project replaces: those its marker
    lists (a project abcde wrote is replaced whole, stale models included); in a
    directory abcde did not write, the project files only with `overwrite`."""
    marker = out / MARKER
    if marker.is_file():
        try:
            listed = load_json(marker.read_bytes())["files"]
            if isinstance(listed, list) and all(isinstance(f, str) for f in listed):
                return [*listed, MARKER]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            pass
    present = [e for e in PROJECT_ENTRIES if (out / e.rstrip("/")).exists()]
    if present and not overwrite:
        raise InputError(
            f"--out {out} holds a dbt project abcde did not write ({', '.join(present)}; "
            f"no {MARKER})", hint="Choose a new directory, or pass --overwrite to replace "
            "its dbt_project.yml, models/ and macros/ (other files are kept).")
    others = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if others and not overwrite:  # e.g. a repository's root given by mistake
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise InputError(
            f"--out {out} is a directory abcde did not write and it is not empty ({shown}; "
            f"no {MARKER})", hint="Choose a new or empty directory, or pass --overwrite to "
            "write the project's dbt_project.yml, models/ and macros/ there (other files "
            "are kept).")
    return [*PROJECT_ENTRIES, MARKER]


def dbt_project(spec: ScriptSpec, dialects: str | Sequence[str], out: Path,
                round_: DbtRound | None = None, *, overwrite: bool = False) -> list[Path]:
    """Write the dbt package into `out` (`_write_package`); returns the files written.

    The package is written atomically (`abcde.outputs.output_dir`) with a marker file
    listing its files: a package abcde wrote before is replaced whole (no stale model of
    a removed slicing or weights table is left for `dbt build`), other files of the
    directory (profiles.yml, dbt's target/ and logs/) are kept; a directory holding a
    dbt project abcde did not write, or any other non-empty directory without the marker,
    is refused unless `overwrite`. integration_tests/profiles.yml is the example profile
    only when absent: one already there (the user's connection, edited) is kept as is."""
    names = [dialects] if isinstance(dialects, str) else list(dialects)
    for d in names:
        _check_names(spec, d)
    replaces = _replaced(out, overwrite) if out.exists() else []
    profiles = out / "integration_tests" / "profiles.yml"
    kept = profiles.read_bytes() if profiles.is_file() else None
    with output_dir(out, replaces=replaces) as od:
        written = _write_package(spec, names, od.path, round_, profiles=kept)
        rel = sorted(str(p.relative_to(od.path)) for p in written)
        (od.path / MARKER).write_text(json.dumps(
            {"written_by": f"abcde {__version__} dbt --dialect {' --dialect '.join(names)}",
             "files": rel}, indent=2) + "\n", encoding="utf-8")
    return [od.final(p) for p in written]


def _write_package(spec: ScriptSpec, dialects: str | Sequence[str], out: Path,
                   round_: DbtRound | None = None, *, profiles: bytes | None = None,
                   ) -> list[Path]:
    """Write the dbt package `abcde` into `out` and its integration-test project into
    `out/integration_tests` (with `profiles` as its profiles.yml, if given, else the
    example); returns the files written.

    Every materialised or inlined step of every pipeline (impact, the item sample, the
    evaluations) is a model calling a macro dispatched on the adapter
    (`adapter.dispatch`): `default__` holds the SQL most of `dialects` share, and an
    adapter whose SQL differs has its own `<adapter>__` version. The inputs are sources
    whose database, schema and table are vars, and the seed and size of the item sample
    are vars checked at compile time; options that change the SQL's shape (columns,
    slicings, which inputs, the runs) are fixed when the package is written."""
    round_ = round_ or DbtRound()
    dialects = [dialects] if isinstance(dialects, str) else list(dict.fromkeys(dialects))
    if not dialects:
        raise InputError("give at least one --dialect")
    for d in dialects:
        _check_names(spec, d)
    tables = dict(spec.tables())
    if round_.truth is not None:
        if not round_.actual:
            raise InputError("--truth needs --actual (the runs to evaluate)")
        from abcde.warehouse.evaluation import run_name

        tables["truth"] = round_.truth
        for k, (name, table) in enumerate(round_.actual):
            run = run_name(name, table)
            if not _MACRO_NAME.match(f"{spec.prefix}{run}"):
                raise InputError(f"run name {run!r} starts with a digit, and so would its "
                                 "dbt models and macros (<prefix><run>_<step>) without a "
                                 "--prefix", hint=f"Name the run otherwise, e.g. --actual "
                                 f"run_{run}={table}, or give a --prefix.")
            tables[f"actual_{k}"] = table
    elif round_.actual:
        raise InputError("--actual needs --truth (the ground truth to evaluate against)")
    relations = {role: f"{_SRC}{role}" for role in tables}
    parts = _pipelines(spec, round_, relations)

    # one model per step name (prefix + step): steps the pipelines share (the cells)
    # must be the same query, and are built once
    # must be the same query, and are built once; a step named like another pipeline's
    # but computed otherwise (the item sample's unflagged overall) gets its pipeline's tag
    steps: dict[str, tuple[exp.Query, bool, str, Output | None, dict[str, str]]] = {}
    for (pipeline, outputs), tag in zip(parts, _tags(parts), strict=True):
        by_step = {o.step: o for o in outputs}
        model: dict[str, str] = {}
        for name, step in pipeline.steps.items():
            key = f"{pipeline.prefix}{name}"
            if key in steps and steps[key][0] != step.query:
                key = f"{pipeline.prefix}{tag}_{name}"
            model[name] = key
        for d in dialects:  # a table model is a relation of that name on every adapter
            check_created_names(spec, d, pipeline, [model[n] for n, st in
                                                    pipeline.steps.items() if st.materialise])
        for name, step in pipeline.steps.items():
            key = model[name]
            if key in steps:
                if steps[key][0] != step.query:
                    raise AssertionError(f"two pipelines define model {key} differently")
                continue
            steps[key] = (step.query, step.materialise, name, by_step.get(name), model)

    models, macros = out / "models", out / "macros"
    for d in (models, macros / "steps"):
        d.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    schema_models = []
    for key, (query, materialise, name, output, model) in steps.items():
        names = set(model)
        by_dialect = {d: _step_sql(query, names, model, d) for d in dialects}
        texts = [sql for sql, _, _ in by_dialect.values()]
        default = max(texts, key=texts.count)
        _, refs, roles = by_dialect[dialects[0]]
        macro = f"{key}_sql"
        body = [f"{{# abcde {__version__}: the SQL of model {key} (pipeline step {name}), "
                "per adapter #}",
                f"{{% macro {macro}() %}}",
                f"  {{{{ return(adapter.dispatch('{macro}', 'abcde')()) }}}}",
                "{% endmacro %}", "",
                f"{{% macro default__{macro}() %}}", default, "{% endmacro %}"]
        for d, (sql, _, _) in by_dialect.items():
            if sql != default:
                body += ["", f"{{% macro {get_dialect(d).name}__{macro}() %}}", sql,
                         "{% endmacro %}"]
        path = macros / "steps" / f"{macro}.sql"
        path.write_text("\n".join(body) + "\n")
        written.append(path)
        depends = "".join(f"-- depends_on: {{{{ ref('{r}') }}}}\n" for r in refs)
        # inputs loaded as seeds of the same project (integration_tests/): sources do not
        # wait for seeds, so a plain `dbt build` would read them before they are loaded
        depends += "".join(
            f"{{% if var('{SEED_INPUTS}', false) %}}-- depends_on: "
            f"{{{{ ref(var('abcde_{role}_identifier')) }}}}{{% endif %}}\n" for role in roles)
        # only the results land in the profile's schema; the work tables in its
        # <schema>_<var abcde_work_schema> (dbt's custom schema)
        config = (f"materialized='table', schema=var('{WORK_SCHEMA}')"
                  if materialise and output is None
                  else f"materialized='{'table' if materialise else 'ephemeral'}'")
        text = (f"-- abcde {__version__}: pipeline step {name}\n{depends}"
                f"{{{{ config({config}) }}}}\n\n"
                f"{{{{ abcde.{macro}() }}}}\n")
        path = models / f"{key}.sql"
        path.write_text(text)
        written.append(path)
        if materialise:
            schema_models.append(_model_doc(key, name, query, output, spec))

    sources, variables = [], {"abcde_seed": round_.seed, "abcde_size": round_.size,
                              "abcde_pair_seed": round_.pair_seed,
                              WORK_SCHEMA: "abcde_work", SEED_INPUTS: False}
    for role, name in tables.items():
        source, defaults = _source(role, name, dialects[0], dialects)
        sources.append(source)
        variables |= defaults
    schema = {"version": 2, "sources": sources, "models": schema_models}
    for name, text in ((f"{TRUE_TEST}.sql", TRUE_TEST_SQL), ("int_var.sql", INT_VAR_SQL)):
        (macros / name).write_text(text)
        written.append(macros / name)
    adapters = ", ".join(get_dialect(d).name for d in dialects)
    header = (f"# abcde {__version__}: generated by `abcde dbt` (adapters: {adapters})\n")
    files = {
        out / "dbt_project.yml": {
            "name": "abcde", "version": __version__, "config-version": 2,
            "require-dbt-version": [">=1.9.0", "<2.0.0"],
            "profile": "abcde", "model-paths": ["models"], "macro-paths": ["macros"],
            "models": {"abcde": {"+materialized": "table"}}, "vars": variables},
        models / "schema.yml": schema,
    }
    for path, doc in files.items():
        path.write_text(header + _yaml(doc))
        written.append(path)
    tests_vars = {k: ("" if k.endswith(("_schema", "_database")) and k != WORK_SCHEMA
                      else v) for k, v in variables.items()} | {SEED_INPUTS: True}
    written += _integration_tests(out / "integration_tests", header, tests_vars, profiles)
    return written


def _integration_tests(out: Path, header: str, variables: dict[str, object],
                       profiles: bytes | None = None) -> list[Path]:
    """The project that installs the package (`local: ../`) and builds it on seeds:
    `seeds/<table>.csv` for each input (named as the package's default inputs), loaded
    into the target's schema (the schema and database vars are empty: the target's); the
    var abcde_inputs_are_seeds makes the models that read an input depend on its seed,
    so that a plain `dbt build` loads the seeds first."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "seeds").mkdir(exist_ok=True)
    # ids are read as strings, whatever they look like (as `--item-type string`)
    seeds: dict[str, object] = {}
    for key, table in variables.items():
        role = key[len("abcde_"):-len("_identifier")]
        if key.endswith("_identifier"):
            ids = ["item_id"] + (["cluster_id"] if role in ("base", "exp", "truth")
                                 or role.startswith("actual_") else [])
            seeds[str(table)] = {"+column_types": dict.fromkeys(ids, "varchar")}
    files = {
        out / "dbt_project.yml": header + _yaml({
            "name": "abcde_integration_tests", "version": __version__,
            "config-version": 2, "profile": "abcde", "seed-paths": ["seeds"],
            "vars": {"abcde": variables},
            "seeds": {"abcde_integration_tests": seeds}}),
        out / "packages.yml": header + _yaml({"packages": [{"local": "../"}]}),
    }
    for path, text in files.items():
        path.write_text(text)
    if profiles is None:
        (out / "profiles.yml").write_text(header + PROFILES_EXAMPLE)
    else:
        (out / "profiles.yml").write_bytes(profiles)
    return [*files, out / "profiles.yml"]


def _column_doc(step: str, column: str, spec: ScriptSpec) -> str:
    if column in WORK_DOCS.get(step, {}):
        return WORK_DOCS[step][column]
    if column in COLUMN_DOCS:
        return COLUMN_DOCS[column]
    if step.startswith("slices_"):
        return f"Slice column {column} (its value; NULL for items without one)."
    if step == "cell_rows" and column.startswith("s_"):
        names = list(dict.fromkeys(c for s in spec.slicings for c in s))
        return f"Value of the slice attribute {names[int(column[2:])]} (as a string)."
    if step == "cell_rows" and column.endswith("_n"):
        return f"Rows of the group failing check {column[:-len('_n')]}."
    if column.endswith("_example"):
        return f"An item id failing check {column[:-len('_example')]} (NULL if none)."
    if column.endswith("_rows"):
        return f"Rows of the {column[:-len('_rows')]} input."
    if column.startswith("example_"):
        return "An example item id (ordered by id)."
    return column.replace("_", " ").capitalize() + "."


def _model_doc(name: str, step: str, query: exp.Query, output: Output | None,
               spec: ScriptSpec) -> dict[str, object]:
    """The schema.yml entry of a table model: the output's columns and doc, or for a work
    table the columns its query selects."""
    if output is None:
        description = f"Work table of abcde (step {step})." + (
            " Cells (Base cluster, Exp cluster) of T with their size and weight."
            if step == "cells" else "")
        names: Sequence[str] = query.named_selects
    else:
        description, names = output.doc, output.columns
    columns = []
    for c in names:
        entry: dict[str, object] = {"name": c, "description": _column_doc(step, c, spec)}
        if c in TESTS.get(step, {}):
            entry["data_tests"] = TESTS[step][c]
        columns.append(entry)
    return {"name": name, "description": description, "columns": columns}


__all__ = ["DbtRound", "dbt_project"]
