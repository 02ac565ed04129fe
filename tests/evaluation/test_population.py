"""A truth of complete true clusters (`evaluate(..., truth_sample=...)`, docs/method.md §4.4)
against brute force: on small synthetic populations whose full truth is known, the
per-item metrics from the run's whole clusters (tests/reference.py), the design-based
ratio estimate and its variance written out from their definitions, and the population
metric itself when every cluster is in the benchmark."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from reference import pointwise_item_metrics, pointwise_overall

from abcde.cli import main
from abcde.engines import connect
from abcde.errors import InputError
from abcde.evaluation.run import OVERALL_METRICS, POINTWISE_METRICS, evaluate

Z95 = 1.959963984540054


@pytest.fixture(scope="module")
def eng() -> Iterator[object]:
    e = connect("duckdb")
    yield e
    e.close()


def world(seed: int, clusters: int = 60) -> tuple[dict, dict, dict, dict, dict]:
    """A population with its full truth, two runs (wrong merges across true clusters,
    splits, misplaced items), item weights and a slice attribute."""
    rng = random.Random(seed)
    truth, n = {}, 0
    for t in range(clusters):
        for _ in range(1 + int(rng.paretovariate(1.3)) % 12):
            truth[f"i{n}"] = f"t{t}"
            n += 1
    items = list(truth)

    def run(errors: float) -> dict:
        out = {i: f"c{truth[i]}" for i in items}
        for t in range(clusters):
            if rng.random() < errors:  # merge with another true cluster
                other = f"t{rng.randrange(clusters)}"
                for i in items:
                    if truth[i] == other:
                        out[i] = f"ct{t}"
            if rng.random() < errors:  # split off some items
                for i in items:
                    if truth[i] == f"t{t}" and rng.random() < 0.4:
                        out[i] = f"s{t}"
        for i in rng.sample(items, len(items) // 20):
            out[i] = f"ct{rng.randrange(clusters)}"
        return out

    weights = {i: math.exp(rng.gauss(0, 0.7)) for i in items}
    attrs = {i: {"kind": rng.choice("abc")} for i in items}
    return truth, run(0.15), run(0.25), weights, attrs


def frame(clustering: dict, **columns: dict) -> object:
    import pandas as pd

    return pd.DataFrame({"item_id": list(clustering), "cluster_id": list(clustering.values()),
                         **{c: [v[i] for i in clustering] for c, v in columns.items()}})


def by_definition(truth: dict, run: dict, weights: dict, pi: dict[str, float],
                  items: set | None = None) -> dict[str, tuple[float, float, list[float]]]:
    """Σ d_t y_t / Σ d_t x_t over the benchmark's clusters t (pi: their inclusion
    probabilities), y_t = Σ_{i∈t} w_i m(i) with m(i) from the full truth and the whole run
    (items: only those, a slice); the estimate, its with-replacement SE and the
    linearised values e_t, written out."""
    per = pointwise_item_metrics(truth, run, weights)
    ids = sorted(pi)
    out = {}
    for m in POINTWISE_METRICS:
        x = [sum(weights[i] for i in truth if truth[i] == t and (items is None or i in items))
             for t in ids]
        y = [sum(weights[i] * per[i][m] for i in truth
                 if truth[i] == t and (items is None or i in items)) for t in ids]
        d = [1 / pi[t] for t in ids]
        total = sum(dt * xt for dt, xt in zip(d, x, strict=True))
        theta = sum(dt * yt for dt, yt in zip(d, y, strict=True)) / total
        e = [dt * (yt - theta * xt) / total for dt, xt, yt in zip(d, x, y, strict=True)]
        mean = sum(e) / len(e)
        se = math.sqrt(len(e) / (len(e) - 1) * sum((v - mean) ** 2 for v in e))
        out[m] = (theta, se, e)
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_the_estimate_is_the_design_based_ratio_of_the_definitions(eng: object,
                                                                   seed: int) -> None:
    """A benchmark of 25 of the 60 true clusters, with their inclusion probabilities in a
    column: every metric's estimate and SE, per run and paired, equal the ratio of the
    design-weighted sums of the per-item metrics from the definitions (full truth, whole
    run clusters), to 1e-12; the interval is ± 1.96 SE; runs given in other row orders
    are still paired cluster by cluster."""
    truth, a, b, weights, _ = world(seed)
    rng = random.Random(seed)
    chosen = rng.sample(sorted(set(truth.values())), 25)
    pi = {t: rng.uniform(0.05, 0.9) for t in chosen}
    bench = {i: t for i, t in truth.items() if t in pi}
    got = evaluate(frame(bench, pi={i: pi[t] for i, t in bench.items()}),
                   {"a": frame(a), "b": frame(dict(reversed(list(b.items()))))}, weights,
                   truth_sample="pi", uir_cases=None, engine=eng)
    want = {name: by_definition(truth, run, weights, pi) for name, run in (("a", a), ("b", b))}
    for run in got.runs:
        for m in POINTWISE_METRICS:
            est = run.population["metrics"][m]
            theta, se, _ = want[run.name][m]
            assert est["estimate"] == pytest.approx(theta, rel=1e-12, abs=1e-14), m
            assert run.overall[m] == est["estimate"]
            assert est["se"] == pytest.approx(se, rel=1e-9, abs=1e-15), m
            assert est["low"] == pytest.approx(max(0.0, theta - Z95 * se), abs=1e-12)
    (cmp_,) = got.comparisons
    for m in POINTWISE_METRICS:
        ta, _, ea = want["a"][m]
        tb, _, eb = want["b"][m]
        diff = [y - x for x, y in zip(ea, eb, strict=True)]
        mean = sum(diff) / len(diff)
        se = math.sqrt(len(diff) / (len(diff) - 1) * sum((v - mean) ** 2 for v in diff))
        assert cmp_["population"][m]["estimate"] == pytest.approx(tb - ta, abs=1e-12), m
        assert cmp_["population"][m]["se"] == pytest.approx(se, rel=1e-9, abs=1e-15), m
        assert cmp_["deltas"]["overall"][m] == pytest.approx(tb - ta, abs=1e-12)


def test_every_cluster_sampled_gives_the_population_metric(eng: object) -> None:
    """The full truth as the benchmark, uniformly (d = 1) or with probability 1: the
    estimate is the population's pointwise metric by brute force, and the closed truth's
    metric (the truth then covers the population: nothing is unlabelled)."""
    truth, a, _, weights, _ = world(3)
    want = pointwise_overall(truth, a, weights)
    closed = evaluate(truth, a, weights, uir_cases=None, engine=eng).runs[0]
    assert closed.coverage["unlabelled_in_run_clusters"]["share"] == 0.0
    for design, given in (("uniform", truth), ("p", frame(truth, p=dict.fromkeys(truth, 1.0)))):
        run = evaluate(given, a, weights, truth_sample=design, uir_cases=None,
                       engine=eng).runs[0]
        for m in OVERALL_METRICS:
            assert run.overall[m] == pytest.approx(want[m], rel=1e-12), (design, m)
            assert run.overall[m] == pytest.approx(closed.overall[m], rel=1e-12)


def test_slices_are_estimated_where_enough_clusters_carry_them(eng: object) -> None:
    """Per slice value, the ratio of the design-weighted sums of its items' metrics
    (brute force); 'not conclusive' below 30 effective clusters, as a benchmark of 20
    clusters always is."""
    truth, a, _, weights, attrs = world(4, clusters=120)
    rng = random.Random(4)
    pi = {t: rng.uniform(0.2, 0.9) for t in sorted(set(truth.values()))}
    got = evaluate(frame(truth, pi={i: pi[t] for i, t in truth.items()}), a, weights,
                   attributes=frame(attrs, kind={i: v["kind"] for i, v in attrs.items()}),
                   slice_by="kind", truth_sample="pi", uir_cases=None, engine=eng)
    (slicing,) = got.runs[0].population["slices"]
    assert slicing["slice_by"] == ["kind"] and len(slicing["rows"]) == 3
    for row in slicing["rows"]:
        items = {i for i in truth if attrs[i]["kind"] == row["kind"]}
        want = by_definition(truth, a, weights, pi, items)
        assert row["clusters"] == len({truth[i] for i in items})
        assert row["conclusive"] == (row["effective_clusters"] >= 30)
        for m in POINTWISE_METRICS:
            assert row["metrics"][m]["estimate"] == pytest.approx(want[m][0], rel=1e-12), m
            assert row["metrics"][m]["se"] == pytest.approx(want[m][1], rel=1e-9), m
    few = {i: t for i, t in truth.items() if t in sorted(pi)[:20]}
    small = evaluate(few, a, weights, truth_sample="size", uir_cases=None, engine=eng).runs[0]
    assert small.population["effective_clusters"] <= 20
    assert not small.population["conclusive"]


def test_a_closed_truth_of_complete_clusters_is_warned_about(eng: object) -> None:
    """A benchmark of complete clusters given as a closed truth: the runs' clusters of its
    items hold weight it does not label — the weighted share of an item's cluster,
    averaged over the truth's clusters (brute force) — and the warning names the
    option; precision on T is higher than the population's."""
    truth, a, _, weights, _ = world(5)
    bench = {i: t for i, t in truth.items() if int(t[1:]) % 3 == 0}
    got = evaluate(bench, a, weights, uir_cases=None, engine=eng)
    share = []
    for t in set(bench.values()):
        members = [i for i in bench if bench[i] == t]
        cluster = {i: [j for j in a if a[j] == a[i]] for i in members}
        share.append(sum(weights[i] * sum(weights[j] for j in cluster[i] if j not in bench)
                         / sum(weights[j] for j in cluster[i]) for i in members)
                     / sum(weights[i] for i in members))
    got_share = got.runs[0].coverage["unlabelled_in_run_clusters"]["share"]
    assert got_share == pytest.approx(sum(share) / len(share), rel=1e-12)
    (warning,) = got.warnings
    assert "--truth-sample" in warning and f"{got_share:.1%}" in warning
    complete = evaluate(bench, a, weights, truth_sample="uniform", uir_cases=None,
                        engine=eng)
    assert complete.warnings == []
    assert complete.runs[0].overall["precision"] < got.runs[0].overall["precision"]


