"""What ``abcde estimate`` says in words: its numbers as percentages, the warnings when a
sample cannot be trusted, the verdict on ΔPrecision and the text table (docs/method.md
§8.3, §8.8, §8.11). It only reads the estimators' results."""

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
    Design,
    Part,
    design_expected_n_eff,
)
from abcde.quality.result import Estimate
from abcde.sample_files.manifest import CLASS_KEYS

UNKNOWN_START = "unknown verdicts:"  # how the sample-wide warning of it starts
RANGE_COLUMN = "if unknowns all equiv / not"
TRUTH_COLUMN = "exact (truth)"  # the truth's exact value (`abcde estimate --truth`, §8.12)
LABELS = {key: m.label for key, m in METRICS.items()}
DECOMPOSES = {key: m.decomposes for key, m in METRICS.items() if m.decomposes}


def percent(value: float | None, digits: int = 2, sign: bool = True) -> str:
    """A rate as a percentage ("+0.80%"; "-" for None or a non-finite value); a value that
    rounds to 0 at ``digits`` is "0.00%", neither "+0.00%" nor "-0.00%".

    >>> percent(0.008), percent(-4e-7, 3), percent(0.0123, 1, sign=False)
    ('+0.80%', '0.000%', '1.2%')
    """
    if value is None or not math.isfinite(value):
        return "-"
    text = f"{100 * value:{'+' if sign else ''}.{digits}f}%"
    return text.lstrip("+-") if float(text[:-1]) == 0 else text


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"


def _these(names: Sequence[str]) -> str:
    return "this metric" if len(names) == 1 else "these metrics"


def sample_warnings(sample: Mapping[str, Any], results: Mapping[str, Estimate],
                    design: Design | None = None, budget: int | None = None) -> list[str]:
    """Why the intervals of a judged sample may not be trusted, one sentence each: more
    than MAX_UNKNOWN_SHARE of the pairs unknown (their reweighting assumes them missing at
    random, ABCDE §5.8); metrics not conclusive, for a class's unknowns or for too few
    effective draws (docs/method.md §8.11); a class of the population no pair of which was
    drawn, with the budget that gives it MIN_N_EFF expected effective draws."""
    out = []
    judgeable, unknown = int(sample.get("pairs") or 0), int(sample.get("unknown_pairs") or 0)
    if judgeable and unknown / judgeable > MAX_UNKNOWN_SHARE:
        out.append(
            f"{UNKNOWN_START} {unknown:,} of {judgeable:,} pairs "
            f"({100 * unknown / judgeable:.0f}%) have no verdict. The estimates reweight the "
            "judged pairs of each class (ABCDE §5.8), which assumes the unknown pairs are "
            "missing at random within their class; the intervals do not cover a bias if "
            "they are not (e.g. a truth that labels only some items, or judges skipping "
            "hard pairs). Judge more of the pairs, or use a truth that covers the sampled "
            "items.")
    unknowns = {LABELS[k]: e.not_conclusive for k, e in results.items()
                if e.not_conclusive and e.not_conclusive.startswith(UNKNOWN_REASON)}
    if unknowns and not out:  # the sample-wide warning says it for every metric
        out.append(
            f"not conclusive ({', '.join(unknowns)}): a class that carries at least "
            f"{PART_SHARE:.0%} of {_these(list(unknowns))} has more than "
            f"{MAX_UNKNOWN_SHARE:.0%} of its draws without a verdict "
            f"({'; '.join(f'{k}: {v}' for k, v in unknowns.items())}). If the judges "
            "skipped one kind of pair of that class, the estimates are biased beyond their "
            "intervals (docs/method.md §8.11). Judge the unanswered pairs, or use a truth "
            "that covers the sampled items.")
    flagged = {LABELS[k]: e.not_conclusive for k, e in results.items()
               if e.not_conclusive and LABELS[k] not in unknowns}
    if flagged:
        out.append(
            f"not conclusive ({', '.join(flagged)}): fewer than {MIN_N_EFF:g} effective "
            f"draws carry {_these(list(flagged))} "
            f"({'; '.join(f'{k}: {v}' for k, v in flagged.items())}). The intervals are "
            "widened to the effective sample size but the estimates may be biased "
            "(docs/method.md §8.11). Increase the budget, sample with --population mixture, "
            "or stratify (--strata-allocation).")
    return out + ([] if design is None else undrawn(sample, results, design, budget))


def undrawn(sample: Mapping[str, Any], results: Mapping[str, Estimate], design: Design,
             budget: int | None) -> list[str]:
    """A sentence per class of the population that the design draws but the sample did
    not, leaving metrics undefined: which, and the budget at which the design expects
    MIN_N_EFF effective draws of the class (they grow with the budget; §8.11). A class
    whose metrics only bound its part (the stable ones) is left to the n_eff rule."""
    out = []
    size = budget or int(sample.get("pairs") or 0)
    for code, name in enumerate(CLASS_KEYS):
        c = design.classes[name]
        undefined = [m for m in METRICS.values() if len(m.parts) == 1
                     and code in m.parts[0].classes and results[m.key].estimate is None]
        if not undefined or c["q"] <= 0 or sample["classes"][name]["sampled_draws"]:
            continue
        text = (f"no {name} pair was drawn: {', '.join(m.label for m in undefined)} "
                f"{'is' if len(undefined) == 1 else 'are'} undefined")
        expected = min(design_expected_n_eff(Part(1, t, (code,), "equivalent"), design)
                       for t in {m.parts[0].target for m in undefined})
        if expected > 0 and size:
            need = math.ceil(size * MIN_N_EFF / expected - 1e-9)  # not 26 for 25.000…04
            text += (f". At this budget ({size:,}) the design expects {expected:.1f} effective "
                     f"draws of {name} pairs; a budget of about {need:,} expects "
                     f"{MIN_N_EFF:g} (abcde sample-pairs --budget {need})")
        out.append(text + ".")
    return out


def level_text(confidence: float) -> str:
    """"95% CI"; a level near 1 keeps the digits that tell it from 100%.

    >>> level_text(0.95), level_text(0.9999), level_text(0.999999999)
    ('95% CI', '99.99% CI', '99.9999999% CI')
    """
    percent_ = 100 * confidence
    for digits in range(6, 18):
        text = f"{percent_:.{digits}g}"
        if float(text) < 100 or percent_ >= 100:
            break
    return f"{text}% CI"


def precision_verdict(est: Estimate, name: str = "ΔPrecision",
                      warnings: Sequence[str] = ()) -> str:
    """ΔPrecision and its interval in plain words: the Experiment more precise (interval
    above 0), less precise (below), no significant difference, or not conclusive (with the
    reason, or with sample-wide ``warnings``); "exact" only for an exact estimate; the
    ends of the unknown verdicts' range when they leave the interval. The half-width gets
    two significant digits (docs/method.md §8.3, §8.8, §8.11).

    >>> print(precision_verdict(Estimate(0.008, 0.0015, 0.00506, 0.01094, 9, 9, 1.0)))
    ΔPrecision +0.80% ± 0.29% (95% CI): the Experiment is more precise
    """
    level = level_text(est.confidence)
    if est.estimate is None:
        return f"{name} could not be estimated: {est.note}"
    if est.se is None or est.ci_low is None or est.ci_high is None:
        return f"{name} {percent(est.estimate)} (no confidence interval: {est.note})"
    half = (est.ci_high - est.ci_low) / 2
    if est.interval == "exact":
        tail = "no difference" if est.estimate == 0 else "no sampling error"
        return f"{name} {percent(est.estimate)} ({tail}; exact: {est.note or 'exact'})"
    digits = min(6, max(1, 1 - math.floor(math.log10(100 * half)))) if half > 0 else 6
    below, above = est.estimate - est.ci_low, est.ci_high - est.estimate
    if round(100 * below, digits) == round(100 * above, digits):
        head = f"{name} {percent(est.estimate, digits)} ± {100 * half:.{digits}f}% ({level})"
    else:  # a Wilson/MOVER interval is lopsided: a "±" would misplace both ends
        head = (f"{name} {percent(est.estimate, digits)} ({level} "
                f"{percent(est.ci_low, digits)} to {percent(est.ci_high, digits)})")
    if est.not_conclusive:
        text = f"{head}: not conclusive — {est.not_conclusive}"
    elif warnings:
        text = (f"{head}: not conclusive — the sample does not support a conclusion "
                f"({_plural(len(warnings), 'warning')} below)")
    elif est.ci_low > 0:
        text = f"{head}: the Experiment is more precise"
    elif est.ci_high < 0:
        text = f"{head}: the Experiment is less precise"
    else:
        text = f"{head}: no significant difference"
    r = est.unknown_range
    if r is None or _within(r.as_dict(), est.ci_low, est.ci_high):
        return text
    return (f"{text}; if its {_plural(r.unknown_pairs, 'unknown pair')} were all equivalent "
            f"it would be {percent(r.all_equivalent, digits)}, all not equivalent "
            f"{percent(r.all_not_equivalent, digits)}: beyond its interval, which assumes "
            "they are missing at random")


def _within(ends: Mapping[str, Any], low: float | None, high: float | None) -> bool:
    return low is not None and high is not None and low <= ends["low"] and ends["high"] <= high


def _interval(m: Mapping[str, Any]) -> str:
    return ("-" if m.get("ci_low") is None else
            f"[{percent(m['ci_low'], 3)}, {percent(m['ci_high'], 3)}]")


def _n_eff(m: Mapping[str, Any]) -> str:
    return ("-" if m.get("n_eff") is None else
            f"{m['n_eff']:.0f}{'!' if m.get('not_conclusive') else ''}")


def model_text(name: str, m: Mapping[str, Any]) -> str:
    """A class's line of an estimate's ``model`` (docs/method.md §8.15)."""
    return (f"{name} pairs: {m['text']} (agrees with the humans on {m['agreement']:.0%}, "
            f"λ = {m['power']:.2f})")


def render_table(doc: Mapping[str, Any]) -> str:
    """The text report of ``abcde estimate``: the verdict, the warnings, the judges' agreement
    (from a verdict log), the sample, one row per metric, the metrics not available, the
    strata and the slices (docs/method.md §8.4, §8.9–8.10, §12.4)."""
    from abcde.text import key_label, table

    lines = [doc["verdict"], ""]
    lines += [f"WARNING: {w}" for w in doc.get("warnings") or []]
    if doc.get("warnings"):
        lines.append("")
    if doc.get("judging"):  # verdicts from abcde judge's log (docs/method.md §12.4)
        from abcde.quality.judging import judging_lines

        lines += [*judging_lines(doc["judging"]), ""]
    smp = doc["sample"]
    lines.append(f"sample {doc['sample_id']} ({doc['population']} population, α = "
                 f"{doc.get('alpha', 0):g}{', stratified' if doc.get('strata') else ''}): "
                 f"{smp['pairs']:,} pairs, {smp['draws']:,} draws; verdicts: "
                 + ", ".join(f"{v:,} {'for the model' if k == 'for_model' else k}"
                             for k, v in doc["judgements"].items())
                 + f"; SE: {doc['se_method']}")
    for c in doc.get("carried_over") or []:
        skipped = (f" ({c['not_in_sample']:,} of its pairs are not in this sample)"
                   if c.get("not_in_sample") else "")
        lines.append(f"{c['verdicts']:,} verdicts carried over from sample {c['sample_id']} "
                     f"(the same stream, another budget){skipped}")
    lines += [f"note: {note}" for note in doc.get("notes") or []]
    lines += [f"model judge, {model_text(name, m)}" for name, m in (doc.get("model") or {}).items()]
    lines.append("")
    impact = doc.get("impact") or {}
    by_truth = doc.get("truth_exact") or {}
    truth = by_truth.get("values") or {} if by_truth.get("available") else {}
    unavailable = doc.get("unavailable") or {}
    shown = [k for k in LABELS if isinstance(doc.get(k), dict) and k not in unavailable]
    levels = {doc[k].get("confidence") for k in LABELS if isinstance(doc.get(k), dict)}
    ci = level_text(levels.pop() if len(levels) == 1 and None not in levels else 0.95)
    rows, beyond = [], []
    for key in shown:
        m, of, ends = doc[key], DECOMPOSES.get(key), doc[key].get("unknown_range")
        span = "-"
        if ends is not None:
            span = (f"{percent(ends['all_equivalent'], 3)} / "
                    f"{percent(ends['all_not_equivalent'], 3)}")
            # an undefined metric has no interval for its ends to leave
            if m["ci_low"] is not None and not _within(ends, m["ci_low"], m["ci_high"]):
                span += "*"
                beyond.append(LABELS[key])
        rows.append({"metric": LABELS[key], "estimate": percent(m["estimate"], 3),
                     "se": percent(m["se"], 3, sign=False), ci: _interval(m), "n_eff": _n_eff(m),
                     "pairs": m["pairs"],
                     "of (exact)": "-" if impact.get(of) is None else
                     f"{of} {percent(impact[of], 3, sign=False)}",
                     RANGE_COLUMN: span, TRUTH_COLUMN: percent(truth.get(key), 3),
                     "note": _short_note(m.get("note"))
                     or ("exact" if m.get("interval") == "exact" else "")})
    ranged = any(r[RANGE_COLUMN] != "-" for r in rows)
    lines.append(table(rows, ["metric", "estimate", "se", ci, "n_eff", "pairs",
                              *([TRUTH_COLUMN] if truth else []), "of (exact)",
                              *([RANGE_COLUMN] if ranged else []), "note"]))
    if "truth_exact" in doc and not truth:
        lines.append(f"exact by the truth: not available — {doc['truth_exact']['reason']}")
    if ranged:
        lines.append(f"{RANGE_COLUMN}: the estimate if the sample's "
                     f"{int(smp.get('unknown_pairs') or 0):,} unknown pairs were all equivalent "
                     "/ all not equivalent (the intervals assume they are missing at random; "
                     "docs/method.md §8.11)"
                     + (f"; '*': beyond the interval ({', '.join(beyond)})" if beyond else ""))
    unknown = any(w.startswith(UNKNOWN_START) for w in doc.get("warnings") or [])
    lines.append("n_eff: effective draws behind the interval (the sample's and the design's "
                 "expected, the smaller); '!': not conclusive, "
                 + ("every estimate here: too many pairs are unknown (WARNING above)"
                    if unknown else f"n_eff below {MIN_N_EFF:g}, the metric's or that of the "
                    f"part weighing most in it, or over {MAX_UNKNOWN_SHARE:.0%} unknown "
                    "verdicts in a class that carries a quarter of it (docs/method.md §8.11)"))
    by_reason: dict[str, list[str]] = {}
    for key, why in unavailable.items():
        by_reason.setdefault(why, []).append(LABELS.get(key, key))
    lines += [f"not available: {', '.join(keys)} — {why}" for why, keys in by_reason.items()]
    if doc.get("strata"):
        lines += ["", "strata: " + "; ".join(
            f"{st['name']} ({'+'.join(st['classes'])}): {st['budget']:,} pairs, design "
            f"probability {st['q']:.4g}" for st in doc["strata"])]
    if doc.get("slices"):
        lines.append("")
        srows, weak = [], []
        for r in doc["slices"]:
            dp, c = r["delta_precision"], r["contribution"]
            name = ", ".join(f"{k}={key_label(v)}" for k, v in r["slice"].items())
            if dp.get("not_conclusive"):
                weak.append((name, str(dp["not_conclusive"])))
            srows.append({"slice": name, "weight": r["weight"],
                          "ΔPrecision(I)": percent(dp["estimate"], 3), ci: _interval(dp),
                          "n_eff": _n_eff(dp), "contribution": percent(c["estimate"], 3),
                          "contribution se": percent(c["se"], 3, sign=False),
                          "draws": r["draws"], "note": _short_note(dp.get("note"))})
        lines.append("per slice (ABCDE App. B):")
        lines.append(table(srows, ["slice", "weight", "ΔPrecision(I)", ci, "n_eff",
                                   "contribution", "contribution se", "draws", "note"]))
        if weak and unknown:  # one reason for all, stated in the WARNING above
            lines.append(f"not conclusive ('!'): {'; '.join(n for n, _ in weak)} — judge "
                         "more of their pairs, or stratify")
        elif weak:  # each slice's own reason: its n_eff may be above 10 when a part is thin
            lines.append("not conclusive ('!') — judge more of their pairs, or stratify:")
            lines.extend(f"  {n}: {why}" for n, why in weak)
    return "\n".join(lines)


def _short_note(note: str | None, limit: int = 60) -> str:
    """An estimate's note in a table cell: why it is missing, in a few words."""
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
