"""`abcde dbt`: every pipeline of abcde.warehouse as a dbt package — one model per step,
`ref()` between them, `source()` for the input tables, and a schema.yml with column docs
and the tests that hold on valid input.

Materialised steps become `table` models, the others `ephemeral` (inlined as CTEs, as the
pipeline inlines them); the results are built in the profile's schema, the work tables in
dbt's custom schema of var abcde_work_schema. The `validation` model's test `abcde_is_true`
on `input_valid` fails `dbt build` on invalid input, and dbt then skips every model
downstream of it; on `abcde_pair_manifest.budget_filled` it only warns (a smaller sample
is still valid). Input tables are sources quoted by the rule of abcde.sql.dialects, as in
`abcde sql`; dbt renders every model and schema.yml as Jinja, so a name holding Jinja
syntax is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path

import sqlglot
from sqlglot import exp

from abcde.errors import InputError
from abcde.inputs.records import load_json
from abcde.inputs.spec import WEIGHT_RANGE_TEXT
from abcde.outputs import output_dir
from abcde.params import MAX_SEED
from abcde.sql.dialects import SNOWFLAKE_RESERVED, Dialect, get_dialect, identifier, to_sql
from abcde.sql.pipeline import Pipeline, retarget
from abcde.version import __version__
from abcde.warehouse.scripts import (
    Output,
    Problem,
    ScriptSpec,
    created_problems,
    impact_pipeline,
    name_problems,
    refuse,
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
    **{f"empty_{n}": f"1 when the {n} table has no rows."
       for n in ("base", "exp", "weights", "attributes")},
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
        return "".join(f"{pad}{k}:\n{_yaml(v, indent + 1)}" if isinstance(v, dict | list) and v
                       else f"{pad}{k}: {json.dumps(v)}\n" for k, v in value.items())
    if isinstance(value, list):
        return "".join(f"{pad}- {_yaml(v, indent + 1).lstrip()}" if isinstance(v, dict)
                       else f"{pad}- {json.dumps(v)}\n" for v in value)
    return f"{pad}{json.dumps(value)}\n"


# a Jinja (Python) identifier: what a model's macro `<prefix><step>_sql` must be
_MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _problems(spec: ScriptSpec, dialect: str | Dialect) -> Iterator[Problem]:
    """What dbt cannot take: names holding Jinja syntax (dbt would run it), a prefix that
    makes no macro name, and a source with a database where the adapter has none."""
    target = get_dialect(dialect)
    for option, _, name in spec.names():
        if any(j in name for j in ("{{", "{%", "{#")):
            yield (f"{option} {name!r} holds Jinja syntax, which dbt would run",
                   "Rename it, without '{{', '{%' or '{#'.")
    if spec.prefix and not _MACRO_NAME.fullmatch(spec.prefix):
        example = re.sub(r"[^A-Za-z0-9_]", "_", spec.prefix)[:20]
        yield (f"--prefix {spec.prefix!r}: dbt names models, their files and macros "
               "<prefix><step>, so a prefix holds only ASCII letters, digits and _, and does "
               "not start with a digit", f"Give a prefix so named, e.g. --prefix "
               f"{'p' if example[0].isdigit() else ''}{example}.")
    for role, name in spec.tables().items():
        if not target.dbt_source_has_database and name.count(".") > 1:
            yield (f"{spec.option(role)} {name!r}: dbt-{target.name} sources have a schema "
                   "but no database", f"Name it schema.table, e.g. "
                   f"{'.'.join(name.split('.')[-2:])}.")


def _plain(name: str, dialects: Sequence[str]) -> bool:
    """A lower-case word that no adapter of the package reserves: written unquoted, it
    names the same table everywhere (Snowflake folds it to upper case, as abcde's rule
    says; the others keep it or ignore case)."""
    return bool(re.fullmatch(r"[a-z_][a-z0-9_]*", name)) and name.upper() not in {
        *SNOWFLAKE_RESERVED, *(k for d in dialects for k in sqlglot.Dialect.get_or_raise(
            get_dialect(d).sqlglot_name).tokenizer_class.KEYWORDS)}


def _source(role: str, name: str, dialects: Sequence[str]
            ) -> tuple[dict[str, object], dict[str, object]]:
    """A dbt source for one input table, and the defaults of its vars: its database,
    schema and table are the vars abcde_<role>_{database,schema,identifier}, quoted by
    abcde's rule (abcde.sql.dialects), which must be the same for every adapter."""
    parts = dict(zip(["identifier", "schema", "database"], reversed(name.split(".")),
                     strict=False))
    quoting, defaults = {}, {}
    for key in ("database", "schema", "identifier"):
        if key not in parts:
            continue
        idents = {d: identifier(parts[key], d) for d in dialects}
        forms = {d: (bool(i.quoted), i.this) for d, i in idents.items()}
        ident = idents[dialects[0]]
        written = to_sql(ident, dialects[0])
        if len(set(forms.values())) > 1:
            if not _plain(parts[key], dialects):  # one source has one name and quoting
                other = next(d for d, f in forms.items() if f != forms[dialects[0]])
                raise InputError(
                    f"{name!r}: {get_dialect(dialects[0]).title} and "
                    f"{get_dialect(other).title} quote {parts[key]!r} differently "
                    "(abcde's name rule), and a dbt source has one name and quoting",
                    hint=f"Write a package per warehouse: --dialect {other} alone.")
            # a lower-case word: unquoted, it is the same table on every adapter
            quoting[key], defaults[f"abcde_{role}_{key}"] = False, parts[key]
        elif ident.quoted and written != f"{written[0]}{ident.this}{written[-1]}":
            # a quote character inside the name, which dbt's quoting does not escape: the
            # part goes in escaped as `abcde sql` writes it, and dbt leaves it as is
            quoting[key], defaults[f"abcde_{role}_{key}"] = False, written
        else:
            quoting[key], defaults[f"abcde_{role}_{key}"] = bool(ident.quoted), ident.this
    # an empty var (or none given) means the target's: the integration tests' seeds
    with_database = all(get_dialect(d).dbt_source_has_database for d in dialects)
    where = {key: f"{{{{ var('abcde_{role}_{key}', '') or target.{key} }}}}"
             for key in (("database", "schema") if with_database else ("schema",))}
    table = {"name": role, "identifier": f"{{{{ var('abcde_{role}_identifier') }}}}",
             "description": f"The {role} input (default {name}; var abcde_{role}_identifier)."}
    return {"name": f"{SOURCE}_{role}", "description": f"The {role} input of abcde.",
            **where, "quoting": quoting, "tables": [table]}, defaults


