"""Quality of Exp vs Base from a judged pair sample: the top level of ``abcde estimate``
(docs/method.md §8; ABCDE §5, App. B; Jaccard decomposition §4.3–8).

A pair sample (a directory of ``abcde sample-pairs``, a warehouse sample's tables, a
``PairSample`` in memory) is joined with verdicts from judgement files, a ground truth or
a callable judge (:mod:`abcde.quality.judgements`), or from the verdict log of ``abcde
judge``, and estimated by the metric table (:mod:`abcde.quality.metrics`). A stratified
sample is estimated as an unstratified one, except that the design's expected effective
sample size counts each stratum's draws against its own probability (§8.10).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from abcde.errors import InputError, Shown
from abcde.inputs.records import CSV_SUFFIXES, record_suffix
from abcde.params import CONFIDENCE, OneOf, checked
from abcde.quality.intervals import DEFAULT_SE, SE_METHODS
from abcde.quality.judgements import (
    SamplePairs,
    id_text,
    judge_pairs,
    match_judgements,
    merge_verdicts,
    read_judgements,
    read_truth,
    rows_from_records,
    table_columns,
    truth_judge,
)
from abcde.quality.judging import logged_verdicts
from abcde.quality.metrics import MAX_UNKNOWN_SHARE, METRIC_KEYS, Design, estimate_all, unavailable
from abcde.quality.ppi import class_summary, model_log, read_model_verdicts
from abcde.quality.sample import CLASS_KEYS, JudgedSample, count_distinct, judged_sample
from abcde.quality.sequential import STOP_WHEN, Question, sequential_doc
from abcde.quality.slices import estimate_slices
from abcde.quality.wording import UNKNOWN_START, precision_verdict, sample_warnings, undrawn
from abcde.sample_files.exported import is_exported, read_exported, read_tables
from abcde.sample_files.layout import LOG_NAME, MANIFEST, restore
from abcde.sample_files.manifest import DESIGN_VERSION, sample_id, stream_of
from abcde.sample_files.pairs import HUMAN_COLUMN, read_draws, read_pair_manifest
from abcde.sample_files.verdicts import is_verdict_log

__all__ = ["IMPACT_KEYS", "Sample", "estimate", "estimate_from_draws", "estimate_with_verdicts",
           "load_sample", "load_tables", "verdict_counts", "verdict_log_source", "verdicts_for"]

IMPACT_KEYS = ("split_rate", "merge_rate", "split_distance", "merge_distance",
               "affected_jaccard_index", "jaccard_distance", "weight")
"""The exact impact metrics of the manifest that ``abcde estimate`` reports (``impact``)."""
SE_METHOD = OneOf(SE_METHODS)


class Sample:
    """Draw rows and manifest of one pair sample (stratified or not), its pairs
    (:class:`~abcde.quality.judgements.SamplePairs`) and id; `where` names it in
    messages, `directory` is where it was read from (None: in memory, or tables)."""

    def __init__(self, draws: list[dict[str, Any]], manifest: dict[str, Any],
                 where: str = "the sample", directory: Path | None = None) -> None:
        self.draws = draws
        self.manifest = manifest
        self.where = where
        self.directory = directory
        self.pairs = SamplePairs.from_draws(draws)
        self.id = sample_id(manifest)
        self.stream = stream_of(manifest)
        self.carried: dict[str, dict[str, int]] = {}  # verdicts of related samples

    @property
    def strata(self) -> list[dict[str, Any]]:
        """The manifest's strata (empty for an unstratified sample)."""
        return list(self.manifest.get("strata") or [])

    @property
    def human_pairs(self) -> set[str] | None:
        """A model round's pairs for the humans (the others are the model's alone,
        docs/method.md §8.15); None in a round of human verdicts only."""
        if not self.manifest.get("humans"):
            return None
        return {str(id_text(r["pair_id"])) for r in self.draws if r.get(HUMAN_COLUMN) is not None}


# --------------------------------------------------------------------------- #
# Samples from files and tables (abcde.sample_files reads them), the manifest's parts
# --------------------------------------------------------------------------- #