def test_a_bad_design_is_refused_naming_the_option(eng: object) -> None:
    truth, a, _, weights, _ = world(6)
    cases = [({}, "p", "truth_sample"),  # no such column
             ({"p": {i: 0.0 for i in truth}}, "p", "truth_sample"),
             ({"p": {i: 1.5 for i in truth}}, "p", "truth_sample"),
             ({"p": {i: 0.1 + 0.01 * k for k, i in enumerate(truth)}}, "p", "truth_sample"),
             ({"p": {i: "x" for i in truth}}, "p", "truth_sample")]
    for columns, design, option in cases:
        with pytest.raises(InputError) as err:
            evaluate(frame(truth, **columns), a, weights, truth_sample=design, engine=eng)
        assert "truth-sample" in str(err.value) or err.value.option == option, columns
    with pytest.raises(InputError) as err:
        evaluate(truth, a, weights, truth_sample="", engine=eng)
    assert err.value.option == "truth_sample"
    # a weights table lacking items of the run outside the truth: their weight counts
    partial = {i: w for i, w in weights.items() if truth[i] != "t1"}
    bench = {i: t for i, t in truth.items() if t != "t1"}
    with pytest.raises(InputError) as err:
        evaluate(bench, a, partial, truth_sample="size", engine=eng)
    assert err.value.option == "missing_weight"
    assert evaluate(bench, a, partial, truth_sample="size", missing_weight=1.0, engine=eng)