# vars of the package besides INT_VARS: the custom schema of the work tables, and whether
# the inputs are seeds of the project (integration_tests/ sets it)
WORK_SCHEMA = "abcde_work_schema"
SEED_INPUTS = "abcde_inputs_are_seeds"
SEED_SENTINEL, SIZE_SENTINEL, PAIR_SEED_SENTINEL = 918_273_645, 827_364_519, 716_253_849
INT_VARS = {  # var -> (sentinel rendered in its place, minimum, maximum)
    "abcde_seed": (SEED_SENTINEL, 0, MAX_SEED),
    "abcde_size": (SIZE_SENTINEL, 1, 10**9),
    "abcde_pair_seed": (PAIR_SEED_SENTINEL, 0, MAX_SEED),
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
               ) -> list[tuple[str, Pipeline, list[Output]]]:
    """(tag, pipeline, outputs) of the package, with sentinel seeds and size: impact, the
    item sample, the pair sample (the same cells: one model each, built once) and the
    evaluations; the tag names a model whose step name another pipeline computes otherwise."""
    from abcde.warehouse.evaluation import evaluate_pipelines
    from abcde.warehouse.sampling import sample_items_pipeline, sample_pairs_pipeline

    base = {k: v for k, v in relations.items() if k in spec.tables()}
    parts = [("impact", *impact_pipeline(spec, base)[::2]),
             ("item", *sample_items_pipeline(spec, SIZE_SENTINEL, SEED_SENTINEL, base)[::2]),
             ("pair", *sample_pairs_pipeline(
                 spec, round_.population, round_.budget, PAIR_SEED_SENTINEL,
                 alpha=round_.alpha, stream_draws=round_.stream_draws, relations=base)[::2])]
    if round_.truth is not None:
        ev_spec = replace(spec, base=round_.truth, exp="", roles=("truth", "actual"))
        rel = {**relations, "base": relations["truth"]}
        parts += [(f"evaluate{k}", p, o) for k, (_, p, o) in enumerate(
            evaluate_pipelines(ev_spec, list(round_.actual), rel))]
    return parts


