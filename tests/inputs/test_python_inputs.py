"""Inputs as a notebook gives them to the Python API: mappings built from numpy arrays,
pandas frames, objects that are no table. The numbers are checked against the
brute-force definitions of tests/reference.py; refusals must name the input and say
what to do."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from reference import impact_overall

import abcde

BASE = {1: "a", 2: "a", 3: "a", 4: "b", 5: "b", 6: "c"}
EXP = {1: "x", 2: "x", 3: "y", 4: "y", 5: "y", 6: "c"}
WEIGHT = {1: 1.0, 2: 2.0, 3: 0.5, 4: 3.0, 5: 1.5, 6: 4.0}


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
