"""What identifies a sample: the fingerprint of the inputs it was drawn from and of what
was drawn, and the sample's id, which judgement files carry (docs/method.md §7)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from abcde.engines.base import Engine
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render


def fingerprint(engine: Engine, pipeline: Pipeline, extra: dict[str, Any]) -> dict[str, Any]:
    """A short hash of the compared inputs' cells and weights (`sampling/fingerprint.sql`)
    and of `extra` — the samplers pass `sample_digest` of what they drew, so that item
    ids enter too (renaming a sampled item changes it) without hashing every item of the
    population. Counts are exact; float sums are rounded to 10 significant digits first,
    since engines sum in different orders."""
    if "fingerprint" not in pipeline.steps:
        pipeline.add("fingerprint", render("sampling/fingerprint.sql"))
    row = pipeline.fetch(engine, "fingerprint")[0]
    parts = {k: (int(v or 0) if k in ("cells", "items") else float(f"{float(v or 0):.10g}"))
             for k, v in row.items()}
    parts.update(extra)
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode())
    return {"sha256": digest.hexdigest()[:16], **parts}


def sample_digest(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> str:
    """sha256 (16 hex digits) of the drawn rows' `keys`, ids as text (an integer id and
    its CSV text give the same digest, on every engine), in a sorted order."""
    items = sorted(json.dumps([str(r[k]) for k in keys]) for r in rows)
    return hashlib.sha256("\n".join(items).encode()).hexdigest()[:16]


def sample_id(manifest: Mapping[str, Any]) -> str:
    """A short id of one sample: the manifest's ``sample_id`` if it has one, else a hash
    of what makes the sample (inputs fingerprint, population, seed, budget, stream
    length, draws, pair counts, strata)."""
    if manifest.get("sample_id"):
        return str(manifest["sample_id"])
    parts = {k: manifest.get(k) for k in ("population", "seed", "budget", "stream_draws",
                                           "draws", "pairs", "strata")}
    fp = manifest.get("fingerprint")
    parts["fingerprint"] = fp.get("sha256") if isinstance(fp, Mapping) else fp
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]
