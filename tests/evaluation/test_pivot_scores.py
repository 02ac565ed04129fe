"""`pivot_scores` against a plain row-by-row loop written here (docs/method.md §9.1): the
same table, in the same order, with the same key objects, on random long tables, valid
or not."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abcde.errors import InputError
from abcde.evaluation.scores import UirInputError, pivot_scores


class Refused(Exception):
    pass


def reference(rows: list, metrics: Sequence[str]) -> dict:
    """The long table pivoted one row at a time: systems, a system's cases and a case's
    metrics in order of first appearance; refused on a short row, a repeated (system,
    case, metric), a value that is no finite number, or a missing score."""
    wanted = set(metrics)
    table: dict = {}
    seen = set()
    for row in rows:
        if len(row) != 4:
            raise Refused
        system, case, metric, value = row
        if metric not in wanted:
            continue
        if (system, case, metric) in seen:
            raise Refused
        seen.add((system, case, metric))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Refused
        if not math.isfinite(float(value)):
            raise Refused
        table.setdefault(system, {}).setdefault(case, {})[metric] = float(value)
    every_case = {c for per in table.values() for c in per}
    if not table:
        raise Refused
    for per in table.values():
        for case in every_case:
            if case not in per or any(m not in per[case] for m in metrics):
                raise Refused
    return table


def shape(table: dict) -> list:
    """Everything a caller can see of a table: order, key types and reprs, values."""
    return [(type(s), repr(s), [(type(c), repr(c), [(type(m), m, type(v), repr(v))
                                                    for m, v in per.items()])
                                for c, per in cases.items()])
            for s, cases in table.items()]


def outcome(f, rows: list, metrics: Sequence[str]) -> object:
    try:
        return shape(f(rows, metrics))
    except (UirInputError, Refused):
        return "refused"


#: Keys in classes of equal objects (1 == 1.0 == True, 0 == -0.0 == False): a table
#: may name one system or case by different, equal objects on different rows
KEY_CLASSES = {"str": [["a"], ["b"], ["1"], ["x"]],
               "int": [[0], [1], [2], [7], [None]],
               "mixed": [[1, 1.0, True], [0, 0.0, -0.0, False], [2, 2.0], ["a"], [None]]}
VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5),
                   st.booleans(), st.just("0.5"))


@st.composite
def long_tables(draw: st.DrawFn) -> tuple[list, list[str]]:
    """Mostly full grids (systems × cases × metrics, rows shuffled, some rows of other
    metrics), then perhaps spoilt: a row dropped, repeated, overwritten by another,
    shortened or given a bad value, or a metric asked for that no row has."""
    metrics = draw(st.lists(st.sampled_from(["p", "r", "q"]), min_size=1, max_size=3,
                            unique=True))

    def keys(n: int) -> list[list]:
        classes = KEY_CLASSES[draw(st.sampled_from(list(KEY_CLASSES)))]
        picked = draw(st.lists(st.sampled_from(range(len(classes))), min_size=1, max_size=n,
                               unique=True))
        return [classes[i] for i in picked]

    systems, cases = keys(3), keys(5)
    rows: list = [(draw(st.sampled_from(s)), draw(st.sampled_from(c)), m,
                   draw(st.floats(-2, 2) | st.integers(-3, 3)))
                  for s in systems for c in cases for m in metrics]
    anything = st.sampled_from([k for cls in KEY_CLASSES.values() for ks in cls for k in ks])
    rows += [(draw(anything), draw(anything), "other", draw(VALUES))
             for _ in range(draw(st.integers(0, 3)))]
    rows = draw(st.permutations(rows))
    spoil = draw(st.sampled_from(["none", "none", "drop", "repeat", "copy", "short",
                                  "value", "any", "unscored"]))
    k = draw(st.integers(0, len(rows) - 1))
    if spoil == "drop":
        del rows[k]
    elif spoil == "repeat":
        rows.insert(draw(st.integers(0, len(rows))), rows[k])
    elif spoil == "copy":  # as many rows as the grid, one of them twice
        rows[k] = rows[draw(st.integers(0, len(rows) - 1))]
    elif spoil == "short":
        rows[k] = rows[k][:3]
    elif spoil == "value":
        rows[k] = (*rows[k][:3], draw(VALUES))
    elif spoil == "any":
        rows[k] = (draw(anything), draw(anything), draw(st.sampled_from(metrics)),
                   draw(VALUES))
    elif spoil == "unscored":  # a metric asked for that no row has
        return rows, [*metrics, "s"]
    return rows, metrics


@settings(max_examples=400, deadline=None)
@given(long_tables())
def test_pivot_scores_matches_the_row_loop(case: tuple[list, list[str]]) -> None:
    rows, metrics = case
    expected = outcome(reference, rows, metrics)
    assert outcome(pivot_scores, rows, metrics) == expected


def test_a_dataframe_or_arrow_score_table_is_read_by_column_name() -> None:
    """A DataFrame or an Arrow table with the columns system, case, metric, value (in any
    order) is the long table; one without them, or with a column twice, is refused
    naming what it lacks."""
    import pandas as pd
    import pyarrow as pa

    from abcde.evaluation.uir import uir_matrix

    rows = [("a", 1, "p", 0.5), ("a", 2, "p", 0.6), ("b", 1, "p", 0.7), ("b", 2, "p", 0.6)]
    frame = pd.DataFrame(rows, columns=["system", "case", "metric", "value"])
    for table in (frame[["value", "metric", "case", "system"]], pa.Table.from_pandas(frame)):
        got = uir_matrix(table, ["p"])
        # b beats a on case 1 and ties on case 2: UIR(b over a) = (2 - 1)/2
        assert got == uir_matrix(rows, ["p"])
        assert got["b"]["a"] == 0.5
    with pytest.raises(UirInputError, match="lacks value"):
        uir_matrix(frame.rename(columns={"value": "score"}), ["p"])
    twice = frame.assign(extra=frame["value"] * 0)
    twice.columns = ["system", "case", "metric", "value", "value"]
    for table in (twice, pa.Table.from_arrays([pa.array(twice.iloc[:, k].tolist())
                                               for k in range(5)], names=list(twice.columns))):
        with pytest.raises(InputError, match="'value' are repeated"):
            uir_matrix(table, ["p"])


def test_systems_whose_names_print_alike_are_refused(tmp_path) -> None:
    """'café' with é and with e + a combining accent were two systems, two rows and
    columns of the UIR matrix that print the same: refused naming both (escaped), in the
    API and by `abcde uir` (exit 2); cases that print alike stay two cases."""
    from click.testing import CliRunner

    from abcde.cli import main

    composed, decomposed = "caf\u00e9", "cafe\u0301"
    rows = [(composed, 1, "p", 0.5), (decomposed, 1, "p", 0.6), ("b", 1, "p", 0.4)]
    with pytest.raises(UirInputError, match=r"'caf\\xe9', 'cafe\\u0301'"):
        pivot_scores(rows, ["p"])
    path = tmp_path / "scores.csv"
    path.write_text("system,case,metric,value\n" + "".join(
        f"{s},{c},{m},{v}\n" for s, c, m, v in rows), encoding="utf-8")
    result = CliRunner().invoke(main, ["uir", str(path), "--metrics", "p"])
    assert result.exit_code == 2, result.output
    assert "print alike" in result.output
    cases = [("a", composed, "p", 0.5), ("a", decomposed, "p", 0.6),
             ("b", composed, "p", 0.4), ("b", decomposed, "p", 0.7)]
    assert set(pivot_scores(cases, ["p"])["a"]) == {composed, decomposed}
