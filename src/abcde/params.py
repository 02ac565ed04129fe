"""The limits of every public parameter, declared once (after scikit-learn's
`validate_params`): a constraint per parameter, checked where a value enters — the public
functions (`checked`), `abcde.Comparison`, the CLI's option types (`abcde.cli._common.option`,
which derives its click type from the same constraint) — and trusted below. One engine
writes every message: "<name> must be <what>, not <value>", naming the option as the
caller spelled it (`seed` from Python, `--seed` on the command line).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import operator
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from abcde.errors import InputError

F = TypeVar("F", bound=Callable[..., Any])


class Constraint:
    """What a value must be: `convert` returns it normalised (a numpy integer as int) or
    raises ValueError with what it must be."""

    what: str = "a value"

    def convert(self, value: Any) -> Any:
        raise NotImplementedError

    def check(self, name: str, value: Any) -> Any:
        """`value` normalised, or InputError naming `name`."""
        try:
            return self.convert(value)
        except (ValueError, TypeError):
            raise InputError(f"{{option}} must be {self.what}, not {value!r}",
                             option=name) from None


@dataclass(frozen=True)
class Int(Constraint):
    """An integer in [lo, hi] (numpy's too; not a bool, not 2.5)."""

    lo: int
    hi: int | None = None

    @property
    def what(self) -> str:  # type: ignore[override]
        return (f"an integer from {self.lo:,} to {self.hi:,}" if self.hi is not None
                else f"an integer >= {self.lo:,}")

    def convert(self, value: Any) -> int:
        if isinstance(value, bool):
            raise TypeError
        v = operator.index(value)
        if v < self.lo or (self.hi is not None and v > self.hi):
            raise ValueError
        return int(v)


@dataclass(frozen=True)
class Real(Constraint):
    """A finite number in [lo, hi]; `open` names the bounds excluded ("lo", "hi", "both")."""

    lo: float = -math.inf
    hi: float = math.inf
    open: str = ""

    @property
    def what(self) -> str:  # type: ignore[override]
        left = "(" if self.open in ("lo", "both") else "["
        right = ")" if self.open in ("hi", "both") else "]"
        return f"a number in {left}{self.lo:g}, {self.hi:g}{right}".replace("e+", "e")

    def convert(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError
        v = float(value)
        lo_ok = v > self.lo if self.open in ("lo", "both") else v >= self.lo
        hi_ok = v < self.hi if self.open in ("hi", "both") else v <= self.hi
        if not (math.isfinite(v) and lo_ok and hi_ok):
            raise ValueError
        return v


@dataclass(frozen=True)
class OneOf(Constraint):
    """One of a few words."""

    choices: tuple[str, ...]

    @property
    def what(self) -> str:  # type: ignore[override]
        return "one of " + ", ".join(map(repr, self.choices))

    def convert(self, value: Any) -> str:
        if value not in self.choices:
            raise ValueError
        return str(value)


@dataclass(frozen=True)
class Maybe(Constraint):
    """None, or what `inner` accepts."""

    inner: Constraint
    what = property(lambda self: f"{self.inner.what} or None")  # type: ignore[assignment]

    def convert(self, value: Any) -> Any:
        return None if value is None else self.inner.convert(value)


@dataclass(frozen=True)
class IntList(Constraint):
    """A non-empty sequence of distinct integers each accepted by `inner`, sorted."""

    inner: Int

    @property
    def what(self) -> str:  # type: ignore[override]
        return f"a list of distinct integers, each {self.inner.what[len('an integer '):]}"

    def convert(self, value: Any) -> tuple[int, ...]:
        if isinstance(value, numbers.Integral):
            value = [value]  # one budget alone is a budget
        elif isinstance(value, str | bytes):
            raise TypeError
        elif not isinstance(value, Sequence):
            value = list(value)  # a numpy array, a set
        out = [self.inner.convert(v) for v in value]
        if not out or len(set(out)) != len(out):
            raise ValueError
        return tuple(sorted(out))


# The limits shared by several functions.
MAX_SEED = 2**62 - 1
"""Seeds are written into SQL as integer literals (BigQuery's INT64 holds 2^63 − 1) and a
stratified sample draws stratum h with seed 2·seed + h: one bound for every command and
engine, so a seed any of them accepts draws the same sample on all (docs/method.md §7.8)."""
MAX_DRAWS = 10**9
SEED = Int(0, MAX_SEED)
COUNT = Int(1, MAX_DRAWS)
TOP = Int(0, MAX_DRAWS)
CONFIDENCE = Real(0.0, 1.0, open="both")
SHARE = Real(0.0, 1.0, open="both")
THREADS = Int(1, max(1, os.cpu_count() or 1))
"""DuckDB starts one OS thread per thread asked for: more than the machine's cores only
slows it (and a million stalled the machine)."""


def checked(**constraints: Constraint) -> Callable[[F], F]:
    """Check the named arguments of the decorated function against their constraints
    when it is called, and pass on the normalised values. The constraints are kept as
    `fn.__constraints__` for the CLI and the docs."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        unknown = set(constraints) - set(signature.parameters)
        assert not unknown, f"{fn.__name__} has no parameter {unknown}"

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            for name, constraint in constraints.items():
                if name in bound.arguments:
                    bound.arguments[name] = constraint.check(name, bound.arguments[name])
            return fn(*bound.args, **bound.kwargs)

        wrapper.__constraints__ = constraints  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