def load_sample(sample: Any) -> Sample:
    """A pair sample from a directory or from memory.

    Parameters
    ----------
    sample : str, Path, PairSample or Sample
        A sample directory of `abcde sample-pairs --out` (or its manifest.json), a
        directory of a warehouse sample's exported tables
        (:mod:`abcde.sample_files.exported`), a PairSample (anything with ``draws`` and
        ``manifest``) or a :class:`Sample` (returned as is).

    Returns
    -------
    Sample

    Raises
    ------
    InputError
        For a directory that holds no pair sample, or files not as abcde wrote them.

    References
    ----------
    docs/method.md §7.6 (sample rows), §7.9 (file digests), §8.
    """
    if isinstance(sample, Sample):
        return sample
    if hasattr(sample, "draws") and hasattr(sample, "manifest"):
        return Sample([dict(r) for r in sample.draws], dict(sample.manifest))
    if not isinstance(sample, str | Path):  # an ItemSample, None, rows: a TypeError of Path
        kind = "an item sample (sample_items)" if hasattr(sample, "rows") and hasattr(
            sample, "manifest") else f"a {type(sample).__name__}"
        raise InputError(f"the sample must be a pair sample, not {kind}",
                         hint="Give what abcde.sample_pairs returned, or the directory "
                              "`abcde sample-pairs --out` wrote.")
    path = Path(sample)
    if path.name == MANIFEST and path.is_file():
        path = path.parent
    if not (path / MANIFEST).exists() and is_exported(path):
        return Sample(*read_exported(path), str(path), path)
    if not (path / MANIFEST).exists():
        raise InputError(f"{path} is not a pair sample: it has no {MANIFEST}",
                         hint="Give the directory written by `abcde sample-pairs --out`.")
    manifest = read_pair_manifest(path)
    return Sample(read_draws(path, manifest), manifest, str(path), path)


def load_tables(prefix: str, schema: str | None = None, *, db: str | Path | None = None,
                engine: Any = None) -> Sample:
    """A pair sample made in a warehouse, read from its tables.

    Parameters
    ----------
    prefix : str
        The ``--prefix`` of ``abcde sql sample-pairs`` (tables ``<prefix>pair_manifest``,
        ``<prefix>pair_sample``, ``<prefix>pair_slices``, ``<prefix>pair_sample_strata``).
    schema : str, optional
        Their schema.
    db : str or Path, optional
        A DuckDB database file holding them (opened read-only).
    engine : Engine, optional
        Else an open engine reaching them (PostgreSQL, Spark).

    Returns
    -------
    Sample

    Raises
    ------
    InputError
        Missing tables, a manifest that is not one row, a sample of invalid input.

    References
    ----------
    docs/method.md §7.6 (sample rows), §8.
    """
    draws, manifest = read_tables(prefix, schema, db=db, engine=engine)
    return Sample(draws, manifest, f"{schema + '.' if schema else ''}{prefix}pair_*")


def _restored(rows: list[Any], s: Sample) -> list[Any]:
    """Rows of a CSV of questions abcde wrote for this sample (or another of its
    stream), with the item ids as they were before `abcde.sample_files.layout.neutralised`."""
    if "format" not in s.manifest:  # not written by abcde's sampler: nothing was added
        return rows
    for r in rows:
        if r.sample_id is not None:
            r.item_1, r.item_2 = id_text(restore(r.item_1)), id_text(restore(r.item_2))
    return rows


def check_design(manifest: Mapping[str, Any]) -> None:
    """Refuse a sample drawn before the mixture design (docs/method.md §8.1): it sampled
    the self pairs and one population only, so its estimates can be confidently wrong."""
    if (manifest.get("design") or {}).get("version") != DESIGN_VERSION:
        raise ValueError(
            "this sample was drawn by an earlier abcde (its manifest has no design version "
            f"{DESIGN_VERSION}): it sampled the self pairs and one pair population, whose "
            "importance weights toward the other are unbounded, so its estimates can be "
            "confidently wrong; it is not estimated (docs/method.md §8.1)")


def _metric(manifest: Mapping[str, Any], name: str) -> float | None:
    for section in ("metrics", "impact"):
        inner = manifest.get(section)
        if isinstance(inner, Mapping) and inner.get(name) is not None:
            return float(inner[name])
    value = manifest.get(name)
    return None if value is None else float(value)


CLASS_FIELDS = ("u", "w", "q", "kish_u", "kish_w", "u_uncovered", "w_uncovered")


def _classes(manifest: Mapping[str, Any]) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """The manifest's classes (docs/method.md §6.4, §6.9) and Σu, Σw; a target of total
    0 has no part to estimate (Base = Exp), its sum only scales unused weights."""
    classes = {k: {f: float(manifest["classes"][k][f]) for f in CLASS_FIELDS}
               for k in CLASS_KEYS}
    return classes, {t: sum(c[t] for c in classes.values()) or 1.0 for t in ("u", "w")}


def _exact(manifest: Mapping[str, Any]) -> dict[str, float]:
    return {k: float(manifest["exact"].get(k) or 0.0)
            for k in ("delta_precision", "affected_good_index")}


# --------------------------------------------------------------------------- #
# Verdicts and the estimate
# --------------------------------------------------------------------------- #


def verdicts_for(s: Sample, judgements: Any = None, truth: Any = None,
                 judge: Callable[[Any, Any], Any] | None = None, *,
                 item_col: str = "item_id", cluster_col: str = "cluster_id") -> dict[str, str]:
    """pair_id (as text) → verdict of the sample's pairs from exactly one source:
    judgement files (merged; rows of another sample of the stream carry over, counted in
    ``s.carried``) or rows (a DataFrame, an Arrow table, mappings), a truth, or a judge."""
    if sum(x is not None for x in (judgements, truth, judge)) != 1:
        raise InputError("give exactly one of judgements, truth and judge")
    if judge is not None:
        return judge_pairs(judge, s.pairs)
    if truth is not None:
        return judge_pairs(truth_judge(read_truth(truth, item_col, cluster_col)), s.pairs)
    if isinstance(judgements, str | Path):
        judgements = [judgements]
    if isinstance(judgements, Sequence) and judgements and all(
            isinstance(j, str | Path) for j in judgements):
        return merge_verdicts([(str(p), match_judgements(
            _restored(read_judgements(p), s) if record_suffix(Path(p)) in CSV_SUFFIXES
            else read_judgements(p), s.pairs, expected_sample_id=s.id, where=str(p),
            stream=s.stream, carried=s.carried)) for p in judgements])
    table = table_columns(judgements, "judgements")
    if table is not None:  # its rows, numbered from 1; an empty table still names columns
        rows = [dict(zip(table, row, strict=True)) for row in zip(*table.values(), strict=True)]
    else:
        rows = list(judgements) if isinstance(judgements, Iterable) and not isinstance(
            judgements, bytes) else [judgements]
    if not all(isinstance(r, Mapping) for r in rows):
        raise InputError(
            f"judgements must be judgement files, rows (mappings) or a table, not "
            f"{judgements!r:.80}", hint="Pass the path of the filled questions.csv, or its "
            "rows as a DataFrame or a list of dicts with the columns pair_id (or item_1, "
            "item_2) and verdict.")
    columns = set(table) if table is not None else set().union(*(r.keys() for r in rows)) \
        if rows else {"verdict"}
    return match_judgements(rows_from_records(enumerate(rows, start=1), columns, "judgements"),
                            s.pairs, expected_sample_id=s.id, where="judgements",
                            stream=s.stream, carried=s.carried)


