"""The ``--show-estimates`` panel: ΔPrecision and the Good/Bad Split/Merge rates with
their intervals and confidence sequences (valid however often one looks; the stop signal
of ``--stop-when``) from the verdicts given so far, and each one's estimate if the pairs
still without a verdict were all equivalent / all not equivalent (docs/method.md §8,
§8.11, §12.4). Off by default, so that the numbers do not sway the judges.

The verdicts are those ``abcde estimate DIR`` would use at this moment (every judge's
current verdicts, resolved by majority), so the panel and the final estimate agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from abcde.errors import AbcdeError, InputError
from abcde.quality.agreement import JUDGE_UNCERTAINTY_NOTE, agreement, by_pair, resolve
from abcde.quality.slices import slice_rows
from abcde.quality.wording import model_text, percent
from abcde.server.app import isolated_values

PANEL_METRICS = (("delta_precision", "ΔPrecision"),
                 ("good_split_rate", "GoodSplitRate"), ("bad_split_rate", "BadSplitRate"),
                 ("good_merge_rate", "GoodMergeRate"), ("bad_merge_rate", "BadMergeRate"))


def _pct(x: float | None, sign: bool = False) -> str:
    text = percent(x, 2, sign)
    return "–" if text == "-" else text  # the page's dash for a missing number


class EstimatesPanel:
    """Loads the draws and the manifest once; :meth:`compute` per page, cached on the
    verdicts it was given."""

    def __init__(self, directory: str | Path, stop_when: Any = ()) -> None:
        from abcde.quality.estimate import load_sample
        from abcde.quality.ppi import model_log
        from abcde.quality.sequential import STOP_WHEN

        self.stop_when = STOP_WHEN.check("stop_when", stop_when)  # refused before serving
        self.sample = load_sample(directory)
        if self.stop_when and (self.sample.manifest.get("humans")
                               or model_log(self.sample.directory)):
            raise InputError("--stop-when needs the confidence sequences, which do not take a "
                             "model judge's verdicts or a model round yet", option="stop_when")
        self._cache: tuple[Any, dict[str, Any]] | None = None
        # the user's values a warning or an error may quote, isolated on the page as its
        # other user values are: the sample's directory, slice columns and values, pair
        # and item ids (the messages are also the CLI's, so they carry no mark-up)
        where = str(self.sample.where)
        slices = [x for row in _slices(self.sample.manifest) for kv in row.items() for x in kv]
        pairs = [x for pid, items in self.sample.pairs.by_id.items() for x in (pid, *items)]
        self._values = [where, Path(where).name, *slices, *pairs]

    def compute(self, answered: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        """The panel of these verdicts and of the sample's model verdicts as they are now
        (`abcde model-judge` may write them while the judges judge)."""
        from abcde.quality.ppi import model_log

        # a model judge's verdicts, unless the confidence sequences are asked for (they
        # take humans only, docs/quality.md; refused at the start when already written)
        model = None if self.stop_when else model_log(self.sample.directory)
        try:
            stat = model.stat() if model is not None else None
        except OSError:  # moved away since: the humans' alone, as before it was written
            model, stat = None, None
        seen = None if stat is None else (stat.st_mtime_ns, stat.st_size)
        key = (seen, tuple(sorted((j, tuple(sorted(v.items()))) for j, v in answered.items())))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        panel = self._compute(answered, model)
        self._cache = (key, panel)
        return panel

    def _compute(self, answered: Mapping[str, Mapping[str, str]],
                 model: Path | None) -> dict[str, Any]:
        from abcde.quality.estimate import estimate_with_verdicts

        pairs = by_pair(answered)
        panel: dict[str, Any] = {"note": JUDGE_UNCERTAINTY_NOTE, "rows": [], "verdict": None,
                                 "warnings": [], "agreement": None, "error": None,
                                 "unknown_pairs": None, "signals": [], "stream": None,
                                 "model": None}
        if not pairs:
            panel["error"] = "no verdicts yet"
            return panel
        resolution = resolve(pairs)
        sequential = model is None and not self.sample.manifest.get("humans")
        try:
            doc = estimate_with_verdicts(self.sample, resolution.verdicts,
                                         sequential=sequential, stop_when=self.stop_when,
                                         model=model)
        except (AbcdeError, ValueError) as err:
            panel["error"] = isolated_values(str(err), self._values)
            return panel
        seq = doc.get("sequential")
        for key, label in PANEL_METRICS:
            m = doc.get(key) or {}
            sign = key == "delta_precision"
            cs = seq["metrics"][key] if seq else None
            ends = m.get("unknown_range")
            alone = (doc.get("humans_alone") or {}).get(key) or {}
            panel["rows"].append({
                "label": label,
                "estimate": _pct(m.get("estimate"), sign),
                "interval": _interval(m, sign),
                "humans_alone": _interval(alone, sign),
                # valid however often the panel is looked at (docs/method.md §8.14)
                "sequence": "–" if cs is None else
                f"[{_pct(cs['cs_low'], sign)}, {_pct(cs['cs_high'], sign)}]",
                "pairs": m.get("pairs", 0),
                # where the pairs without a verdict yet could take it (docs/method.md §8.11)
                "range": "–" if not ends else
                f"{_pct(ends['all_equivalent'], sign)} / {_pct(ends['all_not_equivalent'], sign)}",
                # beside its interval, not only in the warnings under the table: a
                # not-conclusive interval looks as trustworthy as any other
                "not_conclusive": m.get("not_conclusive")})
        if any(r["range"] != "–" for r in panel["rows"]):
            panel["unknown_pairs"] = int((doc.get("sample") or {}).get("unknown_pairs") or 0)
        if seq:
            panel["stream"] = f"{seq['pairs']:,} of {seq['sample_pairs']:,}"
            panel["signals"] = [q["text"] + ("" if q["more_verdicts"] is None else
                                             f" (about {q['more_verdicts']:,} more verdicts)")
                                for q in seq["questions"]]
        if model is not None:
            panel["model"] = {"file": model.name, "classes": [model_text(name, m) for name, m in
                                                      (doc.get("model") or {}).items()]}
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


def _interval(m: Mapping[str, Any], sign: bool) -> str:
    return "–" if m.get("ci_low") is None else \
        f"[{_pct(m['ci_low'], sign)}, {_pct(m['ci_high'], sign)}]"


def _slices(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The manifest's slice rows; none when they cannot be read (the estimate says why)."""
    try:
        return slice_rows(manifest.get("slices"))
    except (TypeError, ValueError, AttributeError):
        return []
