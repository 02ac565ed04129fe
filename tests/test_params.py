"""The declared constraints of abcde.params: each accepts exactly what its definition says
(checked against a brute-force reading of the definition, with hypothesis), refuses the
rest with an InputError naming the option, and the command line's click type derived
from a constraint accepts and refuses the same values."""

from __future__ import annotations

import math

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from abcde.cli._common import Checked
from abcde.errors import InputError
from abcde.params import Int, IntList, Maybe, OneOf, Real, checked

values = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=True),
                   st.booleans(), st.none(), st.text(max_size=5))


def accepts(constraint, value) -> bool:
    try:
        constraint.check("x", value)
    except InputError as err:
        assert err.option == "x" and str(err).startswith("x must be ")
        return False
    return True


@given(lo=st.integers(-5, 5), span=st.integers(0, 10), value=values)
def test_int_accepts_integers_in_its_range_only(lo: int, span: int, value: object) -> None:
    c = Int(lo, lo + span)
    expected = (isinstance(value, int) and not isinstance(value, bool)
                and lo <= value <= lo + span)
    assert accepts(c, value) == expected


@given(value=values, open_=st.sampled_from(["", "lo", "hi", "both"]))
def test_real_accepts_finite_numbers_inside_its_bounds(value: object, open_: str) -> None:
    c = Real(0.0, 1.0, open=open_)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    expected = number and math.isfinite(value) and (
        (value > 0 if open_ in ("lo", "both") else value >= 0)
        and (value < 1 if open_ in ("hi", "both") else value <= 1))
    assert accepts(c, value) == expected


def test_numpy_values_are_normalised() -> None:
    np = pytest.importorskip("numpy")
    assert type(Int(0, 9).check("x", np.int64(3))) is int
    assert Real(0, 1).check("x", np.float32(0.5)) == 0.5
    assert IntList(Int(1, 9)).check("x", np.array([3, 1])) == (1, 3)


@given(value=st.one_of(st.integers(-3, 12), st.lists(st.integers(-3, 12), max_size=4),
                       st.text(max_size=3)))
def test_int_list_takes_one_integer_or_distinct_ones(value: object) -> None:
    c = IntList(Int(1, 9))
    items = [value] if isinstance(value, int) else value
    expected = (not isinstance(value, str) and len(items) > 0
                and len(set(items)) == len(items) and all(1 <= v <= 9 for v in items))
    assert accepts(c, value) == expected
    if expected:
        assert c.check("x", value) == tuple(sorted(items))


def test_one_of_and_maybe() -> None:
    assert accepts(OneOf(("a", "b")), "a") and not accepts(OneOf(("a", "b")), "c")
    assert Maybe(Int(1, 2)).check("x", None) is None
    assert not accepts(Maybe(Int(1, 2)), 0)


def test_checked_checks_named_arguments_only_when_given() -> None:
    @checked(n=Int(1, 5))
    def f(a: int, n: int = 99) -> int:  # a default outside the range is not checked
        return n

    assert f(0) == 99 and f(0, 5) == 5 and f(0, n=2) == 2
    with pytest.raises(InputError) as err:
        f(0, n=6)
    assert err.value.option == "n"
    assert f.__constraints__ == {"n": Int(1, 5)}


def test_an_option_is_spelled_as_the_command_line_spells_it() -> None:
    with pytest.raises(InputError) as caught:
        Int(0, 3).check("max_stream_draws", 7)
    caught.value.spell({"max_stream_draws": "--max-stream-draws"})
    assert str(caught.value).startswith("--max-stream-draws must be an integer from 0 to 3")


@given(value=st.one_of(st.integers(-20, 20), st.text(max_size=4)))
def test_the_click_type_agrees_with_its_constraint(value: object) -> None:
    constraint = Int(-3, 7)
    text = str(value)
    try:
        expected = constraint.check("x", int(text))
    except (ValueError, InputError):
        expected = None
    try:
        got = Checked(constraint).convert(text, None, None)
    except click.BadParameter:
        got = None
    assert got == expected
