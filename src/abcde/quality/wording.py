"""What ``abcde estimate`` says in words: the warnings when a sample cannot be trusted,
the plain-language verdict on ΔPrecision and the text table (docs/method.md §8.3, §8.8,
§8.11).

The mathematics is elsewhere (:mod:`abcde.quality.metrics`, :mod:`abcde.quality.slices`);
this module only reads its results.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from abcde.quality.metrics import (
    MAX_UNKNOWN_SHARE,
    METRICS,
    MIN_N_EFF,
    PART_SHARE,
    UNKNOWN_REASON,
)
from abcde.quality.result import Estimate, UnknownRange

UNKNOWN_START = "unknown verdicts:"  # how the sample-wide warning of it starts
RANGE_COLUMN = "if unknowns all equiv / not"
"""The text table's column of :class:`~abcde.quality.result.UnknownRange` (docs/method.md
§8.11)."""
#: The truth's exact value beside each estimate (`abcde estimate --truth`, §8.12).
TRUTH_COLUMN = "exact (truth)"

LABELS = {key: m.label for key, m in METRICS.items()}
"""Metric key → the papers' name, e.g. good_split_rate → GoodSplitRate."""
DECOMPOSES = {key: m.decomposes for key, m in METRICS.items() if m.decomposes}
"""Metric key → the exact impact metric it is a part of (shown beside the estimate)."""


