"""Stratified pair sampling: split+merge pairs and stable pairs (i ≠ j) as two strata
(the Jaccard decomposition paper §7.1 leaves stratification as future work).

Why: the Good/Bad split and merge rates and distances are estimated only from split and
merge draws, the affected indexes only from stable draws, and ΔPrecision from all. An
unstratified sample spends the budget on the classes in proportion to their design
probability — often mostly stable pairs (Jaccard §7.1) — and how many split and merge
pairs it gets is random. Sampling the strata separately fixes each stratum's number of
unique judgeable pairs, and the allocation decides where the budget goes.

Stratum h ∈ {split_merge, stable} is sampled exactly like an unstratified sample
(`abcde.sampling.pairs`: the same design and SQL; only the strata of the design are
restricted to the classes of h, so a draw picks (cell, class) ∝ its design total within
h), with its own budget fill and seed 2·seed + h (independent uniforms per stratum).
Each draw's importance weights are relative to its stratum's design. Estimation is the
unstratified one (docs/method.md §8.10): every metric part is a per-class ratio times the
class's exact total, and each class lies in one stratum.

Allocation of the budget B (unique judgeable pairs): ``proportional`` — B·Q_h (the
unstratified sample's expected shares: Q_h is the design probability of the stratum's
classes), ``equal`` — B/2 each, or a number f in (0, 1) — f·B to split+merge. A stratum
without pairs gets no budget.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.inputs.session import Session
from abcde.outputs import input_files
from abcde.params import COUNT, MAX_DRAWS, SEED, Constraint, Int, Maybe, checked
from abcde.sample_files.layout import sample_output
from abcde.sample_files.manifest import (
    class_keys,
    fingerprint,
    judgeable_pairs,
    lineage,
    population_entries,
    sample_digest,
    sample_id,
)
from abcde.sample_files.pairs import (
    DRAW_COLUMNS,
    QUESTION_COLUMNS,
    with_sample_id,
    write_pair_sample,
)
from abcde.sampling.pairs import (
    DIGEST_KEYS,
    BudgetNotFilled,
    Ceiling,
    Design,
    PairSample,
    attribute_names,
    check_pair_slicings,
    collect_sample,
    design_for,
    draw_stream,
    fetch_totals,
    fill_budget,
    fits,
    pair_counts,
    prepare,
    slice_rows,
    strata_query,
)
from abcde.sql.pipeline import Pipeline, Step
from abcde.version import __version__

STRATA = (("split_merge", ("split", "merge")), ("stable", ("stable",)))


class Allocation(Constraint):
    """'proportional', 'equal' or the fraction in (0, 1) of the budget for split+merge."""

    what = "proportional, equal or a fraction in (0, 1) of the budget for split+merge"

    def convert(self, value: Any) -> str | float:
        if isinstance(value, str) and value.strip().lower() in ("proportional", "equal"):
            return value.strip().lower()
        f = float(value)
        if not 0 < f < 1:
            raise ValueError
        return f


ALLOCATION = Allocation()


def stratum_q(totals: dict[str, dict[str, float]], classes: tuple[str, ...]) -> float:
    """Q_h: the design probability of a stratum's classes (pairs/totals.sql)."""
    return sum(totals[k]["q"] for k in class_keys(classes))


def allocate(budget: int, q: dict[str, float], allocation: str | float) -> dict[str, int]:
    """Budget per stratum (unique judgeable pairs), summing to `budget`; `q` maps each
    stratum to its design probability Q_h."""
    q_sm, q_st = q["split_merge"], q["stable"]
    if q_sm <= 0 or q_st <= 0:  # one stratum (or none: Base = Exp) holds every pair
        return {"split_merge": budget if q_sm > 0 else 0, "stable": budget if q_st > 0 else 0}
    if allocation == "proportional":
        f = q_sm / (q_sm + q_st)
    elif allocation == "equal":
        f = 0.5
    else:
        f = float(allocation)
    first = min(budget - 1, max(1, round(f * budget))) if budget >= 2 else budget
    return {"split_merge": first, "stable": budget - first}


def restricted(pipeline: Pipeline, classes: tuple[str, ...], design: Design) -> Pipeline:
    """A copy of `prepare`'s pipeline whose `pair_strata` holds only `classes` (the
    intervals [lo, lo + t) and the importance weights recomputed over them); run it to
    re-materialise."""
    out = pipeline.copy()
    out.steps["pair_strata"] = Step("pair_strata", strata_query(design, classes), True)
    out.tables.pop("pair_strata", None)
    out.provided.discard("pair_strata")
    out.built.discard("pair_strata")
    return out


@checked(budget=Int(2, MAX_DRAWS), allocation=ALLOCATION, seed=SEED,
         max_stream_draws=Maybe(COUNT))
