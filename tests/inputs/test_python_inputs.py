"""Inputs as a notebook gives them to the Python API: mappings built from numpy arrays,
pandas frames, objects that are no table. The numbers are checked against the
brute-force definitions of tests/reference.py; refusals must name the input and say
what to do."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from reference import impact_overall

import abcde

BASE = {1: "a", 2: "a", 3: "a", 4: "b", 5: "b", 6: "c"}
EXP = {1: "x", 2: "x", 3: "y", 4: "y", 5: "y", 6: "c"}
WEIGHT = {1: 1.0, 2: 2.0, 3: 0.5, 4: 3.0, 5: 1.5, 6: 4.0}
UNIT = dict.fromkeys(BASE, 1.0)


def _assert_metrics(got: dict, expected: dict) -> None:
    """The engine's sums agree with the brute force to rounding (their order varies
    between runs with threads)."""
    for key in ("jaccard_distance", "split_rate", "merge_rate", "jaccard_index", "weight"):
        assert math.isclose(got[key], expected[key], rel_tol=1e-12), key


def _numpy_mapping(mapping: dict) -> dict:
    """{item: value} as `dict(zip(ids.to_numpy(), values.to_numpy()))` builds it: numpy
    scalars as keys and values."""
    return dict(zip(np.array(list(mapping)), np.array(list(mapping.values())), strict=True))


def test_mappings_of_numpy_scalars_are_read_as_their_python_values() -> None:
    nb, ne, nw = _numpy_mapping(BASE), _numpy_mapping(EXP), _numpy_mapping(WEIGHT)
    assert isinstance(next(iter(nw)), np.int64)
    assert isinstance(next(iter(nw.values())), np.float64)
    expected = impact_overall(BASE, EXP, WEIGHT)
    frame = pd.DataFrame({"item_id": list(BASE), "cluster_id": list(BASE.values())})
    attributes = {np.int64(i): {"g": np.int64(i % 2)} for i in BASE}
    for base, exp, weights in ((nb, ne, nw),  # every input from numpy arrays
                               (frame, EXP, nw),  # numpy weights beside int64 frame ids
                               (nb, EXP, WEIGHT)):  # numpy ids beside Python ids
        got = abcde.impact(base, exp, weights, attributes=attributes, slice_by="g").overall
        for key in ("jaccard_distance", "split_rate", "merge_rate", "weight"):
            assert math.isclose(got[key], expected[key], rel_tol=1e-12), key
    with pytest.raises(abcde.InputError, match="64 bits"):
        abcde.impact({np.uint64(2**64 - 1): "a"}, {np.uint64(2**64 - 1): "a"})


def test_object_columns_of_several_python_types_are_read_whole() -> None:
    """DuckDB types a pandas object column from 1000 of its rows: a weight 2.5 further
    down was read as 2 (wrong metrics), an attribute 'z' after 1000 ints failed the
    query (an EngineError with SQL), and cluster ids 1 and '1' became one cluster. Now
    numbers are read as numbers, other mixed columns as text, and ids of mixed types are
    refused naming the column and one id of each type; the caller's frames are left
    as they were."""
    n = 3000  # DuckDB samples 1000 of the rows, spread over them
    base = {i: i // 4 for i in range(n)}
    exp = {i: i // 8 for i in range(n)}
    weight: dict[int, float] = {i: 1 for i in range(n)}
    weight[n - 1] = 2.5
    frame = pd.DataFrame({"item_id": list(base), "cluster_id": list(base.values())})
    weights = pd.DataFrame({"item_id": list(weight),
                            "weight": pd.Series(list(weight.values()), dtype=object)})
    attributes = pd.DataFrame({"item_id": list(base),
                               "g": pd.Series([0] * (n - 1) + ["z"], dtype=object)})
    got = abcde.impact(frame, exp, weights, attributes=attributes, slice_by="g")
    expected = impact_overall(base, exp, weight)
    for key in ("jaccard_distance", "split_rate", "merge_rate", "weight"):
        assert math.isclose(got.overall[key], expected[key], rel_tol=1e-12), key
    by_value = {r["g"]: r["weight"] for r in got.slices[0]["rows"]}
    assert by_value == {"0": n - 1, "z": 2.5}
    assert weights["weight"].dtype == object and weights["weight"].iloc[-1] == 2.5
    mixed = frame.astype({"cluster_id": object})
    mixed.loc[0, "cluster_id"] = "1"  # item 0 in cluster '1', items 4-7 in cluster 1
    with pytest.raises(abcde.InputError, match=r"mixed Python types \(int, str\)") as err:
        abcde.impact(mixed, exp)
    assert err.value.column == "cluster_id" and "'1' (str)" in str(err.value)
    # a column of lists (pandas calls it mixed too) is no text: still refused as nested
    lists = attributes.assign(g=[[i % 2] for i in range(n)])
    with pytest.raises(abcde.InputError, match="single values") as err:
        abcde.impact(frame, exp, weights, attributes=lists, slice_by="g")
    assert err.value.column == "g"


def test_objects_that_are_no_table_are_refused_naming_the_input() -> None:
    """A list, None or a Series given as an input was refused in DuckDB's words, naming
    abcde's private relation (abcde_src_base) and not the input; a Series was read as one
    column 'value' (its index, the items, dropped); an Arrow RecordBatchReader, read
    once, failed the second read deep in the run (an EngineError). Now the message names
    the input and what to pass."""
    frame = pd.DataFrame({"item_id": list(BASE), "cluster_id": list(BASE.values())})
    series = frame.set_index("item_id")["cluster_id"]
    for kwargs, label, message in (
            ({"base": [(1, "a")], "exp": EXP}, "base (list)", "a list is no table"),
            ({"base": BASE, "exp": None}, "exp (NoneType)", "None is no table"),
            ({"base": BASE, "exp": EXP, "weights": [1.0] * 6}, "weights (list)",
             "a list is no table"),
            ({"base": series, "exp": EXP}, "base (Series)", "reset_index"),
            ({"base": object(), "exp": EXP}, "base (object)", "cannot read object"),
            ({"base": pa.Table.from_pandas(frame).to_reader(), "exp": EXP},
             "base (RecordBatchReader)", r"read only once.*\n  Pass reader\.read_all\(\)")):
        with pytest.raises(abcde.InputError, match=message) as err:
            abcde.impact(**kwargs)
        assert err.value.table == label
    hint = "series.rename_axis('item_id').reset_index(name='cluster_id')"
    with pytest.raises(abcde.InputError, match=re.escape(hint)):
        abcde.impact(series, EXP)
    fixed = series.rename_axis("item_id").reset_index(name="cluster_id")  # as the hint says
    _assert_metrics(abcde.impact(fixed, EXP).overall, impact_overall(BASE, EXP, UNIT))


def test_ids_set_as_the_index_are_told_to_be_reset() -> None:
    """df.set_index('item_id') was refused with "rename the column of base to 'item_id'"
    (it has no such column to rename); the hint now says the index is not read and to
    reset it, for a weights or attributes frame as for a clustering."""
    frame = pd.DataFrame({"item_id": list(BASE), "cluster_id": list(BASE.values())})
    weights = pd.DataFrame({"item_id": list(WEIGHT), "weight": list(WEIGHT.values())})
    for kwargs, table in (({"base": frame.set_index("item_id"), "exp": EXP}, "base"),
                          ({"base": BASE, "exp": EXP,
                            "weights": weights.set_index(["item_id"])}, "weights")):
        with pytest.raises(abcde.InputError, match="index, which is not read: pass "
                           r"df\.reset_index\(\)") as err:
            abcde.impact(**kwargs)
        assert err.value.table == f"{table} (DataFrame)" and err.value.column == "item_id"
    got = abcde.impact(frame.set_index("item_id").reset_index(), EXP, weights)
    assert math.isclose(got.overall["jaccard_distance"],
                        impact_overall(BASE, EXP, WEIGHT)["jaccard_distance"], rel_tol=1e-12)


def test_weights_that_are_numbers_stored_as_text_say_so() -> None:
    """An object column holding '3' among numbers (or only numeric strings) is text: it
    was refused as 'weights must be numbers' with no value shown, though every value is
    one. The message now says they are numbers stored as text and how to convert them,
    and the conversion it names gives the metrics of the numbers."""
    values = [1.0, 2.0, "0.5", 3.0, 1.5, 4.0]
    weights = pd.DataFrame({"item_id": list(WEIGHT), "w": pd.Series(values, dtype=object)})
    with pytest.raises(abcde.InputError, match="every value reads as a number, but some "
                       r"are stored as text\n  Store them as numbers .*pandas: "
                       r"df\['w'\] = pd\.to_numeric\(df\['w'\]\)"):
        abcde.impact(BASE, EXP, weights, weight_col="w")
    # text of no value at all is not 'numbers stored as text'
    blank = weights.assign(w=pd.array([None] * len(WEIGHT), dtype="string"))
    with pytest.raises(abcde.InputError, match="weights must be numbers") as err:
        abcde.impact(BASE, EXP, blank, weight_col="w")
    assert "stored as text" not in str(err.value)
    weights["w"] = pd.to_numeric(weights["w"])
    got = abcde.impact(BASE, EXP, weights, weight_col="w").overall
    assert math.isclose(got["jaccard_distance"],
                        impact_overall(BASE, EXP, WEIGHT)["jaccard_distance"], rel_tol=1e-12)


def test_float_ids_of_a_dataframe_say_why_they_are_floats() -> None:
    """An integer column holding NaN is float in pandas: its refusal said only 'cluster
    ids have type float'. It now names the cause and the cast that keeps the integers,
    which then meets the NULL check (the item without a cluster named); a mapping of
    float ids gets no pandas advice."""
    frame = pd.DataFrame({"item_id": list(BASE), "cluster_id": [1, 1, 1, 2, 2, None]})
    assert frame["cluster_id"].dtype == float
    with pytest.raises(abcde.InputError, match=r"df\['cluster_id'\]\.astype\('Int64'\)"):
        abcde.impact(frame, EXP)
    with pytest.raises(abcde.InputError, match="NULL cluster id") as err:
        abcde.impact(frame.astype({"cluster_id": "Int64"}), EXP)
    assert err.value.examples == [6]
    with pytest.raises(abcde.InputError, match="type float") as err:
        abcde.impact({i: float(c) for i, c in enumerate(range(6))}, EXP)
    assert "pandas" not in str(err.value)


def test_top_and_missing_weight_of_another_type_are_refused() -> None:
    """impact(top=2.5) raised a TypeError from slicing a list, evaluate(top=2.5) ran with
    a LIMIT 2.5, and missing_weight='1' a TypeError from a comparison: each is refused
    naming the option; numpy numbers are numbers."""
    for call in (abcde.impact, abcde.evaluate):
        for top in (2.5, "3", True, -1):
            with pytest.raises(abcde.InputError) as err:
                call(BASE, EXP, top=top)
            assert err.value.option == "top"
    for value in ("1", True):
        with pytest.raises(abcde.InputError, match=f"must be a number .*, not {value!r}"):
            abcde.impact(BASE, EXP, {1: 1.0}, missing_weight=value)
    partial = {i: w for i, w in WEIGHT.items() if i != 6}
    got = abcde.impact(BASE, EXP, partial, missing_weight=np.float64(WEIGHT[6]),
                       top=np.int64(1))
    assert len(got.top_clusters) == 1
    assert math.isclose(got.overall["jaccard_distance"],
                        impact_overall(BASE, EXP, WEIGHT)["jaccard_distance"], rel_tol=1e-12)


def test_a_table_with_a_repeated_column_name_is_refused() -> None:
    """A DataFrame (or Arrow table) with two 'cluster_id' columns, as pd.concat(axis=1)
    makes, was read by its first one silently (the engine renamed the second): the
    metrics of clusters the user may not have meant. It is refused naming the column."""
    frame = pd.DataFrame({"item_id": list(BASE), "cluster_id": list(BASE.values())})
    twice = pd.concat([frame, frame[["cluster_id"]].map(lambda c: c + "2")], axis=1)
    arrow = pa.table([pa.array(twice.iloc[:, k].tolist()) for k in range(3)],
                     names=list(twice.columns))
    for table in (twice, arrow):
        with pytest.raises(abcde.InputError, match="column names are repeated: "
                           "'cluster_id'") as err:
            abcde.impact(table, EXP)
        assert err.value.column == "cluster_id"
    kept = twice.loc[:, ~twice.columns.duplicated()]  # as the hint says
    _assert_metrics(abcde.impact(kept, EXP).overall, impact_overall(BASE, EXP, UNIT))


def test_a_closed_engine_is_refused_as_such() -> None:
    """An engine used after `with abcde.connect() as engine:` ended (or close()) failed
    deep in the run with DuckDB's 'Connection already closed!'; it is refused naming
    engine=, and an open engine keeps working across calls."""
    with abcde.connect() as engine:
        first = abcde.impact(BASE, EXP, engine=engine).overall
        _assert_metrics(abcde.impact(BASE, EXP, engine=engine).overall, first)
    for call in (lambda: abcde.impact(BASE, EXP, engine=engine),
                 lambda: abcde.evaluate(BASE, EXP, engine=engine)):
        with pytest.raises(abcde.InputError, match="engine= is closed"):
            call()


def test_slice_by_and_group_by_of_no_names_are_refused() -> None:
    """slice_by=3 (or a list holding a number) and explore's group_by=3 raised "'int'
    object is not iterable"; each is an InputError saying the option takes column
    names."""
    attributes = {i: {"g": i % 2} for i in BASE}
    for slice_by in (3, [3], ["g", 3]):
        with pytest.raises(abcde.InputError, match="--slice-by takes column names, not 3"):
            abcde.impact(BASE, EXP, attributes=attributes, slice_by=slice_by)
    with pytest.raises(abcde.InputError, match="--group-by takes column names, not 3"):
        abcde.explore([], group_by=3)
    got = abcde.impact(BASE, EXP, attributes=attributes, slice_by=["g"])
    assert [s["slice_by"] for s in got.slices] == [["g"]]


@pytest.mark.parametrize("arrow", [False, True])
def test_a_time_zone_aware_slice_column_is_shown_in_its_own_zone(arrow: bool) -> None:
    """A pandas/Arrow column in Europe/Berlin was sliced and shown in the machine's zone
    (UTC on a server: 10:00 showed as 09:00:00+00); it is shown as the data has it, its
    offset changing with daylight saving time, and slices by the same instants."""
    base = {1: "a", 2: "a", 3: "b", 4: "b"}
    exp = {1: "a", 2: "b", 3: "b", 4: "b"}
    local = pd.to_datetime(["2024-01-01 10:00", "2024-01-01 10:00", "2024-07-02 23:30",
                            "2024-07-02 23:30"]).tz_localize("Europe/Berlin")
    attrs = pd.DataFrame({"item_id": [1, 2, 3, 4], "day": local})
    result = abcde.impact(base, exp, attributes=pa.Table.from_pandas(attrs) if arrow
                          else attrs, slice_by="day")
    # DuckDB's text of a TIMESTAMPTZ: the local time and the offset's hours
    want = sorted({f"{t:%Y-%m-%d %H:%M:%S}{t.utcoffset().total_seconds() / 3600:+03.0f}"
                   for t in local})
    assert want == ["2024-01-01 10:00:00+01", "2024-07-02 23:30:00+02"]
    rows = result.to_dict()["slices"][0]["rows"]
    assert [r["day"] for r in rows] == want
    assert [r["items"] for r in rows] == [2, 2]
