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
Good/Bad Split/Merge rates, distances and affected indexes with standard errors,
intervals and effective sample sizes: the judged sample (:mod:`abcde.quality.sample`), the
metric table (:mod:`abcde.quality.metrics`), the slices (:mod:`abcde.quality.slices`) and
the words (:mod:`abcde.quality.wording`). A stratified sample is estimated like an
unstratified one — every metric part is a per-class ratio times the class's exact total,
and every class lies in one stratum — except that the design's expected effective sample
size counts each stratum's draws against its own probability (docs/method.md §8.10).

Samples drawn before the mixture design (their manifest has no ``design``: self pairs
were sampled from one population) are refused with the reason: their estimates could be
confidently wrong (docs/method.md §8.1).

References
----------
S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
arXiv:2407.21430, §5, App. B.

S. van Staden. Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google
Switzerland, 2024, §4.3–8.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.errors import InputError, Shown
from abcde.inputs.records import CSV_SUFFIXES, record_suffix
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
from abcde.quality.metrics import METRIC_KEYS, Design, estimate_all, unavailable
from abcde.quality.sample import CLASS_KEYS, JudgedSample, count_distinct, judged_sample
from abcde.quality.slices import estimate_slices
from abcde.quality.wording import (
    MAX_UNKNOWN_SHARE,
    UNKNOWN_START,
    precision_verdict,
    sample_warnings,
)
from abcde.sample_files.exported import is_exported, read_exported, read_tables
from abcde.sample_files.layout import LOG_NAME, MANIFEST, restore
from abcde.sample_files.manifest import DESIGN_VERSION, sample_id, stream_of
from abcde.sample_files.pairs import read_draws, read_pair_manifest
from abcde.sample_files.verdicts import is_verdict_log

__all__ = [
    "IMPACT_KEYS",
    "Sample",
    "estimate",
    "estimate_from_draws",
    "estimate_with_verdicts",
    "load_sample",
    "load_tables",
    "verdict_counts",
    "verdict_log_source",
    "verdicts_for",
]

IMPACT_KEYS = ("split_rate", "merge_rate", "split_distance", "merge_distance",
               "affected_jaccard_index", "jaccard_distance", "weight")
"""The exact impact metrics of the manifest that ``abcde estimate`` reports (``impact``)."""


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


def verdicts_for(s: Sample, judgements: Any = None, truth: Any = None,
                 judge: Callable[[Any, Any], Any] | None = None, *,
                 item_col: str = "item_id", cluster_col: str = "cluster_id") -> dict[str, str]:
    """The verdicts of a sample's pairs from exactly one source.

    Parameters
    ----------
    s : Sample
        The sample.
    judgements : str, Path, list of them, list of mappings, DataFrame or Arrow table, optional
        Judgement files (their verdicts merged: a contradiction between them is an
        error) or rows (:mod:`abcde.quality.judgements`). Rows of another sample of the
        same stream carry their verdicts over (docs/method.md §7.10; counted in
        ``s.carried``).
    truth : mapping, DataFrame, Arrow table, str or Path, optional
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
            rows = read_judgements(path)
            if record_suffix(Path(path)) in CSV_SUFFIXES:
                rows = _restored(rows, s)
            found.append((str(path), match_judgements(
                rows, s.pairs, expected_sample_id=s.id, where=str(path),
                stream=s.stream, carried=s.carried)))
        return merge_verdicts(found)
    table = table_columns(judgements, "judgements")
    if table is not None:  # a DataFrame or an Arrow table: its rows, numbered from 1
        rows_in = [dict(zip(table, row, strict=True)) for row in zip(*table.values(), strict=True)]
    elif isinstance(judgements, Iterable) and not isinstance(judgements, bytes):
        rows_in = list(judgements)
    else:
        rows_in = [judgements]
    if not all(isinstance(r, Mapping) for r in rows_in):
        raise InputError(
            "judgements must be judgement files, rows (mappings) or a table, not "
            + (f"a {type(judgements).__name__} of {type(rows_in[0]).__name__}"
               if isinstance(judgements, Iterable) else f"{judgements!r}"),
            hint="Pass the path of the filled questions.csv, or its rows as a DataFrame or "
                 "a list of dicts with the columns pair_id (or item_1, item_2) and verdict.")
    # rows in memory: a list of mappings
    records = list(enumerate(rows_in, start=1))
    if table is not None:  # an empty table still names its columns
        columns = set(table)
    else:
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
    judgements : str, Path, list of them, list of mappings, DataFrame or Arrow table, optional
        CSV/JSONL judgement files or rows (:mod:`abcde.quality.judgements`); verdicts of
        an earlier (or later) sample of the same stream carry over (docs/method.md §7.10).
        Or one verdict log of ``abcde judge`` (:mod:`abcde.sample_files.verdicts`), which
        is replayed: every judge's current verdicts, resolved by majority.
    truth : mapping, DataFrame, Arrow table, str or Path, optional
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
        :data:`~abcde.quality.metrics.METRIC_KEYS` as
        estimate/se/ci_low/ci_high/interval/n_eff/pairs/…/unknown_range, the keys the
        population cannot give with estimate None and the reason; ``verdict``,
        ``warnings``, ``slices``, ``sample``, ``unavailable``), plus ``impact`` (the
        exact impact metrics from the manifest that the quality metrics decompose),
        ``sample_id``, ``strata`` (stratified samples), ``judgements`` (counts of
        verdicts), ``carried_over`` (verdicts of other samples of the same stream, per
        sample id: rows, verdicts, unknown, not_in_sample) and ``notes`` (the pairs a
        judgement file has no row for, with example pair ids); from a verdict log also
        ``judging`` (judges, agreement, contested pairs:
        :func:`~abcde.quality.judging.logged_verdicts`).

    Raises
    ------
    InputError
        On a sample, judgement file or truth that cannot be used, with the reason; also
        when the source gives no known verdict for any pair of the sample (an unfilled
        questions.csv, a truth keyed by other ids): nothing to estimate from.

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
        _refuse_no_known_verdict(s, logged.verdicts, f"the verdict log {log}")
        out = estimate_with_verdicts(s, logged.verdicts, confidence=confidence,
                                     se_method=se_method)
        out["judging"] = logged.judging
        return out
    verdicts = verdicts_for(s, judgements, truth, judge, item_col=item_col,
                            cluster_col=cluster_col)
    source = _source_name(judgements, truth, judge)
    _refuse_no_known_verdict(s, verdicts, source)
    out = estimate_with_verdicts(s, verdicts, confidence=confidence, se_method=se_method)
    if truth is not None:
        out["truth_exact"] = truth_exact(s, truth, item_col, cluster_col)
    if judgements is not None:  # a truth or a judge answers for every pair
        missing = [p for p in s.pairs.by_id if p not in s.pairs.self_ids and p not in verdicts]
        if missing:  # a judge skipped rows, a file was cut: say so, not only "unknown"
            shown = ", ".join(missing[:5]) + (", …" if len(missing) > 5 else "")
            out.setdefault("notes", []).append(
                f"{len(missing):,} of the sample's {len(s.pairs.by_id) - len(s.pairs.self_ids):,}"
                f" pairs have no row in {source} and count as unknown (pair ids {shown})")
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


def _source_name(judgements: Any, truth: Any, judge: Any) -> str:
    """The verdicts' source as messages name it."""
    if judge is not None:
        return "the judge"
    if truth is not None:
        return f"the truth {truth}" if isinstance(truth, str | Path) else "the truth"
    if isinstance(judgements, str | Path):
        return str(judgements)
    if isinstance(judgements, Sequence) and judgements and all(
            isinstance(j, str | Path) for j in judgements):
        return ", ".join(map(str, judgements))
    return "the judgements"


def _refuse_no_known_verdict(s: Sample, verdicts: Mapping[str, str], source: str) -> None:
    """A source that judges none of the sample's pairs leaves nothing to estimate from:
    every metric would be its classes' bounds [0, T] printed as a "95% CI" (an unfilled
    questions.csv, a truth keyed by other ids), so it is refused, naming the source."""
    pids = [p for p in s.pairs.by_id if p not in s.pairs.self_ids]
    if not pids or any(verdicts.get(p) in ("equivalent", "not_equivalent") for p in pids):
        return
    unknown = sum(p in verdicts for p in pids)
    examples = [Shown(f"pair {p} ({s.pairs.by_id[p][0]}, {s.pairs.by_id[p][1]})")
                for p in pids[:3]]
    if source == "the judge":
        why, hint = "it answered unknown for every pair", ("The judge must answer "
                                                            "equivalent or not_equivalent.")
    elif source.startswith("the truth"):
        why, hint = ("it holds both items of none of the pairs", "Are its item ids those "
                     "of the clusterings (--item-col)? Use a truth that covers the sampled "
                     "items.")
    elif source.startswith("the verdict log"):
        why, hint = ("every pair is unknown or tied", "Judge the pairs with `abcde judge "
                     "DIR` (equivalent or not equivalent; unknown only where you cannot tell).")
    else:
        why = (f"{unknown:,} marked unknown or left blank, {len(pids) - unknown:,} with no "
               "row")
        questions = ("pair_questions table" if s.directory is not None
                     and is_exported(s.directory) else "questions.csv")
        hint = (f"Fill the verdict column of the sample's {questions} (equivalent or "
                "not_equivalent; unknown only where you cannot tell) and pass that file.")
    raise InputError(f"no known verdict for any of the sample's {len(pids):,} pairs from "
                     f"{source} ({why}): there is nothing to estimate from",
                     examples=examples, hint=hint)


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
    try:
        out = estimate_from_draws(draws, verdicts, s.manifest, confidence=confidence,
                                  se_method=se_method)
    except ValueError as err:
        raise InputError(f"{s.where}: {err}") from None
    if s.strata:
        out["strata"] = [{**st, "sample": _stratum_sample(s, st["name"], verdicts)}
                         for st in s.strata]
    metrics = s.manifest.get("metrics") or {}
    out["impact"] = {k: metrics.get(k) for k in IMPACT_KEYS if k in metrics}
    out["sample_id"] = s.id
    out["judgements"] = verdict_counts(draws["pair_id"], verdicts)
    if s.carried:
        out["carried_over"] = [{"sample_id": sid, **v} for sid, v in sorted(s.carried.items())]
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

    The level below :func:`estimate`, without sample files: the draw rows of one sample
    (stratified or not), its verdicts and the parts of its manifest the estimators read.

    Parameters
    ----------
    draws : columns, rows, DataFrame, pyarrow table or DuckDB relation
        One row per unique ordered pair drawn (:func:`~abcde.quality.sample.judged_sample`;
        a stratified sample's rows carry ``stratum``).
    verdicts : mapping, column mapping or rows
        pair_id → verdict (a Series, a DataFrame, ...: :func:`~abcde.quality.sample.judged_sample`).
    manifest : mapping
        ``design`` (its ``version``) and ``alpha``; ``totals`` (u, w: Σu and Σw over pairs
        i ≠ j); ``classes`` (per class key: u, w, q, kish_u, kish_w, u_uncovered,
        w_uncovered; docs/method.md §6.4, §6.9); ``exact`` (the self parts, §6.8);
        ``metrics`` (the exact impact metrics, checked against the class totals);
        ``strata`` of a stratified sample (name, classes, q); ``slices`` and ``weight``
        (W) for per-slice ΔPrecision.
    confidence : float
        The intervals' level.
    se_method : {"pair_clustered", "kirchner"}
        See :func:`~abcde.quality.intervals.reweighted_mean_se` (identical when every
        pair has a verdict).

    Returns
    -------
    dict
        ``population``, ``alpha``, ``se_method``; every key of
        :data:`~abcde.quality.metrics.METRIC_KEYS` — each a dict estimate, se, ci_low,
        ci_high, confidence, interval, n_eff, pairs, draws, multiplier, exact,
        not_conclusive, note (estimate None + note when the sample cannot tell) and
        unknown_range (None, or the estimates if every unknown verdict were equivalent /
        not equivalent: :class:`~abcde.quality.result.UnknownRange`, docs/method.md
        §8.11); ``unavailable``; ``slices`` (per-slice ΔPrecision and contribution, when the
        manifest has slices); ``sample`` (draws, pairs, unknowns and reweighting factors
        per class); ``warnings`` (why the intervals may not be trusted) and ``verdict``
        (ΔPrecision in words).

    Raises
    ------
    ValueError
        On an unknown ``se_method``, a sample of an earlier design, inconsistent
        manifest totals, or draws and verdicts
        :func:`~abcde.quality.sample.judged_sample` refuses.

    References
    ----------
    docs/method.md §8.1–8.11. ABCDE §5.7–5.8, App. B (S. van Staden, A. Grubb. ABCDE:
    Application-Based Cluster Diff Evals. Google, 2024, arXiv:2407.21430); Jaccard
    decomposition §6.1, §7–8 (S. van Staden. Decomposing the Jaccard Distance and the
    Jaccard Index in ABCDE. Google Switzerland, 2024).
    """
    if se_method not in SE_METHODS:
        raise ValueError(f"se_method must be one of {SE_METHODS}, got {se_method!r}")
    # a plain float: the document echoes it (numpy's float32 is no JSON), and '0.95' a
    # TypeError from a comparison
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    confidence = float(confidence)
    check_design(manifest)
    classes, sums = _classes(manifest)
    alpha = float(manifest["alpha"])
    s = judged_sample(draws, verdicts, alpha=alpha, kappa=sums["u"] / sums["w"])
    design = Design(classes, _exact(manifest), sums, _scale(s, manifest, classes))
    opts: dict[str, Any] = {"confidence": confidence, "se_method": se_method}
    results = estimate_all(s, design, **opts)
    out: dict[str, Any] = {"population": manifest.get("population"), "alpha": alpha,
                           "se_method": se_method}
    out.update({k: results[k].as_dict() for k in METRIC_KEYS})
    out["unavailable"] = unavailable(results)
    slices = manifest.get("slices")
    if slices:
        total_weight = _metric(manifest, "weight")
        if total_weight is None:
            raise ValueError("manifest has slices but no total item weight 'weight' (W)")
        out["slices"] = [e.as_dict() for e in estimate_slices(s, slices, total_weight, design,
                                                              **opts)]
    out["sample"] = _sample_summary(s)
    out["warnings"] = sample_warnings(out["sample"], results)
    unknown = _unknown_warnings(out["warnings"])
    out["verdict"] = precision_verdict(results["delta_precision"], warnings=unknown)
    if unknown:
        # the sample-wide reason holds for every estimated metric: a reader of one
        # metric's JSON must see it as the verdict does (docs/method.md §8.3)
        smp = out["sample"]
        why = (f"{smp['unknown_pairs']:,} of {smp['pairs']:,} pairs have no verdict (more "
               f"than {MAX_UNKNOWN_SHARE:.0%}): the reweighting assumes they are missing "
               f"at random within their class")
        entries = [out[k] for k in METRIC_KEYS]
        entries += [e[k] for e in out.get("slices") or [] for k in ("delta_precision",
                                                                     "contribution")]
        for m in entries:
            if m.get("estimate") is not None and m.get("interval") != "exact" \
                    and not m.get("not_conclusive"):
                m["not_conclusive"] = why
    return out


def _sample_summary(s: JudgedSample) -> dict[str, Any]:
    known = s.known
    return {
        "rows": s.rows,
        "draws": int(s.draw_count.sum()),
        "pairs": count_distinct(s.pair_key),
        "judged_pairs": count_distinct(s.pair_key[known]),
        "unknown_pairs": count_distinct(s.pair_key[~known]),
        "missing_verdicts": s.missing_verdicts,
        "unused_verdicts": s.unused_verdicts,
        "classes": {name: t.as_dict() for name, t in s.tallies.items()},
    }


def _unknown_warnings(warnings: Sequence[str]) -> list[str]:
    """The sample-wide warnings (not the per-metric ones, which the verdict reads from
    ΔPrecision's own ``not_conclusive``)."""
    return [w for w in warnings if w.startswith(UNKNOWN_START)]


def _stratum_sample(s: Sample, name: str, verdicts: Mapping[str, str]) -> dict[str, Any]:
    """Draws, pairs and verdicts of one stratum (``strata[].sample``)."""
    rows = [r for r in s.draws if r.get("stratum") == name]
    ids = {str(r["pair_id"]) for r in rows}
    unknown = sum(1 for p in ids if verdicts.get(p, "unknown") == "unknown")
    return {"rows": len(rows), "draws": sum(int(r["draw_count"]) for r in rows),
            "pairs": len(ids), "judged_pairs": len(ids) - unknown, "unknown_pairs": unknown}


# --------------------------------------------------------------------------- #
# Manifest
# --------------------------------------------------------------------------- #

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


def _scale(s: JudgedSample, manifest: Mapping[str, Any],
           classes: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Per class key the draws per unit of design probability: all draws of an
    unstratified sample (Σq = 1), a stratum's draws over its probability Q_h."""
    strata = manifest.get("strata")
    if not strata:
        return dict.fromkeys(CLASS_KEYS, float(s.draw_count.sum()))
    if s.stratum is None:
        raise ValueError("a stratified sample's draws need their stratum column")
    out = dict.fromkeys(CLASS_KEYS, 0.0)
    for st in strata:
        q = float(st.get("q") or 0.0)
        draws = float(s.draw_count[s.stratum == st["name"]].sum())
        for key in CLASS_KEYS:
            if key.split("_")[0] in st["classes"]:
                out[key] = draws / q if q > 0 else 0.0
    return out


# --------------------------------------------------------------------------- #
# Samples on file, stratified samples
# --------------------------------------------------------------------------- #


def verdict_counts(pair_ids: Sequence[Any], verdicts: Mapping[Any, str]) -> dict[str, int]:
    """The verdicts of the sample's unordered pairs, as the estimate uses them.

    Parameters
    ----------
    pair_ids : sequence
        The draws' pair ids (a pair drawn in both orders or several times is one pair).
    verdicts : mapping
        pair id → verdict; ids compare as text (17, 17.0 and "17" are one id).

    Returns
    -------
    dict
        equivalent / not_equivalent / unknown → number of the sample's pairs: a pair
        without a verdict counts as unknown, as in the estimate; verdicts of pairs the
        sample does not hold (a carried-over log may have them) are not counted.

    References
    ----------
    docs/method.md §8.1 (verdicts).
    """
    given = {id_text(k): v for k, v in verdicts.items()}
    counts = dict.fromkeys(("equivalent", "not_equivalent", "unknown"), 0)
    for pid in {id_text(p) for p in pair_ids}:
        counts[given.get(pid, "unknown")] += 1
    return counts


def _draw_columns(draws: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """Draw rows as columns, pair ids as text (the verdicts' keys)."""
    if not draws:
        return {k: [] for k in ("pair_id", "item_i", "item_j", "pair_class", "label",
                                "draw_count", "u_over_w")}
    names = list(draws[0])
    cols = {n: [r.get(n) for r in draws] for n in names}
    cols["pair_id"] = [str(p) for p in cols["pair_id"]]
    for drop in ("first_draw", "base_cluster_i", "exp_cluster_i", "base_cluster_j",
                 "exp_cluster_j"):
        cols.pop(drop, None)
    return cols
