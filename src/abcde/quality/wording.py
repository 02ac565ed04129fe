"""What ``abcde estimate`` says in words: the warnings when a sample cannot be trusted,
the plain-language verdict on ΔPrecision and the text table (docs/method.md §8.3, §8.8).

The mathematics is elsewhere (:mod:`abcde.quality.metrics`, :mod:`abcde.quality.slices`);
this module only reads its results.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from abcde.quality.metrics import METRICS
from abcde.quality.result import Estimate
from abcde.quality.sample import CLASSES

MAX_UNKNOWN_SHARE = 0.2
"""Above this share of unknown verdicts (among the pairs that need one) a warning."""
MIN_JUDGED_PAIRS = 10
"""Below this many judged pairs in a class (split, merge, stable) a warning."""

LABELS = {key: m.label for key, m in METRICS.items()}
"""Metric key → the papers' name, e.g. good_split_rate → GoodSplitRate."""
DECOMPOSES = {key: m.decomposes for key, m in METRICS.items() if m.decomposes}
"""Metric key → the exact impact metric it is a part of (shown beside the estimate)."""


def _percent(value: float | None, digits: int) -> str:
    """A signed percentage, e.g. +0.80%; "-" for None or a non-finite value."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{100 * value:+.{digits}f}%"


def sample_warnings(sample: Mapping[str, Any], totals: Mapping[str, float]) -> list[str]:
    """Why the intervals of a judged sample may not be trusted (empty when fine).

    Two conditions:

    - more than :data:`MAX_UNKNOWN_SHARE` of the judgeable pairs are unknown: the
      reweighting of unknown verdicts assumes the unknown pairs are missing at random
      within their class; a partial truth or judges skipping the hard pairs break that,
      and the intervals do not include the resulting bias;
    - a class with pairs in the population has fewer than :data:`MIN_JUDGED_PAIRS`
      judged pairs: its part of ΔPrecision rests on a handful of verdicts and the normal
      interval is unreliable (the Wilson intervals of the rates stay valid but are wide).

    Parameters
    ----------
    sample : mapping
        The ``sample`` section of an ``abcde estimate`` result (per-class tallies under
        ``classes``).
    totals : mapping of str to float
        The population's class totals (split, merge, stable).

    Returns
    -------
    list of str
        One sentence per condition met.

    References
    ----------
    docs/method.md §8.3. ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE: Application-Based
    Cluster Diff Evals. Google, 2024, arXiv:2407.21430).
    """
    classes = sample.get("classes") or {}
    out = []
    judgeable = sum(int(classes[c]["sampled_pairs"]) for c in CLASSES[1:] if c in classes)
    judged = sum(int(classes[c]["judged_pairs"]) for c in CLASSES[1:] if c in classes)
    unknown = judgeable - judged
    if judgeable and unknown / judgeable > MAX_UNKNOWN_SHARE:
        out.append(
            f"{unknown:,} of {judgeable:,} judgeable pairs ({100 * unknown / judgeable:.0f}%) "
            "have no verdict (unknown). The estimates reweight the judged pairs of each "
            "class (ABCDE §5.8), which assumes the unknown pairs are missing at random "
            "within their class; the intervals do not cover a bias if they are not (e.g. "
            "a truth that labels only some items, or judges skipping hard pairs). Judge "
            "more of the pairs, or use a truth that covers the sampled items."
        )
    few = []
    for name in CLASSES[1:]:
        t = classes.get(name) or {}
        in_population = float(totals.get(name, 0.0)) > 0
        if name == "stable":  # stable non-self pairs may not exist (only self pairs)
            in_population = in_population and int(t.get("sampled_pairs", 0)) > 0
        if in_population and int(t.get("judged_pairs", 0)) < MIN_JUDGED_PAIRS:
            few.append(f"{name} {int(t.get('judged_pairs', 0))}")
    if few:
        out.append(
            f"few judged pairs in a class ({', '.join(few)}; fewer than {MIN_JUDGED_PAIRS}): "
            "the metrics of that class and its share of ΔPrecision rest on a handful of "
            "verdicts, and ΔPrecision's normal interval is unreliable. Increase the budget "
            "(or stratify: abcde sample-pairs --strata-allocation)."
        )
    return out


def precision_verdict(
    est: Estimate, name: str = "ΔPrecision", warnings: Sequence[str] = ()
) -> str:
    """Plain-language reading of a ΔPrecision estimate and its confidence interval.

    Parameters
    ----------
    est : Estimate
        The ΔPrecision estimate.
    name : str
        How to call it.
    warnings : sequence of str
        :func:`sample_warnings`; with any, no conclusion is drawn.

    Returns
    -------
    str
        "ΔPrecision +0.8% ± 0.3% (95% CI): the Experiment is more precise" when the
        interval lies above 0, "…: the Experiment is less precise" below, "…: no
        significant difference" when it contains 0, "…: not conclusive — …" with
        warnings; the reason when there is no estimate or no interval. The half-width
        gets enough decimals for two significant digits.

    References
    ----------
    docs/method.md §8.3, §8.8.

    Examples
    --------
    >>> from abcde.quality.result import scaled_estimate
    >>> precision_verdict(scaled_estimate(0.008, 0.0015, 1.0, pairs=9, draws=9))
    'ΔPrecision +0.80% ± 0.29% (95% CI): the Experiment is more precise'
    """
    level = f"{100 * est.confidence:g}% CI"
    if est.estimate is None:
        return f"{name} could not be estimated: {est.note}"
    if est.se is None or est.ci_low is None or est.ci_high is None:
        return f"{name} {_percent(est.estimate, 2)} (no confidence interval: {est.note})"
    half = (est.ci_high - est.ci_low) / 2
    if half == 0:
        tail = "no difference" if est.estimate == 0 else "no sampling error"
        return f"{name} {_percent(est.estimate, 2)} ({tail}; {est.note or 'exact'})"
    # enough decimals for two significant digits of the half-width, at least one
    digits = min(6, max(1, 1 - math.floor(math.log10(100 * half))))
    head = f"{name} {_percent(est.estimate, digits)} ± {100 * half:.{digits}f}% ({level})"
    if warnings:
        return (
            f"{head}: not conclusive — the sample does not support a conclusion "
            f"({len(warnings)} warning{'s' if len(warnings) > 1 else ''} below)"
        )
    if est.ci_low > 0:
        return f"{head}: the Experiment is more precise"
    if est.ci_high < 0:
        return f"{head}: the Experiment is less precise"
    return f"{head}: no significant difference"


def render_table(doc: Mapping[str, Any]) -> str:
    """The text report of ``abcde estimate``.

    Parameters
    ----------
    doc : mapping
        The result of :func:`abcde.quality.estimate.estimate`.

    Returns
    -------
    str
        The verdict, the warnings, the judges and their agreement (verdicts from a
        verdict log), a line on the sample, one row per metric (estimate,
        SE, interval, pairs, the exact impact metric it decomposes, note), the metrics
        not available and why, the strata and the per-slice ΔPrecision.

    References
    ----------
    docs/method.md §8.4, §8.9–8.10, §12.4.
    """
    from abcde.text import table

    lines = [doc["verdict"], ""]
    for w in doc.get("warnings") or []:
        lines.append(f"WARNING: {w}")
    if doc.get("warnings"):
        lines.append("")
    if doc.get("judging"):  # verdicts from abcde judge's log (docs/method.md §12.4)
        from abcde.quality.verdict_log import judging_lines

        lines += [*judging_lines(doc["judging"]), ""]
    smp = doc["sample"]
    lines.append(f"sample {doc['sample_id']} ({doc['population']} population"
                 f"{', stratified' if doc.get('strata') else ''}): {smp['pairs']:,} pairs, "
                 f"{smp['draws']:,} draws; verdicts: "
                 + ", ".join(f"{v:,} {k}" for k, v in doc["judgements"].items())
                 + f"; SE: {doc['se_method']}")
    for c in doc.get("carried_over") or []:
        skipped = (f" ({c['not_in_sample']:,} of its pairs are not in this sample)"
                   if c.get("not_in_sample") else "")
        lines.append(f"{c['verdicts']:,} verdicts carried over from sample {c['sample_id']} "
                     f"(the same stream, another budget){skipped}")
    for note in doc.get("notes") or []:
        lines.append(f"note: {note}")
    lines.append("")
    rows = []
    impact = doc.get("impact") or {}
    unavailable = doc.get("unavailable") or {}
    levels = {doc[k].get("confidence") for k in LABELS if isinstance(doc.get(k), dict)}
    level = levels.pop() if len(levels) == 1 and None not in levels else 0.95
    ci = f"{100 * level:g}% CI"
    for key in LABELS:
        if key not in doc or key in unavailable:  # listed below with the reason
            continue
        m = doc[key]
        of = DECOMPOSES.get(key)
        rows.append({"metric": LABELS[key], "estimate": _percent(m["estimate"], 3),
                     "se": _percent(m["se"], 3).lstrip("+"),
                     ci: "-" if m["ci_low"] is None else
                     f"[{_percent(m['ci_low'], 3)}, {_percent(m['ci_high'], 3)}]",
                     "pairs": m["pairs"],
                     "of (exact)": "-" if of is None or impact.get(of) is None else
                     f"{of} {100 * impact[of]:.3f}%",
                     "note": m.get("note") or ""})
    lines.append(table(rows, ["metric", "estimate", "se", ci, "pairs", "of (exact)",
                              "note"]))
    by_reason: dict[str, list[str]] = {}
    for key, why in unavailable.items():
        by_reason.setdefault(why, []).append(LABELS.get(key, key))
    for why, keys in by_reason.items():
        lines.append(f"not available: {', '.join(keys)} — {why}")
    if doc.get("strata"):
        lines.append("")
        lines.append("strata: " + "; ".join(
            f"{st['name']} ({'+'.join(st['classes'])}): {st['budget']:,} pairs, total "
            f"{st['totals']['total']:.4g}" for st in doc["strata"]))
    if doc.get("slices"):
        lines.append("")
        srows = []
        for r in doc["slices"]:
            dp, c = r["delta_precision"], r["contribution"]
            srows.append({"slice": ", ".join(f"{k}={v}" for k, v in r["slice"].items()),
                          "weight": r["weight"], "ΔPrecision(I)": _percent(dp["estimate"], 3),
                          "se": _percent(dp["se"], 3).lstrip("+"),
                          "contribution": _percent(c["estimate"], 3),
                          "contribution se": _percent(c["se"], 3).lstrip("+"),
                          "draws": r["draws"], "note": _short_note(dp.get("note"))})
        lines.append("per slice (ABCDE App. B):")
        lines.append(table(srows, ["slice", "weight", "ΔPrecision(I)", "se", "contribution",
                                   "contribution se", "draws", "note"]))
    return "\n".join(lines)


def _short_note(note: str | None, limit: int = 60) -> str:
    """A table-cell form of an estimate's note: why it is missing, in a few words."""
    if not note:
        return ""
    drawn = re.search(r"undefined: ([a-z, ]+) pairs were drawn but none has a verdict", note)
    if drawn:
        return f"undefined: no verdict for its {drawn.group(1)} pairs"
    absent = re.search(r"undefined: no ([a-z, ]+) pairs were drawn", note)
    if absent:
        return f"undefined: no {absent.group(1)} pairs drawn"
    head = note.split(";")[0].split(" (")[0].strip()
    return head if len(head) <= limit else head[: limit - 1] + "…"
