"""Common properties of every quality metric of the metric table (scikit-learn style: one
test module over a registry of metrics), on random small samples with random verdicts,
class totals and importance weights (hypothesis), under the mixture design and its ends
α = 1 (abcde) and α = 0 (jaccard):

- its interval holds the estimate and lies within the metric's bounds: exact part +
  Σ over its parts of sign·[0, T] (a part's share is a proportion);
- it is never of zero width unless the metric is labelled exact, and it is labelled
  exact only when none of its pairs needs a verdict (docs/method.md §8.8);
- classes of total 0 (the population has none of the metric's pairs) give the exact
  part alone: interval of kind "exact";
- a class drawn but never judged gives "undefined" (estimate None, and the note says
  why) for a metric of one part, and a part bounded by [0, T] in a sum (docs/method.md
  §8.3, §8.8).

The registry is :data:`abcde.quality.metrics.METRICS`; it is checked against the table of
docs/method.md §8.4, which a reader of the method sees.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toy_draws import CLASS_OF, LABEL_OF, judged_draws, without_classes

from abcde.quality.estimate import estimate_from_draws
from abcde.quality.metrics import METRIC_KEYS, METRICS, Metric
from abcde.sampling.pairs import CLASS_KEYS

ALPHAS = (0.5, 1.0, 0.0)
CASES = [(key, alpha) for key in METRICS for alpha in ALPHAS]
PROPERTY = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def keys_of(metric: Metric) -> set[str]:
    """The class keys a metric's parts average over."""
    return {CLASS_KEYS[c] for part in metric.parts for c in part.classes}