def test_the_command_reports_intervals_and_paired_differences(tmp_path: Path) -> None:
    truth, a, b, _, _ = world(7)
    paths = {}
    for name, clustering in (("truth", truth), ("a", a), ("b", b)):
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text("item_id,cluster_id\n" + "".join(
            f"{i},{c}\n" for i, c in clustering.items()))
    args = ["evaluate", "--truth", str(paths["truth"]), "--actual", str(paths["a"]),
            "--actual", str(paths["b"]), "--truth-sample", "size"]
    doc = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).output)
    assert doc["inputs"]["truth_sample"] == "size" and doc["warnings"] == []
    population = doc["runs"][0]["population"]
    assert population["design"] == "size" and population["clusters"] == 60
    assert set(population["metrics"]) == set(OVERALL_METRICS)
    assert set(doc["comparisons"][0]["population"]) == set(OVERALL_METRICS)
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "Pointwise metrics of the population, from 60 complete true clusters drawn with " \
           "probability proportional to size" in text.output
    assert "b vs a (paired on the same clusters): Δprecision" in text.output
    # the truth covers the population: nothing unlabelled, no warning
    closed = CliRunner().invoke(main, [*args[:-2], "--format", "json"])
    assert closed.exit_code == 0 and "warning:" not in closed.stderr
