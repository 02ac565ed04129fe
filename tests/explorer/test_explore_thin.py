"""A group of few draws is flagged `conclusive: false` (docs/method.md §7.3): its
`effective_draws` (Σ dc·x)²/Σ dc·x² is checked against the draws written out one by one
on a hand-built sample; the text table marks it and says what to do; the JSON carries
the fields for every group; nothing is hidden or re-ranked."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from abcde.cli import main
from abcde.explorer.groups import MIN_DRAWS, MIN_EFFECTIVE_DRAWS, explore

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

JD_T = 0.4
# (item, group, draw count, jaccard_distance, split_distance): merge_distance is the
# rest of the distance
ITEMS = [("a1", "a", 3, 0.5, 0.2),
         ("b1", "b", 3, 0.5, 0.5), ("b2", "b", 3, 0.8, 0.0), ("b3", "b", 3, 0.25, 0.0),
         ("b4", "b", 3, 1.0, 0.0),
         ("c1", "c", 11, 0.6, 0.0),
         ("d1", "d", 10, 0.5, 0.5), ("d2", "d", 2, 0.4, 0.2)]


def hand_sample() -> list[dict[str, Any]]:
    """Rows as `sample_items` writes them: w(i) = dc(i)/Σdc·JD(T)/JD(i) (eq. 25)."""
    total = sum(dc for _, _, dc, _, _ in ITEMS)
    return [{"item_id": i, "g": g, "draw_count": dc, "first_draw": k + 1,
             "importance_weight": dc / total * JD_T / jd, "jaccard_distance": jd,
             "split_distance": sd, "merge_distance": jd - sd, "jaccard_index": 1 - jd,
             "split_rate": sd, "merge_rate": jd - sd}
            for k, (i, g, dc, jd, sd) in enumerate(ITEMS)]


def draws_of(group: str, metric: str) -> list[float]:
    """x = JD(T)·m(i)/JD(i) of every draw of the group, each draw written out."""
    col = {"jaccard_distance": 3, "split_distance": 4}[metric]
    return [JD_T * it[col] / it[3] for it in ITEMS if it[1] == group for _ in range(it[2])]


@pytest.mark.parametrize("metric", ["jaccard_distance", "split_distance"])
def test_effective_draws_and_the_flag_by_hand(metric: str) -> None:
    """effective_draws = (Σx)²/Σx² over the group's draws one by one: the draws for
    jaccard_distance (x = JD(T) on each); for split_distance 3 of group b's 12 draws
    carry it (3), none of c's 11 (0), d's 10 draws of x = 0.4 and 2 of 0.2 count as
    11²/10.5 ≈ 11.5. Fewer than 10 draws, or fewer than 5 effective ones, and the group
    is not conclusive, with the reason."""
    assert (MIN_DRAWS, MIN_EFFECTIVE_DRAWS) == (10, 5)
    doc = explore(hand_sample(), "g", metric=metric, top=0, examples=0)
    got = {r["g"]: r for r in doc["groups"]}
    assert set(got) == {"a", "b", "c", "d"}  # thin groups are listed, not dropped
    want = {"jaccard_distance": {"a": 3, "b": 12, "c": 11, "d": 12},
            "split_distance": {"a": 3, "b": 3, "c": 0, "d": 121 / 10.5}}[metric]
    for g, r in got.items():
        xs = draws_of(g, metric)
        brute = math.fsum(xs) ** 2 / math.fsum(x * x for x in xs) if any(xs) else 0.0
        assert brute == pytest.approx(want[g], rel=1e-12)
        assert r["effective_draws"] == pytest.approx(brute, rel=1e-9)
        assert r["conclusive"] is (r["draws"] >= 10 and brute >= 5), (g, r)
        assert (r["caveat"] is None) is r["conclusive"]
    assert got["a"]["caveat"] == "3 draws, fewer than 10"
    if metric == "jaccard_distance":
        assert got["b"]["effective_draws"] == 12.0  # exactly: not 11.999999 below the bar
    else:
        assert got["b"]["caveat"] == ("its 12 draws count as 3.0 (fewer than 5): a few "
                                      "items carry its split_distance")
        assert got["c"]["caveat"] == "none of its 11 draws has a split_distance above 0"
        assert got["c"]["se"] == 0.0  # the narrow interval the flag warns of
    # the ranking is explore's, flag or not: by |contribution|
    contributions = [abs(r["contribution"]) for r in doc["groups"]]
    assert contributions == sorted(contributions, reverse=True)


def _cli(*args: str) -> str:
    res = CliRunner().invoke(main, ["explore", *args])
    assert res.exit_code == 0, res.output
    return res.output


@pytest.fixture(scope="module")
def small_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 items of the examples: grouped by country × provenance, most groups are thin."""
    from abcde.sampling.items import sample_items

    out = tmp_path_factory.mktemp("thin") / "items.parquet"
    sample_items(*(str(EXAMPLES / f"{n}.csv") for n in ("base", "exp", "weights")),
                 attributes=str(EXAMPLES / "attributes.csv"), size=200, seed=5, out=str(out))
    return out


def test_the_table_marks_thin_groups_and_json_has_the_fields(small_sample: Path) -> None:
    """Grouped by country × provenance, a sample of 200 items has thin groups: the
    table's note column marks exactly the groups the JSON says are not conclusive, and
    a footnote says what it means and what to do; the JSON lists every group (none
    hidden), each with its fields. Not grouped, the one group holds every draw: no note
    column, no footnote."""
    item_sample = small_sample
    args = [str(item_sample), "--group-by", "country,provenance", "--top", "0",
            "--examples", "0", "--metric", "split_rate"]
    doc = json.loads(_cli(*args, "--format", "json"))
    groups = doc["groups"]
    assert len(groups) == doc["total_groups"]
    for g in groups:
        assert isinstance(g["conclusive"], bool) and isinstance(g["effective_draws"], float)
        assert 0 <= g["effective_draws"] <= g["draws"]
        assert (g["caveat"] is None) is g["conclusive"]
        assert g["conclusive"] is (g["draws"] >= MIN_DRAWS
                                   and g["effective_draws"] >= MIN_EFFECTIVE_DRAWS)
    thin = {(g["country"], g["provenance"]) for g in groups if not g["conclusive"]}
    assert thin and len(thin) < len(groups)
    lines = _cli(*args).splitlines()
    header = lines[1].split()
    assert header[-2:] == ["note", "examples"]
    rows = {tuple(line.split()[:2]): line.rstrip().endswith("not conclusive*")
            for line in lines[3:3 + len(groups)]}
    assert {k for k, flagged in rows.items() if flagged} == thin
    note = lines[3 + len(groups)]
    assert note.startswith(f"* not conclusive ({len(thin)} groups): ")
    assert "--size" in note and "--group-by" in note and "split_rate" in note
    one = _cli(str(item_sample), "--examples", "0")
    assert "note" not in one.splitlines()[1] and "not conclusive" not in one
    (only,) = json.loads(_cli(str(item_sample), "--format", "json"))["groups"]
    assert only["conclusive"] is True and only["caveat"] is None
