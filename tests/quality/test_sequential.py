"""The confidence sequences and the stop signal (`abcde.quality.sequential`,
docs/method.md §8.14) against independent computations: the boundary in the brief's
variance-inside form, the Hájek share and its influence variance summed draw by draw
from the SQL sampler's own stream, the prefix rule, the question grammar at the
boundaries (library and CLI)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from worlds import make_world

from abcde.cli import main
from abcde.errors import InputError
from abcde.quality.estimate import estimate, judged_design
from abcde.quality.metrics import METRICS
from abcde.quality.sequential import (
    STOP_WHEN,
    Stream,
    _Sums,
    every_prefix,
    metric_sequence,
    unit_margin,
)
from abcde.sampling.pairs import sample_pairs
from abcde.sampling.stratified import sample_pairs_stratified


@pytest.fixture(scope="module")
def world() -> Any:
    return make_world(seed=2, n=200)


@pytest.fixture(scope="module")
def sample(world: Any) -> Any:
    return sample_pairs(world.base, world.exp, world.weight, budget=300, seed=5,
                        return_stream=True)


def verdicts(world: Any, sample: Any, unknown: set[str] = frozenset()) -> dict[str, str]:
    out = {}
    for r in sample.draws:
        same = world.truth[r["item_i"]] == world.truth[r["item_j"]]
        out[str(r["pair_id"])] = ("unknown" if str(r["pair_id"]) in unknown else
                                  "equivalent" if same else "not_equivalent")
    return out


@pytest.mark.parametrize(("n", "sigma", "alpha"), [(50, 0.3, 0.05), (1000, 2.0, 0.1),
                                                   (7, 1.0, 0.01)])
def test_margin_is_the_normal_mixture_boundary(n: int, sigma: float, alpha: float) -> None:
    """σ·margin equals sqrt(2(nσ²ρ'² + 1)/(n²ρ'²)·log(sqrt(nσ²ρ'² + 1)/(α/2))) with
    ρ' = ρ/σ (the boundary with the variance inside), and at n* it is the minimum over ρ."""
    planned = 400
    a = alpha / 2
    rho2 = (2 * math.log(1 / a) + math.log(1 + 2 * math.log(1 / a))) / planned
    r2 = rho2 / sigma**2
    inside = math.sqrt(2 * (n * sigma**2 * r2 + 1) / (n * n * r2)
                       * math.log(math.sqrt(n * sigma**2 * r2 + 1) / a))
    assert sigma * float(unit_margin(n, planned, alpha)) == pytest.approx(inside, rel=1e-12)
    grid = np.linspace(0.2, 5, 400) * rho2
    at_planned = [math.sqrt(2 * (planned * g + 1) / (planned**2 * g)
                            * math.log(math.sqrt(planned * g + 1) / a)) for g in grid]
    assert float(unit_margin(planned, planned, alpha)) <= min(at_planned) * 1.001


def test_whole_sample_matches_draw_by_draw(world: Any, sample: Any) -> None:
    """At the whole sample the sequence's centre is the estimate's point and its σ̂ the
    influence terms' spread summed over the stream's draws one by one."""
    v = verdicts(world, sample)
    draws = {k: [r[k] for r in sample.draws] for k in sample.draws[0]}
    draws["pair_id"] = [str(p) for p in draws["pair_id"]]
    s, design = judged_design(draws, v, sample.manifest)
    first = np.asarray(draws["first_draw"]) - 1  # numbered from 1
    stream, _ = every_prefix(first, s.draw_count, draws["pair_id"])
    doc = estimate(sample, judge=lambda i, j: world.truth[i] == world.truth[j])
    cut = int(s.draw_count.sum())
    d = sample.stream[:cut]
    assert [r["d"] for r in d] == list(range(cut))
    row = {(r["item_i"], r["item_j"]): k for k, r in enumerate(sample.draws)}
    at = np.array([row[(r["item_i"], r["item_j"])] for r in d])
    for key in ("good_merge_rate", "bad_split_distance"):
        metric = METRICS[key]
        seq = metric_sequence(metric, s, design, stream, 0.95)
        assert seq.estimate[-1] == pytest.approx(doc[key]["estimate"], rel=1e-9)
        (part,) = metric.parts
        m = (s.importance_u if part.target == "u" else s.importance_w)[at]
        x = s.equivalent[at] if part.indicator == "equivalent" else 1 - s.equivalent[at]
        mine = s.class_key[at] == part.classes[0]
        p = (m * x)[mine].sum() / m[mine].sum()
        influence = np.where(mine, design.total(part) * m * (x - p) / (m * mine).mean(), 0)
        assert seq.estimate[-1] == pytest.approx(design.total(part) * p, rel=1e-9)
        assert seq.sigma[0][-1] >= np.sqrt((influence**2).mean()) * (1 - 1e-9)


def test_prefix_counts_are_exact_for_pairs_drawn_once(sample: Any) -> None:
    """Σ k(n) over the rows at each prefix n equals the count of the stream's draws < n
    of the rows drawn once, and is exact for all rows at n = D."""
    rows = sample.draws
    first = np.array([r["first_draw"] for r in rows]) - 1
    count = np.array([r["draw_count"] for r in rows])
    total = int(count.sum())
    times = np.arange(1, total + 1)
    once = (count == 1).astype(float)
    add = _Sums(first, count, total, times)
    assert np.array_equal(add(once), [(first[count == 1] < n).sum() for n in times])
    assert add(np.ones(first.size))[-1] == pytest.approx(total)


def test_skipped_pair_ends_the_prefix_unknown_does_not(world: Any, sample: Any) -> None:
    v = verdicts(world, sample, unknown={"3"})
    given = {k: x for k, x in v.items() if k != "7"}
    doc = estimate(sample, judgements=[{"pair_id": k, "verdict": x, "sample_id":
                                        sample.manifest["sample_id"]}
                                       for k, x in given.items()],
                   stop_when="delta_precision>0")
    assert doc["sequential"]["pairs"] == 6  # pairs 1–6 (3 unknown), 7 not judged
    full = estimate(sample, judgements=[{"pair_id": k, "verdict": x, "sample_id":
                                         sample.manifest["sample_id"]} for k, x in v.items()],
                    sequential=True)["sequential"]
    assert full["pairs"] == full["sample_pairs"] == 300
    assert full["draws"] == full["planned_draws"] == sample.manifest["draws"]


def test_unknowns_widen_both_ways_and_bad_mirrors_good(world: Any, sample: Any) -> None:
    known = estimate(sample, judge=lambda i, j: world.truth[i] == world.truth[j],
                     sequential=True)["sequential"]["metrics"]
    unknown = {str(p) for p in range(1, 301, 5)}
    v = verdicts(world, sample, unknown)
    some = estimate(sample, judgements=[{"pair_id": k, "verdict": x, "sample_id":
                                         sample.manifest["sample_id"]} for k, x in v.items()],
                    sequential=True)["sequential"]["metrics"]
    for key in METRICS:
        assert some[key]["cs_high"] - some[key]["cs_low"] >= \
            known[key]["cs_high"] - known[key]["cs_low"] - 1e-12, key
    for good, bad in (("good_split_rate", "bad_split_rate"),
                      ("good_merge_distance", "bad_merge_distance")):
        total = some[good]["estimate"] + some[bad]["estimate"]
        assert some[good]["cs_low"] + some[bad]["cs_high"] == pytest.approx(total, abs=1e-12)
        assert some[good]["cs_high"] + some[bad]["cs_low"] == pytest.approx(total, abs=1e-12)


def test_a_stratified_sample_adds_its_strata(world: Any) -> None:
    s = sample_pairs_stratified(world.base, world.exp, world.weight, budget=200, seed=1,
                                allocation="equal")
    doc = estimate(s, judge=lambda i, j: world.truth[i] == world.truth[j],
                   stop_when=["halfwidth<=50%", "bad_merge_rate<1"])["sequential"]
    assert doc["pairs"] == 200
    assert [q["answer"] for q in doc["questions"]] == ["reached", "yes"]
    m = doc["metrics"]["delta_precision"]
    assert m["cs_low"] <= m["estimate"] <= m["cs_high"]


@pytest.mark.parametrize(("text", "expected"), [
    ("delta_precision>0", ("delta_precision", ">", 0.0, False)),
    (" bad_merge_rate < 2% ", ("bad_merge_rate", "<", 0.02, False)),
    ("halfwidth<=0.01", ("delta_precision", "<=", 0.01, True)),
    ("good_merge_rate.halfwidth<1e-2", ("good_merge_rate", "<", 0.01, True)),
    ("delta_precision>=-0.5%", ("delta_precision", ">=", -0.005, False)),
])
def test_questions_parse(text: str, expected: tuple) -> None:
    (q,) = STOP_WHEN.check("stop_when", text)
    assert (q.metric, q.op, q.value, q.halfwidth) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["precision>0", "delta_precision=0", "halfwidth>0.01",
                                  "halfwidth<=0", "delta_precision>", "bad_merge_rate<2%%"])
def test_bad_questions_are_refused_naming_the_option(text: str, sample: Any) -> None:
    with pytest.raises(InputError) as err:
        estimate(sample, judge=lambda i, j: True, stop_when=text)
    assert err.value.option == "stop_when"


def test_cli_answers_and_refuses(world: Any, sample: Any, tmp_path: Any) -> None:
    out = tmp_path / "s"
    sample_pairs(world.base, world.exp, world.weight, budget=100, seed=5, out=out)
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\n" + "".join(
        f"{i},{c}\n" for i, c in world.truth.items()))
    ok = CliRunner().invoke(main, ["estimate", str(out), "--truth", str(truth),
                                   "--stop-when", "halfwidth<=100%"])
    assert ok.exit_code == 0, ok.output
    assert "half-width of ΔPrecision ≤ 100%: reached" in ok.output
    bad = CliRunner().invoke(main, ["estimate", str(out), "--truth", str(truth),
                                    "--stop-when", "delta_precision=0"])
    assert bad.exit_code == 2
    assert "--stop-when" in bad.output and "Traceback" not in bad.output