def _percent(value: float | None, digits: int) -> str:
    """A signed percentage, e.g. +0.80%; "-" for None or a non-finite value."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{100 * value:+.{digits}f}%"


def sample_warnings(sample: Mapping[str, Any], results: Mapping[str, Estimate]) -> list[str]:
    """Why the intervals of a judged sample may not be trusted (empty when fine).

    Two kinds:

    - sample-wide, starting "unknown verdicts:": more than :data:`MAX_UNKNOWN_SHARE` of
      the pairs are unknown. The reweighting of unknown verdicts assumes the unknown
      pairs are missing at random within their class; a partial truth or judges
      skipping the hard pairs break that, and the intervals do not include the
      resulting bias;
    - per metric: its ``not_conclusive`` reason (an effective sample size below
      :data:`~abcde.quality.metrics.MIN_N_EFF`: too few effective draws, or importance
      weights that are heavy-tailed under the sample's design; or more than
      MAX_UNKNOWN_SHARE unknown verdicts among the draws of a class that carries a
      quarter of the metric; docs/method.md §8.11).

    Parameters
    ----------
    sample : mapping
        The ``sample`` section of an ``abcde estimate`` result.
    results : mapping of str to Estimate
        The metrics' estimates.

    Returns
    -------
    list of str
        One sentence per condition met.

    References
    ----------
    docs/method.md §8.3, §8.11. ABCDE §5.8 (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430).
    """
    out = []
    judgeable = int(sample.get("pairs") or 0)
    unknown = int(sample.get("unknown_pairs") or 0)
    if judgeable and unknown / judgeable > MAX_UNKNOWN_SHARE:
        out.append(
            f"{UNKNOWN_START} {unknown:,} of {judgeable:,} pairs "
            f"({100 * unknown / judgeable:.0f}%) have no verdict. The estimates reweight the "
            "judged pairs of each class (ABCDE §5.8), which assumes the unknown pairs are "
            "missing at random within their class; the intervals do not cover a bias if "
            "they are not (e.g. a truth that labels only some items, or judges skipping "
            "hard pairs). Judge more of the pairs, or use a truth that covers the sampled "
            "items."
        )
    unknowns = {LABELS[k]: e.not_conclusive for k, e in results.items()
                if e.not_conclusive and e.not_conclusive.startswith(UNKNOWN_REASON)}
    if unknowns and not out:  # the sample-wide warning above says it for every metric
        out.append(
            f"not conclusive ({', '.join(unknowns)}): a class that carries at least "
            f"{PART_SHARE:.0%} of {'this metric' if len(unknowns) == 1 else 'these metrics'} "
            f"has more than {MAX_UNKNOWN_SHARE:.0%} of its draws without a verdict "
            f"({'; '.join(f'{k}: {v}' for k, v in unknowns.items())}). If the judges "
            "skipped one kind of pair of that class, the estimates are biased beyond their "
            "intervals (docs/method.md §8.11). Judge the unanswered pairs, or use a truth "
            "that covers the sampled items."
        )
    flagged = {LABELS[k]: e.not_conclusive for k, e in results.items()
               if e.not_conclusive and LABELS[k] not in unknowns}
    if flagged:
        names = ", ".join(flagged)
        out.append(
            f"not conclusive ({names}): fewer than {MIN_N_EFF:g} effective draws carry "
            f"{'this metric' if len(flagged) == 1 else 'these metrics'} "
            f"({'; '.join(f'{k}: {v}' for k, v in flagged.items())}). The intervals are "
            "widened to the effective sample size but the estimates may be biased "
            "(docs/method.md §8.11). Increase the budget, sample with --population mixture, "
            "or stratify (--strata-allocation)."
        )
    return out


def level_text(confidence: float) -> str:
    """"95% CI"; a level near 1 keeps the digits that tell it from 100% (a 100% interval
    would claim certainty).

    Parameters
    ----------
    confidence : float
        The level, in (0, 1).

    Returns
    -------
    str
        The shortest ``g`` form with at least 6 significant digits that is below 100.

    References
    ----------
    docs/method.md §8.3.

    Examples
    --------
    >>> level_text(0.95), level_text(0.9999), level_text(0.999999999)
    ('95% CI', '99.99% CI', '99.9999999% CI')
    """
    percent = 100 * confidence
    for digits in range(6, 18):
        text = f"{percent:.{digits}g}"
        if float(text) < 100 or percent >= 100:
            break
    return f"{text}% CI"


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
        Sample-wide warnings (:func:`sample_warnings`); with any, no conclusion is
        drawn — as when the estimate itself is ``not_conclusive``.

    Returns
    -------
    str
        "ΔPrecision +0.8% ± 0.3% (95% CI): the Experiment is more precise" when the
        interval lies above 0 ("ΔPrecision -1.3% (95% CI -3.5% to +1.4%): …" when the
        interval is not symmetric about the estimate at the digits shown), "…: the
        Experiment is less precise" below, "…: no significant difference" when it
        contains 0, "…: not conclusive — …" with the reason when the estimate is
        ``not_conclusive`` or with warnings; "exact" only for an estimate of interval
        kind "exact" (no pair needed a verdict); the reason when there is no estimate or
        no interval. The half-width gets enough decimals for two significant digits.

    References
    ----------
    docs/method.md §8.3, §8.8.

    Examples
    --------
    >>> from abcde.quality.result import scaled_estimate
    >>> precision_verdict(scaled_estimate(0.008, 0.0015, 1.0, pairs=9, draws=9))
    'ΔPrecision +0.80% ± 0.29% (95% CI): the Experiment is more precise'
    """
    level = level_text(est.confidence)
    if est.estimate is None:
        return f"{name} could not be estimated: {est.note}"
    if est.se is None or est.ci_low is None or est.ci_high is None:
        return f"{name} {_percent(est.estimate, 2)} (no confidence interval: {est.note})"
    half = (est.ci_high - est.ci_low) / 2
    if est.interval == "exact":
        tail = "no difference" if est.estimate == 0 else "no sampling error"
        return f"{name} {_percent(est.estimate, 2)} ({tail}; exact: {est.note or 'exact'})"
    # enough decimals for two significant digits of the half-width, at least one
    digits = min(6, max(1, 1 - math.floor(math.log10(100 * half)))) if half > 0 else 6
    below, above = est.estimate - est.ci_low, est.ci_high - est.estimate
    if round(100 * below, digits) == round(100 * above, digits):
        head = f"{name} {_percent(est.estimate, digits)} ± {100 * half:.{digits}f}% ({level})"
    else:  # a Wilson/MOVER interval is lopsided: a "±" would misplace both ends
        head = (f"{name} {_percent(est.estimate, digits)} ({level} "
                f"{_percent(est.ci_low, digits)} to {_percent(est.ci_high, digits)})")
    if est.not_conclusive:
        text = f"{head}: not conclusive — {est.not_conclusive}"
    elif warnings:
        text = (
            f"{head}: not conclusive — the sample does not support a conclusion "
            f"({len(warnings)} warning{'s' if len(warnings) > 1 else ''} below)"
        )
    elif est.ci_low > 0:
        text = f"{head}: the Experiment is more precise"
    elif est.ci_high < 0:
        text = f"{head}: the Experiment is less precise"
    else:
        text = f"{head}: no significant difference"
    return text + unknown_range_sentence(est, digits)


