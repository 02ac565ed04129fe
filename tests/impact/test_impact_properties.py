"""Impact metrics from the SQL pipeline equal the papers' definitions computed by brute
force (tests/reference.py: item by item, set by set) — overall, per Base and Exp
cluster and per slice — and satisfy the identities of docs/method.md §3."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import duckdb
from hypothesis import HealthCheck, given, settings
from reference import impact_by_group, impact_overall, slice_of
from strategies import clusterings

import abcde
from abcde.cells import IMPACT_METRICS

REL = 1e-12
SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def close(actual: float, expected: float) -> bool:
    """1e-12 relative; an exact zero must come out as zero (to 1e-15 absolute, which
    only a sum that cancels exactly can produce)."""
    return math.isclose(actual, expected, rel_tol=REL, abs_tol=1e-15)


def assert_row(actual: dict, expected: dict, what: str) -> None:
    for key, value in expected.items():
        assert key in actual, f"{what}: no {key}"
        assert close(float(actual[key]), float(value)), (
            f"{what} {key}: SQL {actual[key]!r} vs definition {value!r}")


def read_rows(path: str) -> list[dict]:
    con = duckdb.connect()
    cur = con.execute(f"SELECT * FROM read_parquet('{path}')")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


@SETTINGS
@given(clusterings(min_items=1, max_items=12, attributes=True, extra_items=True))
def test_sql_equals_brute_force_definitions(case) -> None:
    with tempfile.TemporaryDirectory() as out:
        columns = sorted({c for row in case.attributes.values() for c in row})
        result = abcde.impact(case.base, case.exp, case.weight, attributes=case.attributes,
                              slice_by=list(dict.fromkeys([",".join(columns), columns[0]])),
                              out=out, top=1000)
        files = {k: read_rows(v) for k, v in result.files.items()}

    expected = impact_overall(case.base, case.exp, case.weight)
    assert_row(result.overall, expected, "overall")

    for name, group_of in (("base_clusters", case.base), ("exp_clusters", case.exp)):
        rows = {r["cluster_id"]: r for r in files[name]}
        expected_groups = impact_by_group(case.base, case.exp, case.weight, group_of)
        assert set(rows) == set(expected_groups), name
        for cluster, exp_row in expected_groups.items():
            assert_row(rows[cluster], exp_row, f"{name} {cluster}")

    for slicing in ([*columns], [columns[0]]):
        got = next(s for s in result.slices if s["slice_by"] == slicing)
        rows = {tuple(r[c] for c in slicing): r for r in got["rows"]}
        expected_groups = impact_by_group(case.base, case.exp, case.weight,
                                          slice_of(case.attributes, slicing))
        assert set(rows) == set(expected_groups), slicing
        for key, exp_row in expected_groups.items():
            assert_row(rows[key], exp_row, f"slice {slicing}={key}")


@SETTINGS
@given(clusterings(min_items=1, max_items=12))
def test_identities_and_symmetry(case) -> None:
    """JD = SD + MD, JI + JD = 1, JI = affected JI + unaffected JI (docs/method.md §3; Jaccard
    decomposition eq. 17, §5), and SplitRate(Base, Exp) = MergeRate(Exp, Base) (ABCDE §4)."""
    o = abcde.impact(case.base, case.exp, case.weight).overall
    assert math.isclose(o["jaccard_distance"], o["split_distance"] + o["merge_distance"],
                        rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(o["jaccard_index"] + o["jaccard_distance"], 1.0, rel_tol=1e-12)
    assert math.isclose(o["jaccard_index"],
                        o["affected_jaccard_index"] + o["unaffected_jaccard_index"],
                        rel_tol=1e-12, abs_tol=1e-15)
    swapped = abcde.impact(case.exp, case.base, case.weight).overall
    for a, b in (("split_rate", "merge_rate"), ("split_distance", "merge_distance")):
        assert math.isclose(o[a], swapped[b], rel_tol=1e-12, abs_tol=1e-15)
    for key in ("jaccard_distance", "jaccard_index", "affected_weight", "affected_items"):
        assert math.isclose(o[key], swapped[key], rel_tol=1e-12, abs_tol=1e-15)


def test_pointwise_figure_2() -> None:
    """Pointwise paper, Figure 2 (docs/method.md §4): truth {i1,i2},{i3}; actual {i1,i3},{i2};
    weights 1, 2, 3. Precision = 1 − MergeRate, Recall = 1 − SplitRate."""
    truth = {"i1": "A", "i2": "A", "i3": "B"}
    actual = {"i1": "X", "i3": "X", "i2": "Y"}
    weight = {"i1": 1, "i2": 2, "i3": 3}
    attributes = {"i1": {"part": "one"}, "i2": {"part": "two_three"},
                  "i3": {"part": "two_three"}}
    r = abcde.impact(truth, actual, weight, attributes=attributes, slice_by="part")
    o = r.overall
    assert math.isclose(1 - o["merge_rate"], 3 / 4, rel_tol=1e-12)
    assert math.isclose(1 - o["split_rate"], 7 / 9, rel_tol=1e-12)
    assert math.isclose(o["jaccard_distance"], 3 / 8, rel_tol=1e-12)
    x = next(c for c in r.top_exp_clusters if c["cluster_id"] == "X")
    assert math.isclose(1 - x["merge_rate"], 5 / 8, rel_tol=1e-12)
    assert math.isclose(1 - x["split_rate"], 5 / 6, rel_tol=1e-12)
    assert math.isclose(x["jaccard_distance"], 19 / 48, rel_tol=1e-12)
    s = next(row for row in r.slices[0]["rows"] if row["part"] == "two_three")
    assert math.isclose(1 - s["merge_rate"], 17 / 20, rel_tol=1e-12)
    assert math.isclose(1 - s["split_rate"], 13 / 15, rel_tol=1e-12)
    assert math.isclose(s["jaccard_distance"], 17 / 60, rel_tol=1e-12)


def test_heavy_beside_light_keeps_relative_accuracy() -> None:
    """A 1e6 item beside a 1e-6 item: W_b − w_c must not be computed by subtraction,
    which would leave ~1e-10 of error on a true 1e-6 (relative error 1e-4)."""
    base = {1: "a", 2: "a", 3: "c"}
    exp = {1: "x", 2: "y", 3: "y"}
    weight = {1: 1e6, 2: 1e-6, 3: 1e-6}
    with tempfile.TemporaryDirectory() as out:
        r = abcde.impact(base, exp, weight, out=out)
        rows = {row["cluster_id"]: row for row in read_rows(r.files["base_clusters"])}
    expected = impact_by_group(base, exp, weight, base)
    assert_row(rows["a"], expected["a"], "base cluster a")
    assert_row(r.overall, impact_overall(base, exp, weight), "overall")


def test_top_clusters_rank_by_contribution_and_interleave() -> None:
    """Top-K lists hold the affected clusters with the largest contribution
    weight(C)·JD(C)/W (ABCDE §4.1), and the interleaved list is the top K of both."""
    base = {i: i // 4 for i in range(40)}
    exp = {i: (i // 4 if i < 20 else 100 + i // 8) for i in range(40)}
    weight = {i: 1.0 + i for i in range(40)}
    r = abcde.impact(base, exp, weight, top=3)
    expected_b = impact_by_group(base, exp, weight, base)
    expected_e = impact_by_group(base, exp, weight, exp)
    best_b = sorted((v["contribution"] for v in expected_b.values() if v["contribution"] > 0),
                    reverse=True)[:3]
    assert [c["contribution"] for c in r.top_base_clusters] == \
        [_approx(x) for x in best_b]
    both = sorted([v["contribution"] for v in expected_b.values()]
                  + [v["contribution"] for v in expected_e.values()], reverse=True)[:3]
    assert [c["contribution"] for c in r.top_clusters] == [_approx(x) for x in both]
    assert {c["side"] for c in r.top_clusters} <= {"base", "exp"}


def _approx(x: float):
    import pytest

    return pytest.approx(x, rel=1e-12)


def test_identical_clusterings_have_zero_impact(tmp_path: Path) -> None:
    base = {i: i % 3 for i in range(10)}
    exp = {i: f"c{i % 3}" for i in range(10)}
    r = abcde.impact(base, exp)
    o = r.overall
    assert o["affected_items"] == 0 and o["jaccard_distance"] == 0.0
    assert o["jaccard_index"] == 1.0 and o["unaffected_jaccard_index"] == 1.0
    assert r.top_clusters == [] and r.top_base_clusters == []
    for m in IMPACT_METRICS:
        assert o[m] == (1.0 if m == "jaccard_index" else 0.0)