def test_the_registry_is_the_table_of_the_method_page() -> None:
    """Every row of docs/method.md §8.4 (metric, exact part, parts) is a row of METRICS,
    in the same order, and nothing else is."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "method.md").read_text()
    section = text[text.index("### 8.4 The 13 metrics"):text.index("### 8.5")]
    rows = [[cell.strip().strip("`") for cell in line.strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| `")]
    assert [r[0] for r in rows] == list(METRIC_KEYS)
    values = {"equivalent": "v", "not_equivalent": "1 − v"}
    for key, exact, parts, *_ in rows:
        metric = METRICS[key]
        assert exact == ((metric.exact and "self pairs") or "—"), key
        written = [p.strip() for p in parts.split(";")]
        want = [f"{'+' if p.sign > 0 else '−'} {p.target}: "
                f"{', '.join(CLASS_KEYS[c] for c in p.classes)} × {values[p.indicator]}"
                for p in metric.parts]
        assert written == want, key


@pytest.mark.parametrize(("key", "alpha"), CASES)
@PROPERTY
@given(data=st.data())
def test_interval_lies_within_the_bounds(key: str, alpha: float, data: Any) -> None:
    draws, verdicts, manifest = data.draw(judged_draws(alpha))
    metric = METRICS[key]
    est = estimate_from_draws(draws, verdicts, manifest)[key]
    if est["estimate"] is None:
        assert est["note"], "an undefined estimate says why"
        return
    assert est["se"] is None or est["se"] >= 0
    tol = 1e-12 * max(1.0, abs(est["multiplier"]))
    assert est["ci_low"] - tol <= est["estimate"] <= est["ci_high"] + tol
    exact = est["exact"]
    low = high = exact
    for part in metric.parts:
        total = sum(manifest["classes"][CLASS_KEYS[c]][part.target] for c in part.classes)
        low, high = (low - total, high) if part.sign < 0 else (low, high + total)
    assert low - tol <= est["ci_low"] and est["ci_high"] <= high + tol, est
    if est["interval"] == "exact":
        assert est["ci_low"] == est["ci_high"] == est["estimate"]
    else:
        assert est["ci_high"] > est["ci_low"], est


@pytest.mark.parametrize(("key", "alpha"), CASES)
@PROPERTY
@given(data=st.data())
def test_zero_class_totals_leave_the_exact_part(key: str, alpha: float, data: Any) -> None:
    draws, verdicts, manifest = data.draw(judged_draws(alpha))
    metric = METRICS[key]
    draws, manifest = without_classes(draws, manifest, keys_of(metric))
    est = estimate_from_draws(draws, verdicts, manifest)[key]
    exact = manifest["exact"][metric.exact] if metric.exact else 0.0
    assert (est["estimate"], est["se"]) == (exact, 0.0), est
    assert (est["ci_low"], est["ci_high"], est["interval"]) == (exact, exact, "exact")
    assert est["note"].startswith("exact")


@pytest.mark.parametrize(("key", "alpha"), CASES)
@PROPERTY
@given(data=st.data())
def test_a_class_drawn_but_never_judged_is_undefined(key: str, alpha: float,
                                                     data: Any) -> None:
    draws, verdicts, manifest = data.draw(judged_draws(alpha))
    metric = METRICS[key]
    target = metric.parts[0].target
    candidates = sorted(k for k in keys_of(metric) if manifest["classes"][k][target] > 0
                        and manifest["classes"][k]["q"] > 0)
    if not candidates or any(manifest["classes"][k][f"{target}_uncovered"] > 0
                             for k in keys_of(metric)):
        return  # not available at this α (docs/method.md §8.6): nothing to starve
    class_key = data.draw(st.sampled_from(candidates))
    cls, label = CLASS_OF[class_key], LABEL_OF[class_key]
    pid = max(draws["pair_id"], default=0) + 1
    for name, value in zip(draws, (pid, "x", "y", cls, label, 2,
                                   0.0 if class_key == "stable_zero" else 1.5), strict=True):
        draws[name].append(value)
    silent = data.draw(st.sampled_from(["unknown", None]))  # None: no verdict at all
    for p, c, lab in zip(draws["pair_id"], draws["pair_class"], draws["label"], strict=True):
        if c == cls and lab == label:
            verdicts.pop(p, None)
            if silent:
                verdicts[p] = silent
    est = estimate_from_draws(draws, verdicts, manifest)[key]
    if len(metric.parts) == 1:  # a rate or a distance: its share cannot be reweighted
        assert est["estimate"] is None and est["se"] is None and est["ci_low"] is None
        assert re.search(rf"undefined: .*\b{class_key}\b.* pairs were drawn but none has a "
                         "verdict", est["note"]), est["note"]
    else:  # a part of a sum: bounded by [0, T], never 0
        total = manifest["classes"][class_key][target]
        assert f"{class_key} pairs were drawn but none has a verdict" in est["note"]
        assert est["ci_high"] - est["ci_low"] >= total - 1e-12


@pytest.mark.parametrize(("key", "alpha"), CASES)
@PROPERTY
@given(data=st.data())
def test_without_any_verdict_the_interval_is_every_value_the_metric_can_take(
        key: str, alpha: float, data: Any) -> None:
    """Nothing judged: the metric = exact + Σ sign·T·p over its parts, with every p in
    [0, 1] possible, so its interval must hold [exact − Σ_{sign<0} T, exact + Σ_{sign>0}
    T] — not the quadrature-narrowed combination of the parts' ranges — and it is not
    conclusive."""
    draws, _, manifest = data.draw(judged_draws(alpha))
    metric = METRICS[key]
    silent = data.draw(st.sampled_from(["unknown", None]))
    verdicts = {p: silent for p in draws["pair_id"]} if silent else {}
    est = estimate_from_draws(draws, verdicts, manifest)[key]
    if est["estimate"] is None or est["interval"] == "exact":
        return  # undefined (one part) or nothing to judge
    low = high = est["exact"]
    for part in metric.parts:
        total = sum(manifest["classes"][CLASS_KEYS[c]][part.target] for c in part.classes)
        low, high = (low - total, high) if part.sign < 0 else (low, high + total)
    tol = 1e-12 * max(1.0, high - low)
    assert est["ci_low"] <= low + tol and est["ci_high"] >= high - tol, (low, high, est)
    assert est["not_conclusive"], est


def test_every_metric_has_a_case() -> None:
    """The property tests cover all 13 metrics at every α, and every part is a signed
    share of one target population's class totals."""
    assert {key for key, _ in CASES} == set(METRIC_KEYS) and len(METRIC_KEYS) == 13
    for metric in METRICS.values():
        assert metric.parts and all(p.sign in (1, -1) and p.target in ("u", "w")
                                    for p in metric.parts)
        assert len({p.target for p in metric.parts}) == 1
