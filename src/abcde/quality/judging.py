"""The verdict log of `abcde judge` resolved for the estimate: every judge's current
verdicts matched against the sample as a judgement file is, one verdict per pair by
majority, and the ``judging`` section of ``abcde estimate`` (docs/method.md §12.2,
§12.4; ABCDE §5.8)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.quality.agreement import JUDGE_UNCERTAINTY_NOTE, agreement, by_pair, resolve
from abcde.quality.judgements import JudgementRow, SamplePairs, match_judgements
from abcde.sample_files.verdicts import current_verdicts, events_for_sample, read_log


@dataclass(frozen=True)
class LoggedVerdicts:
    """One verdict per pair, and the ``judging`` section of ``abcde estimate``."""

    verdicts: dict[str, str]
    judging: dict[str, Any]


def logged_verdicts(path: str | Path, pairs: SamplePairs, sample_id: str) -> LoggedVerdicts:
    """The verdicts of a log for the estimate (every judge's current verdicts, checked
    against the sample's pairs and resolved by majority) and what the estimate reports
    of them: ``source``, ``events``, ``retractions``, ``judges``, ``pairs``,
    ``agreement``, ``contested_pairs``, ``ties``, ``contested`` (up to 20),
    ``resolution``, ``note`` and ``warnings``."""
    where = str(path)
    log = read_log(path)
    if not log.events:
        raise InputError(f"{where} holds no verdicts yet",
                         hint="Judge some pairs with `abcde judge DIR` first.")
    events_for_sample(log.events, sample_id, where)
    per_judge = {}
    for judge, events in sorted(current_verdicts(log.events).items()):
        rows = [JudgementRow(e.line, e.pair_id, e.item_1, e.item_2, e.verdict or "unknown",
                             e.sample_id) for e in events.values()]
        per_judge[judge] = match_judgements(rows, pairs, expected_sample_id=sample_id,
                                            where=f"{where} (judge {judge})")
    pairs_judged = by_pair(per_judge)
    resolution = resolve(pairs_judged)
    order = sorted(resolution.contested, key=lambda p: (0, int(p)) if p.isdigit() else (1, p))
    return LoggedVerdicts(resolution.verdicts, {
        "source": where,
        "events": len(log.events),
        "retractions": sum(e.verdict is None for e in log.events),
        "judges": {j: len(v) for j, v in per_judge.items()},
        "pairs": len(pairs_judged),
        "agreement": agreement(pairs_judged),
        "contested_pairs": len(resolution.contested),
        "ties": len(resolution.ties),
        "contested": order[:20],
        "resolution": "majority of the known verdicts; unknowns abstain; a tie is unknown",
        "note": JUDGE_UNCERTAINTY_NOTE,
        "warnings": log.warnings(),
    })


def judging_lines(judging: Mapping[str, Any]) -> list[str]:
    """The ``judging`` section as ``abcde estimate`` prints it: where the verdicts came
    from, agreement, contested pairs, and that the intervals leave out the judges'
    uncertainty (ABCDE §5.8)."""
    judges = judging["judges"]
    names = ", ".join(f"{j} {n:,}" for j, n in judges.items())
    lines = [f"verdicts from {judging['source']}: {len(judges)} judge"
             f"{'s' if len(judges) != 1 else ''} ({names}), {judging['pairs']:,} pairs "
             f"judged; {judging['events']:,} events, {judging['retractions']:,} undone"]
    a = judging["agreement"]
    if a["pairs"]:
        kind = {"cohen": "Cohen's", "fleiss": "Fleiss'"}.get(a["kappa_kind"] or "", "")
        kappa = "undefined (every verdict the same)" if a["kappa"] is None \
            else f"{a['kappa']:.3f}"
        raw = "-" if a["raw_agreement"] is None else f"{100 * a['raw_agreement']:.1f}%"
        lines.append(f"agreement on {a['pairs']:,} pairs with two or more judges: raw "
                     f"{raw}, {kind} kappa {kappa}")
        for pw in a["pairwise"] if a["kappa_kind"] == "fleiss" else []:
            k = "-" if pw["cohen_kappa"] is None else f"{pw['cohen_kappa']:.3f}"
            lines.append(f"  {pw['judges'][0]} vs {pw['judges'][1]}: {pw['pairs']:,} pairs, "
                         f"raw {100 * pw['raw_agreement']:.1f}%, Cohen's kappa {k}")
    if judging["contested_pairs"] or len(judges) > 1:
        lines.append(f"{judging['contested_pairs']:,} contested pairs resolved by majority "
                     f"({judging['ties']:,} ties made unknown)")
    lines.append(f"note: {judging['note']}")
    lines += [f"WARNING: {w}" for w in judging.get("warnings") or []]
    return lines
