"""`abcde estimate --truth`: the truth's exact value of every metric beside the estimate
(docs/method.md §8.12), the same as `abcde.quality.exact` computes for `abcde simulate`;
unavailable, with the reason, when the sample's clusterings are not at hand or are not
those it was drawn from. The per-metric self-pair part is `self_pair_part` (and `exact`,
its earlier name)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import abcde
from abcde.cli import main
from abcde.quality.exact import exact_quality

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def round_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("truth_exact")
    for name in ("base", "exp", "weights", "ideal"):
        shutil.copy(ROOT / "examples" / f"{name}.csv", out / f"{name}.csv")
    return out


def test_the_exact_values_stand_beside_the_estimates(round_dir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(round_dir)
    abcde.sample_pairs("base.csv", "exp.csv", "weights.csv", budget=60, seed=2, out="s")
    doc = abcde.estimate("s", truth="ideal.csv")
    want = exact_quality("base.csv", "exp.csv", "weights.csv", truth="ideal.csv")
    # the engine sums in parallel: equal to the last few ulps, not bit for bit
    assert doc["truth_exact"]["available"]
    assert doc["truth_exact"]["values"] == pytest.approx(want.values, rel=1e-12)
    dp = doc["delta_precision"]
    assert dp["self_pair_part"] == dp["exact"]
    result = CliRunner().invoke(main, ["estimate", "s", "--truth", "ideal.csv"])
    assert result.exit_code == 0, result.output
    assert "exact (truth)" in result.output
    assert f"{100 * want.values['delta_precision']:+.3f}%" in result.output
    as_json = json.loads(CliRunner().invoke(main, ["estimate", "s", "--truth", "ideal.csv",
                                                   "--format", "json"]).stdout)
    assert as_json["truth_exact"]["values"] == pytest.approx(want.values, rel=1e-12)


def test_without_the_sample_s_clusterings_they_are_unavailable(
        round_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(round_dir)
    abcde.sample_pairs("base.csv", "exp.csv", "weights.csv", budget=60, seed=3, out="t")
    # other clusterings under the sample's file names: refused by the exact identities
    (tmp_path / "base.csv").write_text((round_dir / "exp.csv").read_text())
    (tmp_path / "exp.csv").write_text((round_dir / "base.csv").read_text())
    shutil.copy(round_dir / "weights.csv", tmp_path / "weights.csv")
    shutil.copytree(round_dir / "t", tmp_path / "t")
    monkeypatch.chdir(tmp_path)
    got = abcde.estimate("t", truth=round_dir / "ideal.csv")["truth_exact"]
    assert not got["available"] and "not the clusterings" in got["reason"]
    # no clusterings at all: said in the table, the estimates as before
    monkeypatch.chdir(round_dir / "t")
    result = CliRunner().invoke(main, ["estimate", ".", "--truth", str(round_dir / "ideal.csv")])
    assert result.exit_code == 0, result.output
    assert "exact by the truth: not available" in result.output