def test_every_prefix_times(sample: Any) -> None:
    first = np.array([r["first_draw"] for r in sample.draws])
    count = np.array([r["draw_count"] for r in sample.draws])
    ids = [str(r["pair_id"]) for r in sample.draws]
    stream, pairs = every_prefix(first, count, ids)
    assert isinstance(stream, Stream) and pairs[-1] == 300
    starts = sorted({p: min(f for f, q in zip(first, ids, strict=True) if q == p)
                     for p in ids}.values())
    assert list(stream.times[0]) == [*starts[1:], int(count.sum())]


def test_simulate_sequential_counts_verdicts_until_the_stop(world: Any) -> None:
    """Each round judged in stream order: the stop comes by the largest budget for an
    easy question, its answer is the exact value's, and the verdicts it took are those
    `first_stop` finds; a stratified simulation is refused naming the option."""
    from abcde.quality.simulation import simulate

    doc = simulate(world.base, world.exp, world.weight, truth=world.truth, budgets=[150],
                   replications=3, seed=4, stop_when=["bad_merge_rate<100%",
                                                      "halfwidth<=0.1%"])
    easy, hard = doc["sequential"]["questions"]
    assert easy["stopped"] == 1.0 and easy["answers"]["yes"] == 3 and easy["wrong"] == 0.0
    assert easy["true_answer"] == "yes"
    assert 1 <= easy["verdicts_mean"] <= 150
    assert hard["answers"]["not yet"] == 3 and hard["verdicts_mean"] is None
    with pytest.raises(InputError) as err:
        simulate(world.base, world.exp, world.weight, truth=world.truth, budgets=[50],
                 replications=1, stratify="equal", stop_when="delta_precision>0")
    assert err.value.option == "stop_when"