def _step_sql(query: exp.Query, model: dict[str, str], dialect: str,
              ) -> tuple[str, list[str], list[str]]:
    """The step's SQL for `dialect` with ref()/source() in place of the other steps and
    inputs, and the checked vars in place of the sentinels; the models it refs and the
    input roles it reads."""
    refs: list[str] = []
    roles: list[str] = []

    def sub(m: re.Match[str]) -> str:
        if m.group(1) == _REF:
            refs.append(model[m.group(2)])
            return f"{{{{ ref('{model[m.group(2)]}') }}}}"
        roles.append(m.group(2))
        return f"{{{{ source('{SOURCE}_{m.group(2)}', '{m.group(2)}') }}}}"

    refs_of = retarget(query, lambda n: exp.to_table(f"{_REF}{n}") if n in model else None)
    sql = _PLACEHOLDER.sub(sub, to_sql(refs_of, dialect, pretty=True))
    for var, (sentinel, low, high) in INT_VARS.items():
        sql = re.sub(rf"\b{sentinel}\b", f"{{{{ abcde.int_var('{var}', {low}, {high}) }}}}",
                     sql)
    return sql, list(dict.fromkeys(refs)), list(dict.fromkeys(roles))


MARKER = ".abcde-dbt.json"
# what `abcde dbt` writes into a project directory (and `--overwrite` replaces in one it
# did not write)
PROJECT_ENTRIES = ("dbt_project.yml", "models/", "macros/", "integration_tests/")


def _replaced(out: Path, overwrite: bool) -> list[str]:
    """The entries of `out` the new package replaces: those its marker lists (a package
    abcde wrote is replaced whole, stale models included); in a non-empty directory abcde
    did not write, the package's entries, only with `overwrite`."""
    try:
        listed = load_json((out / MARKER).read_bytes())["files"]
        if isinstance(listed, list) and all(isinstance(f, str) for f in listed):
            return [*listed, MARKER]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        pass
    others = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if others and not overwrite:  # another dbt project, or a repository's root
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise InputError(
            f"--out {out} is not empty and abcde did not write it ({shown}; no {MARKER})",
            hint="Choose a new or empty directory, or pass --overwrite to replace its "
                 "dbt_project.yml, models/, macros/ and integration_tests/ (other files are "
                 "kept).")
    return [*PROJECT_ENTRIES, MARKER]


