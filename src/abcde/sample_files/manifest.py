"""What a pair sample's manifest says: the design, its population's class totals, the
fingerprint of the inputs and of what was drawn, the lineage and the sample's id, which
judgement files carry (docs/method.md §6.4, §6.9, §7.6, §7.10)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from abcde.engines.base import Engine
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render

POPULATIONS = ("mixture", "abcde", "jaccard")
"""`mixture` samples q = α·u/Σu + (1 − α)·w/Σw (docs/method.md §6.9); `abcde` is α = 1
(ABCDE §5.7), `jaccard` α = 0 (Jaccard decomposition §7)."""
DESIGN_VERSION = 2
"""Samples of this design exclude self pairs and carry importance weights (manifest
`design.version`); samples drawn before it are refused (docs/method.md §8.1)."""
PAIR_CLASSES = ("split", "merge", "stable")
CLASS_KEYS = ("split", "merge", "stable_plus", "stable_minus", "stable_zero")
"""The classes of the manifest: stable pairs i ≠ j split by the sign of W_b − W_e
(ΔPrecision's label, ABCDE eq. 58; stable_zero: u_ij = 0)."""
TOTAL_COLUMNS = ("u", "w", "q", "u_square", "w_square", "u_uncovered", "w_uncovered",
                 "judgeable")
# Bump when the stream of draws a seed gives changes (the sampler's SQL): samples of
# different stream versions never share a lineage.
STREAM_VERSION = 1
_SAMPLE_ID = re.compile(r"^s([0-9a-f]{8})-([bd])([0-9]+)-([0-9a-f]{8})$")


def _hash(parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def fingerprint(engine: Engine, pipeline: Pipeline, extra: dict[str, Any]) -> dict[str, Any]:
    """A short hash of the compared inputs' cells and weights (`sampling/fingerprint.sql`)
    and of `extra` (the samplers pass a digest of what they drew, so that item ids enter
    without hashing the population). Float sums are rounded to 10 significant digits:
    engines sum in different orders."""
    if "fingerprint" not in pipeline.steps:
        pipeline.add("fingerprint", render("sampling/fingerprint.sql"))
    row = pipeline.fetch(engine, "fingerprint")[0]
    parts = {k: (int(v or 0) if k in ("cells", "items") else float(f"{float(v or 0):.10g}"))
             for k, v in row.items()}
    parts.update(extra)
    return {"sha256": _hash(parts)[:16], **parts}


def inputs_fingerprint(manifest: Mapping[str, Any]) -> str | None:
    """The fingerprint without what was drawn: the same for every sample of the inputs."""
    fp = manifest.get("fingerprint")
    if not isinstance(fp, Mapping):
        return None
    return _hash({k: v for k, v in fp.items() if k not in ("sha256", "sample")})[:16]


def lineage(manifest: Mapping[str, Any], stream: str) -> dict[str, Any]:
    """What makes samples one stream of draws (docs/method.md §7.10): population, α
    (§6.9), seed, the inputs' fingerprint, the stratification and the stream version,
    and `stream`, their id as the engines and the scripts compute it
    (`pairs/sample_id.sql`). Samples of one stream differ only in how far it was walked
    (`budget` or `draws`), so the smaller one's pairs are the larger one's first pairs."""
    out: dict[str, Any] = {
        "stream": stream, "population": manifest.get("population"),
        "alpha": manifest.get("alpha"), "seed": manifest.get("seed"),
        "inputs": inputs_fingerprint(manifest), "version": STREAM_VERSION,
        "stratified": bool(manifest.get("stratified")),
        "strata_allocation": manifest.get("strata_allocation")}
    if manifest.get("budget") is not None:
        out["budget"] = int(manifest["budget"])
    else:
        out["draws"] = int(manifest.get("stream_draws") or 0)
    return out


def sample_id(manifest: Mapping[str, Any]) -> str:
    """The manifest's ``sample_id`` (every sample abcde draws has one, by either route:
    `pairs/sample_id.sql`); else, for a manifest made by hand, a hash of what makes the
    sample."""
    if manifest.get("sample_id"):
        return str(manifest["sample_id"])
    parts = {k: manifest.get(k) for k in ("population", "seed", "budget", "stream_draws",
                                           "draws", "pairs")}
    return _hash(parts)[:12]


def parse_sample_id(sid: str) -> tuple[str, str, int] | None:
    """(stream prefix, 'budget' or 'draws', size) of an id made from a lineage."""
    m = _SAMPLE_ID.match(sid.strip())
    if m is None:
        return None
    return m[1], "budget" if m[2] == "b" else "draws", int(m[3])


def stream_of(manifest: Mapping[str, Any]) -> tuple[str, str, int] | None:
    """(stream prefix, 'budget' or 'draws', size) of a sample, from its manifest (a
    warehouse sample's, which has no lineage, from its id: the same as the engines')."""
    line = manifest.get("lineage")
    if not isinstance(line, Mapping) or not line.get("stream"):
        return parse_sample_id(str(manifest.get("sample_id") or ""))
    if line.get("budget") is not None:
        return str(line["stream"])[:8], "budget", int(line["budget"])
    return str(line["stream"])[:8], "draws", int(line.get("draws") or 0)


def class_keys(classes: Sequence[str]) -> list[str]:
    """The manifest's class keys of pair classes (stable → its three signs)."""
    return [k for k in CLASS_KEYS if k.split("_")[0] in classes]


def judgeable_pairs(totals: dict[str, dict[str, float]],
                    classes: Sequence[str] = PAIR_CLASSES) -> int:
    """Unique unordered pairs i ≠ j of positive probability in `classes`, from the
    closed-form counts of `pairs/totals.sql`: the largest budget a fill can reach."""
    return round(sum(totals[k]["judgeable"] for k in class_keys(classes)))


def class_entries(totals: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The manifest's `classes`: per class key its u and w totals, its design probability
    q, the expected Kish effective draws per draw toward each target (`kish_u` =
    (u_k/Σu)²/Σ_s p_u(s)²/q(s), likewise `kish_w`), the target mass the design never
    draws (`u_uncovered`, `w_uncovered`) and its judgeable pairs (docs/method.md §6.4,
    §6.9, §8.11)."""
    sums = {t: sum(c[t] for c in totals.values()) for t in ("u", "w")}
    out = {}
    for key, t in totals.items():
        entry = {k: t[k] for k in ("u", "w", "q", "u_uncovered", "w_uncovered")}
        for target, total in sums.items():
            square = t[f"{target}_square"]
            share = t[target] / total if total > 0 else 0.0
            entry[f"kish_{target}"] = share * share / square if square > 0 else 0.0
        entry["judgeable"] = round(t["judgeable"])
        out[key] = entry
    return out


def population_entries(totals: dict[str, dict[str, float]], self_parts: dict[str, Any],
                       overall: dict[str, Any]) -> dict[str, Any]:
    """What a pair sample's manifest says of its population: judgeable pairs, the
    classes, the exact self parts, Σu and Σw over pairs i ≠ j, the exact impact
    metrics."""
    pairs = {c: judgeable_pairs(totals, (c,)) for c in PAIR_CLASSES}
    return {"population_pairs": {**pairs, "judgeable": judgeable_pairs(totals)},
            "classes": class_entries(totals),
            "exact": {k: float(self_parts[k] or 0.0)
                      for k in ("delta_precision", "affected_good_index", "u_self")},
            "totals": {t: sum(c[t] for c in totals.values()) for t in ("u", "w")},
            "metrics": overall, "weight": overall["weight"]}


def slice_order(values: Sequence[Any]) -> tuple:
    """The order of a slicing's slices in the manifest (and in `abcde estimate`): by
    value, NULL last, NaN after the numbers, text in code point order, on every engine."""
    return tuple((v is None, isinstance(v, float) and math.isnan(v),
                  0 if v is None or (isinstance(v, float) and math.isnan(v)) else v)
                 for v in values)
