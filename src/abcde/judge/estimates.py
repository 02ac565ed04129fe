"""The ``--show-estimates`` panel: ΔPrecision and the Good/Bad Split/Merge rates from
the verdicts so far, as ``abcde estimate DIR`` would compute them now, with the range of
the pairs still without a verdict (docs/method.md §8, §8.11, §12.4)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from abcde.errors import AbcdeError
from abcde.quality.agreement import JUDGE_UNCERTAINTY_NOTE, agreement, by_pair, resolve
from abcde.quality.slices import slice_rows
from abcde.quality.wording import percent
from abcde.server.app import isolated_values

PANEL_METRICS = (("delta_precision", "ΔPrecision"),
                 ("good_split_rate", "GoodSplitRate"), ("bad_split_rate", "BadSplitRate"),
                 ("good_merge_rate", "GoodMergeRate"), ("bad_merge_rate", "BadMergeRate"))


def _pct(x: float | None, sign: bool = False) -> str:
    text = percent(x, 2, sign)
    return "–" if text == "-" else text  # the page's dash for a missing number


class EstimatesPanel:
    """Loads the sample once; :meth:`compute` per page, cached on the verdicts."""

    def __init__(self, directory: str | Path) -> None:
        from abcde.quality.estimate import load_sample

        self.sample = load_sample(directory)
        self._cache: tuple[Any, dict[str, Any]] | None = None
        # the user's values a message may quote, isolated on the page as the others are
        where = str(self.sample.where)
        slices = [x for row in _slices(self.sample.manifest) for kv in row.items() for x in kv]
        pairs = [x for pid, items in self.sample.pairs.by_id.items() for x in (pid, *items)]
        self._values = [where, Path(where).name, *slices, *pairs]

    def compute(self, answered: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        key = tuple(sorted((j, tuple(sorted(v.items()))) for j, v in answered.items()))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        panel = self._compute(answered)
        self._cache = (key, panel)
        return panel

    def _compute(self, answered: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        from abcde.quality.estimate import estimate_with_verdicts

        pairs = by_pair(answered)
        panel: dict[str, Any] = {"note": JUDGE_UNCERTAINTY_NOTE, "rows": [], "verdict": None,
                                 "warnings": [], "agreement": None, "error": None,
                                 "unknown_pairs": None}
        if not pairs:
            panel["error"] = "no verdicts yet"
            return panel
        resolution = resolve(pairs)
        try:
            doc = estimate_with_verdicts(self.sample, resolution.verdicts)
        except (AbcdeError, ValueError) as err:
            panel["error"] = isolated_values(str(err), self._values)
            return panel
        for key, label in PANEL_METRICS:
            m = doc.get(key) or {}
            sign = key == "delta_precision"
            ends = m.get("unknown_range")
            panel["rows"].append({
                "label": label,
                "estimate": _pct(m.get("estimate"), sign),
                "interval": "–" if m.get("ci_low") is None else
                f"[{_pct(m['ci_low'], sign)}, {_pct(m['ci_high'], sign)}]",
                "pairs": m.get("pairs", 0),
                "range": "–" if not ends else
                f"{_pct(ends['all_equivalent'], sign)} / {_pct(ends['all_not_equivalent'], sign)}",
                "not_conclusive": m.get("not_conclusive")})
        if any(r["range"] != "–" for r in panel["rows"]):
            panel["unknown_pairs"] = int((doc.get("sample") or {}).get("unknown_pairs") or 0)
        panel["verdict"] = doc.get("verdict")
        panel["warnings"] = [isolated_values(w, self._values) for w in doc.get("warnings") or []]
        agree = agreement(pairs)
        if agree["pairs"]:
            panel["agreement"] = {"pairs": agree["pairs"],
                                  "raw": _pct(agree["raw_agreement"]),
                                  "kappa": "–" if agree["kappa"] is None
                                  else f"{agree['kappa']:.2f}",
                                  "kind": agree["kappa_kind"],
                                  "contested": len(resolution.contested)}
        return panel


def _slices(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The manifest's slice rows; none when they cannot be read (the estimate says why)."""
    try:
        return slice_rows(manifest.get("slices"))
    except (TypeError, ValueError, AttributeError):
        return []