def dbt_project(spec: ScriptSpec, dialects: Sequence[str], out: Path,
                round_: DbtRound | None = None, *, overwrite: bool = False) -> list[Path]:
    """Write the dbt package `abcde` into `out`, and its integration-test project into
    `out/integration_tests`; returns the files written.

    Every step is a model calling a macro dispatched on the adapter (`default__` the SQL
    most `dialects` share, `<adapter>__` where it differs); the inputs are sources named
    by vars, the seeds and sizes are vars checked at compile time. The package is written
    atomically with a marker file listing its files: one abcde wrote is replaced whole,
    other files of the directory are kept."""
    round_ = round_ or DbtRound()
    dialects = list(dict.fromkeys(dialects))
    refuse(chain.from_iterable(chain(name_problems(spec, d), _problems(spec, d))
                               for d in dialects))
    tables = dict(spec.tables())
    if (round_.truth is None) != (not round_.actual):
        raise InputError("--truth and --actual go together (the ground truth and the runs "
                         "evaluated against it)")
    if round_.truth is not None:
        from abcde.warehouse.evaluation import run_name

        runs = [(run_name(name, table), table) for name, table in round_.actual]
        refuse((f"run name {run!r} starts with a digit, and so would its dbt models and "
                "macros (<prefix><run>_<step>) without a --prefix",
                f"Name the run otherwise, e.g. --actual run_{run}={table}, or give a --prefix.")
               for run, table in runs if not _MACRO_NAME.match(f"{spec.prefix}{run}"))
        tables |= {"truth": round_.truth, **{f"actual_{k}": t for k, (_, t) in enumerate(runs)}}
    parts = _pipelines(spec, round_, {role: f"{_SRC}{role}" for role in tables})
    replaces = _replaced(out, overwrite) if out.exists() else []
    profiles = out / "integration_tests" / "profiles.yml"
    kept = profiles.read_bytes() if profiles.is_file() else None
    with output_dir(out, replaces=replaces) as od:
        written = _write_package(spec, dialects, od.path, round_, parts, tables, kept)
        (od.path / MARKER).write_text(json.dumps(
            {"written_by": f"abcde {__version__} dbt --dialect {' --dialect '.join(dialects)}",
             "files": sorted(str(p.relative_to(od.path)) for p in written)}, indent=2) + "\n",
            encoding="utf-8")
    return [od.final(p) for p in written]


