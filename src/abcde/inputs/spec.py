"""What the user names: the input specification of one comparison (ABCDE §3; docs/method.md
§1) — the two clusterings, the weights, the attributes, the column names, the weight of
items the weights table lacks and the slicings — and the checks of those options that
need no data. Nothing here reads an input: `abcde.inputs.session` opens them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field

from abcde.errors import InputError
from abcde.params import Real
from abcde.sql.helpers import WEIGHT_MAX, WEIGHT_MIN

DEFAULT_WEIGHT_COL = "weight"
WEIGHT_RANGE_TEXT = f"[{WEIGHT_MIN!r}, {WEIGHT_MAX!r}]".replace("e+", "e")
WEIGHT_SCALE_HINT = ("Only ratios of weights matter (ABCDE §3): rescale them into "
                     f"{WEIGHT_RANGE_TEXT}, e.g. divide every weight by the largest.")
MISSING_WEIGHT = Real(WEIGHT_MIN, WEIGHT_MAX)  # a weight like any other (ABCDE §3)


@dataclass(frozen=True)
class Columns:
    """The configurable column names (`--item-col`, `--cluster-col`, `--weight-col`)."""

    item: str = "item_id"
    cluster: str = "cluster_id"
    weight: str = "weight"


Slicing = tuple[str, ...]


@dataclass(frozen=True)
class InputSpec:
    """The inputs of one comparison, as the user names them: `base`, `exp`, `weights`,
    `attributes` as CSV/Parquet paths, tables, DataFrames or mappings; `slicings` (one tuple
    of attribute columns each); `roles` name the two clusterings in messages ("truth",
    "actual" for an evaluation)."""

    base: object
    exp: object
    weights: object | None = None
    attributes: object | None = None
    columns: Columns = field(default_factory=Columns)
    missing_weight: float | None = None
    slicings: tuple[Slicing, ...] = ()
    roles: tuple[str, str] = ("base", "exp")

    @classmethod
    def of(cls, base: object, exp: object, weights: object | None = None, *,
           attributes: object | None = None,
           slice_by: str | Sequence[str] | Sequence[Sequence[str]] | None = None,
           item_col: str = "item_id", cluster_col: str = "cluster_id",
           weight_col: str = DEFAULT_WEIGHT_COL, missing_weight: float | None = None,
           roles: tuple[str, str] = ("base", "exp")) -> InputSpec:
        """The specification from the public functions' keyword arguments."""
        return cls(base, exp, weights, attributes, Columns(item_col, cluster_col, weight_col),
                   missing_weight, tuple(tuple(s) for s in parse_slicings(slice_by)), roles)

    @property
    def attribute_names(self) -> list[str]:
        """Every attribute column a slicing names, once, in order."""
        return list(dict.fromkeys(c for s in self.slicings for c in s))


def parse_slicings(slice_by: str | Sequence[str] | Sequence[Sequence[str]] | None,
                   option: str = "--slice-by") -> list[list[str]]:
    """'a,b' -> [['a', 'b']] (one slicing by both columns); a list of such strings (or of
    lists) -> one slicing each. An empty name, a column twice in one slicing and a slicing
    given twice (in any column order) are refused; `option` names the option in messages."""
    if slice_by is None:
        return []
    if not isinstance(slice_by, str | Iterable):  # slice_by=3 raised "not iterable"
        raise InputError(f"{option} takes column names, not {slice_by!r}",
                         hint=f"e.g. {option} provenance or {option} provenance,country.")
    items = [slice_by] if isinstance(slice_by, str) else list(slice_by)
    out = []
    for item in items:
        if not isinstance(item, str | Iterable):
            raise InputError(f"{option} takes column names, not {item!r}",
                             hint=f"e.g. {option} provenance or {option} provenance,country.")
        cols = [c.strip() for c in item.split(",")] if isinstance(item, str) else list(item)
        if not cols or any(not isinstance(c, str) or not c for c in cols):
            raise InputError(f"{option} {item!r} names an empty column",
                             hint=f"Give attribute column names, e.g. {option} provenance "
                                  f"or {option} provenance,country "
                                  + ("(one slicing by both)." if option == "--slice-by"
                                     else "(by both)."))
        # a column twice would be two output columns of one name (and a slicing by a
        # pair of equal values): refused like every other malformed option
        repeated = [c for c in dict.fromkeys(cols) if cols.count(c) > 1]
        if repeated:
            raise InputError(f"{option} {item!r} names {', '.join(map(repr, repeated))} "
                             "more than once",
                             hint=f"Name each column once in {option} (e.g. {option} a,b"
                                  + (" slices by the pair; repeat the option for separate "
                                     "slicings)." if option == "--slice-by" else ")."))
        # the same slicing twice (in any column order) is the same rows twice: two
        # output files or groups of one content under different names
        again = next((o for o in out if sorted(o) == sorted(cols)), None)
        if again is not None:
            raise InputError(f"{option} {','.join(cols)!r} is given more than once"
                             + ("" if again == cols else f" (as {','.join(again)!r})"),
                             hint=f"Give each slicing once; {option} a,b slices by the "
                                  "pair of columns, whatever their order.")
        out.append(cols)
    return out


def check_slice_names(slicings: Sequence[Sequence[str]], reserved: Set[str],
                      columns: Mapping[str, str] | None = None) -> None:
    """Slice columns become output columns beside the metrics: no name may clash, ignoring
    case as DuckDB and Spark do, with a metric (`reserved`) or another output column
    (`columns`: name → what it is, for the message)."""
    what = {**{r: "a metric's name" for r in reserved}, **(columns or {})}
    lowered = {r.lower(): r for r in what}
    clash = sorted({c for s in slicings for c in s if c.lower() in lowered})
    if clash:
        # one parenthesis per kind of name, in the order of the clashing names
        kinds: dict[str, list[str]] = {}
        for c in clash:
            kinds.setdefault(what[lowered[c.lower()]], []).append(c)
        cased = [f"{c} is {lowered[c.lower()]}" for c in clash if c not in what]
        named = ", ".join(f"{', '.join(cs)} ({kind})" for kind, cs in kinds.items())
        raise InputError(f"slice columns may not be named {named}"
                         + (f"; SQL names ignore case: {', '.join(cased)}" if cased else ""),
                         table="attributes", hint="Rename the column.")


def check_options(spec: InputSpec) -> None:
    """What is wrong with the options themselves, before any input is read."""
    cols = spec.columns
    named = {"--item-col": cols.item, "--cluster-col": cols.cluster,
             "--weight-col": cols.weight}
    for k, (opt_a, a) in enumerate(named.items()):
        for opt_b, b in list(named.items())[k + 1:]:
            if a == b:
                raise InputError(f"{opt_a} and {opt_b} both name column {a!r}",
                                 hint="Each names a different column.")
    if spec.slicings and (spec.attributes is None or (isinstance(spec.attributes, str)
                          and not spec.attributes)):
        raise InputError("slices need an attributes table", hint="Add --attributes.")
    if spec.missing_weight is None:
        return
    if spec.weights is None:
        raise InputError("--missing-weight is the weight of items a weights table lacks, "
                         "but no weights table was given",
                         hint="Drop --missing-weight, or give the table with --weights.")
    MISSING_WEIGHT.check("missing_weight", spec.missing_weight)
