"""Several judges on one sample: their agreement, and one verdict per pair by majority
(docs/method.md §12.4).

Agreement is measured on the pairs that two or more judges answered (with ``abcde judge
--overlap F`` a share F of the pairs goes to every judge; a pair two judges happened to
answer at the same moment counts too), over the three verdicts ``equivalent``,
``not_equivalent`` and ``unknown`` as categories:

- raw agreement: for two judges the share of their common pairs with the same verdict;
  for more, the mean over pairs of the share of agreeing judge pairs (Fleiss's P̄);
- Cohen's kappa (two judges): (p_o − p_e)/(1 − p_e), p_e from each judge's own
  marginals ([Cohen] in docs/method.md §0.2);
- Fleiss' kappa (three or more): (P̄ − P̄_e)/(1 − P̄_e) with P_i = (Σ_j n_ij² − n_i)/
  (n_i(n_i − 1)) and P̄_e = Σ_j p_j², p_j the share of all ratings in category j
  ([Fleiss]); a pair answered by fewer than all judges enters with its own n_i ≥ 2.
  With every judge on every pair this is Fleiss's statistic exactly.

Kappa is undefined (None) when chance agreement is 1 (every verdict the same).

Resolution for the estimate: the known verdicts of a pair decide by majority; unknowns
abstain, as in a judgement file where "unknown" beside a known verdict yields the known
one (docs/method.md §8.1); a tie between equivalent and not_equivalent makes the pair
unknown (dropped and reweighted like any unknown, §8.3). A pair is *contested* when its
judges gave both known verdicts. The quality intervals then describe the sampling of
pairs only: they do not include the judges' uncertainty ([ABCDE] §5.8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from abcde.quality.judgements import VERDICTS

JUDGE_UNCERTAINTY_NOTE = ("the intervals describe the sampling of pairs only, not the "
                          "judges' uncertainty (ABCDE §5.8)")


def by_pair(verdicts: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """judge → pair → verdict as pair → judge → verdict.

    >>> by_pair({"ana": {"1": "equivalent"}, "bo": {"1": "unknown", "2": "equivalent"}})
    {'1': {'ana': 'equivalent', 'bo': 'unknown'}, '2': {'bo': 'equivalent'}}
    """
    out: dict[str, dict[str, str]] = {}
    for judge, pairs in verdicts.items():
        for pair, verdict in pairs.items():
            out.setdefault(pair, {})[judge] = verdict
    return out


@dataclass(frozen=True)
class Resolution:
    """One verdict per pair, and the pairs the judges disagreed on."""

    verdicts: dict[str, str]   # pair → the verdict the estimate uses
    contested: list[str]       # pairs with both known verdicts among their judges
    ties: list[str]            # contested pairs with as many of each: made unknown


def resolve(pairs: Mapping[str, Mapping[str, str]]) -> Resolution:
    """One verdict per pair by majority of the known verdicts: unknowns abstain, a tie
    is unknown; ``contested`` pairs got both known verdicts (docs/method.md §12.4).

    >>> r = resolve({"1": {"a": "equivalent", "b": "not_equivalent", "c": "equivalent"},
    ...              "2": {"a": "equivalent", "b": "not_equivalent"},
    ...              "3": {"a": "unknown", "b": "not_equivalent"}})
    >>> r.verdicts, r.contested, r.ties
    ({'1': 'equivalent', '2': 'unknown', '3': 'not_equivalent'}, ['1', '2'], ['2'])
    """
    out, contested, ties = {}, [], []
    for pair, judges in pairs.items():
        eq = sum(v == "equivalent" for v in judges.values())
        ne = sum(v == "not_equivalent" for v in judges.values())
        if eq and ne:
            contested.append(pair)
        if eq > ne:
            out[pair] = "equivalent"
        elif ne > eq:
            out[pair] = "not_equivalent"
        else:
            out[pair] = "unknown"
            if eq:
                ties.append(pair)
    return Resolution(out, contested, ties)


def cohen_kappa(a: Sequence[str], b: Sequence[str],
                categories: Sequence[str] = VERDICTS) -> float | None:
    """Cohen's (p_o − p_e)/(1 − p_e) of two raters' labels of the same items; None
    without items or when p_e = 1.

    >>> round(cohen_kappa(["equivalent", "equivalent", "not_equivalent", "unknown"],
    ...                   ["equivalent", "not_equivalent", "not_equivalent", "unknown"]), 4)
    0.6364
    """
    n = len(a)
    if n == 0 or n != len(b):
        return None
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in categories)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' (P̄ − P̄_e)/(1 − P̄_e) of a subjects × categories table of rating counts
    (rows with fewer than two ratings left out; raters may vary by row); None when no row
    is left or P̄_e = 1.

    >>> round(fleiss_kappa([[3, 0, 0], [2, 1, 0], [0, 3, 0], [1, 1, 1]]), 4)
    0.2683
    """
    rows = [list(r) for r in counts if sum(r) >= 2]
    if not rows:
        return None
    p_bar = sum((sum(x * x for x in r) - sum(r)) / (sum(r) * (sum(r) - 1))
                for r in rows) / len(rows)
    total = sum(sum(r) for r in rows)
    p_e = sum((sum(r[j] for r in rows) / total) ** 2 for j in range(len(rows[0])))
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def raw_agreement(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss's P̄, the mean share of agreeing rater pairs per subject (None without a
    subject of two ratings).

    >>> raw_agreement([[3, 0, 0], [2, 1, 0]])  # (1 + 1/3) / 2
    0.6666666666666666
    """
    rows = [list(r) for r in counts if sum(r) >= 2]
    if not rows:
        return None
    return sum((sum(x * x for x in r) - sum(r)) / (sum(r) * (sum(r) - 1))
               for r in rows) / len(rows)


def agreement(pairs: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """The agreement section of ``abcde estimate`` for pair → judge → verdict: judges,
    pairs answered by two or more, raw agreement and kappa (Cohen's for two judges,
    Fleiss' for more) and every two judges' ``pairwise`` agreement (docs/method.md §12.4)."""
    judges = sorted({j for js in pairs.values() for j in js})
    shared = {p: js for p, js in pairs.items() if len(js) >= 2}
    counts = [[sum(v == c for v in js.values()) for c in VERDICTS] for js in shared.values()]
    pairwise = []
    for a, b in combinations(judges, 2):
        common = [p for p, js in shared.items() if a in js and b in js]
        if not common:
            continue
        va, vb = [shared[p][a] for p in common], [shared[p][b] for p in common]
        pairwise.append({"judges": [a, b], "pairs": len(common),
                         "raw_agreement": sum(x == y for x, y in zip(va, vb, strict=True))
                         / len(common),
                         "cohen_kappa": cohen_kappa(va, vb)})
    out: dict[str, Any] = {"judges": len(judges), "pairs": len(shared)}
    if len(judges) == 2:
        two = pairwise[0] if pairwise else None
        out.update(raw_agreement=two["raw_agreement"] if two else None,
                   kappa=two["cohen_kappa"] if two else None, kappa_kind="cohen")
    elif len(judges) > 2:
        out.update(raw_agreement=raw_agreement(counts), kappa=fleiss_kappa(counts),
                   kappa_kind="fleiss")
    else:
        out.update(raw_agreement=None, kappa=None, kappa_kind=None)
    out["pairwise"] = pairwise
    return out
