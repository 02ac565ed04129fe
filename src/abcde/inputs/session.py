"""An engine and the registered, type-checked inputs of one comparison: the `Session`
every pipeline opens its work with, and what it yields (`Inputs`).

Row-level checks (duplicates, NULLs, weights, coverage) run later, in SQL, on the
join: `abcde.inputs.checks`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from abcde.engines import Engine
from abcde.engines.config import EngineConfig, EngineLike, engine_config, opened
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
        return {a.name: a for a in self.attribute_columns}[name]


def open_inputs(engine: Engine, spec: InputSpec) -> Inputs:
    """Register the inputs of `spec` on `engine` and check their columns and types (ABCDE
    §3; docs/method.md §1)."""
    cols, roles, missing_weight = spec.columns, spec.roles, spec.missing_weight
    base, exp, weights, attributes = spec.base, spec.exp, spec.weights, spec.attributes
    attribute_names = spec.attribute_names
    check_options(spec)
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


class Session:
    """One comparison's inputs and where they are read: the engine is opened, the inputs
    registered and checked, and the workspace attached once, however many pipelines run
    while it is open (`abcde.Comparison` keeps it open; each flat function opens it for
    its call). The workspace is the round's cache: without a location, the memory of
    the session (`abcde.inputs.workspace.Workspace`)."""

    def __init__(self, spec: InputSpec, engine: Engine | EngineConfig,
                 workspace: str | os.PathLike[str] | None = None) -> None:
        self.spec, self.engine_config, self.location = spec, engine, workspace
        self._stack: ExitStack | None = None
        self._opened: tuple[Engine, Inputs] | None = None

    @classmethod
    def of(cls, base: object, exp: object, weights: object | None = None, *,
           engine: EngineLike = None, db: str | os.PathLike[str] | None = None,
           memory_limit: str | None = None, threads: int | None = None,
           workspace: str | os.PathLike[str] | None = None, **spec: Any) -> Session:
        """A session from the Python API's keywords (every flat function takes them);
        `spec`: the keywords of `InputSpec.of`."""
        return cls(InputSpec.of(base, exp, weights, **spec),
                   engine_config(engine, db=db, memory_limit=memory_limit, threads=threads),
                   workspace)

    @property
    def is_open(self) -> bool:
        return self._opened is not None

    def open(self) -> tuple[Engine, Inputs]:
        """The engine and the checked inputs, opened on the first call."""
        if self._opened is None:
            stack = ExitStack()
            try:
                engine = stack.enter_context(opened(self.engine_config))
                ws = stack.enter_context(Workspace.opened(engine, self.location))
                inputs = open_inputs(engine, self.spec)
                inputs.workspace = ws
            except BaseException:
                stack.close()
                raise
            self._stack, self._opened = stack, (engine, inputs)
        return self._opened

    def close(self) -> None:
        if self._stack is not None:
            stack, self._stack, self._opened = self._stack, None, None
            stack.close()

    @contextmanager
    def using(self) -> Iterator[tuple[Engine, Inputs]]:
        """The open engine and inputs for a block: left open if the session was open
        before it, else closed after it."""
        was_open = self.is_open
        try:
            yield self.open()
        finally:
            if not was_open:
                self.close()