def unknown_range_sentence(est: Estimate, digits: int = 2) -> str:
    """"; …" saying how far the unknown verdicts could move an estimate, when they could
    move it beyond its interval (else empty).

    Parameters
    ----------
    est : Estimate
        An estimate with its ``unknown_range`` (:class:`~abcde.quality.result.UnknownRange`).
    digits : int
        Decimals of the percentages.

    Returns
    -------
    str
        E.g. "; if its 12 unknown pairs were all equivalent it would be -0.80%, all not
        equivalent +1.10%: beyond its interval, which assumes they are missing at random".

    References
    ----------
    docs/method.md §8.11 (the sensitivity range of unknown verdicts).

    Examples
    --------
    >>> from abcde.quality.result import Estimate, UnknownRange
    >>> e = Estimate(0.01, 0.002, 0.006, 0.014, 90, 90, 1.0,
    ...              unknown_range=UnknownRange(0.005, 0.02, 7))
    >>> print(unknown_range_sentence(e))  # doctest: +NORMALIZE_WHITESPACE
    ; if its 7 unknown pairs were all equivalent it would be +0.50%, all not equivalent
    +2.00%: beyond its interval, which assumes they are missing at random
    """
    r = est.unknown_range
    if r is None or r.contained_in(est.ci_low, est.ci_high):
        return ""
    pairs = f"{r.unknown_pairs:,} unknown pair{'s' if r.unknown_pairs != 1 else ''}"
    return (f"; if its {pairs} were all equivalent it would be "
            f"{_percent(r.all_equivalent, digits)}, all not equivalent "
            f"{_percent(r.all_not_equivalent, digits)}: beyond its interval, which assumes "
            "they are missing at random")


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
    from abcde.text import key_label, table

    lines = [doc["verdict"], ""]
    for w in doc.get("warnings") or []:
        lines.append(f"WARNING: {w}")
    if doc.get("warnings"):
        lines.append("")
    if doc.get("judging"):  # verdicts from abcde judge's log (docs/method.md §12.4)
        from abcde.quality.judging import judging_lines

        lines += [*judging_lines(doc["judging"]), ""]
    smp = doc["sample"]
    lines.append(f"sample {doc['sample_id']} ({doc['population']} population, α = "
                 f"{doc.get('alpha', 0):g}"
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
    by_truth = doc.get("truth_exact") or {}
    truth = by_truth.get("values") or {} if by_truth.get("available") else {}
    unavailable = doc.get("unavailable") or {}
    levels = {doc[k].get("confidence") for k in LABELS if isinstance(doc.get(k), dict)}
    level = levels.pop() if len(levels) == 1 and None not in levels else 0.95
    ci = level_text(level)
    ranged = [k for k in LABELS if isinstance(doc.get(k), dict) and k not in unavailable
              and doc[k].get("unknown_range")]
    beyond: list[str] = []
    for key in LABELS:
        if key not in doc or key in unavailable:  # listed below with the reason
            continue
        m = doc[key]
        of = DECOMPOSES.get(key)
        span = ""
        r = UnknownRange.from_dict(m.get("unknown_range"))
        if r is not None:
            span = (f"{_percent(r.all_equivalent, 3)} / "
                    f"{_percent(r.all_not_equivalent, 3)}")
            # an undefined metric has no interval for its ends to leave
            if m["ci_low"] is not None and not r.contained_in(m["ci_low"], m["ci_high"]):
                span += "*"
                beyond.append(LABELS[key])
        rows.append({"metric": LABELS[key], "estimate": _percent(m["estimate"], 3),
                     "se": _percent(m["se"], 3).lstrip("+"),
                     ci: "-" if m["ci_low"] is None else
                     f"[{_percent(m['ci_low'], 3)}, {_percent(m['ci_high'], 3)}]",
                     "n_eff": "-" if m.get("n_eff") is None else
                     f"{m['n_eff']:.0f}{'!' if m.get('not_conclusive') else ''}",
                     "pairs": m["pairs"],
                     "of (exact)": "-" if of is None or impact.get(of) is None else
                     f"{of} {100 * impact[of]:.3f}%",
                     RANGE_COLUMN: span or "-",
                     "note": _short_note(m.get("note")) or ("exact" if m.get("interval") ==
                                                            "exact" else ""),
                     TRUTH_COLUMN: _percent(truth.get(key), 3) if key in truth else "-"})
    lines.append(table(rows, ["metric", "estimate", "se", ci, "n_eff", "pairs",
                              *([TRUTH_COLUMN] if truth else []), "of (exact)",
                              *([RANGE_COLUMN] if ranged else []), "note"]))
    if "truth_exact" in doc and not truth:
        lines.append(f"exact by the truth: not available — {doc['truth_exact']['reason']}")
    if ranged:
        unknown_pairs = int((doc.get("sample") or {}).get("unknown_pairs") or 0)
        lines.append(f"{RANGE_COLUMN}: the estimate if the sample's {unknown_pairs:,} unknown "
                     "pairs were all equivalent / all not equivalent (the intervals assume "
                     "they are missing at random; docs/method.md §8.11)"
                     + (f"; '*': beyond the interval ({', '.join(beyond)})" if beyond else ""))
    unknown = any(w.startswith(UNKNOWN_START) for w in doc.get("warnings") or [])
    lines.append("n_eff: effective draws behind the interval (the sample's and the design's "
                 "expected, the smaller); '!': not conclusive, "
                 + ("every estimate here: too many pairs are unknown (WARNING above)"
                    if unknown else f"n_eff below {MIN_N_EFF:g}, the metric's or that of the part "
                    f"weighing most in it, or over {MAX_UNKNOWN_SHARE:.0%} unknown verdicts in "
                    "a class that carries a quarter of it (docs/method.md §8.11)"))
    by_reason: dict[str, list[str]] = {}
    for key, why in unavailable.items():
        by_reason.setdefault(why, []).append(LABELS.get(key, key))
    for why, keys in by_reason.items():
        lines.append(f"not available: {', '.join(keys)} — {why}")
    if doc.get("strata"):
        lines.append("")
        lines.append("strata: " + "; ".join(
            f"{st['name']} ({'+'.join(st['classes'])}): {st['budget']:,} pairs, design "
            f"probability {st['q']:.4g}" for st in doc["strata"]))
    if doc.get("slices"):
        lines.append("")
        srows, weak = [], []
        for r in doc["slices"]:
            dp, c = r["delta_precision"], r["contribution"]
            name = ", ".join(f"{k}={key_label(v)}" for k, v in r["slice"].items())
            if dp.get("not_conclusive"):
                weak.append((name, str(dp["not_conclusive"])))
            srows.append({"slice": name, "weight": r["weight"],
                          "ΔPrecision(I)": _percent(dp["estimate"], 3),
                          ci: "-" if dp.get("ci_low") is None else
                          f"[{_percent(dp['ci_low'], 3)}, {_percent(dp['ci_high'], 3)}]",
                          "n_eff": "-" if dp.get("n_eff") is None else
                          f"{dp['n_eff']:.0f}{'!' if dp.get('not_conclusive') else ''}",
                          "contribution": _percent(c["estimate"], 3),
                          "contribution se": _percent(c["se"], 3).lstrip("+"),
                          "draws": r["draws"], "note": _short_note(dp.get("note"))})
        lines.append("per slice (ABCDE App. B):")
        lines.append(table(srows, ["slice", "weight", "ΔPrecision(I)", ci, "n_eff",
                                   "contribution", "contribution se", "draws", "note"]))
        if weak and unknown:  # one reason for all, stated in the WARNING above
            lines.append(f"not conclusive ('!'): {'; '.join(n for n, _ in weak)} — judge "
                         "more of their pairs, or stratify")
        elif weak:
            # Each slice's own reason: its n_eff may be well above 10 when the part that
            # weighs most in it rests on a few draws, and no warning repeats slices.
            lines.append("not conclusive ('!') — judge more of their pairs, or stratify:")
            lines.extend(f"  {n}: {why}" for n, why in weak)
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
