"""The impact report as text: the JSON document of `abcde impact` rendered for a
terminal."""

from __future__ import annotations

from typing import Any

from abcde.cells import IMPACT_METRICS
from abcde.text import fmt, table

METRIC_LABELS = {
    "split_rate": "SplitRate", "merge_rate": "MergeRate",
    "jaccard_distance": "JaccardDistance", "split_distance": "SplitDistance",
    "merge_distance": "MergeDistance", "jaccard_index": "JaccardIndex",
    "affected_jaccard_index": "  affected", "unaffected_jaccard_index": "  unaffected",
}
CLUSTER_COLUMNS = ["cluster_id", "items", "weight", *IMPACT_METRICS[:3], "contribution"]


def impact_text(doc: dict[str, Any], max_slice_rows: int = 20) -> str:
    """The impact report as text (the JSON document rendered for a terminal)."""
    o = doc["overall"]
    cov = doc["coverage"]
    roles = [k for k in doc["inputs"] if k not in ("weights", "attributes")]
    parts = ["Inputs"]
    parts += [f"  {k:<10} {v}" for k, v in doc["inputs"].items() if v]
    parts.append("")
    parts.append(f"Items in both clusterings: {fmt(o['items'])} (weight {fmt(o['weight'])})")
    for role in roles:
        side = cov[f"only_in_{role}"]
        if side["items"]:
            ex = ", ".join(map(repr, side["examples"][:5]))  # quoted: 'a' vs 'a '
            # items the weights table lacks have no weight (not 0): say how many
            unweighted = side.get("items_without_weight", 0)
            weight = f"weight {fmt(side['weight'])}" + (
                f", {fmt(unweighted)} of them without a weight" if unweighted else "")
            parts.append(f"  only in {role}: {fmt(side['items'])} items "
                         f"({weight}), excluded; e.g. {ex}")
    for key, what, unit in (
            ("unused_weights", "weight rows for items in neither clustering", "rows"),
            ("without_attributes", "items without attributes (slice value null)", "items"),
            ("unused_attributes", "attribute rows for items in neither clustering", "rows")):
        if cov.get(key, {}).get(unit):
            parts.append(f"  {what}: {fmt(cov[key][unit])}")
    if cov.get("given_missing_weight", {}).get("items"):
        given = cov["given_missing_weight"]
        parts.append(f"  items without a weights row, given --missing-weight "
                     f"{given['missing_weight']:g}: {fmt(given['items'])} "
                     f"(weight {fmt(given['weight'])})")
    share = o["affected_weight"] / o["weight"] if o["weight"] else 0.0
    parts.append(f"Affected: {fmt(o['affected_items'])} items, weight "
                 f"{fmt(o['affected_weight'])} ({fmt(share, 'pct')} of the weight)")
    parts.append("")
    parts.append("Overall impact (ABCDE §4; Jaccard decomposition §4–5)")
    rows = [{"metric": METRIC_LABELS[m], "value": o[m]} for m in (
        "split_rate", "merge_rate", "jaccard_distance", "split_distance", "merge_distance",
        "jaccard_index", "affected_jaccard_index", "unaffected_jaccard_index")]
    parts.append(table(rows, ["metric", "value"], pct=["value"]))
    for key, title in (("top_base_clusters", "Most affected Base clusters"),
                       ("top_exp_clusters", "Most affected Exp clusters"),
                       ("top_clusters", "Most affected clusters, Base and Exp interleaved")):
        parts.append("")
        parts.append(f"{title} (contribution = weight·JaccardDistance / total weight)")
        cols = (["side", *CLUSTER_COLUMNS] if key == "top_clusters" else CLUSTER_COLUMNS)
        # an empty list despite affected items: the lists were not asked for (--top 0)
        empty = ("  (not listed: --top 0)" if o["affected_items"]
                 else "  (none: the clusterings are identical on T)")
        parts.append(table(doc[key], cols, pct=[*IMPACT_METRICS, "contribution"])
                     if doc[key] else empty)
    for s in doc["slices"]:
        parts.append("")
        shown = s["rows"][:max_slice_rows]
        more = len(s["rows"]) - len(shown)
        parts.append(f"By {', '.join(s['slice_by'])}" + (
            f" (top {len(shown)} of {len(s['rows'])} by contribution)" if more else ""))
        cols = [*s["slice_by"], "items", "weight", "affected_weight", *IMPACT_METRICS[:3],
                "contribution"]
        parts.append(table(shown, cols, pct=[*IMPACT_METRICS, "contribution"],
                           keys=s["slice_by"]))
    if doc.get("files"):
        parts.append("")
        parts.append("Files written")
        by_file = {s["file"]: s["slice_by"] for s in doc["slices"] if "file" in s}
        parts += [f"  {k}: {v}" if v not in by_file
                  else f"  slices by {', '.join(by_file[v])}: {v}"
                  for k, v in doc["files"].items()]
    return "\n".join(parts)
