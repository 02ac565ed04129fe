"""Quality of Exp vs Base from a judged pair sample: the top level of ``abcde estimate``
(docs/method.md §8; ABCDE §5, App. B; Jaccard decomposition §4.3–8).

A sample (a directory written by ``abcde sample-pairs`` / ``abcde.sampling.pairs.sample_pairs``,
a stratified one from :mod:`abcde.sampling.stratified`, or a ``PairSample`` in memory) is joined
with verdicts from one of

- a judgement file (:mod:`abcde.quality.judgements`: CSV/JSONL keyed by pair id or item ids),
- a ground-truth clustering (same truth cluster ⇒ equivalent, an item the truth does
  not know ⇒ unknown), for rehearsals and simulations,
- any callable judge (i, j) → verdict, e.g. an ML model or an LLM (ABCDE App. B),

and :func:`estimate_from_draws` turns draws, verdicts and manifest into ΔPrecision, the
Good/Bad Split/Merge rates, distances and affected indexes with standard errors and
intervals: the judged sample (:mod:`abcde.quality.sample`), the metric table
(:mod:`abcde.quality.metrics`), the slices (:mod:`abcde.quality.slices`) and the words
(:mod:`abcde.quality.wording`). A stratified sample is estimated stratum by stratum — each
stratum's weighted mean × its own pair-weight total — and the strata combined: a metric
within one stratum is that stratum's estimate, ΔPrecision is the sum over strata with SEs
in quadrature (independent samples).

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5, App. B.

S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google
Switzerland, 2024, §4.3–8.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.quality.intervals import DEFAULT_SE, SE_METHODS
from abcde.quality.judgements import (
    SamplePairs,
    judge_pairs,
    match_judgements,
    merge_verdicts,
    read_judgements,
    read_truth,
    rows_from_records,
    truth_judge,
)
from abcde.quality.metrics import METRIC_KEYS, estimate_all, metric_keys, unavailable
from abcde.quality.result import Estimate, sum_independent
from abcde.quality.sample import CLASSES, POPULATIONS, JudgedSample, count_distinct, judged_sample
from abcde.quality.slices import estimate_slices, stratified_slices
from abcde.quality.verdict_log import LOG_NAME, is_verdict_log, logged_verdicts
from abcde.quality.wording import precision_verdict, sample_warnings
from abcde.sampling.files import verify_sample_files
from abcde.sampling.manifest import sample_id, stream_of

__all__ = [
    "IMPACT_KEYS",
    "Sample",
    "estimate",
    "estimate_from_draws",
    "estimate_with_verdicts",
    "load_sample",
    "verdict_log_source",
    "verdicts_for",
]

IMPACT_KEYS = ("split_rate", "merge_rate", "split_distance", "merge_distance",
               "affected_jaccard_index", "jaccard_distance", "weight")
"""The exact impact metrics of the manifest that ``abcde estimate`` reports (``impact``)."""


class Sample:
    """Draw rows and manifest of one pair sample (stratified or not), its pairs and id.

    ``where`` names the sample in messages; ``pairs`` are its unordered pairs
    (:class:`~abcde.quality.judgements.SamplePairs`), ``id`` its
    :func:`~abcde.sampling.manifest.sample_id`.
    """

    def __init__(self, draws: list[dict[str, Any]], manifest: dict[str, Any],
                 where: str = "sample", notes: Sequence[str] = ()) -> None:
        self.draws = draws
        self.manifest = manifest
        self.where = where
        self.pairs = SamplePairs.from_draws(draws)
        self.id = sample_id(manifest)
        self.stream = stream_of(manifest)
        self.notes = list(notes)  # for the report, e.g. files checked by row count only
        self.carried: dict[str, dict[str, int]] = {}  # verdicts of related samples

    @property
    def strata(self) -> list[dict[str, Any]]:
        """The manifest's strata (empty for an unstratified sample)."""
        return list(self.manifest.get("strata") or [])