@checked(confidence=CONFIDENCE, se_method=SE_METHOD, stop_when=STOP_WHEN)
def estimate(sample: Any, judgements: Any = None, truth: Any = None,
             judge: Callable[[Any, Any], Any] | None = None, *, confidence: float = 0.95,
             se_method: str = DEFAULT_SE, item_col: str = "item_id",
             cluster_col: str = "cluster_id", sequential: bool = False,
             stop_when: Any = (), model: Any = None) -> dict[str, Any]:
    """Quality estimates of a judged pair sample, as a JSON-ready dict (``abcde estimate``).

    Parameters
    ----------
    sample : str, Path, PairSample or Sample
        A sample directory of ``abcde sample-pairs`` (or of a warehouse sample's exported
        tables), its manifest.json, a ``PairSample`` or a :class:`Sample`.
    judgements : str, Path, list of them, DataFrame, Arrow table or list of mappings, optional
        CSV/JSONL judgement files (the filled questions.csv; several are merged) or rows
        keyed by pair_id or item_1, item_2; or the verdict log of ``abcde judge``,
        replayed (every judge's current verdicts, resolved by majority). Verdicts of
        another sample of the same stream carry over (docs/method.md §7.10).
    truth : mapping, DataFrame, Arrow table, str or Path, optional
        A ground truth item → cluster: same cluster ⇒ equivalent, an item it lacks ⇒
        unknown.
    judge : callable, optional
        (i, j) → a verdict ('equivalent', 'not_equivalent', 'unknown', True/False/None).
        At most one of ``judgements``, ``truth`` and ``judge``; with none, the sample
        directory's verdicts.jsonl (``abcde judge``).
    confidence : float
        The intervals' level, in (0, 1).
    se_method : {"pair_clustered", "kirchner"}
        The SE of the ratio estimators (docs/method.md §8.7); identical when every pair
        is judged.
    item_col, cluster_col : str
        Columns of a ``truth`` table.
    sequential : bool
        Also the confidence sequences at the pairs judged in stream order
        (:mod:`abcde.quality.sequential`, docs/method.md §8.14): ``sequential``.
    stop_when : str or sequence of str
        Questions for its stop signal ('delta_precision>0', 'bad_merge_rate<0.02',
        'halfwidth<=0.01'); any implies ``sequential``.
    model : str, Path, mapping or callable, optional
        A model judge's verdicts on (many of) the sample's pairs: a CSV/JSONL file of
        pair_id and verdict or probability, a mapping pair id → verdict or P(equivalent),
        or a callable (i, j) → either; default: the sample directory's
        model_verdicts.jsonl (``abcde model-judge``) if any. The human verdicts then
        correct the model's and the intervals are prediction-powered (docs/method.md
        §8.15); ``model`` in the result gives per class the agreement, λ and what the
        human verdicts are worth.

    Returns
    -------
    dict
        ``population``, ``alpha``, ``se_method``; per metric of
        :data:`~abcde.quality.metrics.METRIC_KEYS` estimate, se, ci_low, ci_high,
        confidence, interval, n_eff, pairs, draws, multiplier, exact, not_conclusive, note
        and unknown_range; ``unavailable``, ``slices``, ``sample`` (draws, pairs, unknowns
        and reweighting per class), ``warnings``, ``verdict`` (ΔPrecision in words),
        ``impact`` (the manifest's exact impact metrics), ``sample_id``, ``strata``,
        ``judgements`` (verdict counts), ``carried_over``, ``notes``, from a verdict
        log ``judging`` (judges, agreement, contested pairs) and with ``sequential`` or
        ``stop_when`` ``sequential`` (the sequences and answers, docs/quality.md).

    Raises
    ------
    InputError
        For a sample, judgement file or truth that cannot be used, naming it; and when
        the source gives no known verdict for any of the sample's pairs.

    References
    ----------
    docs/method.md §8, §12. S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff
    Evals. Google, 2024, arXiv:2407.21430, §5, App. B. S. van Staden. Decomposing the
    Jaccard Distance and the Jaccard Index in ABCDE. Google Switzerland, 2024, §4.3–8.
    """
    s = load_sample(sample)
    found = model_log(s.directory)
    unused = None  # `abcde model-judge` judged it; the sequences read humans only
    if model is None and found is not None:
        unused, model = (found, None) if sequential or stop_when else (None, found)
    log = verdict_log_source(s, judgements, truth, judge)
    if log is not None:
        logged = logged_verdicts(log, s.pairs, s.id)
        _refuse_no_known_verdict(s, logged.verdicts, f"the verdict log {log}", "log")
        out = estimate_with_verdicts(s, logged.verdicts, confidence=confidence,
                                     se_method=se_method, stop_when=stop_when,
                                     sequential=sequential, model=model)
        out["judging"] = logged.judging
        return _model_unused(out, unused)
    verdicts = verdicts_for(s, judgements, truth, judge, item_col=item_col,
                            cluster_col=cluster_col)
    files = [judgements] if isinstance(judgements, str | Path) else judgements
    if judge is not None:
        kind, source = "judge", "the judge"
    elif truth is not None:
        kind, source = "truth", f"the truth {truth}" if isinstance(truth, str | Path) \
            else "the truth"
    else:
        kind, source = "file", ", ".join(map(str, files)) if isinstance(files, list | tuple) \
            and files and all(isinstance(j, str | Path) for j in files) else "the judgements"
    _refuse_no_known_verdict(s, verdicts, source, kind)
    out = estimate_with_verdicts(s, verdicts, confidence=confidence, se_method=se_method,
                                 stop_when=stop_when, sequential=sequential, model=model)
    if truth is not None:
        out["truth_exact"] = truth_exact(s, truth, item_col, cluster_col)
    humans = s.human_pairs
    missing = [p for p in s.pairs.by_id if p not in s.pairs.self_ids and p not in verdicts
               and (humans is None or p in humans)]
    if kind == "file" and missing:  # a judge skipped rows, a file was cut: say so
        shown = ", ".join(missing[:5]) + (", …" if len(missing) > 5 else "")
        out.setdefault("notes", []).append(
            f"{len(missing):,} of the sample's {len(s.pairs.by_id) - len(s.pairs.self_ids):,}"
            f" pairs have no row in {source} and count as unknown (pair ids {shown})")
    return _model_unused(out, unused)


def _model_unused(out: dict[str, Any], unused: Path | None) -> dict[str, Any]:
    """The estimate's warning that the sample's model verdicts were left out (the
    confidence sequences do not take a model judge yet, docs/quality.md)."""
    if unused is not None:
        out["warnings"].append(f"{unused}: a model judge's verdicts are not used with "
                               "--sequential/--stop-when yet; every interval here is the "
                               "humans' alone")
    return out


#: The impact metrics the quality metrics decompose exactly (good + bad): they tell the
#: clusterings a sample was drawn from (docs/method.md §8.4).
_PARTS = {"split_rate": "split_rate", "merge_rate": "merge_rate",
          "split_distance": "split_distance", "merge_distance": "merge_distance"}


def truth_exact(s: Sample, truth: Any, item_col: str = "item_id",
                cluster_col: str = "cluster_id") -> dict[str, Any]:
    """The truth's exact value of every metric (`abcde.quality.exact`, docs/method.md
    §8.12), as `abcde simulate` computes them, beside the estimates: from the clusterings
    the sample's manifest names (files, read from the working directory), checked to be
    those the sample was drawn from (its exact split and merge rates and distances are
    the sums of their good and bad parts); else ``available`` False and why."""
    import re

    from abcde.quality.exact import exact_quality

    named = s.manifest.get("inputs") or {}
    paths = {role: re.fullmatch(rf"{role} \((.+)\)", str(named.get(role)))
             for role in ("base", "exp")}
    weights = str(named.get("weights"))
    given = re.fullmatch(r"from weights \((.+)\)", weights)
    if not all(paths.values()) or not (given or weights.startswith("1 for every item")) \
            or not all(Path(m.group(1)).is_file() for m in paths.values()):
        return {"available": False, "reason": "the clusterings of the sample are not files "
                f"at hand ({named.get('base')}, {named.get('exp')}, weights {weights}); "
                "`abcde simulate` computes the exact values from the clusterings"}
    base, exp = (paths[r].group(1) for r in ("base", "exp"))  # type: ignore[union-attr]
    try:
        exact = exact_quality(base, exp, given.group(1) if given else None, truth=truth,
                              item_col=item_col, cluster_col=cluster_col).as_dict()
    except InputError as err:  # the files changed, or other column names
        return {"available": False, "reason": str(err)}
    impact = s.manifest.get("metrics") or {}
    for name, whole in _PARTS.items():
        parts = [exact["values"].get(f"{q}_{name}", 0.0) for q in ("good", "bad")]
        if exact["available"] and not abs(sum(parts) - float(impact.get(whole, 0.0))) <= \
                1e-9 * max(1.0, abs(float(impact.get(whole, 0.0)))):
            return {"available": False, "reason": f"{base} and {exp} are not the "
                    f"clusterings the sample was drawn from (their {name} differs)"}
    return exact


_NO_VERDICT = {  # the source's kind: (why, what to do)
    "judge": ("it answered unknown for every pair",
              "The judge must answer equivalent or not_equivalent."),
    "truth": ("it holds both items of none of the pairs", "Are its item ids those of the "
              "clusterings (--item-col)? Use a truth that covers the sampled items."),
    "log": ("every pair is unknown or tied", "Judge the pairs with `abcde judge DIR` "
            "(equivalent or not equivalent; unknown only where you cannot tell)."),
    "file": ("{unknown:,} marked unknown or left blank, {absent:,} with no row",
             "Fill the verdict column of the sample's {questions} (equivalent or "
             "not_equivalent; unknown only where you cannot tell) and pass that file."),
}


def _refuse_no_known_verdict(s: Sample, verdicts: Mapping[str, str], source: str,
                             kind: str) -> None:
    """A source that judges none of the sample's pairs leaves nothing to estimate from
    (every metric would print its bounds [0, T] as an interval): refused, naming it."""
    pids = [p for p in s.pairs.by_id if p not in s.pairs.self_ids]
    if not pids or any(verdicts.get(p) in ("equivalent", "not_equivalent") for p in pids):
        return
    unknown = sum(p in verdicts for p in pids)
    questions = ("pair_questions table" if s.directory is not None
                 and is_exported(s.directory) else "questions.csv")
    why, hint = (text.format(unknown=unknown, absent=len(pids) - unknown, questions=questions)
                 for text in _NO_VERDICT[kind])
    raise InputError(f"no known verdict for any of the sample's {len(pids):,} pairs from "
                     f"{source} ({why}): there is nothing to estimate from",
                     examples=[Shown(f"pair {p} ({s.pairs.by_id[p][0]}, {s.pairs.by_id[p][1]})")
                               for p in pids[:3]], hint=hint)


