"""What the report reads of each command's JSON document, checked before any plot is
made: a key missing, null or of another type (a document cut short or edited by hand)
is refused naming the file, the path of the key (``slices[0].rows[3].contribution``)
and what to do, instead of failing deep inside a plot (docs/method.md §13).

A shape is a small tree of the classes below; only what :mod:`abcde.report.figures`
reads is described, so documents of older or newer abcde versions with other extra
keys still pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from abcde.errors import InputError
from abcde.quality.metrics import METRIC_KEYS


class BadShape(Exception):
    """Where a document departs from its shape: the key's path and what is wrong."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        if math.isnan(value):
            return "NaN"
        return "a number" if math.isfinite(value) else "an infinite number"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


class Shape:
    """What a value must be; `check` raises BadShape at `path`."""

    what = "a value"

    def check(self, value: object, path: str) -> None:
        raise NotImplementedError

    def refuse(self, value: object, path: str) -> BadShape:
        return BadShape(path, f"is {_kind(value)}, not {self.what}")


class Anything(Shape):
    """Any JSON value (shown as text)."""

    def check(self, value: object, path: str) -> None:
        return None


class Number(Shape):
    """A finite number (not a boolean): what the plots take as it is."""

    what = "a number"

    def check(self, value: object, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise self.refuse(value, path)


class Text(Shape):
    what = "a text"

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, str):
            raise self.refuse(value, path)


class Scalar(Shape):
    """An id or a label: a text or a number."""

    what = "a text or a number"

    def check(self, value: object, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.refuse(value, path)


@dataclass
class Null(Shape):
    """`inner`, or null."""

    inner: Shape

    @property
    def what(self) -> str:  # type: ignore[override]
        return f"{self.inner.what} or null"

    def check(self, value: object, path: str) -> None:
        if value is not None:
            self.inner.check(value, path)


@dataclass
class ListOf(Shape):
    item: Shape
    length: int | None = None  # exactly this many items, when given

    @property
    def what(self) -> str:  # type: ignore[override]
        return "a list" if self.length is None else f"a list of {self.length}"

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, list) or (self.length is not None
                                           and len(value) != self.length):
            raise self.refuse(value, path)
        for k, v in enumerate(value):
            self.item.check(v, f"{path}[{k}]")


@dataclass
class MapOf(Shape):
    """An object of any keys; each value `value`, each key one `key` accepts."""

    value: Shape
    key: Callable[[str], bool] | None = None
    key_what: str = ""

    what = "an object"

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, Mapping):
            raise self.refuse(value, path)
        for k, v in value.items():
            if self.key is not None and not self.key(k):
                raise BadShape(path, f"has the key {k!r}, which is not {self.key_what}")
            self.value.check(v, f"{path}.{k}")


@dataclass
class Fields(Shape):
    """An object with the `required` keys and, where present, the `optional` ones;
    `rule` checks what one key implies for another (called with the object)."""

    required: Mapping[str, Shape] = field(default_factory=dict)
    optional: Mapping[str, Shape] = field(default_factory=dict)
    rule: Callable[[Mapping[str, Any], str], None] | None = None

    what = "an object"

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, Mapping):
            raise self.refuse(value, path)
        for k, shape in self.required.items():
            if k not in value:
                raise BadShape(_join(path, k), "is missing")
            shape.check(value[k], _join(path, k))
        for k, shape in self.optional.items():
            if k in value:
                shape.check(value[k], _join(path, k))
        if self.rule is not None:
            self.rule(value, path)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_integer(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


NUMBER, TEXT, SCALAR, ANY = Number(), Text(), Scalar(), Anything()
MAYBE_NUMBER = Null(NUMBER)


def _needs(keys: Sequence[str], shape: Shape, when: Callable[[Mapping[str, Any]], bool]
           ) -> Callable[[Mapping[str, Any], str], None]:
    """A rule: when `when(obj)`, the `keys` must be there, each `shape`."""
    def rule(obj: Mapping[str, Any], path: str) -> None:
        if when(obj):
            Fields(required=dict.fromkeys(keys, shape)).check(obj, path)
    return rule


# --------------------------------------------------------------------------- #
# abcde impact
# --------------------------------------------------------------------------- #

OVERALL_KEYS = ("items", "weight", "affected_items", "affected_weight", "split_rate",
                "merge_rate", "jaccard_distance", "split_distance", "merge_distance",
                "jaccard_index", "affected_jaccard_index", "unaffected_jaccard_index")
_PLOTTED = ("contribution", "items", "jaccard_distance")


def _slice_rows(entry: Mapping[str, Any], path: str) -> None:
    """Each row of a slicing holds a value (any, also null) of every column it names."""
    for k, row in enumerate(entry["rows"]):
        for column in entry["slice_by"]:
            if column not in row:
                raise BadShape(f"{path}.rows[{k}].{column}",
                               f"is missing (a column of {path}.slice_by)")


IMPACT = Fields(
    required={
        "overall": Fields(required=dict.fromkeys(
                              ("jaccard_distance", "split_distance", "merge_distance"), NUMBER),
                          optional=dict.fromkeys(OVERALL_KEYS, MAYBE_NUMBER)),
        "top_clusters": ListOf(Fields(
            required={"cluster_id": SCALAR, **dict.fromkeys(
                (*_PLOTTED, "split_distance", "merge_distance"), NUMBER)},
            optional={"side": Null(TEXT)})),
        "slices": ListOf(Fields(
            required={"slice_by": ListOf(TEXT),
                      "rows": ListOf(Fields(required=dict.fromkeys(_PLOTTED, NUMBER)))},
            rule=_slice_rows)),
    },
    optional={"size_distribution": Null(Fields(optional=dict.fromkeys(
        ("base", "exp"), Null(ListOf(Fields(required=dict.fromkeys(("size", "clusters"),
                                                                   NUMBER)))))))})


# --------------------------------------------------------------------------- #
# abcde estimate
# --------------------------------------------------------------------------- #

# a metric's estimate: the interval is plotted when there is an estimate
ESTIMATE = Fields(
    optional={"estimate": MAYBE_NUMBER, "confidence": MAYBE_NUMBER,
              # the sensitivity range of unknown verdicts (docs/method.md §8.11)
              "unknown_range": Null(Fields(required=dict.fromkeys(
                  ("low", "high", "all_equivalent", "all_not_equivalent", "unknown_pairs"),
                  NUMBER)))},
    rule=_needs(("ci_low", "ci_high", "se"), MAYBE_NUMBER,
                lambda e: e.get("estimate") is not None))


def _judging_rule(obj: Mapping[str, Any], path: str) -> None:
    judges = obj.get("judges") or {}
    if len(judges) > 1:  # the verdicts-per-judge plot says how many pairs
        Fields(required=dict.fromkeys(("pairs", "contested_pairs"), NUMBER)).check(obj, path)


def _estimate_shape(metric_keys: Sequence[str]) -> Fields:
    classes = MapOf(Fields(
        rule=_needs(("not_equivalent_pairs", "unknown_pairs", "equivalent_pairs"), NUMBER,
                    lambda c: "equivalent_pairs" in c)))
    agreement = Fields(optional={
        "pairwise": Null(ListOf(Fields(required={"judges": ListOf(TEXT, 2),
                                                 "cohen_kappa": MAYBE_NUMBER}))),
        "kappa_kind": Null(TEXT), "raw_agreement": MAYBE_NUMBER, "kappa": MAYBE_NUMBER,
        "pairs": NUMBER})
    return Fields(
        required={"delta_precision": Fields(required={"confidence": NUMBER},
                                            rule=ESTIMATE.check),
                  "sample": Fields(optional={"classes": Null(classes)}),
                  "verdict": TEXT},
        optional={
            **dict.fromkeys(metric_keys, Null(ESTIMATE)),
            "impact": Null(MapOf(MAYBE_NUMBER)),
            "warnings": Null(ListOf(ANY)),
            "unavailable": Null(MapOf(ANY)),
            "slices": Null(ListOf(Fields(required={
                "slice": MapOf(ANY), "delta_precision": Null(ESTIMATE),
                "contribution": Null(ESTIMATE)}, optional={"weight": MAYBE_NUMBER}))),
            "judging": Null(Fields(optional={"judges": Null(MapOf(NUMBER)),
                                             "agreement": Null(agreement)},
                                   rule=_judging_rule)),
        })


ESTIMATE_DOC = _estimate_shape(METRIC_KEYS)


# --------------------------------------------------------------------------- #
# abcde evaluate
# --------------------------------------------------------------------------- #

WORST = Null(ListOf(Fields(required={"cluster_id": SCALAR, "loss": NUMBER, "items": NUMBER,
                                     "precision": MAYBE_NUMBER, "recall": MAYBE_NUMBER})))
EVALUATE = Fields(
    required={"runs": ListOf(Fields(
        required={"name": TEXT, "overall": MapOf(ANY)},
        optional={"classic": Null(MapOf(MAYBE_NUMBER)), "worst_truth_clusters": WORST,
                  "worst_actual_clusters": WORST},
        rule=lambda run, path: Fields(optional=dict.fromkeys(
            ("precision", "recall", "f1", "f1_of_overall", "accuracy", "jaccard_index"),
            MAYBE_NUMBER)).check(run["overall"], f"{path}.overall")))},
    optional={"uir": Null(Fields(optional={
        "matrix": Null(MapOf(MapOf(MAYBE_NUMBER))),
        "n_cases": NUMBER, "metrics": Null(ListOf(TEXT)),
        "f_alpha": Null(MapOf(MapOf(MAYBE_NUMBER, _is_number, "a number (an α)"))),
        "f_alpha_metrics": Null(ListOf(TEXT))}))})


# --------------------------------------------------------------------------- #
# abcde simulate
# --------------------------------------------------------------------------- #

PER_BUDGET = Fields(
    optional=dict.fromkeys(("coverage", "bias", "bias_se", "half_width",
                            "spread_half_width"), MAYBE_NUMBER),
    rule=_needs(("spread_half_width",), MAYBE_NUMBER,
                lambda b: b.get("half_width") is not None))
SIMULATE = Fields(
    required={"metrics": MapOf(MapOf(PER_BUDGET, _is_integer, "a budget (an integer)")),
              "budgets": ANY, "replications": ANY},
    optional={"exact": Null(Fields(optional={"reason": Null(TEXT)}))})


def check_document(doc: Mapping[str, Any], shape: Shape, command: str, source: str) -> None:
    """Refuse (InputError, exit 2) a document that departs from `shape`, naming the file,
    the key's path and the command to run again.

    Parameters
    ----------
    doc : mapping
        The JSON document.
    shape : Shape
        What the report reads of it (IMPACT, ESTIMATE_DOC, EVALUATE, SIMULATE).
    command : str
        The abcde command that writes it (named in the message).
    source : str
        Where it came from (a file, or the option's name).
    """
    try:
        shape.check(doc, "")
    except BadShape as bad:
        raise InputError(
            f"{source}: {bad.path} {bad.problem}: this is not the JSON output of "
            f"`abcde {command}` as abcde writes it (cut short or edited?)",
            hint=f"Run `abcde {command} … --format json` again and give its output.",
        ) from None