def load_sample(sample: Any) -> Sample:
    """A pair sample from a directory or from memory.

    Parameters
    ----------
    sample : str, Path, PairSample or Sample
        A sample directory (manifest.json + draws.parquet or draws.csv; no draws file is
        an empty sample), its manifest.json, a PairSample (anything with ``draws`` and
        ``manifest``) or a :class:`Sample` (returned as is).

    Returns
    -------
    Sample

    Raises
    ------
    InputError
        When the directory holds no pair-sample manifest.

    References
    ----------
    docs/method.md §7.6 (sample rows), §7.9 (file digests), §8.
    """
    if isinstance(sample, Sample):
        return sample
    if hasattr(sample, "draws") and hasattr(sample, "manifest"):
        return Sample([dict(r) for r in sample.draws], dict(sample.manifest))
    path = Path(sample)
    if path.is_file() and path.name == "manifest.json":
        path = path.parent
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        raise InputError(f"{path} is not a pair sample: it has no manifest.json",
                         hint="Give the directory written by `abcde sample-pairs --out`.")
    manifest = _read_manifest(manifest_path)
    notes = verify_sample_files(path, manifest)
    draws = _read_draws(path)
    return Sample(draws, manifest, str(path), notes)


def _read_manifest(path: Path) -> dict[str, Any]:
    """manifest.json, refused with its problem (cut short, not JSON, not a pair sample's)."""
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path} is not a manifest (not UTF-8 text)",
                         hint="Give the directory written by `abcde sample-pairs --out`.") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{path} is not valid JSON ({err.msg} at line {err.lineno}, column "
                         f"{err.colno}): the file is cut short or damaged",
                         hint="Restore the sample directory as `abcde sample-pairs` wrote it "
                              "(the same inputs and seed give the same sample).") from None
    if not isinstance(manifest, dict) or manifest.get("population") not in ("abcde", "jaccard"):
        raise InputError(f"{path}: not a pair-sample manifest (no population)")
    return manifest


def _read_draws(path: Path) -> list[dict[str, Any]]:
    import duckdb

    parquet, csv_path = path / "draws.parquet", path / "draws.csv"
    con = duckdb.connect()
    try:
        if parquet.exists():
            source, rel = parquet, con.execute("SELECT * FROM read_parquet(?)", [str(parquet)])
        elif csv_path.exists():
            source, rel = csv_path, con.execute("SELECT * FROM read_csv(?, header = true)",
                                                [str(csv_path)])
        else:
            return []  # Base = Exp: an empty sample
        names = [d[0] for d in rel.description]
        return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]
    except duckdb.Error as err:
        text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(f"{source} cannot be read: {text}",
                         hint="The file is damaged: restore the sample directory as `abcde "
                              "sample-pairs` wrote it.") from None
    finally:
        con.close()


def verdicts_for(s: Sample, judgements: Any = None, truth: Any = None,
                 judge: Callable[[Any, Any], Any] | None = None, *,
                 item_col: str = "item_id", cluster_col: str = "cluster_id") -> dict[str, str]:
    """The verdicts of a sample's pairs from exactly one source.

    Parameters
    ----------
    s : Sample
        The sample.
    judgements : str, Path, list of them, or list of mappings, optional
        Judgement files (their verdicts merged: a contradiction between them is an
        error) or rows (:mod:`abcde.quality.judgements`). Rows of another sample of the
        same stream carry their verdicts over (docs/method.md §7.10; counted in
        ``s.carried``).
    truth : mapping, DataFrame, str or Path, optional
        A ground truth (:func:`~abcde.quality.judgements.read_truth`,
        :func:`~abcde.quality.judgements.truth_judge`).
    judge : callable, optional
        (i, j) → verdict.
    item_col, cluster_col : str
        Columns of a ``truth`` table.

    Returns
    -------
    dict of str to str
        pair_id (as text) → verdict.

    Raises
    ------
    InputError
        Unless exactly one source is given, or when it cannot be used.

    References
    ----------
    docs/method.md §8.1.
    """
    given = [x is not None for x in (judgements, truth, judge)]
    if sum(given) != 1:
        raise InputError("give exactly one of judgements, truth and judge")
    if judge is not None:
        return judge_pairs(judge, s.pairs)
    if truth is not None:
        return judge_pairs(truth_judge(read_truth(truth, item_col, cluster_col)), s.pairs)
    if isinstance(judgements, str | Path):
        judgements = [judgements]
    if isinstance(judgements, Sequence) and judgements and all(
            isinstance(j, str | Path) for j in judgements):
        found = []
        for path in judgements:
            where = str(path)
            found.append((where, match_judgements(
                read_judgements(path), s.pairs, expected_sample_id=s.id, where=where,
                stream=s.stream, carried=s.carried)))
        return merge_verdicts(found)
    # rows in memory: a list of mappings
    records = list(enumerate(judgements, start=1))
    columns = set().union(*(r.keys() for _, r in records)) if records else {"verdict"}
    rows = rows_from_records(records, columns, "judgements")
    return match_judgements(rows, s.pairs, expected_sample_id=s.id, where="judgements",
                            stream=s.stream, carried=s.carried)