def verdict_log_source(s: Sample, judgements: Any, truth: Any,
                       judge: Callable[[Any, Any], Any] | None) -> Path | None:
    """The verdict log to estimate from: ``judgements`` when it is one (alone), or with no
    source at all the sample directory's verdicts.jsonl; None when another source is given
    (docs/method.md §12.2)."""
    files = [judgements] if isinstance(judgements, str | Path) else judgements \
        if isinstance(judgements, list | tuple) else []
    logs = [Path(j) for j in files if isinstance(j, str | Path) and is_verdict_log(j)]
    if logs and len(files) > 1:
        raise InputError(f"{logs[0]} is a verdict log of `abcde judge`: it is replayed alone, "
                         "not merged with other judgement files", hint="Give the verdict log "
                         "alone, or the judgement files without it.")
    if logs or judgements is not None or truth is not None or judge is not None:
        return logs[0] if logs else None
    path = None if s.directory is None else s.directory / LOG_NAME
    if path is not None and (path.is_file() or path.is_symlink()):
        return path  # a link (dangling too) is refused when read, not taken for no log
    questions = ("its exported pair_questions table" if s.directory is not None
                 and is_exported(s.directory) else "the sample's questions.csv")
    raise InputError(f"no verdicts for {s.where}: give judgements, a truth or a judge"
                     + ("" if path is None else f" ({path} does not exist)"),
                     hint="Judge the pairs in the browser with `abcde judge DIR`, or fill "
                          f"the verdict column of {questions} and pass it with "
                          "--judgements.")


@checked(confidence=CONFIDENCE, se_method=SE_METHOD, stop_when=STOP_WHEN)
def estimate_with_verdicts(s: Sample, verdicts: Mapping[str, str], *,
                           confidence: float = 0.95, se_method: str = DEFAULT_SE,
                           sequential: bool = False, stop_when: Any = (),
                           model: Any = None) -> dict[str, Any]:
    """:func:`estimate` of a loaded sample once its verdicts (pair id → verdict) are known
    (``sequential``, ``stop_when``, ``model``: :func:`estimate`'s)."""
    draws = _draw_columns(s.draws)
    first = None
    if (sequential or stop_when) and (model is not None or s.manifest.get("humans")):
        raise InputError("the confidence sequences do not take a model judge's verdicts "
                         "or a model round's humans' subset yet ({option}); estimate "
                         "without --sequential and --stop-when",
                         option="model" if model is not None else "sequential")
    if sequential or stop_when:
        if s.draws and "first_draw" not in s.draws[0]:
            raise InputError(f"{s.where}: the draws have no first_draw column, so the order "
                             "of the stream is unknown", option="sequential")
        first = [int(r["first_draw"]) - 1 for r in s.draws]  # draw numbers from 1 in files
    model = None if model is None else read_model_verdicts(
        model, {p: ij for p, ij in s.pairs.by_id.items() if p not in s.pairs.self_ids})
    out = _estimate(draws, verdicts, s.manifest, confidence, se_method, s.where,
                    (first, set(map(str, verdicts)), stop_when) if first is not None else None,
                    model)
    if model is not None:  # beside the combined intervals, what the humans give alone
        alone = _estimate(draws, verdicts, s.manifest, confidence, se_method, s.where)
        out["humans_alone"] = {k: {f: alone[k].get(f) for f in (
            "estimate", "ci_low", "ci_high", "se", "not_conclusive")}
            for k in METRIC_KEYS if alone.get(k)}
    if s.strata:
        out["strata"] = [{**st, "sample": _stratum_sample(s, st["name"], verdicts)}
                         for st in s.strata]
    metrics = s.manifest.get("metrics") or {}
    out["impact"] = {k: metrics.get(k) for k in IMPACT_KEYS if k in metrics}
    out["sample_id"] = s.id
    out["judgements"] = verdict_counts(draws["pair_id"], verdicts, s.human_pairs)
    if s.carried:
        out["carried_over"] = [{"sample_id": sid, **v} for sid, v in sorted(s.carried.items())]
    return out