def _write_package(spec: ScriptSpec, dialects: list[str], out: Path, round_: DbtRound,
                   parts: list[tuple[str, Pipeline, list[Output]]], tables: dict[str, str],
                   profiles: bytes | None) -> list[Path]:
    """Write the models, macros, schema.yml, dbt_project.yml and integration_tests/."""
    # one model per step name (prefix + step): steps the pipelines share (the cells) are
    # the same query, built once; a step named like another pipeline's but computed
    # otherwise (the item sample's unflagged overall) gets its pipeline's tag
    steps: dict[str, tuple[exp.Query, bool, str, Output | None, dict[str, str]]] = {}
    for tag, pipeline, outputs in parts:
        by_step = {o.step: o for o in outputs}
        model = {}
        for name, step in pipeline.steps.items():
            key = f"{pipeline.prefix}{name}"
            model[name] = key if key not in steps or steps[key][0] == step.query else \
                f"{pipeline.prefix}{tag}_{name}"
        refuse(chain.from_iterable(
            created_problems(spec, d, pipeline, [model[n] for n, st in pipeline.steps.items()
                                                 if st.materialise]) for d in dialects))
        for name, step in pipeline.steps.items():
            steps.setdefault(model[name], (step.query, step.materialise, name,
                                           by_step.get(name), model))

    models, macros = out / "models", out / "macros"
    (macros / "steps").mkdir(parents=True, exist_ok=True)
    models.mkdir(exist_ok=True)
    written: list[Path] = []

    def write(path: Path, text: str) -> None:
        path.write_text(text)
        written.append(path)

    schema_models = []
    for key, (query, materialise, name, output, model) in steps.items():
        by_dialect = {d: _step_sql(query, model, d) for d in dialects}
        texts = [sql for sql, _, _ in by_dialect.values()]
        default = max(texts, key=texts.count)
        _, refs, roles = by_dialect[dialects[0]]
        macro = f"{key}_sql"
        body = [f"{{# abcde {__version__}: the SQL of model {key} (pipeline step {name}), "
                "per adapter #}", f"{{% macro {macro}() %}}",
                f"  {{{{ return(adapter.dispatch('{macro}', 'abcde')()) }}}}",
                "{% endmacro %}", "", f"{{% macro default__{macro}() %}}", default,
                "{% endmacro %}"]
        for d, (sql, _, _) in by_dialect.items():
            if sql != default:
                body += ["", f"{{% macro {d}__{macro}() %}}", sql, "{% endmacro %}"]
        write(macros / "steps" / f"{macro}.sql", "\n".join(body) + "\n")
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
        write(models / f"{key}.sql", f"-- abcde {__version__}: pipeline step {name}\n"
              f"{depends}{{{{ config({config}) }}}}\n\n{{{{ abcde.{macro}() }}}}\n")
        if materialise:
            schema_models.append(_model_doc(key, name, query, output, spec))

    variables: dict[str, object] = {"abcde_seed": round_.seed, "abcde_size": round_.size,
                                    "abcde_pair_seed": round_.pair_seed,
                                    WORK_SCHEMA: "abcde_work", SEED_INPUTS: False}
    sources = []
    for role, name in tables.items():
        source, defaults = _source(role, name, dialects)
        sources.append(source)
        variables |= defaults
    write(macros / f"{TRUE_TEST}.sql", TRUE_TEST_SQL)
    write(macros / "int_var.sql", INT_VAR_SQL)
    header = f"# abcde {__version__}: generated by `abcde dbt` (adapters: {', '.join(dialects)})\n"
    write(out / "dbt_project.yml", header + _yaml({
        "name": "abcde", "version": __version__, "config-version": 2,
        "require-dbt-version": [">=1.9.0", "<2.0.0"], "profile": "abcde",
        "model-paths": ["models"], "macro-paths": ["macros"],
        "models": {"abcde": {"+materialized": "table"}}, "vars": variables}))
    write(models / "schema.yml", header + _yaml({"version": 2, "sources": sources,
                                                 "models": schema_models}))
    # the integration tests: the package (`local: ../`) built on seeds named as its default
    # inputs, loaded into the target's schema (the schema and database vars are empty)
    tests = out / "integration_tests"
    (tests / "seeds").mkdir(parents=True, exist_ok=True)
    test_vars = {k: "" if k.endswith(("_schema", "_database")) and k != WORK_SCHEMA else v
                 for k, v in variables.items()} | {SEED_INPUTS: True}
    seeds = {str(table): {"+column_types": dict.fromkeys(  # ids read as text
        ["item_id", *(["cluster_id"] if role in ("base", "exp", "truth")
                      or role.startswith("actual_") else [])], "varchar")}
        for role, table in ((k[len("abcde_"):-len("_identifier")], v)
                            for k, v in variables.items() if k.endswith("_identifier"))}
    write(tests / "dbt_project.yml", header + _yaml({
        "name": "abcde_integration_tests", "version": __version__, "config-version": 2,
        "profile": "abcde", "seed-paths": ["seeds"], "vars": {"abcde": test_vars},
        "seeds": {"abcde_integration_tests": seeds}}))
    write(tests / "packages.yml", header + _yaml({"packages": [{"local": "../"}]}))
    if profiles is None:
        write(tests / "profiles.yml", header + PROFILES_EXAMPLE)
    else:
        (tests / "profiles.yml").write_bytes(profiles)
        written.append(tests / "profiles.yml")
    return written


def _column_doc(step: str, column: str, spec: ScriptSpec) -> str:
    if column in WORK_DOCS.get(step, {}):
        return WORK_DOCS[step][column]
    if column in COLUMN_DOCS:
        return COLUMN_DOCS[column]
    if step.startswith("slices_"):
        return f"Slice column {column} (its value; NULL for items without one)."
    if step == "cell_rows" and column.startswith("s_"):
        return (f"Value of the slice attribute {spec.attribute_names[int(column[2:])]} "
                "(as a string).")
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
    columns = [{"name": c, "description": _column_doc(step, c, spec),
                **({"data_tests": TESTS[step][c]} if c in TESTS.get(step, {}) else {})}
               for c in names]
    return {"name": name, "description": description, "columns": columns}


__all__ = ["DbtRound", "dbt_project"]