def estimate(sample: Any, judgements: Any = None, truth: Any = None,
             judge: Callable[[Any, Any], Any] | None = None, *, confidence: float = 0.95,
             se_method: str = DEFAULT_SE, item_col: str = "item_id",
             cluster_col: str = "cluster_id") -> dict[str, Any]:
    """Quality estimates of a judged pair sample, as a JSON-ready dict (``abcde estimate``,
    ``abcde.estimate``).

    Parameters
    ----------
    sample : str, Path, PairSample or Sample
        A sample directory (manifest.json + draws), a ``PairSample`` or a :class:`Sample`.
    judgements : str, Path, list of them, or list of mappings, optional
        CSV/JSONL judgement files or rows (:mod:`abcde.quality.judgements`); verdicts of
        an earlier (or later) sample of the same stream carry over (docs/method.md §7.10).
        Or one verdict log of ``abcde judge`` (:mod:`abcde.quality.verdict_log`), which
        is replayed: every judge's current verdicts, resolved by majority.
    truth : mapping, DataFrame, str or Path, optional
        A ground truth item → cluster (a mapping, a DataFrame or a CSV/Parquet file):
        same cluster ⇒ equivalent, an item it lacks ⇒ unknown.
    judge : callable, optional
        (i, j) → 'equivalent' | 'not_equivalent' | 'unknown' or True/False/None.
        At most one of ``judgements``, ``truth`` and ``judge``; with none, the sample
        directory's ``verdicts.jsonl`` (written by ``abcde judge``).
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        "pair_clustered" (default) or the paper's "kirchner"
        (:func:`~abcde.quality.intervals.reweighted_mean_se`).
    item_col, cluster_col : str
        Columns of a ``truth`` table.

    Returns
    -------
    dict
        Every key of :func:`estimate_from_draws` (each metric of
        :data:`~abcde.quality.metrics.METRIC_KEYS` as estimate/se/ci_low/ci_high/interval/
        n_eff/pairs/…, the keys the population cannot give with estimate None and the
        reason; ``verdict``, ``warnings``, ``slices``, ``sample``, ``unavailable``), plus
        ``impact`` (the exact impact metrics from the manifest that the quality metrics
        decompose), ``sample_id``, ``strata`` (stratified samples), ``judgements``
        (counts of verdicts), ``carried_over`` (verdicts of other samples of the same
        stream, per sample id: rows, verdicts, unknown, not_in_sample) and ``notes``
        (e.g. a sample whose manifest has no file digests); from a verdict log also
        ``judging`` (judges, agreement, contested pairs:
        :func:`~abcde.quality.verdict_log.logged_verdicts`).

    Raises
    ------
    InputError
        On a sample, judgement file or truth that cannot be used, with the reason.

    References
    ----------
    docs/method.md §8, §12 (the verdict log). ABCDE §5, App. B (S. van Staden, A. Grubb.
    ABCDE: Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430);
    Jaccard decomposition §4.3–8
    (S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE.
    Google Switzerland, 2024).
    """
    if se_method not in SE_METHODS:
        raise ValueError(f"se_method must be one of {SE_METHODS}")
    s = load_sample(sample)
    log = verdict_log_source(s, judgements, truth, judge)
    if log is not None:  # abcde judge's log: judges, agreement, majority
        logged = logged_verdicts(log, s.pairs, s.id)
        out = estimate_with_verdicts(s, logged.verdicts, confidence=confidence,
                                     se_method=se_method)
        out["judging"] = logged.judging
        return out
    verdicts = verdicts_for(s, judgements, truth, judge, item_col=item_col,
                            cluster_col=cluster_col)
    return estimate_with_verdicts(s, verdicts, confidence=confidence, se_method=se_method)