@checked(confidence=CONFIDENCE, se_method=SE_METHOD)
def estimate_from_draws(draws: Any, verdicts: Any, manifest: Mapping[str, Any], *,
                        confidence: float = 0.95, se_method: str = DEFAULT_SE,
                        model: Any = None) -> dict[str, Any]:
    """All quality estimates of one sample's draw rows, verdicts and manifest, without
    sample files: the document of :func:`estimate` less the keys of files (impact,
    sample_id, judgements, strata, carried_over, notes). ``draws``: one row per unique
    ordered pair drawn — pair_id, item_i, item_j, pair_class, label, draw_count,
    u_over_w, a stratified sample's stratum, slice columns — as columns, rows, a
    DataFrame, an Arrow table or a DuckDB relation; ``verdicts``: pair id → verdict (a
    mapping, a Series, columns or rows); ``manifest``: design, alpha, totals, classes,
    exact, metrics, strata, slices and weight as ``abcde sample-pairs`` writes them
    (docs/method.md §6.4, §6.8–6.9, §8). Refused with InputError: a sample of an earlier
    design, an inconsistent manifest, draws or verdicts
    :func:`~abcde.quality.sample.judged_sample` refuses. ``model``: a model judge's
    verdicts, a file or a mapping as :func:`estimate` takes them."""
    model = None if model is None else read_model_verdicts(model, {})
    return _estimate(draws, verdicts, manifest, confidence, se_method, None, model=model)


