"""Pairs of items for judgement, drawn exactly from a defensive mixture of the two pair
populations (docs/method.md §6): q = α·u/Σu + (1 − α)·w/Σw of ABCDE's u_ij (§5.7, eq.
52–58) and the Jaccard decomposition's w_ij (§7), self pairs excluded (added exactly:
ABCDE §5.8; docs/method.md §6.8). α = 1 is the ABCDE population, α = 0 the Jaccard one.

Each draw is hierarchical (docs/method.md §6.5), never an enumeration of pairs nor an
item self-join: a stratum (cell, class) ∝ its closed-form design total, the vantage item,
then the partner, every "pick ∝ weight" a window as-of join (§6.6); each draw carries
u_ij/w_ij, from which its importance weights follow (`importance`). Draw d of the stream
uses the uniforms of (seed, level, d), so a longer stream extends a shorter one (§7.4),
and the budget fill keeps the shortest prefix holding B unique judgeable pairs (ABCDE
App. A 3.1–3.2; §7.5). The engines and the warehouse scripts build the same steps
(`add_design_steps`, `add_chain`, `add_sample_steps`): a script draws one stream of
--stream-draws and says whether it held the budget; an engine grows its stream GROWTH
times while it does not, up to the cost ceiling (`Ceiling`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlglot import exp

from abcde.cells import (
    IMPACT_METRICS,
    add_affected_item_rows,
    add_cell_steps,
    add_item_steps,
    build_cell_rows,
    items_query,
    run_cell_steps,
)
from abcde.engines import Engine
from abcde.errors import InputError
from abcde.inputs.session import Inputs, Session
from abcde.inputs.spec import InputSpec, check_slice_names
from abcde.outputs import input_files
from abcde.params import COUNT, MAX_DRAWS, SEED, SHARE, Maybe, OneOf, checked
from abcde.results import summary_repr
from abcde.sample_files.layout import sample_output
from abcde.sample_files.manifest import (
    CLASS_KEYS,
    DESIGN_VERSION,
    PAIR_CLASSES,
    POPULATIONS,
    STREAM_VERSION,
    TOTAL_COLUMNS,
    fingerprint,
    judgeable_pairs,
    lineage,
    population_entries,
    slice_order,
)
from abcde.sample_files.pairs import (
    DRAW_COLUMNS,
    HUMAN_COLUMN,
    QUESTION_COLUMNS,
    with_sample_id,
    write_pair_sample,
)
from abcde.sampling.clocks import digits_for
from abcde.sampling.humans import humans_subset
from abcde.sql.pipeline import Pipeline, retarget
from abcde.sql.quoting import literal
from abcde.sql.templates import render
from abcde.version import __version__

log = logging.getLogger("abcde")

DEFAULT_ALPHA = 0.5
"""The mixture's share of the ABCDE population: every metric's importance weights are then
at most 2, so no metric's variance exceeds twice what its own population would give
(Hesterberg 1995; measured in benchmarks/RESULTS.md, docs/method.md §6.9)."""
# the totals beside a slicing's columns in a manifest slice (pairs/slice_pairweights.sql):
# a slice column so named would be overwritten by the total and lose its value, which
# `abcde estimate` then cannot match to the draws, so none may be (check_slice_names)
SLICE_TOTALS = ("weight", "split", "merge", "stable_plus", "stable_minus",
                "self_delta_precision", "pairweight")
DRAWS_PER_PAIR = 10
CHEAP_DRAWS = 10**6
"""The default cost ceiling of a budget fill (docs/method.md §7.5): a budget of B pairs
may draw a stream of at most max(DRAWS_PER_PAIR·B, CHEAP_DRAWS) draws. Near the
population's judgeable pairs a fill is a coupon collector — the last pairs are the
rarest — and its stream (time and memory ∝ draws) would grow without bound: 56,000 of
the examples' 56,637 pairs took 13.4M draws and 8.5 GB. A budget well below the
population needs about one draw per pair; streams of CHEAP_DRAWS (seconds on DuckDB) are
allowed to every budget, so that small populations can be sampled whole."""
GROWTH = 4
"""How much longer the next stream of an engine's fill is, when one did not hold the
budget (a budget far below the population fills in the first, of 2·B + 100 draws)."""


@dataclass(frozen=True)
class Ceiling:
    """The longest stream a budget fill may draw for a budget B: max(per_pair·B, floor),
    at most MAX_DRAWS; `max_stream_draws` is per_pair 0 and floor that many draws. A
    refusal asks to lower `budget_option` (default: the option at fault, as spelled) or
    to raise `draws_option` (a parameter name; None: the command has none, e.g. `abcde
    simulate`)."""

    per_pair: int
    floor: int
    budget_option: str = "{option}"
    draws_option: str | None = "max_stream_draws"

    @classmethod
    def of(cls, max_stream_draws: int | None = None) -> Ceiling:
        if max_stream_draws is None:
            return cls(DRAWS_PER_PAIR, CHEAP_DRAWS)
        return cls(0, max_stream_draws)

    def draws(self, budget: int) -> int:
        return min(MAX_DRAWS, max(self.per_pair * budget, self.floor))

    def sql(self) -> str:
        """`draws` of the budget r = judge_rank, in SQL (pairs/fill.sql's `fits`)."""
        return (f"LEAST(GREATEST(judge_rank * {self.per_pair}, CAST({self.floor} AS BIGINT)),"
                f" CAST({MAX_DRAWS} AS BIGINT))")


@dataclass
class PairSample:
    """What `sample_pairs` returns: the draws (one row per unique ordered pair drawn),
    the questions (unique unordered non-self pairs) and the manifest."""

    draws: list[dict[str, Any]]
    questions: list[dict[str, Any]]
    manifest: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    stream: list[dict[str, Any]] | None = None  # every draw (d, item_i, item_j, ...)

    __repr__ = summary_repr


@dataclass(frozen=True)
class Design:
    """The sampling design: a population name and the mixture's share α of the ABCDE
    population (docs/method.md §6.9)."""

    population: str
    alpha: float

    def as_dict(self) -> dict[str, Any]:
        return {"version": DESIGN_VERSION, "population": self.population, "alpha": self.alpha}


def design_for(population: str = "mixture", alpha: float | None = None) -> Design:
    """`mixture` with α (default DEFAULT_ALPHA, in (0, 1)); `abcde` is α = 1 and `jaccard`
    α = 0, which take no α."""
    population = OneOf(POPULATIONS).check("population", population)
    if population != "mixture":
        if alpha is not None:
            raise InputError(f"{{option}} applies to the mixture population only (the "
                             f"{population} population is alpha = "
                             f"{1 if population == 'abcde' else 0})", option="alpha")
        return Design(population, 1.0 if population == "abcde" else 0.0)
    return Design("mixture", DEFAULT_ALPHA if alpha is None else SHARE.check("alpha", alpha))


def importance(u_over_w: Any, alpha: float, kappa: float) -> tuple[Any, Any]:
    """A draw's importance weights toward the two target populations, (u_ij/Σu)/q_ij and
    (w_ij/Σw)/q_ij, from its u_ij/w_ij = L (the draw's `u_over_w`), the design's α and
    κ = Σu/Σw (sums over pairs i ≠ j; manifest `totals`):

        importance_u = L/(α·L + (1 − α)·κ),   importance_w = κ/(α·L + (1 − α)·κ),

    so α·importance_u + (1 − α)·importance_w = 1: each is at most 1/α resp. 1/(1 − α)
    (docs/method.md §6.9). Works on floats and numpy arrays alike. In a stratum of a
    stratified sample both are relative to the whole design, not the stratum's: a
    constant factor per stratum, which the per-class ratio estimators do not see."""
    denominator = alpha * u_over_w + (1 - alpha) * kappa
    return u_over_w / denominator, kappa / denominator


def attribute_names(inputs: Inputs, reserved: Sequence[str],
                    paired: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(input column, output column) for every attribute column: `attr_` prefixes a name
    that clashes, ignoring case, with `reserved` or whose `_1`/`_2` forms clash with the
    question columns `paired`."""
    if inputs.attributes is None:
        return []
    taken = {r.lower() for r in reserved}
    question = {p.lower() for p in paired}
    out = []
    for name in inputs.attributes.columns:
        if name == inputs.columns.item:
            continue
        new = name
        while (new.lower() in taken or f"{new}_1".lower() in question
               or f"{new}_2".lower() in question):
            new = f"attr_{new}"
        taken.add(new.lower())
        out.append((name, new))
    return out


def check_pair_slicings(spec: InputSpec) -> None:
    """Slice columns a pair sample can be estimated by: none named like a manifest slice
    total (`check_slice_names`), nor the item id column — the draws carry the items'
    attributes, not the id as one, so `abcde estimate` could not match such a slice to
    the draws and refused the finished sample."""
    check_slice_names(spec.slicings, set(SLICE_TOTALS))
    item = spec.columns.item
    if any(item in s for s in spec.slicings):
        raise InputError(f"--slice-by {item!r} names the item id column: a slice is a group "
                         "of items sharing an attribute value, and per-item ΔPrecision "
                         "cannot be estimated from a pair sample", table="attributes",
                         column=item, hint="Slice by an attribute column (e.g. "
                         "--slice-by provenance).")


@contextmanager
def opened_sample(session: Session, out: str | Path | None, overwrite: bool
                  ) -> Iterator[tuple[Path | None, Engine, Inputs]]:
    """A pair sample's session opened, its slicings checked first, and its directory
    `out` (None: no files) prepared to be written atomically."""
    spec = session.spec
    check_pair_slicings(spec)
    with sample_output(Path(out) if out is not None else None, overwrite, input_files(
            spec.base, spec.exp, spec.weights, spec.attributes)) as od, \
            session.using() as (eng, inputs):
        yield od, eng, inputs


@checked(budget=Maybe(COUNT), draws=Maybe(COUNT), seed=SEED,
         max_stream_draws=Maybe(COUNT), model_budget=Maybe(COUNT))
def sample_pairs(base: object, exp: object, weights: object | None = None, *,
                 budget: int | None = None, draws: int | None = None, seed: int = 0,
                 model_budget: int | None = None,
                 population: str = "mixture", alpha: float | None = None,
                 max_stream_draws: int | None = None, out: str | Path | None = None,
                 overwrite: bool = False, return_stream: bool = False,
                 **inputs: Any) -> PairSample:
    """Sample item pairs for judgement (ABCDE §5.7–5.8, App. A; Jaccard decomposition §7).

    Parameters
    ----------
    base, exp, weights
        As for `abcde.impact`; every attribute column rides along into the sample files.
    population, alpha
        'mixture' (default): pairs ∝ α·u_ij/Σu + (1 − α)·w_ij/Σw, α = `alpha` (default
        0.5), whose importance weights toward every metric's population are bounded
        (docs/method.md §6.9); 'abcde' (α = 1: ∝ u_ij, ABCDE §5.7) or 'jaccard' (α = 0:
        ∝ w_ij, Jaccard decomposition §7), whose weights toward the other population
        are not. Self pairs are never drawn: they are added exactly (§6.8).
    budget, draws
        Exactly one: `budget` walks the draw stream until that many unique judgeable
        pairs ((i, j) and (j, i) count once; at most the population's number of
        judgeable pairs); `draws` takes that many independent draws.
    model_budget
        A round with a model judge (docs/method.md §8.15): the stream holds this many
        pairs, all in model_questions.jsonl for the model, and `budget` of them, a
        uniform random subset with π = budget/model_budget in the draws'
        human_probability, are the humans' questions.
    max_stream_draws
        The cost ceiling of a budget fill: the longest stream of draws it may draw
        (default: the larger of 10 per budget pair and 10⁶; docs/method.md §7.5). A
        budget the ceiling's stream does not hold — one near the population's judgeable
        pairs, whose last pairs take ever more draws — is refused with the largest
        budget that it does hold.
    seed
        Seed of the md5 uniforms: the same seed gives the same stream on every engine.
    out, overwrite
        With `out`, draws.parquet/.csv, questions.csv/.jsonl and manifest.json are
        written there, atomically (`abcde.sample_files.layout.sample_output`): a directory
        that already holds a sample is refused unless `overwrite`, which replaces it
        only once the new sample is complete; other files there are kept.
    return_stream
        Also return the whole stream of draws in draw order (for checks).
    **inputs
        The inputs and the engine, as `abcde.impact` takes them; the slices of
        `slice_by` get their per-value weight and pairweight in the manifest (ABCDE
        App. B).

    Returns
    -------
    PairSample
        Draws (one row per unique ordered pair), questions, manifest, files.

    References
    ----------
    van Staden, S. and Grubb, A. (2024). ABCDE: Application-Based Cluster Diff Evals.
    Google LLC, §5.7–5.8 and App. A.
    van Staden, S. (2024). Decomposing the Jaccard Distance and the Jaccard Index in
    ABCDE. Google Switzerland GmbH, §7. Populations and the sampling scheme:
    docs/method.md §6–7.
    """
    return run_sample_pairs(Session.of(base, exp, weights, **inputs), budget, draws=draws,
                            seed=seed, model_budget=model_budget,
                            design=design_for(population, alpha),
                            max_stream_draws=max_stream_draws, out=out, overwrite=overwrite,
                            return_stream=return_stream)


def run_sample_pairs(session: Session, budget: int | None = None, *,
                     draws: int | None = None, seed: int = 0, design: Design | None = None,
                     max_stream_draws: int | None = None, out: str | Path | None = None,
                     overwrite: bool = False, return_stream: bool = False,
                     model_budget: int | None = None) -> PairSample:
    """`sample_pairs` of a session's inputs (and `abcde.Comparison.sample_pairs`)."""
    if (budget is None) == (draws is None):
        raise InputError("give exactly one of budget and draws", option="budget")
    humans = None
    if model_budget is not None:  # the stream fills the model's budget, humans get a part
        if budget is None or model_budget < budget:
            raise InputError("{option} must be at least the humans' budget",
                             option="model_budget")
        budget, humans = model_budget, budget
    design = design or design_for()
    spec = session.spec
    with opened_sample(session, out, overwrite) as (od, eng, inputs):
        pipeline, slice_steps = prepare(eng, inputs, design, spec.slicings)
        totals = fetch_totals(eng, pipeline)
        p, n = pipeline, 0
        if sum(t["q"] for t in totals.values()) <= 0:
            pass  # Base = Exp on T: no pair has weight, the sample is empty
        elif budget is not None:
            p, n, _ = fill_budget(eng, pipeline, budget, seed, judgeable=judgeable_pairs(
                totals), ceiling=Ceiling.of(max_stream_draws))
        else:
            p, n = pipeline.copy(), int(draws)  # type: ignore[arg-type]
            steps = add_chain(p, seed, n)
            p.run(eng, *steps, p.add("pair_kept", render("pairs/sample.sql", cut=str(n - 1)),
                                     materialise=True))
        attrs = attribute_names(inputs, [*DRAW_COLUMNS, *QUESTION_COLUMNS], QUESTION_COLUMNS)
        rows, questions = collect_sample(eng, p, inputs, attrs, ["pair_kept"] if n else [])
        manifest = {"abcde_version": __version__, "design": design.as_dict(),
                    "population": design.population, "alpha": design.alpha, "seed": seed,
                    "budget": budget, "stream_draws": n,
                    "draws": sum(int(r["draw_count"]) for r in rows),
                    "pairs": pair_counts(rows, questions)}
        model_questions = None
        if humans is not None:
            chosen = humans_subset([q["pair_id"] for q in questions], humans, seed)
            manifest["humans"] = {"budget": humans, "pairs": len(chosen), "selection":
                                  "uniform", "probability": min(chosen.values(), default=0.0)}
            rows = [{**r, HUMAN_COLUMN: chosen.get(r["pair_id"])} for r in rows]
            model_questions = [{k: v for k, v in q.items() if k != "verdict"}
                               for q in questions]
            questions = [q for q in questions if q["pair_id"] in chosen]
        result = finish(eng, p, inputs, spec.slicings, slice_steps, attrs, totals, manifest,
                        rows, questions)
        if return_stream and n > 0:
            p.add("stream_sorted", _sorted("pair_stream", ("d",)))
            result.stream = p.fetch(eng, "stream_sorted")
        if od is not None:  # the engine's relation keeps the id types; a model round adds π
            result.files = write_pair_sample(
                od, rows, result.questions, result.manifest, engine=eng,
                relation=p.physical_name("pair_sample") if rows and humans is None else None,
                model_questions=model_questions)
        return result


def prepare(engine: Engine, inputs: Inputs, design: Design | str = "mixture",
            slicings: Sequence[Sequence[str]] = (), prefix: str = "abcde_pairs_",
            ) -> tuple[Pipeline, list[str]]:
    """Validated inputs, cells (with Σw² per cell), cell metrics and the design's steps
    (`add_design_steps`), materialised."""
    if isinstance(design, str):
        design = design_for(design)
    pipeline = Pipeline(prefix=prefix, schema=engine.work_schema)
    add_item_steps(pipeline, inputs, squares=True)
    build_cell_rows(engine, pipeline, inputs)
    slice_steps = add_cell_steps(pipeline, inputs, [list(s) for s in slicings], squares=True)
    run_cell_steps(engine, pipeline, inputs, "cells", "cell_metrics")
    if inputs.workspace is not None:
        # the items of every affected cell, joined once per round (a superset of the
        # needed cells' items: pairs/cell_items.sql keeps the exact cells), and the
        # inputs' fingerprint (a pass over the cells), kept with the cells
        add_affected_item_rows(pipeline, inputs)
        pipeline.add("fingerprint", render("sampling/fingerprint.sql"), materialise=True)
        run_cell_steps(engine, pipeline, inputs, "affected_item_rows", "fingerprint")
    add_design_steps(pipeline, inputs, design)
    pipeline.run(engine, "pair_population", "pair_strata", "pair_totals")
    return pipeline, slice_steps


def add_design_steps(p: Pipeline, inputs: Inputs, design: Design) -> None:
    """The pair population, the design's strata and the class totals (materialised); the
    self pairs' exact parts, the impact metrics, and the items of the cells the draws
    need (`pair_items`: the affected cells' items of a workspace, else a second pass over
    the inputs, each side restricted to those cells' clusters, without the attributes)."""
    p.add("pair_population", render("pairs/population.sql"), materialise=True)
    p.add("pair_strata", strata_query(design), materialise=True)
    p.add("pair_totals", render("pairs/totals.sql"), materialise=True)
    p.add("pair_self", render("pairs/self_pairs.sql"))
    if "overall" not in p.steps:
        p.add("overall", render("impact/overall.sql", metrics=IMPACT_METRICS))
    p.add("pair_items", exp.select("*").from_("affected_item_rows")
          if "affected_item_rows" in p.steps
          else items_query(inputs, attributes=False, cells="pair_needed_cells"))


def strata_query(design: Design, classes: Sequence[str] = ()) -> Any:
    """pairs/strata.sql for `design`, restricted to `classes` (all when empty)."""
    return render("pairs/strata.sql", alpha=f"CAST({float(design.alpha)!r} AS DOUBLE)",
                  classes=list(classes))


CHAIN = ("draw_ids", "pair_draw_strata", "pair_split_partners", "pair_merge_partners",
         "pair_draw_cells", "pair_needed_cells", "pair_items", "pair_cell_items",
         "pair_stream", "pair_fill", "pair_kept", "pair_strata")


def add_chain(p: Pipeline, seed: int, n: int, *, budget: int | str | None = None,
              ceiling: str | None = None, suffix: str = "", strata: Any = None,
              class_keys: Sequence[str] = ()) -> list[str]:
    """The steps of one stream of `n` draws of `seed` (ABCDE App. A; docs/method.md §6),
    ending in `pair_stream`; with a `budget` (a number or SQL) also its fill (`ceiling`: an
    SQL expression of it, default the stream) and the kept draws `pair_kept`. With a
    `suffix` every step is named <step><suffix> and reads the stratum's design `strata`.
    Returns the materialised steps, in order."""
    s = literal(seed)
    names = {name: f"{name}{suffix}" for name in CHAIN}
    chain: list[tuple[str, Any, bool]] = []
    if strata is not None and names["pair_strata"] not in p.steps:
        chain.append(("pair_strata", strata, True))
    chain += [
        ("draw_ids", render("pairs/draw_ids.sql", digits=digits_for(n), n=int(n)), False),
        ("pair_draw_strata", render("pairs/draw_strata.sql", seed=s), True),
        ("pair_split_partners", render("pairs/partner_cells.sql", side="b",
                                       pair_class="split", seed=s), True),
        ("pair_merge_partners", render("pairs/partner_cells.sql", side="e",
                                       pair_class="merge", seed=s), True),
        ("pair_draw_cells", render("pairs/draw_cells.sql"), True),
        ("pair_needed_cells", render("pairs/needed_cells.sql"), False)]
    if suffix:
        chain.append(("pair_items", p.steps["pair_items"].query, False))
    chain += [("pair_cell_items", render("pairs/cell_items.sql"), True),
              ("pair_stream", render("pairs/stream.sql", seed=s), True)]
    if budget is not None:
        chain += [("pair_fill", render("pairs/fill.sql", n=int(n), budget=budget,
                                       ceiling=ceiling or str(int(n)),
                                       class_keys=list(class_keys)), True),
                  ("pair_kept", render("pairs/sample.sql",
                                       cut=f"(SELECT cut FROM {names['pair_fill']})"), True)]
    for name, query, materialise in chain:
        p.add(names[name], _renamed(query, names) if suffix else query,
              materialise=materialise)
    return [names[name] for name, _, materialise in chain if materialise]


def _renamed(query: Any, mapping: dict[str, str]) -> Any:
    """`query` reading the tables of `mapping` (step -> step) under their new names."""
    return retarget(query, lambda n: exp.to_table(mapping[n]) if n in mapping else None)


def draw_stream(engine: Engine, base: Pipeline, n: int, seed: int) -> Pipeline:
    """A copy of `prepare`'s pipeline with the stream of draws 0..n−1 (`pair_stream`)
    materialised."""
    p = base.copy()
    p.run(engine, *add_chain(p, seed, n))
    return p


def fetch_totals(engine: Engine, pipeline: Pipeline) -> dict[str, dict[str, float]]:
    """`pair_totals` as class key → its columns (`pairs/totals.sql`); a class without
    pairs has zeros."""
    out = {k: dict.fromkeys(TOTAL_COLUMNS, 0.0) for k in CLASS_KEYS}
    for r in pipeline.fetch(engine, "pair_totals"):
        out[str(r["class_key"])] = {c: float(r[c] or 0.0) for c in TOTAL_COLUMNS}
    return out


class BudgetNotFilled(InputError):
    """A budget the stream at the cost ceiling does not hold (`reason`); `fit` is the
    largest budget such that every budget up to it is filled within the ceiling
    (`pairs/fill.sql`), which the message asks for."""

    def __init__(self, reason: str, *, fit: int, ceiling: Ceiling) -> None:
        if ceiling.draws_option is None:
            super().__init__(f"{reason}: lower {ceiling.budget_option} to at most {fit:,}")
        else:
            super().__init__(f"{reason}: lower the budget to at most {fit:,}, or raise "
                             "{option} (time and memory grow with the draws)",
                             option=ceiling.draws_option)
        self.reason, self.fit = reason, fit


def nothing_to_judge() -> InputError:
    """The refusal of a budget to fill when Base and Exp agree on every item."""
    return InputError("there is no pair to judge: Base and Exp agree on every item, so the "
                      "population of pairs is empty and no budget can be filled",
                      hint="Compare clusterings that differ (`abcde impact` shows where "
                           "they do).")


def fill(engine: Engine, base: Pipeline, budget: int, ceiling: Ceiling, judgeable: int,
         chain: Callable[[Pipeline, int], list[str]], scope: str = "population",
         ) -> tuple[Pipeline, int, dict[str, Any]]:
    """The budget fill of an engine: `chain` for n = 2·B + 100 draws, then GROWTH times
    more until the stream holds the budget, up to the `ceiling`. Returns the pipeline, n
    and the fill row; a budget above the `judgeable` pairs, or one the ceiling does not
    hold (`BudgetNotFilled`), is refused."""
    if budget > judgeable:
        raise InputError(
            f"the {scope} has only {judgeable:,} judgeable pairs (unique unordered pairs of "
            f"distinct items with positive probability), fewer than the budget {budget:,}: "
            f"lower {ceiling.budget_option} to at most {judgeable:,}", option="budget")
    limit = ceiling.draws(budget)
    n = min(limit, 2 * budget + 100)
    while True:
        p = base.copy()
        steps = chain(p, n)
        p.run(engine, *steps[:-1])  # the stream and its fill, not yet the kept draws
        row = p.fetch(engine, steps[-2])[0]
        log.info("budget: a stream of %s draws holds %s of the %s judgeable pairs", f"{n:,}",
                 f"{row['judgeable_found']:,}", f"{judgeable:,}")
        if row["budget_filled"]:
            p.run(engine, steps[-1])
            return p, n, row
        if n >= limit:
            raise BudgetNotFilled(
                f"a stream of {n:,} draws, the cost ceiling for this budget, holds only "
                f"{row['judgeable_found']:,} of the {scope}'s {judgeable:,} judgeable pairs, "
                f"fewer than the budget {budget:,} (the last pairs are the rarest: each "
                f"new one takes more draws than the one before)", fit=int(row["fits"]),
                ceiling=ceiling)
        n = min(limit, GROWTH * n)


def fill_budget(engine: Engine, base: Pipeline, budget: int, seed: int, *,
                judgeable: int | None = None, ceiling: Ceiling | None = None,
                ) -> tuple[Pipeline, int, int]:
    """`fill` of one stream over `prepare`'s pipeline: (pipeline, stream length, cut).
    With nothing to judge (Base = Exp) no budget is filled (`nothing_to_judge`)."""
    ceiling = ceiling or Ceiling.of()
    if judgeable is None:
        judgeable = judgeable_pairs(fetch_totals(engine, base))
    if judgeable == 0:
        raise nothing_to_judge()
    p, n, row = fill(engine, base, budget, ceiling, judgeable, lambda p, n: add_chain(
        p, seed, n, budget=int(budget), ceiling=ceiling.sql()))
    return p, n, int(row["cut"])


def collect_sample(engine: Engine, p: Pipeline, inputs: Inputs, attrs: list[tuple[str, str]],
                   parts: Sequence[str], strata: Sequence[str] = ()
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`add_sample_steps` run over the kept draws of `parts`; the sample's rows in
    (pair_id, first_draw) order and its questions in pair_id order."""
    if not parts:
        return [], []
    p.run(engine, *add_sample_steps(p, inputs, attrs, parts, strata))
    p.add("sample_sorted", _sorted("pair_sample", ("pair_id", "first_draw")))
    p.add("questions_sorted", _sorted("pair_questions_raw", ("pair_id",)))
    return p.fetch(engine, "sample_sorted"), p.fetch(engine, "questions_sorted")


def add_sample_steps(p: Pipeline, inputs: Inputs, attrs: list[tuple[str, str]],
                     parts: Sequence[str], strata: Sequence[str] = ()) -> list[str]:
    """The sample of the kept draws `parts` (one `pair_kept`, or one per stratum, named
    `strata`): `sample_attributes` (the attributes of its items only, read once),
    and `pair_sample` (`pairs/sample_strata.sql`), materialised, and its questions
    `pair_questions_raw`; the same steps on the engines and in the warehouse scripts.
    Returns the materialised ones in order."""
    names = [o for _, o in attrs]
    steps = []
    if attrs:
        ids = [exp.select(f"{side} AS item_id").from_(part)
               for part in parts for side in ("item_i", "item_j")]
        union = ids[0]
        for other in ids[1:]:
            union = exp.union(union, other, distinct=True)
        p.add("pair_sample_items", union)
        steps.append(p.add("sample_attributes", render(
            "sampling/attributes.sql", relation=inputs.attributes.relation,
            item_col=inputs.columns.item, item_type=inputs.item_type, columns=attrs,
            items="pair_sample_items"), materialise=True))
    steps.append(p.add("pair_sample", render(
        "pairs/sample_strata.sql", parts=list(zip(parts, strata or parts, strict=True)),
        strata=bool(strata), columns=DRAW_COLUMNS[1:], attributes=names), materialise=True))
    p.add("pair_questions_raw", render("pairs/questions.sql", attributes=names))
    return steps


def finish(engine: Engine, p: Pipeline, inputs: Inputs, slicings: Sequence[Sequence[str]],
           slice_steps: Sequence[str], attrs: list[tuple[str, str]],
           totals: dict[str, dict[str, float]], manifest: dict[str, Any],
           rows: list[dict[str, Any]], questions: list[dict[str, Any]]) -> PairSample:
    """The sample with its manifest completed: what it says of the population, the
    slices, the inputs, the fingerprint (with the digest of what was drawn), the lineage
    and the sample id."""
    if not rows:  # nothing drawn: no pair_sample to hash
        p.steps.pop("pair_sample_digest", None)
        p.add("pair_sample_digest", exp.select("0 AS rows_drawn", "0 AS pair_digest"))
    ids = p.fetch(engine, add_sample_id(p, manifest))[0]
    manifest.update(**population_entries(totals, p.fetch(engine, "pair_self")[0],
                                         p.fetch(engine, "overall")[0]),
                    slices=slice_rows(engine, p, inputs, slicings, slice_steps, attrs),
                    inputs=inputs.description(),
                    fingerprint=fingerprint(engine, p, {"sample": {
                        k: int(ids[k]) for k in ("rows_drawn", "pair_digest")}}))
    manifest["lineage"] = lineage(manifest, ids["stream"])
    manifest["sample_id"] = ids["sample_id"]
    return PairSample(rows, with_sample_id(questions, manifest["sample_id"]), manifest)


def add_sample_id(p: Pipeline, manifest: dict[str, Any]) -> str:
    """`pair_sample_id` (`pairs/sample_id.sql`): the stream's and the sample's ids from
    the manifest's design, seed, stratification and budget (or draws), the inputs' cell
    and item counts and the sample's digest, as the engines and the scripts compute it."""
    if "fingerprint" not in p.steps:
        p.add("fingerprint", render("sampling/fingerprint.sql"))
    if "pair_sample_digest" not in p.steps:
        p.add("pair_sample_digest", render("pairs/sample_digest.sql"))
    size = (f"b{manifest['budget']}" if manifest.get("budget") is not None
            else f"d{manifest['stream_draws']}")
    if manifest.get("humans"):
        size += f"h{manifest['humans']['budget']}"
    return p.add("pair_sample_id", render(
        "pairs/sample_id.sql", population=manifest["population"], alpha=manifest["alpha"],
        seed=manifest["seed"], stratified=bool(manifest.get("stratified")),
        allocation=manifest.get("strata_allocation"), version=STREAM_VERSION, size=size))


def slice_rows(engine: Engine, p: Pipeline, inputs: Inputs, slicings: Sequence[Sequence[str]],
               slice_steps: Sequence[str], attrs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The manifest's slices (ABCDE App. B): per slice value(s), weight(I), the u totals of
    each class over the vantage items in I, the exact self part and pairweight(I)
    (`pairs/slice_pairweights.sql`)."""
    slices = []
    renamed = dict(attrs)
    for slicing, step in zip(slicings, slice_steps, strict=True):
        cols = [inputs.attribute(c) for c in slicing]
        name = f"pairweights_{step}"
        p.add(name, render("pairs/slice_pairweights.sql", slice_columns=cols,
                           slice_cells=step))
        rows = p.fetch(engine, name)
        rows.sort(key=lambda r: slice_order([r[c.name] for c in cols]))
        for r in rows:
            slices.append({renamed.get(k, k): v for k, v in r.items()})
    return slices


def pair_counts(rows: Sequence[dict[str, Any]],
                questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The manifest's `pairs`: ordered and unordered pairs drawn, questions, and per
    class (split, merge, stable) the unique unordered pairs and draws."""
    by_class = {}
    for cls in PAIR_CLASSES:
        of = [r for r in rows if r["pair_class"] == cls]
        by_class[cls] = {"pairs": len({r["pair_id"] for r in of}),
                         "draws": sum(int(r["draw_count"]) for r in of)}
    return {"ordered": len(rows), "unordered": len({r["pair_id"] for r in rows}),
            "judgeable": len(questions), "by_class": by_class}


def _sorted(step: str, order: Sequence[str]) -> Any:
    """SELECT * FROM step ORDER BY ... (a fetch in a stable order)."""
    from sqlglot import exp

    return exp.select("*").from_(step).order_by(*order)