def sample_pairs_stratified(base: object, exp: object, weights: object | None = None, *,
                            budget: int, allocation: str | float = "proportional",
                            seed: int = 0, population: str = "mixture",
                            alpha: float | None = None, max_stream_draws: int | None = None,
                            out: str | Path | None = None, overwrite: bool = False,
                            **inputs: Any) -> PairSample:
    """Pairs for judgement, stratified split+merge vs stable (module docstring).

    Parameters
    ----------
    base, exp, weights, population, alpha, seed, out, overwrite, max_stream_draws, **inputs
        As for `abcde.sampling.pairs.sample_pairs`; the cost ceiling applies to each
        stratum's fill, with the stratum's budget.
    budget
        Unique judgeable pairs in all strata (at least 2).
    allocation
        'proportional', 'equal', or the fraction of the budget for split+merge.

    Returns
    -------
    PairSample
        Draws carry a `stratum` column, pair ids are unique across strata, and the
        manifest lists the strata (classes, budget, seed, design probability q,
        judgeable pairs, draws, pairs). A stratum allocated more pairs than it holds is
        refused before anything is drawn, with the largest budget the strata supply.

    References
    ----------
    van Staden, S. (2024). Decomposing the Jaccard Distance and the Jaccard Index in
    ABCDE. Google Switzerland GmbH, §7.1 (stratification left as future work there).
    Design and estimation: docs/method.md §7.7, §8.10.
    """
    return run_stratified(Session.of(base, exp, weights, **inputs), budget,
                          allocation, seed=seed,
                          design=design_for(population, alpha),
                          max_stream_draws=max_stream_draws, out=out, overwrite=overwrite)


def run_stratified(session: Session, budget: int, alloc: str | float, *, seed: int = 0,
                   design: Design | None = None, max_stream_draws: int | None = None,
                   out: str | Path | None = None, overwrite: bool = False) -> PairSample:
    """`sample_pairs_stratified` of a session's inputs (`abcde.Comparison.sample_pairs`
    with `strata`)."""
    design = design or design_for()
    ceiling = Ceiling.of(max_stream_draws)
    spec = session.spec
    check_pair_slicings(spec)
    slicings = [list(s) for s in spec.slicings]
    out_dir = Path(out) if out is not None else None
    with sample_output(out_dir, overwrite, input_files(spec.base, spec.exp, spec.weights,
                                                       spec.attributes)) as od, \
            session.using() as (eng, inputs):
        pipeline, slice_steps = prepare(eng, inputs, design, slicings)
        attrs = attribute_names(inputs, [*DRAW_COLUMNS, *QUESTION_COLUMNS, "stratum"],
                                QUESTION_COLUMNS)
        slices = slice_rows(eng, pipeline, inputs, slicings, slice_steps, attrs)
        totals = fetch_totals(eng, pipeline)
        self_parts = pipeline.fetch(eng, "pair_self")[0]
        overall = pipeline.fetch(eng, "overall")[0]
        budgets = allocate(budget, {name: stratum_q(totals, classes)
                                    for name, classes in STRATA}, alloc)
        check_strata(budgets, totals, budget, alloc)
        rows: list[dict[str, Any]] = []
        questions: list[dict[str, Any]] = []
        strata = []
        offset = 0
        for h, (name, classes) in enumerate(STRATA):
            entry: dict[str, Any] = {"name": name, "classes": list(classes),
                                     "budget": budgets[name], "seed": 2 * seed + h,
                                     "q": stratum_q(totals, classes),
                                     "population_pairs": judgeable_pairs(totals, classes),
                                     "stream_draws": 0, "draws": 0,
                                     "pairs": pair_counts([], [])}
            strata.append(entry)
            if budgets[name] == 0:
                continue
            p = restricted(pipeline, classes, design)
            p.run(eng, "pair_strata")
            try:
                p, n, cut = fill_budget(eng, p, budgets[name], 2 * seed + h,
                                        judgeable=entry["population_pairs"],
                                        ceiling=ceiling, scope="stratum")
            except BudgetNotFilled as err:
                # the strata not drawn yet may limit the budget too: their ceilings'
                # streams say what they fill, so that the suggested --budget is one
                # every stratum fills (the refusal costs at most one more stream)
                caps = {name: err.fit}
                for k, (later, later_classes) in enumerate(STRATA[h + 1:], h + 1):
                    if budgets[later]:
                        pl = restricted(pipeline, later_classes, design)
                        pl.run(eng, "pair_strata")
                        stream = draw_stream(eng, pl, ceiling.draws(budgets[later]),
                                             2 * seed + k)
                        caps[later] = fits(eng, stream, ceiling)
                raise unfilled_stratum(name, err, budget, totals, alloc, caps) from None
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
            "design": design.as_dict(),
            "population": design.population,
            "alpha": design.alpha,
            "seed": seed,
            "budget": budget,
            "stratified": True,
            "strata_allocation": alloc,
            "strata": strata,
            "draws": sum(s["draws"] for s in strata),
            "pairs": pair_counts(rows, questions),
            **population_entries(totals, self_parts, overall),
            "slices": slices,
            "inputs": inputs.description(),
            "fingerprint": fp,
        }
        manifest["lineage"] = lineage(manifest)
        manifest["sample_id"] = sample_id(manifest)
        result = PairSample(rows, with_sample_id(questions, manifest["sample_id"]), manifest)
        if od is not None:
            result.files = write_pair_sample(od, rows, result.questions, manifest,
                                             draw_columns=[*DRAW_COLUMNS, "stratum"])
        return result