def verdict_log_source(s: Sample, judgements: Any, truth: Any,
                       judge: Callable[[Any, Any], Any] | None) -> Path | None:
    """The verdict log to estimate from, if any.

    Parameters
    ----------
    s : Sample
        The sample (``where`` is its directory when it was read from one).
    judgements, truth, judge
        The sources given to :func:`estimate`.

    Returns
    -------
    Path or None
        ``judgements`` when it is a verdict log; with no source at all, the sample
        directory's ``verdicts.jsonl``; None when another source is given.

    Raises
    ------
    InputError
        With no source and no log, saying how to judge the pairs.

    References
    ----------
    docs/method.md §12.2.
    """
    if isinstance(judgements, str | Path) and is_verdict_log(judgements):
        return Path(judgements)
    if isinstance(judgements, Sequence) and not isinstance(judgements, str):
        logs = [j for j in judgements if isinstance(j, str | Path) and is_verdict_log(j)]
        if len(logs) == 1 and len(judgements) == 1:
            return Path(logs[0])
        if logs:
            raise InputError(f"{logs[0]} is a verdict log of `abcde judge`: it is replayed "
                             "alone, not merged with other judgement files",
                             hint="Give the verdict log alone, or the judgement files "
                                  "without it.")
    if judgements is not None or truth is not None or judge is not None:
        return None
    path = Path(s.where) / LOG_NAME
    if s.where != "sample" and path.is_file():
        return path
    raise InputError(f"no verdicts for {s.where}: give judgements, truth or judge"
                     + ("" if s.where == "sample" else f" ({path} does not exist)"),
                     hint="Judge the pairs in the browser with `abcde judge DIR`, or fill "
                          "the verdict column of the sample's questions.csv and pass it "
                          "with --judgements.")


def estimate_with_verdicts(s: Sample, verdicts: Mapping[str, str], *,
                           confidence: float = 0.95,
                           se_method: str = DEFAULT_SE) -> dict[str, Any]:
    """:func:`estimate` once the verdicts are known.

    Parameters
    ----------
    s : Sample
        The loaded sample.
    verdicts : mapping of str to str
        pair_id (as text) → 'equivalent' | 'not_equivalent' | 'unknown'.
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se`.

    Returns
    -------
    dict
        As :func:`estimate`.

    Raises
    ------
    InputError
        When the draws, verdicts or manifest are inconsistent (naming the sample).

    References
    ----------
    docs/method.md §8, §8.10 (stratified samples).
    """
    draws = _draw_columns(s.draws)
    strata = s.strata
    try:
        if not strata:
            out = estimate_from_draws(draws, verdicts, _manifest_for(s.manifest),
                                      confidence=confidence, se_method=se_method)
        else:
            out = _estimate_stratified(s, draws, verdicts, confidence, se_method)
    except ValueError as err:
        raise InputError(f"{s.where}: {err}") from None
    metrics = s.manifest.get("metrics") or {}
    out["impact"] = {k: metrics.get(k) for k in IMPACT_KEYS if k in metrics}
    out["sample_id"] = s.id
    counts = {v: 0 for v in ("equivalent", "not_equivalent", "unknown")}
    for v in verdicts.values():
        counts[v] += 1
    out["judgements"] = counts
    if s.carried:
        out["carried_over"] = [{"sample_id": sid, **v} for sid, v in sorted(s.carried.items())]
    if s.notes:
        out["notes"] = list(s.notes)
    return out


def estimate_from_draws(
    draws: Any,
    verdicts: Any,
    manifest: Mapping[str, Any],
    *,
    confidence: float = 0.95,
    se_method: str = DEFAULT_SE,
) -> dict[str, Any]:
    """All quality estimates of draw rows, verdicts and a manifest, as a JSON-ready dict.

    The level below :func:`estimate`, without sample files: the draw rows of one
    (unstratified) sample, its verdicts and the parts of its manifest the estimators read.

    Parameters
    ----------
    draws : columns, rows, DataFrame, pyarrow table or DuckDB relation
        One row per unique ordered pair drawn (:func:`~abcde.quality.sample.judged_sample`).
    verdicts : mapping, column mapping or rows
        pair_id → verdict (:func:`~abcde.quality.sample.judged_sample`).
    manifest : mapping
        ``population`` ("abcde" or "jaccard"); ``totals`` (total, split, merge, stable:
        the population's pair-weight sums, docs/method.md §6.4); ``metrics`` (the exact
        impact metrics; on the jaccard population ``split_rate`` and ``merge_rate`` are
        the rates' multipliers and required for them); ``slices`` and ``weight`` (W) for
        per-slice ΔPrecision.
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se` (identical when every
        pair has a verdict).

    Returns
    -------
    dict
        ``population``, ``se_method``; every key of
        :data:`~abcde.quality.metrics.METRIC_KEYS` — each a dict estimate, se, ci_low,
        ci_high, confidence, interval, n_eff, pairs, draws, multiplier, note (estimate
        None + note when the sample cannot tell; on the abcde population the distances
        and indexes always, with the reason, which ``unavailable`` also lists);
        ``unavailable``; ``slices`` (per-slice ΔPrecision and contribution, when the
        manifest has slices); ``sample`` (draws, pairs, unknowns and reweighting factors
        per class); ``warnings`` (why the intervals may not be trusted) and ``verdict``
        (ΔPrecision in words).

    Raises
    ------
    ValueError
        On an unknown ``se_method`` or population, inconsistent manifest totals, or
        draws and verdicts :func:`~abcde.quality.sample.judged_sample` refuses.

    References
    ----------
    docs/method.md §8.1–8.9. ABCDE §5.7–5.8, App. B (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §6.1, §7–8 (S. van Staden. Decomposing the Jaccard Distance and the
    Jaccard Index in ABCDE. Google Switzerland, 2024).
    """
    if se_method not in SE_METHODS:
        raise ValueError(f"se_method must be one of {SE_METHODS}, got {se_method!r}")
    population = manifest.get("population")
    if population not in POPULATIONS:
        raise ValueError(f"manifest.population must be one of {POPULATIONS}, got {population!r}")
    totals = _totals(manifest, population)
    s = judged_sample(draws, verdicts, population)
    _check_classes_against_totals(s, totals)
    return _estimate_judged(s, manifest, totals, confidence, se_method)


def _estimate_judged(s: JudgedSample, manifest: Mapping[str, Any], totals: Mapping[str, float],
                     confidence: float, se_method: str) -> dict[str, Any]:
    """:func:`estimate_from_draws` once the sample is judged and the totals checked."""
    opts: dict[str, Any] = {"confidence": confidence, "se_method": se_method}
    multipliers = {**totals, **_rate_multipliers(manifest, s.population, totals)}
    results = estimate_all(s, multipliers, **opts)
    out: dict[str, Any] = {"population": s.population, "se_method": se_method}
    out.update({k: results[k].as_dict() for k in METRIC_KEYS})
    out["unavailable"] = unavailable(s.population)
    slices = manifest.get("slices")
    if slices:
        total_weight = _metric(manifest, "weight")
        if total_weight is None:
            raise ValueError("manifest has slices but no total item weight 'weight' (W)")
        out["slices"] = [e.as_dict() for e in estimate_slices(s, slices, total_weight, **opts)]
    known = s.known
    out["sample"] = {
        "rows": s.rows,
        "draws": int(s.draw_count.sum()),
        "pairs": count_distinct(s.pair_key),
        "judged_pairs": count_distinct(s.pair_key[known]),
        "unknown_pairs": count_distinct(s.pair_key[~known]),
        "missing_verdicts": s.missing_verdicts,
        "unused_verdicts": s.unused_verdicts,
        "classes": {name: t.as_dict() for name, t in s.tallies.items()},
    }
    out["warnings"] = sample_warnings(out["sample"], totals)
    out["verdict"] = precision_verdict(results["delta_precision"], warnings=out["warnings"])
    return out


# --------------------------------------------------------------------------- #
# Manifest
# --------------------------------------------------------------------------- #

_TOLERANCE = 1e-6  # relative tolerance for manifest consistency checks


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(abs(a), abs(b)) + 1e-15


def _metric(manifest: Mapping[str, Any], name: str) -> float | None:
    for section in ("metrics", "impact"):
        inner = manifest.get(section)
        if isinstance(inner, Mapping) and inner.get(name) is not None:
            return float(inner[name])
    value = manifest.get(name)
    return None if value is None else float(value)


def _totals(manifest: Mapping[str, Any], population: str) -> dict[str, float]:
    """Class totals of the pair population (docs/method.md §6.4), checked against the
    impact metrics."""
    raw = manifest.get("totals")
    if not isinstance(raw, Mapping):
        raise ValueError("manifest.totals must map total, split, merge, stable to pair-weight sums")
    missing = [k for k in ("total", "split", "merge", "stable") if raw.get(k) is None]
    if missing:
        raise ValueError(f"manifest.totals lacks {missing}")
    totals = {k: float(raw[k]) for k in ("total", "split", "merge", "stable")}
    for k, v in totals.items():
        if not (math.isfinite(v) and v >= 0):
            raise ValueError(f"manifest.totals.{k} must be finite and ≥ 0, got {v}")
    parts = totals["split"] + totals["merge"] + totals["stable"]
    if not _close(totals["total"], parts):
        raise ValueError(
            f"manifest.totals: total {totals['total']!r} ≠ split + merge + stable {parts!r}"
        )
    expected = (
        {"split": "split_rate", "merge": "merge_rate"}
        if population == "abcde"
        else {
            "split": "split_distance",
            "merge": "merge_distance",
            "stable": "affected_jaccard_index",
        }
    )
    for k, metric in expected.items():
        value = _metric(manifest, metric)
        if value is not None and not _close(value, totals[k]):
            raise ValueError(
                f"manifest: totals.{k} = {totals[k]!r} but {metric} = {value!r}; for the "
                f"{population} population they are the same sum (is the population right?)"
            )
    return totals


def _check_classes_against_totals(s: JudgedSample, totals: Mapping[str, float]) -> None:
    for code, name in enumerate(CLASSES):
        total_key = "stable" if name == "self" else name
        if totals[total_key] == 0 and (s.pair_class == code).any():
            raise ValueError(f"draws include {name} pairs but manifest.totals.{total_key} is 0")


def _rate_multipliers(
    manifest: Mapping[str, Any], population: str, totals: Mapping[str, float]
) -> dict[str, float | None]:
    """split_rate and merge_rate (SplitRate(T), MergeRate(T)), the multipliers of the
    rates (docs/method.md §8.5): the abcde population's split and merge totals, or the
    manifest's exact impact metrics on the jaccard population (None when the manifest
    lacks them); 0 for a class with no pairs (e.g. a stratum without it)."""
    out: dict[str, float | None] = {}
    for cls in ("split", "merge"):
        if population == "abcde" or totals[cls] == 0:
            out[f"{cls}_rate"] = totals[cls]
        else:
            out[f"{cls}_rate"] = _metric(manifest, f"{cls}_rate")
    return out


# --------------------------------------------------------------------------- #
# Samples on file, stratified samples
# --------------------------------------------------------------------------- #