def _estimate(draws: Any, verdicts: Any, manifest: Mapping[str, Any], confidence: float,
              se_method: str, where: str | None,
              sequential: tuple[list[int], set[str], tuple[Question, ...]] | None = None,
              model: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The document of :func:`estimate_from_draws`; ``where`` names a sample on file;
    ``sequential`` (first draws, pairs with a verdict, questions) adds its section;
    ``model`` (pair id → a model judge's P(equivalent)) makes the shares prediction-powered."""
    prefix = "" if where is None else f"{where}: "
    s, design = judged_design(draws, verdicts, manifest, prefix, model)
    results = estimate_all(s, design, confidence=confidence, se_method=se_method)
    out: dict[str, Any] = {"population": manifest.get("population"), "alpha": s.alpha,
                           "se_method": se_method}
    out.update({k: results[k].as_dict() for k in METRIC_KEYS})
    out["unavailable"] = unavailable(results)
    if manifest.get("slices"):
        total_weight = _metric(manifest, "weight")
        if total_weight is None:
            raise InputError(f"{prefix}manifest has slices but no total item weight 'weight'")
        out["slices"] = estimate_slices(s, manifest["slices"], total_weight, design,
                                        confidence=confidence, se_method=se_method,
                                        where=prefix)
    out["sample"] = _sample_summary(s)
    out["warnings"] = sample_warnings(out["sample"], results, design, manifest.get("budget"))
    unknown = [w for w in out["warnings"] if w.startswith(UNKNOWN_START)]
    if model is not None or s.inverse_pi is not None:  # the humans' part chosen at random
        out["warnings"] = [w for w in out["warnings"] if w not in unknown]
        unknown = []
    if model is not None:
        out["model"] = class_summary(s)
    out["verdict"] = precision_verdict(results["delta_precision"], warnings=unknown)
    if unknown:  # the sample-wide reason holds for every estimated metric (§8.3)
        smp = out["sample"]
        why = (f"{smp['unknown_pairs']:,} of {smp['pairs']:,} pairs have no verdict (more "
               f"than {MAX_UNKNOWN_SHARE:.0%}): the reweighting assumes they are missing "
               f"at random within their class")
        entries = [out[k] for k in METRIC_KEYS] + [
            e[k] for e in out.get("slices") or [] for k in ("delta_precision", "contribution")]
        for m in entries:
            if m["estimate"] is not None and m["interval"] != "exact" and not m["not_conclusive"]:
                m["not_conclusive"] = why
    if sequential is not None:
        first, answered, questions = sequential
        out["sequential"] = sequential_doc(s, design, np.asarray(first, dtype=np.int64),
                                           draws["pair_id"], answered, questions,
                                           confidence, out)
    return out


def judged_design(draws: Any, verdicts: Any, manifest: Mapping[str, Any],
                  prefix: str = "", model: Mapping[str, float] | None = None
                  ) -> tuple[JudgedSample, Design]:
    """The judged sample and the design the estimators read of the manifest (a manifest
    of an earlier design refused; ``prefix`` names the sample in messages; ``model``: a
    model judge's verdicts, :func:`_estimate`'s)."""
    try:
        check_design(manifest)
    except ValueError as err:
        raise InputError(f"{prefix}{err}") from None
    classes, sums = _classes(manifest)
    s = judged_sample(draws, verdicts, alpha=float(manifest["alpha"]),
                      kappa=sums["u"] / sums["w"], where=f"{prefix}draws", model=model)
    return s, Design(classes, _exact(manifest), sums, _scale(s, manifest, classes, prefix))


def undrawn_warnings(draws: Sequence[Mapping[str, Any]],
                     manifest: Mapping[str, Any]) -> list[str]:
    """What `abcde estimate` will warn of whatever the verdicts, told when the sample is
    drawn: each class of the population the sample drew no pair of, the metrics it leaves
    undefined and the budget the manifest's design needs for it
    (:func:`~abcde.quality.wording.undrawn`): the draws estimated as if every pair were
    judged equivalent, so only what was not drawn leaves a metric undefined."""
    if not draws:
        return []
    s, design = judged_design(draws, {r["pair_id"]: "equivalent" for r in draws}, manifest, "")
    return undrawn(_sample_summary(s), estimate_all(s, design), design,
                   manifest.get("budget"))


def _sample_summary(s: JudgedSample) -> dict[str, Any]:
    return {"rows": s.rows, "draws": int(s.draw_count.sum()), "pairs": count_distinct(s.pair_key),
            "judged_pairs": count_distinct(s.pair_key[s.known]),
            "unknown_pairs": count_distinct(s.pair_key[~s.known]),
            "missing_verdicts": s.missing_verdicts, "unused_verdicts": s.unused_verdicts,
            "classes": {name: t.as_dict() for name, t in s.tallies.items()}}


def _stratum_sample(s: Sample, name: str, verdicts: Mapping[str, str]) -> dict[str, Any]:
    """Draws, pairs and verdicts of one stratum (``strata[].sample``)."""
    rows = [r for r in s.draws if r.get("stratum") == name]
    ids = {str(r["pair_id"]) for r in rows}
    unknown = sum(1 for p in ids if verdicts.get(p, "unknown") == "unknown")
    return {"rows": len(rows), "draws": sum(int(r["draw_count"]) for r in rows),
            "pairs": len(ids), "judged_pairs": len(ids) - unknown, "unknown_pairs": unknown}


def _scale(s: JudgedSample, manifest: Mapping[str, Any],
           classes: Mapping[str, Mapping[str, float]], prefix: str) -> dict[str, float]:
    """Per class key the draws per unit of design probability: all draws of an
    unstratified sample (Σq = 1), a stratum's draws over its probability Q_h."""
    strata = manifest.get("strata")
    if not strata:
        return dict.fromkeys(CLASS_KEYS, float(s.draw_count.sum()))
    if s.stratum is None:
        raise InputError(f"{prefix}a stratified sample's draws need their stratum column")
    out = dict.fromkeys(CLASS_KEYS, 0.0)
    for st in strata:
        q = float(st.get("q") or 0.0)
        draws = float(s.draw_count[s.stratum == st["name"]].sum())
        for key in CLASS_KEYS:
            if key.split("_")[0] in st["classes"]:
                out[key] = draws / q if q > 0 else 0.0
    return out


def verdict_counts(pair_ids: Sequence[Any], verdicts: Mapping[Any, str],
                   humans: set[str] | None = None) -> dict[str, int]:
    """equivalent / not_equivalent / unknown → the sample's unordered pairs with it, as
    the estimate uses them: a pair without a verdict is unknown, a verdict of a pair not
    in the sample is not counted, ids compare as text (docs/method.md §8.1). In a model
    round (``humans`` its humans' pairs) the others count apart, ``for_model``: no human
    verdict is asked of them, whatever a file gives (§8.15)."""
    given = {id_text(k): v for k, v in verdicts.items()}
    counts = dict.fromkeys(("equivalent", "not_equivalent", "unknown"), 0)
    if humans is not None:
        counts["for_model"] = 0
    for pid in {id_text(p) for p in pair_ids}:
        counts["for_model" if humans is not None and pid not in humans
               else given.get(pid, "unknown")] += 1
    return counts


def _draw_columns(draws: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """Draw rows as columns, pair ids as text (the verdicts' keys)."""
    if not draws:
        return {k: [] for k in ("pair_id", "item_i", "item_j", "pair_class", "label",
                                "draw_count", "u_over_w")}
    cols = {n: [r.get(n) for r in draws] for n in draws[0]}
    cols["pair_id"] = [str(p) for p in cols["pair_id"]]
    for drop in ("first_draw", "base_cluster_i", "exp_cluster_i", "base_cluster_j",
                 "exp_cluster_j"):
        cols.pop(drop, None)
    return cols

