"""An engine and the registered, type-checked inputs of one comparison: the one helper
every pipeline opens its work with (`opened`), and what it yields (`Inputs`).

Row-level checks (duplicates, NULLs, weights, coverage) run later, in SQL, on the
join: `abcde.inputs.checks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from abcde.engines import Engine
from abcde.errors import InputError
from abcde.inputs.sources import (
    Source,
    attribute_type,
    check_weight_column,
    cluster_type,
    id_type,
    open_source,
)
from abcde.inputs.spec import DEFAULT_WEIGHT_COL, Columns, InputSpec, check_options
from abcde.inputs.workspace import Workspace


@dataclass(frozen=True)
class EngineOptions:
    """Where the SQL runs: the caller's engine (left open), else the engine `name`
    opened for the block — `engine_name`: an in-process DuckDB on `db` (a database of input tables,
    opened read-only) with `memory_limit` and `threads`; PostgreSQL at `dsn`; Spark, as
    a Spark Connect client of `spark_remote`, or a classic session on `spark_master`
    (default local[2]), with the settings `spark_conf`. `workspace`: where the cell
    tables of a round are kept between commands (`abcde.inputs.workspace`). From
    Python, `engine` may also be a name: the engine of that name, opened for the block."""

    engine: Engine | str | None = None
    db: str | Path | None = None
    memory_limit: str | None = None
    threads: int | None = None
    engine_name: str = "duckdb"
    dsn: str | None = None
    spark_master: str | None = None
    spark_remote: str | None = None
    spark_conf: tuple[tuple[str, str], ...] = ()
    workspace: str | Path | None = None

    def __post_init__(self) -> None:
        """`engine` of the Python API given as a name ('duckdb', 'postgres', 'spark') is
        the engine of that name opened for the block; anything else that is not an
        engine is refused with what to pass (a SparkSession or a DuckDB connection is
        not an engine of abcde's: it would fail later with an AttributeError)."""
        engine = self.engine
        if isinstance(engine, str):
            object.__setattr__(self, "engine_name", engine)
            object.__setattr__(self, "engine", None)
        elif engine is not None and not isinstance(engine, Engine):
            kind = f"{type(engine).__module__}.{type(engine).__qualname__}"
            raise InputError(
                f"engine= takes an engine of abcde.connect(...) or its name, not a {kind}",
                hint="abcde.connect('spark', spark=session) wraps a SparkSession; "
                     "abcde.connect('postgres', dsn=...) a PostgreSQL database; "
                     "engine='duckdb' (the default), 'postgres' or 'spark' opens one by name.")

    def check(self) -> None:
        """Refuse options of another engine, and contradicting ones (exit 2, naming
        the options)."""
        from abcde.engines import ENGINES, unknown_engine

        engine_name = self.engine_name
        if self.engine is not None or engine_name == "duckdb":
            others = [o for o, v in (("--dsn", self.dsn), ("--spark-master", self.spark_master),
                                     ("--spark-remote", self.spark_remote),
                                     ("--spark-conf", self.spark_conf)) if v]
            if others and self.engine is None:
                raise InputError("; ".join(
                    f"{o} needs --engine {'postgres' if o == '--dsn' else 'spark'}"
                    for o in others))
            return
        if engine_name not in ENGINES:
            raise unknown_engine(engine_name)
        duck = [o for o, v in (("--db", self.db), ("--memory-limit", self.memory_limit),
                               ("--threads", self.threads)) if v]
        if duck:
            raise InputError(f"{', '.join(duck)} are DuckDB options; with --engine "
                             f"{engine_name} name tables of its catalog directly")
        if engine_name == "postgres":
            spark = [o for o, v in (("--spark-master", self.spark_master),
                                    ("--spark-remote", self.spark_remote),
                                    ("--spark-conf", self.spark_conf)) if v]
            if spark:
                raise InputError(f"{', '.join(spark)} are for --engine spark")
        if engine_name == "spark":
            if self.dsn:
                raise InputError("--dsn is for --engine postgres")
            if self.spark_master and self.spark_remote:
                raise InputError("--spark-master and --spark-remote exclude each other",
                                 hint="--spark-remote sc://HOST:PORT connects to a Spark "
                                      "Connect server; --spark-master URL starts a session "
                                      "on a cluster manager (spark://HOST:7077, yarn, "
                                      "local[4]).")
            if self.spark_remote and not self.spark_remote.startswith("sc://"):
                raise InputError(f"--spark-remote {self.spark_remote!r} is not a Spark "
                                 "Connect URL", hint="Write sc://HOST:PORT (the server's "
                                                     "port is 15002 by default).")

    def connect(self) -> Engine:
        """A new engine of these options (closed by the caller)."""
        from abcde.engines import connect

        self.check()
        engine_name = self.engine_name
        if engine_name == "postgres":
            return connect("postgres", dsn=self.dsn)
        if engine_name == "spark":
            return connect("spark", master=self.spark_master, remote=self.spark_remote,
                           conf=self.spark_conf)
        return connect("duckdb", db=self.db, memory_limit=self.memory_limit,
                       threads=self.threads)

    @contextmanager
    def open(self) -> Iterator[Engine]:
        """The caller's engine, left open; else the engine of these options, opened for
        the block and closed after it."""
        if self.engine is not None:
            # a closed engine's connection is gone: its own error ("Connection already
            # closed!") came from deep in the run
            if self.engine.closed:
                raise InputError(
                    "the engine given as engine= is closed (engine.close(), or the end "
                    "of its with block)", hint="Open another with abcde.connect(...).")
            yield self.engine
            return
        engine = self.connect()
        try:
            yield engine
        finally:
            engine.close()


def parse_conf(pairs: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """`--spark-conf k=v` values as (key, value) pairs; exit 2 for one without `=`."""
    out = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--spark-conf {pair!r} is not KEY=VALUE",
                             hint="e.g. --spark-conf spark.driver.memory=4g (repeat the "
                                  "option for several settings).")
        out.append((key.strip(), value.strip()))
    return tuple(out)


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
    workspace: Workspace | None = None
    """Where cell tables of these inputs are kept between commands (`--workspace`)."""

    @property
    def sources(self) -> list[Source | None]:
        """base, exp, weights, attributes (None for those not given)."""
        return [self.base, self.exp, self.weights, self.attributes]

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

    def description(self) -> dict[str, str | None]:
        """How reports and manifests name the inputs: role -> label, and the weights."""
        return {self.base.role: self.base.label, self.exp.role: self.exp.label,
                "weights": self.weights_description,
                "attributes": self.attributes.label if self.attributes else None}

    def attribute(self, name: str) -> Attribute:
        for a in self.attribute_columns:
            if a.name == name:
                return a
        raise KeyError(name)


def open_inputs(engine: Engine, spec: InputSpec) -> Inputs:
    """Register the inputs of `spec` on `engine` and check their columns and types (ABCDE
    §3; docs/method.md §1)."""
    cols, roles, missing_weight = spec.columns, spec.roles, spec.missing_weight
    base, exp, weights, attributes = spec.base, spec.exp, spec.weights, spec.attributes
    attribute_names = spec.attribute_names
    check_options(cols, weights, missing_weight)
    engine.file_labels.clear()  # an engine reused across comparisons names this one's files
    ids = (cols.item, cols.cluster)
    b = open_source(engine, roles[0], base, string_columns=ids, mapping_columns=ids,
                    id_values=True)
    e = open_source(engine, roles[1], exp, string_columns=ids, mapping_columns=ids,
                    id_values=True)
    w = (open_source(engine, "weights", weights, string_columns=(cols.item,),
                     mapping_columns=(cols.item, cols.weight))
         if weights is not None else None)
    a = (open_source(engine, "attributes", attributes, string_columns=(cols.item,),
                     mapping_columns=(cols.item, "value"))
         if attributes is not None else None)
    for s, other in ((b, e), (e, b)):
        s.require(cols.item, "--item-col", "item ids", shared_by=[other])
        s.require(cols.cluster, "--cluster-col", "cluster ids", shared_by=[other])
        s.require_scalar(cols.item)
        s.require_scalar(cols.cluster)
    if w is not None:
        w.require(cols.item, "--item-col", "item ids", shared_by=[b, e])
        w.require(cols.weight, "--weight-col", "weights")
        w.require_scalar(cols.item)
        check_weight_column(engine, w, cols)
    elif cols.weight != DEFAULT_WEIGHT_COL and not (b.has(cols.weight) or e.has(cols.weight)):
        raise InputError(
            f"--weight-col names column {cols.weight!r}, which neither clustering has "
            f"({b.label}: {', '.join(map(repr, b.columns))}; {e.label}: "
            f"{', '.join(map(repr, e.columns))})", column=cols.weight,
            hint="Name a column the clusterings have, or give a weights table with "
                 "--weights.")
    if attribute_names and a is None:
        raise InputError("slices need an attributes table", hint="Add --attributes FILE.")
    if a is not None:
        a.require(cols.item, "--item-col", "item ids", shared_by=[b, e])
        a.require_scalar(cols.item)
        for name in attribute_names:
            a.require(name, "--slice-by", "a slice column")
            a.require_scalar(name)
    item_type = id_type([s for s in (b, e, w, a) if s is not None], cols.item)
    base_weight = w is None and b.has(cols.weight)
    exp_weight = w is None and e.has(cols.weight)
    for s, used in ((b, base_weight), (e, exp_weight)):
        if used:
            check_weight_column(engine, s, cols)
    attrs = [Attribute(name, f"s_{k}", attribute_type(a, name))
             for k, name in enumerate(dict.fromkeys(attribute_names))] if a else []
    return Inputs(b, e, w, a, cols, item_type, cluster_type(b, cols.cluster),
                  cluster_type(e, cols.cluster), base_weight, exp_weight, missing_weight,
                  attrs)


@contextmanager
def opened(spec: InputSpec, options: EngineOptions | None = None,
           ) -> Iterator[tuple[Engine, Inputs]]:
    """The engine of `options` (the caller's, left open; else one opened for the block
    and closed after it) and `spec`'s inputs registered on it, with the workspace of
    `options` (attached for the block)."""
    options = options or EngineOptions()
    with options.open() as engine, Workspace.opened(engine, options.workspace) as ws:
        inputs = open_inputs(engine, spec)
        inputs.workspace = ws
        yield engine, inputs