def _draw_columns(draws: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """Draw rows as columns, pair ids as text (the verdicts' keys)."""
    if not draws:
        return {k: [] for k in ("pair_id", "item_i", "item_j", "pair_class", "label",
                                "draw_count")}
    names = list(draws[0])
    cols = {n: [r.get(n) for r in draws] for n in names}
    cols["pair_id"] = [str(p) for p in cols["pair_id"]]
    for drop in ("first_draw", "base_cluster_i", "exp_cluster_i", "base_cluster_j",
                 "exp_cluster_j", "stratum"):
        cols.pop(drop, None)
    return cols


def _manifest_for(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The estimators' manifest: population, totals, metrics, slices (W)."""
    out = {k: manifest[k] for k in ("population", "totals", "metrics", "slices", "weight")
           if k in manifest}
    return out


def _estimate_stratified(s: Sample, draws: dict[str, list[Any]], verdicts: Mapping[str, str],
                         confidence: float, se_method: str) -> dict[str, Any]:
    """Stratum by stratum, then combined (each stratum's mean × its own total; a metric
    whose pair classes lie in one stratum is that stratum's estimate; ΔPrecision sums
    the strata, SEs in quadrature; docs/method.md §8.10)."""
    population = s.manifest["population"]
    stratum_of = [r["stratum"] for r in s.draws]
    parts: dict[str, dict[str, Any]] = {}
    judged: dict[str, JudgedSample] = {}
    for st in s.strata:
        rows = [k for k, name in enumerate(stratum_of) if name == st["name"]]
        sub = {c: [v[k] for k in rows] for c, v in draws.items()}
        manifest = {"population": population, "totals": st["totals"]}
        if population == "jaccard":  # the rates' multipliers SplitRate(T), MergeRate(T)
            metrics = s.manifest.get("metrics") or {}
            manifest["metrics"] = {k: metrics[k] for k in ("split_rate", "merge_rate")
                                   if k in metrics}
        totals = _totals(manifest, population)
        judged[st["name"]] = js = judged_sample(sub, verdicts, population)
        _check_classes_against_totals(js, totals)
        parts[st["name"]] = _estimate_judged(js, manifest, totals, confidence, se_method)
    out: dict[str, Any] = {"population": population, "se_method": se_method}
    owner = {"split": "split_merge", "merge": "split_merge", "stable": "stable"}
    for key in METRIC_KEYS:
        if key not in metric_keys(population):  # the reason, as unstratified
            out[key] = next(iter(parts.values()))[key]
            continue
        if key == "delta_precision":
            est = sum_independent([Estimate.from_dict(p[key]) for p in parts.values()],
                                  confidence)
            out[key] = est.as_dict()
            thin = _thin_stable_stratum(s.strata)
            if thin:
                out[key]["note"] = "; ".join(x for x in (out[key].get("note"), thin) if x)
            continue
        cls = "stable" if "index" in key else "split" if "split" in key else \
            "merge" if "merge" in key else "split"
        out[key] = parts[owner[cls]][key]
    first = next(iter(parts.values()))
    out["unavailable"] = first["unavailable"]
    if s.manifest.get("slices"):
        out["slices"] = [e.as_dict() for e in stratified_slices(
            judged, s.manifest["slices"], float(s.manifest["weight"]), confidence=confidence,
            se_method=se_method)]
    out["strata"] = [{**st, "sample": parts[st["name"]]["sample"],
                      "delta_precision": parts[st["name"]]["delta_precision"]}
                     for st in s.strata]
    out["sample"] = _merge_samples([p["sample"] for p in parts.values()])
    totals = {c: sum(float(st["totals"].get(c, 0.0)) for st in s.strata)
              for c in ("split", "merge", "stable")}
    out["warnings"] = sample_warnings(out["sample"], totals)
    out["verdict"] = precision_verdict(Estimate.from_dict(out["delta_precision"]),
                                       warnings=out["warnings"])
    return out


# Below this share of the budget in the stable stratum, stratified ΔPrecision intervals
# were measured too narrow (0.2: the SE understated the spread by ~15%, benchmarks/
# RESULTS.md); equal allocation (0.5) was within noise.
STABLE_SHARE_FOR_DELTA_PRECISION = 1 / 3


def _thin_stable_stratum(strata: Sequence[Mapping[str, Any]]) -> str | None:
    """A note for ΔPrecision when the stable stratum got little of the budget."""
    budgets = {st["name"]: int(st.get("budget") or 0) for st in strata}
    total = sum(budgets.values())
    stable = budgets.get("stable", 0)
    if not total or stable >= STABLE_SHARE_FOR_DELTA_PRECISION * total:
        return None
    return (f"the stable stratum got {stable} of {total} pairs: with so few, this interval "
            "tends to be too narrow (~91% coverage at 20%); read ΔPrecision from an "
            "unstratified or equal-allocation sample")


def _merge_samples(samples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in ("rows", "draws", "pairs", "judged_pairs", "unknown_pairs", "missing_verdicts"):
        out[k] = sum(int(x[k]) for x in samples)
    classes: dict[str, dict[str, Any]] = {}
    for x in samples:
        for name, t in x["classes"].items():
            if t["sampled_draws"]:
                classes[name] = t
            else:
                classes.setdefault(name, t)
    out["classes"] = classes
    return out
