"""What identifies a sample: the fingerprint of the inputs it was drawn from and of what
was drawn, and the sample's id, which judgement files carry (docs/method.md §7)."""

from __future__ import annotations

import hashlib
import json
import re
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


# Bump when the stream of draws a seed gives changes (the sampler's SQL): samples of
# different stream versions never share a lineage.
STREAM_VERSION = 1
_SAMPLE_ID = re.compile(r"^s([0-9a-f]{8})-([bd])([0-9]+)-([0-9a-f]{8})$")


def inputs_fingerprint(manifest: Mapping[str, Any]) -> str | None:
    """sha256 (16 hex) of the manifest's fingerprint without what was drawn: the same for
    every sample of the same inputs."""
    fp = manifest.get("fingerprint")
    if not isinstance(fp, Mapping):
        return None
    parts = {k: v for k, v in fp.items() if k not in ("sha256", "sample")}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()
                          ).hexdigest()[:16]


def lineage(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """What makes samples one stream of draws (docs/method.md §7.10): population, α, seed,
    the inputs' fingerprint, the stratification, and the stream version. Two samples
    with the same `stream` differ only in how far the stream was walked (`budget`, or
    `draws`), so the smaller one's pairs are the larger one's first pairs and its
    verdicts carry over."""
    # α is part of the design (docs/method.md §6.9): samples of two α are two streams
    parts = {"population": manifest.get("population"), "alpha": manifest.get("alpha"),
             "seed": manifest.get("seed"),
             "inputs": inputs_fingerprint(manifest), "version": STREAM_VERSION,
             "stratified": bool(manifest.get("stratified")),
             "strata_allocation": manifest.get("strata_allocation")}
    key = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    out: dict[str, Any] = {"stream": key[:16], **parts}
    if manifest.get("budget") is not None:
        out["budget"] = int(manifest["budget"])
    else:
        out["draws"] = int(manifest.get("stream_draws") or 0)
    return out


_LINEAGE_KEYS = ("population", "alpha", "seed", "stratified", "strata_allocation")


def lineage_problem(manifest: Mapping[str, Any]) -> str | None:
    """Why a manifest's design disagrees with the lineage written beside it (an edit of
    `alpha`, `population`, `seed` or the stratification after the sample was drawn, which
    the estimators would otherwise take at its word), or None. The lineage's `stream` is
    the hash of its own parts (`lineage`, with its own stream version), so editing a part
    there too is seen as well. Manifests without a lineage are not checked."""
    line = manifest.get("lineage")
    if not isinstance(line, Mapping) or not line.get("stream"):
        return None
    top = {k: manifest.get(k) for k in _LINEAGE_KEYS}
    top["stratified"] = bool(top["stratified"])
    for k in _LINEAGE_KEYS:
        if top[k] != line.get(k):
            return (f"manifest.{k} is {top[k]!r} but the sample was drawn with {line.get(k)!r} "
                    f"(manifest.lineage.{k})")
    design = manifest.get("design")
    if isinstance(design, Mapping):
        for k in ("population", "alpha"):
            if k in design and design[k] != top[k]:
                return f"manifest.design.{k} is {design[k]!r} but manifest.{k} is {top[k]!r}"
    parts = {**{k: line.get(k) for k in _LINEAGE_KEYS}, "inputs": line.get("inputs"),
             "version": line.get("version")}
    key = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    if key[:16] != line["stream"] or line.get("inputs") != inputs_fingerprint(manifest):
        return ("manifest.lineage does not match its stream id or the inputs' fingerprint: "
                "the manifest was edited")
    return None


def sample_id(manifest: Mapping[str, Any]) -> str:
    """A short id of one sample: the manifest's ``sample_id`` if it has one; else, for a
    manifest with a ``lineage``, ``s<stream>-b<budget>-<hash>`` (or ``-d<draws>-``): the
    first part names the stream, so that a judgement file of an earlier (or later)
    sample of the same stream is recognised (`parse_sample_id`), and the leading letter
    keeps spreadsheets from reading the id as a number; else a hash of what makes the
    sample (inputs fingerprint, population, seed, budget, stream length, draws, pair
    counts, strata). Floats are left out of the strata (a stratum's q is a sum whose last
    bits differ between engines and thread counts): the id names the same sample
    wherever it was drawn."""
    if manifest.get("sample_id"):
        return str(manifest["sample_id"])
    parts = {k: manifest.get(k) for k in ("population", "seed", "budget", "stream_draws",
                                           "draws", "pairs", "strata")}
    if isinstance(parts["strata"], list):
        parts["strata"] = [{k: v for k, v in st.items() if not isinstance(v, float)}
                           if isinstance(st, Mapping) else st for st in parts["strata"]]
    fp = manifest.get("fingerprint")
    parts["fingerprint"] = fp.get("sha256") if isinstance(fp, Mapping) else fp
    text = json.dumps(parts, sort_keys=True, default=str)
    content = hashlib.sha256(text.encode()).hexdigest()
    line = manifest.get("lineage")
    if isinstance(line, Mapping) and line.get("stream"):
        size = (f"b{int(line['budget'])}" if line.get("budget") is not None
                else f"d{int(line.get('draws') or 0)}")
        return f"s{str(line['stream'])[:8]}-{size}-{content[:8]}"
    return content[:12]


def parse_sample_id(sid: str) -> tuple[str, str, int] | None:
    """(stream prefix, 'budget' or 'draws', size) of an id `sample_id` made from a
    lineage; None for any other id."""
    m = _SAMPLE_ID.match(sid.strip())
    if m is None:
        return None
    return m[1], "budget" if m[2] == "b" else "draws", int(m[3])


def stream_of(manifest: Mapping[str, Any]) -> tuple[str, str, int] | None:
    """(stream prefix, 'budget' or 'draws', size) of a sample, from its manifest."""
    line = manifest.get("lineage")
    if not isinstance(line, Mapping) or not line.get("stream"):
        return None
    if line.get("budget") is not None:
        return str(line["stream"])[:8], "budget", int(line["budget"])
    return str(line["stream"])[:8], "draws", int(line.get("draws") or 0)
