"""Independent, literal reference of the Yandex ``cluster_metrics`` (ECC, BCP, BCR, BCF1).

Source: the Habr article "Метрики качества кластеризации" by Yandex
(Yandex, «Метрики качества кластеризации», §3 "Метрики эталонных кластеров"
and §4 "Реализация"), restated in docs/method.md §5. Everything is unweighted item counts and
is computed *per theme* (a truth cluster, "эталонный кластер"), then averaged over
themes. This file is a deliberately naive oracle for tests: plain dicts, no
shortcuts, one step per sentence of the article.

Vocabulary:

* theme g: a truth cluster; |g| counts every item of the truth, clustered or not
  (an unclustered truth item is in no actual cluster and only lowers recall);
* actual cluster c: |c| counts all its items, including unlabelled ones (items
  absent from the truth); marked(c) = number of items of c present in the truth;
* a matching (c, g) exists for every actual cluster c meeting g, with
  common = |c ∩ g|, recall(c, g) = common / |g| and
  precision(c, g) = (common + r·(|c| − marked(c))) / |c|, where r = 0 ("basic") or
  r = 1 ("optimistic": every unlabelled item is assumed to belong to each theme its
  cluster meets — §4, the numbers in brackets).

Per theme (§3.1, §3.2):

* ECC(g) = Σ_k recall_k · p_k · Π_{m<k} (1 − p_m), the clusters meeting g sorted by
  intersection size, descending ("в порядке невозрастания размера пересечения").
  Ties in the intersection size have equal recall, and for equal recalls the sum is
  symmetric in their order, so the tie order does not matter.
* BCP(g) = mean of precision over the clustered items of g, i.e.
  Σ_c common·precision(c, g) / Σ_c common; undefined (None) with no clustered item.
* BCR(g) = mean of recall over *all* items of g, unclustered items counting 0:
  Σ_c common·recall(c, g) / |g|.
* BCF1(g) = 2·BCP·BCR / (BCP + BCR) (0 when BCP is undefined or both are 0).

Overall: ECC and BCR are plain means over all themes; BCP is the plain mean over
themes with BCR > 0 (i.e. with at least one clustered item); BCF1 = F1(BCP, BCR)
of those two overall means (not a mean of per-theme BCF1).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

Item = Hashable
Label = Hashable


def _f1(p: float | None, r: float) -> float:
    if p is None or p + r == 0:
        return 0.0
    return 2 * p * r / (p + r)


def _group(assignment: Mapping[Item, Label]) -> dict[Label, set[Item]]:
    groups: dict[Label, set[Item]] = {}
    for item, label in assignment.items():
        groups.setdefault(label, set()).add(item)
    return groups


def yandex_metrics(
    truth: Mapping[Item, Label],
    actual: Mapping[Item, Label],
    optimistic: bool,
) -> dict[str, Any]:
    """ECC, BCP, BCR, BCF1 of ``actual`` against ``truth`` (item → theme / cluster).

    Returns ``{"ecc", "bcp", "bcr", "bcf1", "themes"}`` where ``themes[g]`` holds the
    per-theme ``ecc, bcp, bcr, bcf1`` and its ``matchings`` (one dict per actual
    cluster meeting g, in ECC order: cluster, common, size, marked, precision,
    recall). ``optimistic`` selects r = 1 for unlabelled items, else r = 0.
    """
    r = 1.0 if optimistic else 0.0
    themes = _group(truth)
    clusters = _group(actual)
    if not themes:
        raise ValueError("the truth is empty: no theme to average over")

    # marked(c): items of c that appear in the truth (labelled items)
    marked = {c: sum(1 for i in items if i in truth) for c, items in clusters.items()}

    per_theme: dict[Label, dict[str, Any]] = {}
    for g, g_items in themes.items():
        matchings = []
        for c, c_items in clusters.items():
            common = len(c_items & g_items)
            if common == 0:
                continue  # only clusters that meet the theme
            size = len(c_items)
            matchings.append(
                {
                    "cluster": c,
                    "common": common,
                    "size": size,
                    "marked": marked[c],
                    "precision": (common + r * (size - marked[c])) / size,
                    "recall": common / len(g_items),
                }
            )
        # descending intersection size (article §3.2); stable on the cluster id
        matchings.sort(key=lambda m: -m["common"])

        ecc = 0.0
        still_unmatched = 1.0  # Π_{m<k} (1 − p_m)
        for m in matchings:
            ecc += m["recall"] * m["precision"] * still_unmatched
            still_unmatched *= 1.0 - m["precision"]

        clustered = sum(m["common"] for m in matchings)
        bcp = (
            sum(m["common"] * m["precision"] for m in matchings) / clustered if clustered else None
        )
        # unclustered items of g contribute recall 0 and still count in |g|
        bcr = sum(m["common"] * m["recall"] for m in matchings) / len(g_items)
        per_theme[g] = {
            "ecc": ecc,
            "bcp": bcp,
            "bcr": bcr,
            "bcf1": _f1(bcp, bcr),
            "matchings": matchings,
        }

    n = len(per_theme)
    ecc_all = sum(t["ecc"] for t in per_theme.values()) / n
    bcr_all = sum(t["bcr"] for t in per_theme.values()) / n
    with_recall = [t["bcp"] for t in per_theme.values() if t["bcr"] > 0]
    bcp_all = sum(with_recall) / len(with_recall) if with_recall else 0.0
    return {
        "ecc": ecc_all,
        "bcp": bcp_all,
        "bcr": bcr_all,
        "bcf1": _f1(bcp_all, bcr_all),
        "themes": per_theme,
    }


def read_assignment(path: str) -> dict[str, str]:
    """Read a fixture CSV with header ``item_id,cluster_id`` into item → cluster."""
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        return {row["item_id"]: row["cluster_id"] for row in csv.DictReader(fh)}
