"""Inputs: files (CSV, Parquet), tables of a database, DataFrames or Python mappings,
registered with the engine and checked for the columns and id types abcde needs.

Row-level checks (duplicates, NULLs, weights, coverage) run in SQL: `abcde.validation`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abcde.engines.base import Engine, TypeCategory, categorise
from abcde.errors import EngineError, InputError
from abcde.templates import ident

FILE_FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".parquet": "parquet",
                ".pq": "parquet", ".parq": "parquet"}
# The SQL type each id category is normalised to.
ID_TYPES: dict[str, str] = {"integer": "BIGINT", "string": "VARCHAR"}
ATTRIBUTE_TYPES: dict[str, str] = {"integer": "BIGINT", "string": "VARCHAR", "float": "DOUBLE",
                                   "decimal": "DOUBLE", "boolean": "BOOLEAN"}


@dataclass
class Columns:
    """The configurable column names (`--item-col`, `--cluster-col`, `--weight-col`)."""

    item: str = "item_id"
    cluster: str = "cluster_id"
    weight: str = "weight"


@dataclass
class Source:
    """One registered input."""

    role: str  # base, exp, weights, attributes, truth, actual, ...
    label: str  # how messages name it, e.g. "base (examples/base.csv)"
    relation: str  # a quoted reference usable after FROM
    columns: dict[str, str] = field(default_factory=dict)  # name -> engine type

    def category(self, column: str) -> TypeCategory:
        return categorise(self.columns[column])

    def has(self, column: str) -> bool:
        return column in self.columns

    def require(self, column: str, option: str, purpose: str) -> None:
        if column not in self.columns:
            shown = ", ".join(repr(c) for c in self.columns) or "(none)"
            raise InputError(
                f"no column {column!r} ({purpose}); its columns are {shown}",
                table=self.label,
                column=column,
                hint=f"Name the column with {option}.",
            )


def _describe(source: object) -> str:
    if isinstance(source, str | Path):
        return str(source)
    return type(source).__name__


def open_source(engine: Engine, role: str, source: object, *,
                string_columns: Sequence[str] = (),
                mapping_columns: Sequence[str] = ("item_id", "value")) -> Source:
    """Register `source` under a private name and read its columns.

    A str/Path is a file when it exists or has a known file suffix; otherwise a table of
    the engine's database (`--db`). `string_columns` of a CSV are read as text, so that
    ids like 007 and 7 stay distinct. A mapping {item: value} becomes a table with
    `mapping_columns`; {item: {column: value}} keeps its column names.
    """
    name = f"abcde_src_{role}"
    label = f"{role} ({_describe(source)})"
    if isinstance(source, Mapping):
        value_cols = _mapping_columns(source) or list(mapping_columns[1:])
        engine.register_rows(name, [mapping_columns[0], *value_cols], _mapping_rows(source))
        relation = ident(name)
    elif isinstance(source, str | Path):
        path = Path(source)
        fmt = FILE_FORMATS.get(path.suffix.lower())
        if path.exists() or fmt:
            relation = _register_file(engine, name, path, fmt, label, string_columns)
        else:
            relation = _existing_table(engine, str(source), label)
    elif hasattr(engine, "register_relation"):
        engine.register_relation(name, source)  # type: ignore[attr-defined]
        relation = ident(name)
    else:
        raise InputError(f"cannot read a {type(source).__name__} on this engine", table=label)
    try:
        columns = dict(engine.columns(relation))
    except EngineError as err:
        raise InputError(f"cannot be read: {err}", table=label) from err
    return Source(role, label, relation, columns)


def _register_file(engine: Engine, name: str, path: Path, fmt: str | None, label: str,
                   string_columns: Sequence[str]) -> str:
    if not path.exists():
        raise InputError(f"file {path} does not exist", table=label)
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a file", table=label)
    if fmt is None:
        raise InputError(f"cannot tell the format of {path}: name it .csv or .parquet",
                         table=label)
    try:
        engine.register_file(name, path, fmt)
        present = {c for c, _ in engine.columns(ident(name))}
        wanted = [c for c in string_columns if c in present]
        if fmt == "csv" and wanted:
            engine.register_file(name, path, fmt, wanted)
        engine.columns(ident(name))  # reading the schema fails here for an unreadable file
    except EngineError as err:
        raise InputError(f"cannot read {path} as {fmt.upper()}: {_first_line(err)}",
                         table=label) from err
    return ident(name)


def _existing_table(engine: Engine, table: str, label: str) -> str:
    user_table = getattr(engine, "user_table", None)
    if user_table is None:
        raise InputError(f"{table!r} is neither a file nor a table this engine can read",
                         table=label)
    relation = user_table(table)
    if not engine.table_exists(relation):
        raise InputError(f"no file or table named {table!r}", table=label,
                         hint="Give a path to a CSV/Parquet file, or a table of --db.")
    return relation


def _first_line(err: Exception) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def _mapping_columns(mapping: Mapping[Any, Any]) -> list[str]:
    """Column names of a {item: {column: value}} mapping; [] for {item: value}."""
    names: dict[str, None] = {}
    for value in mapping.values():
        if not isinstance(value, Mapping):
            return []
        names.update(dict.fromkeys(value))
    return list(names)


def _mapping_rows(mapping: Mapping[Any, Any]) -> list[tuple]:
    cols = _mapping_columns(mapping)
    if not cols:
        return [(k, v) for k, v in mapping.items()]
    return [(k, *(v.get(c) for c in cols)) for k, v in mapping.items()]


def id_type(sources: Sequence[Source], item_col: str) -> str:
    """The one SQL type of item ids across inputs; refuses mixed or unusable types."""
    cats = {s.label: s.category(item_col) for s in sources}
    for label, cat in cats.items():
        if cat not in ID_TYPES:
            raise InputError(
                f"item ids have type {cat} ({dict(sources[0].columns).get(item_col, '?')});"
                " ids must be integers or strings",
                table=label, column=item_col,
                hint="Cast the ids to integers or strings in the input.")
    if len(set(cats.values())) > 1:
        shown = "; ".join(f"{label}: {cat}" for label, cat in cats.items())
        raise InputError(
            f"item ids have different types in the inputs ({shown}), so no id could match",
            column=item_col,
            hint="Store the ids with one type in every input (e.g. all strings).")
    return ID_TYPES[next(iter(cats.values()))]


def cluster_type(source: Source, cluster_col: str) -> str:
    cat = source.category(cluster_col)
    if cat not in ID_TYPES:
        raise InputError(f"cluster ids have type {cat}; they must be integers or strings",
                         table=source.label, column=cluster_col)
    return ID_TYPES[cat]


def check_weight_column(source: Source, weight_col: str) -> None:
    if source.category(weight_col) not in ("integer", "float", "decimal"):
        raise InputError(
            f"weights must be numbers, but the column has type {source.columns[weight_col]}",
            table=source.label, column=weight_col)


def attribute_type(source: Source, column: str) -> str:
    return ATTRIBUTE_TYPES.get(source.category(column), "VARCHAR")


@dataclass(frozen=True)
class Attribute:
    name: str  # the user's column name
    alias: str  # s_0, s_1, ... inside SQL
    type: str


@dataclass
class Inputs:
    """Registered and type-checked inputs of one comparison."""

    base: Source
    exp: Source
    weights: Source | None
    attributes: Source | None
    columns: Columns
    item_type: str
    base_cluster_type: str
    exp_cluster_type: str
    base_weight: bool  # the weight column of base is used
    exp_weight: bool
    missing_weight: float | None
    attribute_columns: list[Attribute] = field(default_factory=list)

    @property
    def weight_sources(self) -> list[str]:
        """`items` columns a weight is taken from, in order of precedence."""
        out = ["table_weight"] if self.weights else []
        out += ["base_weight"] if self.base_weight else []
        out += ["exp_weight"] if self.exp_weight else []
        return out

    @property
    def weights_description(self) -> str:
        if self.weights:
            extra = (f"; {self.missing_weight:g} for items it lacks"
                     if self.missing_weight is not None else "")
            return f"from {self.weights.label}{extra}"
        sides = [s.label for s, used in ((self.base, self.base_weight),
                                         (self.exp, self.exp_weight)) if used]
        if sides:
            return f"column {self.columns.weight!r} of " + " and ".join(sides)
        return "1 for every item (no weights given)"

    def attribute(self, name: str) -> Attribute:
        for a in self.attribute_columns:
            if a.name == name:
                return a
        raise KeyError(name)


def check_missing_weight(missing_weight: float | None) -> None:
    """--missing-weight is a weight like any other: finite and > 0 (ABCDE §3)."""
    if missing_weight is not None and not (0 < missing_weight < float("inf")):
        raise InputError(f"--missing-weight must be a positive finite number, not "
                         f"{missing_weight}")


def open_inputs(engine: Engine, base: object, exp: object, weights: object | None = None,
                attributes: object | None = None, *, columns: Columns | None = None,
                attribute_names: Sequence[str] = (), missing_weight: float | None = None,
                roles: tuple[str, str] = ("base", "exp")) -> Inputs:
    """Register the inputs and check columns and types (ABCDE §3; SPEC §1)."""
    cols = columns or Columns()
    ids = (cols.item, cols.cluster)
    b = open_source(engine, roles[0], base, string_columns=ids, mapping_columns=ids)
    e = open_source(engine, roles[1], exp, string_columns=ids, mapping_columns=ids)
    w = (open_source(engine, "weights", weights, string_columns=(cols.item,),
                     mapping_columns=(cols.item, cols.weight))
         if weights is not None else None)
    a = (open_source(engine, "attributes", attributes, string_columns=(cols.item,),
                     mapping_columns=(cols.item, "value"))
         if attributes is not None else None)
    for s in (b, e):
        s.require(cols.item, "--item-col", "item ids")
        s.require(cols.cluster, "--cluster-col", "cluster ids")
    if w is not None:
        w.require(cols.item, "--item-col", "item ids")
        w.require(cols.weight, "--weight-col", "weights")
        check_weight_column(w, cols.weight)
    if attribute_names and a is None:
        raise InputError("slices need an attributes table", hint="Add --attributes FILE.")
    if a is not None:
        a.require(cols.item, "--item-col", "item ids")
        for name in attribute_names:
            a.require(name, "--slice-by", "a slice column")
    check_missing_weight(missing_weight)
    item_type = id_type([s for s in (b, e, w, a) if s is not None], cols.item)
    base_weight = w is None and b.has(cols.weight)
    exp_weight = w is None and e.has(cols.weight)
    for s, used in ((b, base_weight), (e, exp_weight)):
        if used:
            check_weight_column(s, cols.weight)
    attrs = [Attribute(name, f"s_{k}", attribute_type(a, name))
             for k, name in enumerate(dict.fromkeys(attribute_names))] if a else []
    return Inputs(b, e, w, a, cols, item_type, cluster_type(b, cols.cluster),
                  cluster_type(e, cols.cluster), base_weight, exp_weight, missing_weight,
                  attrs)
