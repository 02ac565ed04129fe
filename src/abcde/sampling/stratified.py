"""Stratified pair sampling: split+merge pairs and stable pairs as two strata (the
Jaccard decomposition paper §7.1 leaves stratification as future work).

Why: the Good/Bad split and merge distances (and rates) are estimated only from split
and merge draws, the affected indexes only from stable draws (self pairs included).
An unstratified sample ∝ w_ij spends the budget on the classes in proportion to
their pair weight — often mostly stable pairs (Jaccard §7.1) — and how many split and
merge pairs it gets is random. Sampling the strata separately fixes each stratum's
number of unique judgeable pairs, and the allocation decides where the budget goes.

Stratum h ∈ {split_merge, stable} is sampled exactly like an unstratified sample
(`abcde.sampling.pairs`: the same SQL; only the pair strata are restricted to the classes of h,
so a draw picks (cell, class) ∝ its total within h), with its own budget fill and
seed 2·seed + h (independent uniforms per stratum). Estimation
(`abcde.quality.estimate`): each stratum's reweighted mean × the stratum's own population
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

from pathlib import Path
from typing import Any

from abcde.engines import Engine
from abcde.errors import InputError
from abcde.inputs.session import EngineOptions, opened
from abcde.inputs.spec import InputSpec
from abcde.results import plain_row
from abcde.sampling.clocks import check_count, check_seed
from abcde.sampling.files import sample_output
from abcde.sampling.manifest import fingerprint, lineage, sample_digest, sample_id
from abcde.sampling.pairs import (
    DIGEST_KEYS,
    DRAW_COLUMNS,
    MAX_DRAWS,
    QUESTION_COLUMNS,
    PairSample,
    attribute_names,
    collect_sample,
    fill_budget,
    judgeable_pairs,
    pair_counts,
    population_entries,
    prepare,
    with_sample_id,
    write_manifest,
    write_sample,
)
from abcde.sql.pipeline import Pipeline, Step
from abcde.sql.templates import render
from abcde.version import __version__

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
    out = pipeline.copy()
    out.steps["pair_strata"] = Step("pair_strata", query, True)
    out.tables.pop("pair_strata", None)
    out.provided.discard("pair_strata")
    out.built.discard("pair_strata")
    return out


def sample_pairs_stratified(base: object, exp: object, weights: object | None = None, *,
                            attributes: object | None = None, population: str = "jaccard",
                            budget: int, allocation: str | float = "proportional",
                            seed: int = 0, slice_by: str | list[str] | None = None,
                            item_col: str = "item_id",
                            cluster_col: str = "cluster_id", weight_col: str = "weight",
                            missing_weight: float | None = None,
                            out: str | Path | None = None, overwrite: bool = False,
                            engine: Engine | None = None,
                            db: str | Path | None = None, memory_limit: str | None = None,
                            threads: int | None = None,
                            workspace: str | Path | None = None) -> PairSample:
    """Pairs for judgement, stratified split+merge vs stable (module docstring).

    Parameters
    ----------
    base, exp, weights, attributes, population, seed, item_col, cluster_col, weight_col,
    missing_weight, out, overwrite, engine, db, memory_limit, threads
        As for `abcde.sampling.pairs.sample_pairs`.
    budget
        Unique judgeable pairs in all strata (at least 2).
    allocation
        'proportional', 'equal', or the fraction of the budget for split+merge.
    slice_by
        Attribute column(s); the manifest's slices then carry each stratum's pairweight
        (`pairweight_split_merge`, `pairweight_stable`) for per-slice ΔPrecision.

    Returns
    -------
    PairSample
        Draws carry a `stratum` column, pair ids are unique across strata, and the
        manifest lists the strata (classes, budget, seed, totals, judgeable pairs,
        draws, pairs). A stratum allocated more pairs than it holds (e.g. a stable
        stratum of self pairs only) is refused before anything is drawn.

    References
    ----------
    van Staden, S. (2024). Decomposing the Jaccard Distance and the Jaccard Index in
    ABCDE. Google Switzerland GmbH, §7.1 (stratification left as future work there).
    Design and estimation: docs/method.md §7.7, §8.10.
    """
    if population not in ("abcde", "jaccard"):
        raise ValueError(f"population must be abcde or jaccard, got {population!r}")
    budget = check_count("budget", budget, minimum=2, maximum=MAX_DRAWS)
    alloc = parse_allocation(allocation)
    seed = check_seed(seed)
    spec = InputSpec.of(base, exp, weights, attributes=attributes, slice_by=slice_by,
                        item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
                        missing_weight=missing_weight)
    slicings = [list(s) for s in spec.slicings]
    out_dir = Path(out) if out is not None else None
    with sample_output(out_dir, overwrite) as od, \
            opened(spec, EngineOptions(engine, db, memory_limit, threads,
                                       workspace=workspace)) as (eng, inputs):
        pipeline, slice_steps = prepare(eng, inputs, population, slicings)
        attrs = attribute_names(inputs, [*DRAW_COLUMNS, *QUESTION_COLUMNS, "stratum"],
                                QUESTION_COLUMNS)
        slices = _slice_rows(eng, pipeline, inputs, slicings, slice_steps, population, attrs)
        totals = plain_row(pipeline.fetch(eng, "pair_totals")[0])
        overall = plain_row(pipeline.fetch(eng, "overall")[0])
        budgets = allocate(budget, {k: float(totals[k]) for k in ("split", "merge", "stable")},
                           alloc)
        check_strata(budgets, totals, budget, alloc)
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
                                     "totals": t,
                                     "population_pairs": judgeable_pairs(totals, classes),
                                     "stream_draws": 0, "draws": 0,
                                     "pairs": pair_counts([], [])}
            strata.append(entry)
            if budgets[name] == 0:
                continue
            p = restricted(pipeline, classes, population)
            p.run(eng, "pair_strata")
            try:
                p, n, cut = fill_budget(eng, p, budgets[name], 2 * seed + h,
                                        judgeable=entry["population_pairs"])
            except InputError as err:
                raise InputError(f"stratum {name}: {err}", hint="Lower --budget or change "
                                 "--strata-allocation.") from None
            got, qs = collect_sample(eng, p, inputs, attrs, cut)
            for r in got:
                r["pair_id"] = int(r["pair_id"]) + offset
                r["stratum"] = name
            for q in qs:
                q["pair_id"] = int(q["pair_id"]) + offset
            offset = max([offset] + [r["pair_id"] for r in got])
            entry.update(stream_draws=n, draws=sum(int(r["draw_count"]) for r in got),
                         pairs=pair_counts(got, qs))
            rows += got
            questions += qs
        fp = fingerprint(eng, pipeline, {"sample": sample_digest(rows, (*DIGEST_KEYS,
                                                                        "stratum"))})
        manifest: dict[str, Any] = {
            "abcde_version": __version__,
            "population": population,
            "seed": seed,
            "budget": budget,
            "stratified": True,
            "strata_allocation": alloc,
            "strata": strata,
            "draws": sum(s["draws"] for s in strata),
            "pairs": pair_counts(rows, questions),
            **population_entries(totals, overall),
            "slices": slices,
            "inputs": inputs.description(),
            "fingerprint": fp,
        }
        manifest["lineage"] = lineage(manifest)
        manifest["sample_id"] = sample_id(manifest)
        result = PairSample(rows, with_sample_id(questions, manifest["sample_id"]), manifest)
        if od is not None:
            result.files = write_sample(od.path, result, draw_columns=[*DRAW_COLUMNS, "stratum"],
                                        final=od.target)
            write_manifest(od.path, manifest, result.files)
        return result


def check_strata(budgets: dict[str, int], totals: dict[str, Any], budget: int,
                 allocation: str | float) -> None:
    """Refuse, before drawing, a stratum allocated more unique judgeable pairs than it
    holds (its budget fill could never finish)."""
    problems = []
    for name, classes in STRATA:
        k = judgeable_pairs(totals, classes)
        if budgets[name] > k:
            problems.append(
                f"stratum {name} holds no pair to judge (only self pairs)" if k == 0 else
                f"stratum {name} has only {k:,} judgeable pairs but the allocation gives it "
                f"{budgets[name]:,}")
    if problems:
        raise InputError(f"{'; '.join(problems)} (--budget {budget:,}, --strata-allocation "
                         f"{allocation})", hint="Lower --budget, choose a "
                         "--strata-allocation that gives each stratum at most its judgeable "
                         "pairs, or sample without --strata-allocation.")


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
            row = {renamed.get(k, k): plain_row({k: v})[k] for k, v in r.items()}
            row["pairweight"] = row["pairweight_split_merge"] + row["pairweight_stable"]
            rows.append(row)
    return rows