def check_strata(budgets: dict[str, int], totals: dict[str, dict[str, float]], budget: int,
                 allocation: str | float) -> None:
    """Refuse, before drawing, a stratum allocated more unique judgeable pairs than it
    holds (its budget fill could never finish), with the largest --budget whose
    allocation every stratum holds (`largest_budget`)."""
    held = {name: judgeable_pairs(totals, classes) for name, classes in STRATA}
    problems = []
    for name, _ in STRATA:
        k = held[name]
        if budgets[name] > k:
            problems.append(
                f"stratum {name} holds no pair to judge" if k == 0 else
                f"stratum {name} has only {k:,} judgeable pairs but the allocation gives it "
                f"{budgets[name]:,}")
    if not problems:
        return
    q = {name: stratum_q(totals, classes) for name, classes in STRATA}
    most = largest_budget(budget, q, allocation, held)
    if most is None:
        suggest = ("no --budget of at least 2 gives each stratum at most its judgeable pairs "
                   "with this allocation")
        hint = ("Choose a --strata-allocation that gives each stratum at most its judgeable "
                "pairs, or sample without --strata-allocation.")
    else:
        # the stratum that one more pair would over-allocate: the one that limits
        over = allocate(most + 1, q, allocation)
        limit = next(name for name, _ in STRATA if over[name] > held[name])
        split = ", ".join(f"{name} {n:,}" for name, n in allocate(most, q, allocation).items())
        suggest = (f"the largest --budget the strata can supply with this allocation is "
                   f"{most:,} ({split}; one more would give stratum {limit} more than its "
                   f"{held[limit]:,})")
        hint = (f"Lower --budget to at most {most:,}, choose a --strata-allocation that gives "
                "each stratum at most its judgeable pairs, or sample without "
                "--strata-allocation.")
    raise InputError(f"{'; '.join(problems)} (--budget {budget:,}, --strata-allocation "
                     f"{allocation}): {suggest}", hint=hint)


def unfilled_stratum(name: str, err: BudgetNotFilled, budget: int,
                     totals: dict[str, dict[str, float]], allocation: str | float,
                     caps: dict[str, int]) -> InputError:
    """A stratum's budget fill refused at the cost ceiling (`err`: its budget of up to
    `err.fit` pairs is filled) restated for the total --budget: the largest one whose
    allocation gives every stratum at most what its ceiling fills (`caps`: this one's
    `err.fit` and the strata not drawn yet, the earlier ones filled a larger budget) and
    at most its pairs (`largest_budget`)."""
    held = {n: judgeable_pairs(totals, classes) for n, classes in STRATA}
    q = {n: stratum_q(totals, classes) for n, classes in STRATA}
    most = largest_budget(budget, q, allocation,
                          {n: min(k, caps.get(n, k)) for n, k in held.items()})
    raise_it = "raise --max-stream-draws (time and memory grow with the draws)"
    if most is None:
        return InputError(
            f"stratum {name}: {err.reason}; with --strata-allocation {allocation}, no "
            f"--budget of at least 2 gives every stratum a budget its ceiling fills",
            hint=f"{raise_it[0].upper()}{raise_it[1:]}, choose another --strata-allocation, "
                 "or sample without --strata-allocation.")
    limits = {n: min(k, caps.get(n, k)) for n, k in held.items()}
    split = ", ".join(f"{n} {k:,}" for n, k in allocate(most, q, allocation).items())
    over = allocate(most + 1, q, allocation)
    limit = next(n for n, _ in STRATA if over[n] > limits[n])
    return InputError(
        f"stratum {name}: {err.reason}; with --strata-allocation {allocation}, the largest "
        f"--budget whose allocation every stratum fills within the ceiling is {most:,} "
        f"({split}; one more would give stratum {limit} more than the {limits[limit]:,} "
        f"{'its pairs' if limits[limit] == held[limit] else 'its ceiling fills'})",
        hint=f"Lower --budget to at most {most:,}, {raise_it}, or change "
             "--strata-allocation.")


def largest_budget(budget: int, q: dict[str, float], allocation: str | float,
                   held: dict[str, int]) -> int | None:
    """The largest total budget below `budget` (which over-allocates a stratum) whose
    allocation (`allocate`) gives every stratum at most its judgeable pairs (`held`);
    None when not even 2 (the least a stratified sample takes) does. Each stratum's allocation is
    nondecreasing in the budget (round(f·B) clamped to [1, B − 1], and B minus it, both
    grow by 0 or 1 per pair), so the budgets that fit are 2..B*: a bisection over
    `allocate` itself finds B* exactly, with its rounding."""
    def fits(b: int) -> bool:
        return all(n <= held[name] for name, n in allocate(b, q, allocation).items())

    if not fits(2):
        return None
    lo, hi = 2, budget  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo
