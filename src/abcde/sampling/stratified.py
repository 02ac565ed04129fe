"""Stratified pair sampling (docs/method.md §7.7; the Jaccard decomposition paper §7.1
leaves stratification as future work): split+merge pairs and stable pairs (i ≠ j) as two
strata, each sampled exactly as an unstratified sample (`add_chain` with the design
restricted to its classes) with its own budget fill and the seed 2·seed + h, so that each
stratum's number of unique judgeable pairs is fixed by the allocation (proportional,
equal or a fraction to split+merge) rather than random. Estimation is the unstratified
one (docs/method.md §8.10): each class lies in one stratum.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.inputs.session import Session
from abcde.params import COUNT, MAX_DRAWS, SEED, Constraint, Int, Maybe, checked
from abcde.sample_files.manifest import class_keys, judgeable_pairs
from abcde.sample_files.pairs import DRAW_COLUMNS, QUESTION_COLUMNS, write_pair_sample
from abcde.sampling.pairs import (
    BudgetNotFilled,
    Ceiling,
    Design,
    PairSample,
    add_chain,
    attribute_names,
    collect_sample,
    design_for,
    fetch_totals,
    fill,
    finish,
    opened_sample,
    pair_counts,
    prepare,
    strata_query,
)
from abcde.sql.pipeline import Pipeline
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
    stratum to its design probability Q_h (pairs/allocation.sql computes the same)."""
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
        refused before anything is drawn, one its ceiling does not fill after, each
        with the largest budget the strata supply.

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
    with opened_sample(session, out, overwrite) as (od, eng, inputs):
        p, slice_steps = prepare(eng, inputs, design, spec.slicings)
        totals = fetch_totals(eng, p)
        q = {name: stratum_q(totals, classes) for name, classes in STRATA}
        held = {name: judgeable_pairs(totals, classes) for name, classes in STRATA}
        budgets = allocate(budget, q, alloc)
        if any(budgets[name] > held[name] for name, _ in STRATA):
            raise refusal([f"stratum {name} holds no pair to judge" if not held[name] else
                           f"stratum {name} has only {held[name]:,} judgeable pairs but the "
                           f"allocation gives it {budgets[name]:,}" for name, _ in STRATA
                           if budgets[name] > held[name]], budget, q, alloc, held, None)
        strata, kept, fits, failed = [], [], dict(held), []
        for h, (name, classes) in enumerate(STRATA):
            entry = {"name": name, "classes": list(classes), "budget": budgets[name],
                     "seed": 2 * seed + h, "q": q[name], "population_pairs": held[name],
                     "stream_draws": 0}
            strata.append(entry)
            if not budgets[name]:
                continue

            def chain(p: Pipeline, n: int, h: int = h, name: str = name,
                      classes: tuple[str, ...] = classes) -> list[str]:
                return add_chain(p, 2 * seed + h, n, budget=budgets[name],
                                 ceiling=ceiling.sql(), suffix=f"_{name}",
                                 strata=strata_query(design, classes),
                                 class_keys=class_keys(classes))

            try:  # every stratum is drawn, so that a refusal knows what each one fills
                p, entry["stream_draws"], row = fill(eng, p, budgets[name], ceiling,
                                                     held[name], chain, "stratum")
                fits[name] = min(held[name], int(row["fits"]))
                kept.append(name)
            except BudgetNotFilled as err:
                fits[name] = err.fit
                failed.append(f"stratum {name}: {err.reason}")
        if failed:
            raise refusal(failed, budget, q, alloc, fits, ceiling.draws_option)
        attrs = attribute_names(inputs, [*DRAW_COLUMNS, *QUESTION_COLUMNS, "stratum"],
                                QUESTION_COLUMNS)
        rows, questions = collect_sample(eng, p, inputs, attrs,
                                         [f"pair_kept_{n}" for n in kept], kept)
        for entry in strata:
            got = [r for r in rows if r["stratum"] == entry["name"]]
            ids = {r["pair_id"] for r in got}
            entry.update(draws=sum(int(r["draw_count"]) for r in got),
                         pairs=pair_counts(got, [x for x in questions if x["pair_id"] in ids]))
        manifest: dict[str, Any] = {
            "abcde_version": __version__, "design": design.as_dict(),
            "population": design.population, "alpha": design.alpha, "seed": seed,
            "budget": budget, "stratified": True, "strata_allocation": alloc,
            "strata": strata, "draws": sum(s["draws"] for s in strata),
            "pairs": pair_counts(rows, questions)}
        result = finish(eng, p, inputs, spec.slicings, slice_steps, attrs, totals, manifest,
                        rows, questions)
        if od is not None:
            result.files = write_pair_sample(od, rows, result.questions, result.manifest,
                                             draw_columns=[*DRAW_COLUMNS, "stratum"])
        return result


def refusal(problems: list[str], budget: int, q: dict[str, float], allocation: str | float,
            held: dict[str, int], ceiling: str | None) -> InputError:
    """The refusal of a stratified budget: what went wrong per stratum and the largest total
    budget every stratum supplies (`held`: its judgeable pairs, or what its ceiling fills);
    `ceiling` names the option that raises the cost ceiling when that stopped a stratum."""
    option = ceiling or "budget"
    most = largest_budget(budget, q, allocation, held)
    what = f"--budget {budget:,}, --strata-allocation {allocation}"
    if most is None:
        return InputError(f"{'; '.join(problems)} ({what}): no budget of at least 2 gives "
                          "every stratum at most what it holds with this allocation: choose "
                          "another allocation, or sample without one", option=option)
    over = allocate(most + 1, q, allocation)
    limit = next(name for name, _ in STRATA if over[name] > held[name])
    split = ", ".join(f"{name} {n:,}" for name, n in allocate(most, q, allocation).items())
    advice = (f"lower {{option}} to at most {most:,}" if ceiling is None else
              f"lower the budget to at most {most:,}, raise {{option}}")
    return InputError(f"{'; '.join(problems)} ({what}): the largest budget every stratum "
                      f"supplies with this allocation is {most:,} ({split}; one more would "
                      f"give stratum {limit} more than its {held[limit]:,}): {advice} or "
                      "change the allocation", option=option)


def largest_budget(budget: int, q: dict[str, float], allocation: str | float,
                   held: dict[str, int]) -> int | None:
    """The largest total budget below `budget` whose allocation gives every stratum at most
    `held`, None when not even 2 does: each stratum's allocation grows by 0 or 1 per pair,
    so the budgets that fit are 2..B* and a bisection over `allocate` finds B* exactly."""
    def fits(b: int) -> bool:
        return all(n <= held[name] for name, n in allocate(b, q, allocation).items())

    if not fits(2):
        return None
    lo, hi = 2, budget  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo
