"""Stratified pair sampling: split+merge pairs and stable pairs as two strata (the
Jaccard decomposition paper §7.1 leaves stratification as future work).

Why: the Good/Bad split and merge distances (and rates) are estimated only from split
and merge draws, the affected indexes only from stable draws (self pairs included).
An unstratified sample ∝ w_ij spends the budget on the classes in proportion to
their pair weight — often mostly stable pairs (Jaccard §7.1) — and how many split and
merge pairs it gets is random. Sampling the strata separately fixes each stratum's
number of unique judgeable pairs, and the allocation decides where the budget goes.

Stratum h ∈ {split_merge, stable} is sampled exactly like an unstratified sample
(`abcde.pairs`: the same SQL; only the pair strata are restricted to the classes of h,
so a draw picks (cell, class) ∝ its total within h), with its own budget fill and
seed 2·seed + h (independent uniforms per stratum). Estimation
(`abcde.quality`): each stratum's reweighted mean × the stratum's own population
total T_h; a metric whose classes lie in one stratum is that stratum's estimate
(the class multiplier is the same), ΔPrecision = Σ_h T_h·mean_h with the strata's SEs
in quadrature (independent samples).

Allocation of the budget B (unique judgeable pairs): ``proportional`` — B·T_h/T (the
unstratified sample's expected shares by pair weight), ``equal`` — B/2 each, or a
number f in (0, 1) — f·B to split+merge. A stratum with total 0 gets no budget.
Self pairs are drawn in the stable stratum and cost nothing, as unstratified.

Slices (ABCDE App. B): the manifest's slices carry pairweight_h(I) per stratum
(`pairs/slice_pairweights_strata.sql`), and contribution(I) = Σ_h pairweight_h(I)·
mean_h(I) over the stratum's draws with vantage item in I.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from abcde import __version__
from abcde.engines import Engine, connect, engine_for
from abcde.errors import InputError
from abcde.impact import _clean, parse_slicings
from abcde.inputs import Columns, open_inputs
from abcde.judgements import sample_id
from abcde.pairs import (
    DRAW_COLUMNS,
    PairSample,
    _sorted,
    attribute_names,
    fill_budget,
    prepare,
)
from abcde.pipeline import Pipeline, Step
from abcde.sampling import check_seed, fingerprint
from abcde.templates import render

STRATA = (("split_merge", ("split", "merge")), ("stable", ("stable",)))


def parse_allocation(value: str | float) -> str | float:
    """'proportional', 'equal' or a fraction in (0, 1) for split+merge."""
    if isinstance(value, str) and value.strip().lower() in ("proportional", "equal"):
        return value.strip().lower()
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"strata allocation must be proportional, equal or a fraction in "
                         f"(0, 1), got {value!r}") from None
    if not 0 < f < 1:
        raise ValueError(f"strata allocation fraction must be in (0, 1), got {f}")
    return f


def allocate(budget: int, totals: dict[str, float], allocation: str | float) -> dict[str, int]:
    """Budget per stratum (unique judgeable pairs), summing to `budget`."""
    t_sm = totals["split"] + totals["merge"]
    t_st = totals["stable"]
    if t_sm <= 0 or t_st <= 0:  # one stratum (or none: Base = Exp) holds every pair
        return {"split_merge": budget if t_sm > 0 else 0, "stable": budget if t_st > 0 else 0}
    if allocation == "proportional":
        f = t_sm / (t_sm + t_st)
    elif allocation == "equal":
        f = 0.5
    else:
        f = float(allocation)
    first = min(budget - 1, max(1, round(f * budget))) if budget >= 2 else budget
    return {"split_merge": first, "stable": budget - first}


def restricted(pipeline: Pipeline, classes: tuple[str, ...], population: str) -> Pipeline:
    """A copy of `prepare`'s pipeline whose `pair_strata` holds only `classes` (the
    intervals [lo, lo + t) recomputed over them); run it to re-materialise."""
    listed = ", ".join(f"'{c}'" for c in classes)  # fixed class names, never user input
    query = render("pairs/strata.sql", population=population).where(
        f"pair_class IN ({listed})", dialect="duckdb")
    steps = dict(pipeline.steps)
    steps["pair_strata"] = Step("pair_strata", query, True)
    return Pipeline(prefix=pipeline.prefix, schema=pipeline.schema, steps=steps)


def sample_pairs_stratified(base: object, exp: object, weights: object | None = None, *,
                            attributes: object | None = None, population: str = "jaccard",
                            budget: int, allocation: str | float = "proportional",
                            seed: int = 0, slice_by: str | list[str] | None = None,
                            item_col: str = "item_id",
                            cluster_col: str = "cluster_id", weight_col: str = "weight",
                            missing_weight: float | None = None,
                            out: str | Path | None = None, engine: Engine | None = None,
                            db: str | Path | None = None, memory_limit: str | None = None,
                            threads: int | None = None) -> PairSample:
    """Pairs for judgement, stratified split+merge vs stable (module docstring).

    Same inputs and files as `abcde.pairs.sample_pairs`; draws carry a `stratum`
    column, pair ids are unique across strata, the questions carry `sample_id`, and
    the manifest lists the strata (classes, budget, seed, totals, draws, pairs).
    `slice_by`: attribute column(s); the manifest's slices then carry each stratum's
    pairweight (`pairweight_split_merge`, `pairweight_stable`) for per-slice ΔPrecision.
    """
    if population not in ("abcde", "jaccard"):
        raise ValueError(f"population must be abcde or jaccard, got {population!r}")
    if budget < 2:
        raise ValueError("a stratified sample needs budget >= 2")
    alloc = parse_allocation(allocation)
    seed = check_seed(seed)
    slicings = parse_slicings(slice_by)
    with engine_for(engine, db=db, memory_limit=memory_limit, threads=threads) as eng:
        inputs = open_inputs(eng, base, exp, weights, attributes,
                             columns=Columns(item_col, cluster_col, weight_col),
                             attribute_names=[c for sl in slicings for c in sl],
                             missing_weight=missing_weight)
        pipeline, slice_steps = prepare(eng, inputs, population, slicings)
        attrs = attribute_names(inputs, [*DRAW_COLUMNS, "stratum"])
        names = [o for _, o in attrs]
        slices = _slice_rows(eng, pipeline, inputs, slicings, slice_steps, population, attrs)
        totals = _clean(pipeline.fetch(eng, "pair_totals")[0])
        overall = _clean(pipeline.fetch(eng, "overall")[0])
        fp = fingerprint(eng, pipeline, {})
        budgets = allocate(budget, {k: float(totals[k]) for k in ("split", "merge", "stable")},
                           alloc)
        rows: list[dict[str, Any]] = []
        questions: list[dict[str, Any]] = []
        strata = []
        offset = 0
        for h, (name, classes) in enumerate(STRATA):
            t = {c: float(totals[c]) if c in classes else 0.0
                 for c in ("split", "merge", "stable")}
            t["total"] = sum(t.values())
            entry: dict[str, Any] = {"name": name, "classes": list(classes),
                                     "budget": budgets[name], "seed": 2 * seed + h,
                                     "totals": t, "stream_draws": 0, "draws": 0,
                                     "pairs": {"judgeable": 0, "self": 0}}
            strata.append(entry)
            if budgets[name] == 0:
                continue
            p = restricted(pipeline, classes, population)
            p.run(eng, "pair_strata")
            try:
                p, n, cut = fill_budget(eng, p, budgets[name], 2 * seed + h)
            except InputError as err:
                raise InputError(f"stratum {name}: {err}", hint="Lower --budget or change "
                                 "--strata-allocation.") from None
            if attrs:
                p.add("sample_attributes", render(
                    "sampling/attributes.sql", relation=inputs.attributes.relation,
                    item_col=inputs.columns.item, item_type=inputs.item_type,
                    columns=attrs))
            p.add("pair_sample", render("pairs/sample.sql", cut=cut, attributes=names),
                  materialise=True)
            p.add("pair_questions", render("pairs/questions.sql", attributes=names),
                  materialise=True)
            p.run(eng, "pair_sample", "pair_questions")
            p.add("sample_sorted", _sorted("pair_sample", ("pair_id", "first_draw")))
            p.add("questions_sorted", _sorted("pair_questions", ("pair_id",)))
            got = [_clean(r) for r in p.fetch(eng, "sample_sorted")]
            qs = [_clean(r) for r in p.fetch(eng, "questions_sorted")]
            for r in got:
                r["pair_id"] = int(r["pair_id"]) + offset
                r["stratum"] = name
            for q in qs:
                q["pair_id"] = int(q["pair_id"]) + offset
            offset = max([offset] + [r["pair_id"] for r in got])
            entry.update(stream_draws=n, draws=sum(int(r["draw_count"]) for r in got),
                         pairs={"judgeable": len(qs),
                                "self": sum(r["pair_class"] == "self" for r in got)})
            rows += got
            questions += qs
    manifest: dict[str, Any] = {
        "abcde_version": __version__,
        "population": population,
        "seed": seed,
        "budget": budget,
        "stratified": True,
        "strata_allocation": alloc,
        "strata": strata,
        "draws": sum(s["draws"] for s in strata),
        "pairs": {"ordered": len(rows), "unordered": len({r["pair_id"] for r in rows}),
                  "judgeable": len(questions),
                  "self": sum(r["pair_class"] == "self" for r in rows)},
        "totals": {k: float(totals[k]) for k in ("total", "split", "merge", "stable")},
        "metrics": overall,
        "weight": overall["weight"],
        "slices": slices,
        "inputs": {inputs.base.role: inputs.base.label, inputs.exp.role: inputs.exp.label,
                   "weights": inputs.weights_description},
        "fingerprint": fp,
    }
    manifest["sample_id"] = sample_id(manifest)
    for q in questions:
        q["sample_id"] = manifest["sample_id"]
    result = PairSample(rows, questions, manifest)
    if out is not None:
        result.files = write_files(Path(out), result)
        manifest["files"] = result.files
        (Path(out) / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str)
                                                 + "\n")
    return result


def write_files(out: Path, sample: PairSample) -> dict[str, str]:
    """draws.parquet, draws.csv, questions.csv, questions.jsonl (manifest.json by the
    caller)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "draws.parquet").unlink(missing_ok=True)  # never a stale unstratified one
    files = {}
    draw_cols = list(sample.draws[0]) if sample.draws else [*DRAW_COLUMNS, "stratum"]
    if sample.draws:  # Parquet keeps the id types (a CSV reader may read '007' as 7)
        eng = connect("duckdb")
        try:
            eng.register_rows("abcde_stratified_draws", draw_cols,
                              [tuple(r.get(c) for c in draw_cols) for r in sample.draws])
            eng.write("abcde_stratified_draws", out / "draws.parquet", "parquet")
        finally:
            eng.close()
        files["draws_parquet"] = str(out / "draws.parquet")
    question_cols = (list(sample.questions[0]) if sample.questions else
                     ["pair_id", "item_1", "item_2", "sample_id", "verdict"])
    question_cols = [c for c in question_cols if c != "verdict"] + ["verdict"]
    for name, rows, cols in (("draws", sample.draws, draw_cols),
                             ("questions", sample.questions, question_cols)):
        path = out / f"{name}.csv"
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            w.writerows([["" if r.get(c) is None else r.get(c) for c in cols] for r in rows])
        files[f"{name}_csv"] = str(path)
    path = out / "questions.jsonl"
    with path.open("w") as f:
        for q in sample.questions:
            f.write(json.dumps({c: q.get(c) for c in question_cols}, default=str) + "\n")
    files["questions_jsonl"] = str(path)
    files["manifest"] = str(out / "manifest.json")
    return files


def _slice_rows(engine: Engine, pipeline: Pipeline, inputs: Any, slicings: list[list[str]],
                slice_steps: list[str], population: str,
                attrs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Manifest slices: value(s), weight, pairweight and each stratum's pairweight
    (`pairs/slice_pairweights_strata.sql`)."""
    renamed = dict(attrs)
    rows = []
    for slicing, step in zip(slicings, slice_steps, strict=True):
        cols = [inputs.attribute(c) for c in slicing]
        name = f"strata_pairweights_{step}"
        pipeline.add(name, render("pairs/slice_pairweights_strata.sql", slice_columns=cols,
                                  slice_cells=step, population=population))
        for r in pipeline.fetch(engine, name):
            row = {renamed.get(k, k): _clean({k: v})[k] for k, v in r.items()}
            row["pairweight"] = row["pairweight_split_merge"] + row["pairweight_stable"]
            rows.append(row)
    return rows
