"""Pairs of items for judgement, drawn exactly from a defensive mixture of the two pair
populations (docs/method.md §6): q = α·u/Σu + (1 − α)·w/Σw of ABCDE's u_ij (§5.7, eq.
52–58) and the Jaccard decomposition's w_ij (§7), self pairs excluded — they need no
verdict and are added exactly (ABCDE §5.8; docs/method.md §6.8). α = 1 is the ABCDE
population, α = 0 the Jaccard one. Hierarchically, never by enumerating pairs, never by
an item-level self-join:

1. a stratum (cell c = (b, e), class) ∝ its closed-form design total
   (`pairs/population.sql`, `pairs/strata.sql`);
2. the vantage item i in c: ∝ w_i for split and merge pairs, ∝ w_i·(w_c − w_i) for
   stable pairs;
3. the partner: split → a cell (b, e' ≠ e) ∝ weight, merge → a cell (b' ≠ b, e) ∝
   weight, stable → c itself; then an item of that cell ∝ weight (for stable, any item
   but i).

Within a stratum both populations are ∝ w_i·w_j, so P(i, j) = t_s/Σt · w_i w_j/Σ_s w_k w_l
= q_ij, and every draw carries u_ij/w_ij (a stratum constant), from which its importance
weights (u_ij/Σu)/q_ij ≤ 1/α and (w_ij/Σw)/q_ij ≤ 1/(1 − α) follow (`importance`).
Every "pick ∝ weight" is a window as-of join (docs/method.md §6.6), so the cost is a sort
of the candidates plus the draws: a Base cluster shattered into 10⁵ cells costs 10⁵
candidate rows once, not 10⁵ per draw.

Draw d = 0, 1, 2, ... of the stream uses the uniforms of (seed, level, d); the stream
is persisted and walked until the budget of unique judgeable pairs is filled (ABCDE
App. A 3.1–3.2; see `abcde.sampling.clocks` for why the stream is indexed by draw number).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
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
from abcde.outputs import OutputDir, input_files
from abcde.params import COUNT, MAX_DRAWS, SEED, SHARE, Maybe, OneOf, checked
from abcde.results import summary_repr
from abcde.sample_files.layout import sample_output
from abcde.sample_files.manifest import (
    CLASS_KEYS,
    DESIGN_VERSION,
    PAIR_CLASSES,
    POPULATIONS,
    TOTAL_COLUMNS,
    fingerprint,
    judgeable_pairs,
    lineage,
    population_entries,
    sample_digest,
    sample_id,
    slice_order,
)
from abcde.sample_files.pairs import (
    DRAW_COLUMNS,
    QUESTION_COLUMNS,
    with_sample_id,
    write_pair_sample,
)
from abcde.sampling.clocks import digits_for
from abcde.sql.pipeline import Pipeline
from abcde.sql.quoting import literal
from abcde.sql.templates import render
from abcde.version import __version__

log = logging.getLogger("abcde")

DEFAULT_ALPHA = 0.5
"""The mixture's share of the ABCDE population: every metric's importance weights are then
at most 2, so no metric's variance exceeds twice what its own population would give
(Hesterberg 1995; measured in benchmarks/RESULTS.md, docs/method.md §6.9)."""
# what the fingerprint hashes of a drawn sample (item ids enter here, not by a pass over
# every item of the population)
DIGEST_KEYS = ("pair_id", "item_i", "item_j", "pair_class", "draw_count", "first_draw")
# the totals beside a slicing's columns in a manifest slice (pairs/slice_pairweights.sql):
# a slice column so named would be overwritten by the total and lose its value, which
# `abcde estimate` then cannot match to the draws, so none may be (check_slice_names)
SLICE_TOTALS = ("weight", "split", "merge", "stable_plus", "stable_minus",
                "self_delta_precision", "pairweight")
# A budget fill stops (an error) when a stream of at least this many draws found no new
# judgeable pair since the previous stream (at most half as long): the pairs still
# missing then have probabilities of order 1/STALL_DRAWS or less (weights many orders of
# magnitude apart); such a fill would need millions of draws per new pair.
STALL_DRAWS = 10**6
DRAWS_PER_PAIR = 10
CHEAP_DRAWS = 10**6
"""The cost ceiling of a budget fill (docs/method.md §7.5): a budget of B unique pairs may
draw a stream of at most max(DRAWS_PER_PAIR·B, CHEAP_DRAWS) draws (`Ceiling`). Near the
population's number of judgeable pairs the fill is a coupon collector — the last pairs
are the rarest, so each new pair costs more draws than the one before — and the stream
(time and memory ∝ draws) would grow without bound: 56,000 of the examples' 56,637
pairs took 13.4M draws and 8.5 GB. Ten draws per pair (90% of them repeats) is far
beyond what a budget well below the population needs (≈ 1 draw per pair) and is what
the warehouse script's fixed stream allows by default; streams of up to CHEAP_DRAWS
(seconds and under a GB on DuckDB) are allowed to every budget, so that small
populations can be sampled whole."""


@dataclass(frozen=True)
class Ceiling:
    """The longest stream a budget fill may draw for a budget B: max(per_pair·B, floor),
    at most MAX_DRAWS. The default is DRAWS_PER_PAIR and CHEAP_DRAWS; `max_stream_draws`
    (an explicit ceiling) is per_pair 0 and floor the given number of draws."""

    per_pair: int
    floor: int
    # what the messages call the budget and the ceiling's option (None: the command has
    # none, e.g. `abcde simulate`, whose largest --budgets is filled)
    budget_option: str = "--budget"
    draws_option: str | None = "--max-stream-draws"

    @classmethod
    def of(cls, max_stream_draws: int | None = None) -> Ceiling:
        if max_stream_draws is None:
            return cls(DRAWS_PER_PAIR, CHEAP_DRAWS)
        return cls(0, max_stream_draws)

    def draws(self, budget: int) -> int:
        return min(MAX_DRAWS, max(self.per_pair * budget, self.floor))

    def describe(self, budget: int) -> str:
        if self.per_pair == 0:
            return f"{self.draws(budget):,} draws ({self.draws_option})"
        return (f"{self.draws(budget):,} draws (the larger of {self.per_pair:,} per budget pair "
                f"and {self.floor:,})")


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
    """(input column, output column) for every attribute column. A name that clashes
    with a column of the sample files gets the prefix `attr_`: with `reserved` (draw or
    item sample columns, also each other), or — the questions show both items'
    attributes as `<name>_1`, `<name>_2` — whose suffixed forms clash with `paired`
    (question columns: an attribute `item` would give a second `item_1`). Names compare
    ignoring case, as SQL engines do: `Split_Rate` beside `split_rate` was renamed by
    DuckDB to `Split_Rate_1` without a word."""
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


@checked(budget=Maybe(COUNT), draws=Maybe(COUNT), seed=SEED,
         max_stream_draws=Maybe(COUNT))
def sample_pairs(base: object, exp: object, weights: object | None = None, *,
                 budget: int | None = None, draws: int | None = None, seed: int = 0,
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
                            seed=seed, design=design_for(population, alpha),
                            max_stream_draws=max_stream_draws, out=out, overwrite=overwrite,
                            return_stream=return_stream)


def run_sample_pairs(session: Session, budget: int | None = None, *,
                     draws: int | None = None, seed: int = 0, design: Design | None = None,
                     max_stream_draws: int | None = None, out: str | Path | None = None,
                     overwrite: bool = False, return_stream: bool = False) -> PairSample:
    """`sample_pairs` of a session's inputs (and `abcde.Comparison.sample_pairs`)."""
    if (budget is None) == (draws is None):
        raise InputError("give exactly one of budget and draws", option="budget")
    ceiling = Ceiling.of(max_stream_draws)
    spec = session.spec
    check_pair_slicings(spec)
    out_dir = Path(out) if out is not None else None
    with sample_output(out_dir, overwrite, input_files(spec.base, spec.exp, spec.weights,
                                                       spec.attributes)) as od, \
            session.using() as (eng, inputs):
        return _run(eng, inputs, design or design_for(), budget, draws, seed,
                    [list(s) for s in spec.slicings], od, return_stream, ceiling)


def prepare(engine: Engine, inputs: Inputs, design: Design | str = "mixture",
            slicings: Sequence[Sequence[str]] = (), prefix: str = "abcde_pairs_",
            ) -> tuple[Pipeline, list[str]]:
    """Validated inputs, cells (with Σw² per cell), cell metrics, the pair population
    and the design's strata, materialised; the steps `pair_totals` (per class),
    `pair_self` (the exact self parts) and `overall` (impact metrics) to fetch."""
    if isinstance(design, str):
        design = design_for(design)
    pipeline = Pipeline(prefix=prefix, schema=engine.work_schema)
    add_item_steps(pipeline, inputs, squares=True)
    build_cell_rows(engine, pipeline, inputs)
    slice_steps = add_cell_steps(pipeline, inputs, slicings, squares=True)
    run_cell_steps(engine, pipeline, inputs, "cells", "cell_metrics")
    pipeline.add("pair_population", render("pairs/population.sql"), materialise=True)
    pipeline.add("pair_strata", strata_query(design), materialise=True)
    pipeline.run(engine, "pair_population", "pair_strata")
    pipeline.add("pair_totals", render("pairs/totals.sql"))
    pipeline.add("pair_self", render("pairs/self_pairs.sql"))
    pipeline.add("overall", render("impact/overall.sql", metrics=IMPACT_METRICS))
    # the items of the cells the draws need (pair_needed_cells, added with the draws):
    # a second pass over the inputs, each side restricted to those cells' clusters
    # before the join, and without the attributes
    if inputs.workspace is not None:
        # the items of every affected cell, joined once per round (a superset of the
        # needed cells' items: pairs/cell_items.sql keeps the exact cells)
        add_affected_item_rows(pipeline, inputs)
        # the inputs' fingerprint (a pass over the cells) is kept with the cells
        pipeline.add("fingerprint", render("sampling/fingerprint.sql"), materialise=True)
        run_cell_steps(engine, pipeline, inputs, "affected_item_rows", "fingerprint")
        pipeline.add("pair_items", exp.select("*").from_("affected_item_rows"))
    else:
        pipeline.add("pair_items", items_query(inputs, attributes=False,
                                               cells="pair_needed_cells"))
    return pipeline, slice_steps


def strata_query(design: Design, classes: Sequence[str] = ()) -> Any:
    """pairs/strata.sql for `design`, restricted to `classes` (all when empty)."""
    return render("pairs/strata.sql", alpha=f"CAST({float(design.alpha)!r} AS DOUBLE)",
                  classes=list(classes))


def draw_stream(engine: Engine, base: Pipeline, n: int, seed: int) -> Pipeline:
    """Materialise the stream of draws 0..n−1 (`pair_stream`) on top of `prepare`'s
    pipeline; returns the extended pipeline (a copy: `base` is reused for retries)."""
    p = base.copy()
    s = literal(seed)
    p.add("draw_ids", render("pairs/draw_ids.sql", digits=digits_for(n), n=int(n)))
    p.add("pair_draw_strata", render("pairs/draw_strata.sql", seed=s), materialise=True)
    p.add("pair_split_partners", render("pairs/partner_cells.sql", side="b",
                                        pair_class="split", seed=s), materialise=True)
    p.add("pair_merge_partners", render("pairs/partner_cells.sql", side="e",
                                        pair_class="merge", seed=s), materialise=True)
    p.add("pair_draw_cells", render("pairs/draw_cells.sql"), materialise=True)
    p.add("pair_needed_cells", render("pairs/needed_cells.sql"))
    p.add("pair_cell_items", render("pairs/cell_items.sql"), materialise=True)
    p.add("pair_stream", render("pairs/stream.sql", seed=s), materialise=True)
    p.run(engine, "pair_draw_strata", "pair_split_partners", "pair_merge_partners",
          "pair_draw_cells", "pair_cell_items", "pair_stream")
    return p


def fetch_totals(engine: Engine, pipeline: Pipeline) -> dict[str, dict[str, float]]:
    """`pair_totals` as class key → its columns (`pairs/totals.sql`); a class without
    pairs has zeros."""
    out = {k: dict.fromkeys(TOTAL_COLUMNS, 0.0) for k in CLASS_KEYS}
    for r in pipeline.fetch(engine, "pair_totals"):
        out[str(r["class_key"])] = {c: float(r[c] or 0.0) for c in TOTAL_COLUMNS}
    return out


def fits(engine: Engine, p: Pipeline, ceiling: Ceiling) -> int:
    """The largest budget such that every budget up to it is filled within `ceiling` by
    the stream of `p` (`pairs/fits.sql`; a lower bound when the stream is shorter than
    the ceiling)."""
    return fits_capped(engine, p, ceiling)[0]


def fits_capped(engine: Engine, p: Pipeline, ceiling: Ceiling) -> tuple[int, bool]:
    """`fits` and whether the ceiling stopped it (a budget in the stream whose first
    draw is beyond its ceiling) rather than the end of the stream."""
    p.add("pair_fits", render("pairs/fits.sql", per_pair=int(ceiling.per_pair),
                              floor=int(ceiling.floor), max_draws=int(MAX_DRAWS)))
    row = p.fetch(engine, "pair_fits")[0]
    misfit = row["first_misfit"]
    if misfit is None:
        return int(row["judgeable"] or 0), False
    return int(misfit) - 1, True


class BudgetNotFilled(InputError):
    """`fill_budget`'s refusal of a budget its cost ceiling does not fill: `reason` (the
    message without the hint) and `fit`, the largest budget filled within the ceiling —
    so that a stratified sample can restate them for its total --budget."""

    def __init__(self, reason: str, *, fit: int, hint: str) -> None:
        super().__init__(reason, hint=hint)
        self.reason = reason
        self.fit = fit


def _lower_to(fit: int, ceiling: Ceiling) -> str:
    lower = f"Lower {ceiling.budget_option} to at most {fit:,}"
    if ceiling.draws_option is None:
        return f"{lower}." if fit > 0 else "Reweigh or shrink the population: no budget " \
            "is filled within the cost ceiling."
    raise_it = f"raise {ceiling.draws_option} (time and memory grow with the draws)."
    return f"{lower}, or {raise_it}" if fit > 0 else raise_it[0].upper() + raise_it[1:]


def nothing_to_judge() -> InputError:
    """The refusal of a budget to fill when Base and Exp agree on every item."""
    return InputError("there is no pair to judge: Base and Exp agree on every item, so the "
                      "population of pairs is empty and no budget can be filled",
                      hint="Compare clusterings that differ (`abcde impact` shows where "
                           "they do).")


def check_budget(engine: Engine, base: Pipeline, budget: int, judgeable: int, seed: int,
                 ceiling: Ceiling) -> None:
    """A budget fill cannot find more unique judgeable pairs than the population holds.
    The refusal suggests a budget that a fill reaches within `ceiling` (not the maximum
    itself, the costliest of all budgets): read off one stream of at most the shorter
    of 2·judgeable + 100 draws (where a fill of every pair would start) and the ceiling."""
    if budget <= judgeable:
        return
    probe = min(2 * judgeable + 100, ceiling.draws(judgeable)) if judgeable > 0 else 0
    fit, capped = (fits_capped(engine, draw_stream(engine, base, probe, seed), ceiling)
                   if probe > 0 else (0, True))
    # a higher ceiling suggests a larger budget only if the ceiling, not the probe's
    # 2·judgeable + 100 draws, is what stopped it: else "or raise --max-stream-draws"
    # offered what changes nothing here
    capped = capped or probe < 2 * judgeable + 100
    more = "" if fit >= judgeable else (
        f"; a budget near that maximum needs ever more draws per new pair (the last pairs "
        f"are the rarest), while one of up to {fit:,} is filled within the cost ceiling "
        f"(a stream of {probe:,} draws holds that many)")
    raise InputError(f"the population has only {judgeable:,} judgeable pairs (unique "
                     f"unordered pairs of distinct items with positive probability), fewer "
                     f"than the budget {budget:,}{more}",
                     hint=f"Lower {ceiling.budget_option} to at most {fit:,}."
                     if fit >= judgeable or (fit > 0 and not capped)
                     else _lower_to(fit, ceiling))


def hopeless(n: int, found: int, previous_n: int, previous_found: int, judgeable: int,
             budget: int, limit: int) -> float | None:
    """The judgeable pairs a stream of `limit` draws would still miss, extrapolated from
    the last two streams (n draws holding `found` pairs, previous_n holding
    previous_found; 0 and 0 before the first), if that is clearly more than the budget
    leaves out; else None. The expected number of missing pairs, Σ_ij (1 − p_ij)^n, is
    log-convex in n (a sum of exponentials), so its log falls ever more slowly: the
    straight line through the last two streams underestimates what is still missing
    later. The slope is taken from a generous upper bound of the new pairs found
    between them (k + 2√k + 4 for k found, about a 98% Poisson bound), so that a short
    stretch without luck (no new pair among a few rare ones) does not count as no
    progress. A budget whose extrapolated shortfall is more than twice its slack
    (judgeable − budget, plus one) will not be filled within `limit` draws."""
    missing, before = judgeable - found, judgeable - previous_found
    if missing <= 0 or n <= previous_n:
        return None
    new = found - previous_found
    plausible = new + 2 * math.sqrt(new) + 4
    if plausible >= before:
        return None  # too few pairs to tell: the ceiling's stream decides
    rate = math.log(before / (before - plausible)) / (n - previous_n)
    left = missing * math.exp(-rate * (limit - n))
    return left if left > 2 * (judgeable - budget) + 1 else None


def fill_budget(engine: Engine, base: Pipeline, budget: int, seed: int,
                start: int | None = None, judgeable: int | None = None,
                ceiling: Ceiling | None = None, scope: str = "population"
                ) -> tuple[Pipeline, int, int]:
    """Draw streams of growing length until one holds `budget` unique judgeable pairs
    (draw numbers are keys of the uniforms, so a longer stream extends a shorter one).
    Returns the pipeline, the stream length and the cut (last draw number kept).

    A budget above the population's `judgeable` pairs (counted from `base`'s
    `pair_totals` if not given) is refused (`check_budget`). No stream is longer than
    the cost `ceiling` (default `Ceiling.of()`, docs/method.md §7.5); a budget it does not
    reach is refused with the largest budget that it does reach. When the last streams'
    growth shows that the ceiling's stream will not hold the budget either (`hopeless`),
    the fill goes straight to the ceiling's stream if that is at most CHEAP_DRAWS long,
    and is refused before it draws a stream longer than CHEAP_DRAWS; it is also refused
    when a stream of STALL_DRAWS or more draws found no new pair since the previous one
    (at most half as long). Without progress the stream grows 8× at a time up to
    STALL_DRAWS, so that the check comes soon. A refusal at the ceiling is
    `BudgetNotFilled`; its message calls the pairs those of the `scope` (e.g. "stratum")."""
    ceiling = ceiling or Ceiling.of()
    if judgeable is None:
        judgeable = judgeable_pairs(fetch_totals(engine, base))
    if judgeable == 0 and scope == "population":
        # check_budget's "lower the budget to at most 0" asked for the impossible
        raise nothing_to_judge()
    check_budget(engine, base, budget, judgeable, seed, ceiling)
    limit = ceiling.draws(budget)
    n = min(limit, start or 2 * budget + 100)
    previous_n, previous = 0, -1  # -1: no stream yet (the stall check compares)
    while True:
        p = draw_stream(engine, base, n, seed)
        name = f"budget_{n}"
        p.add(name, render("pairs/budget.sql", budget=int(budget)))
        row = p.fetch(engine, name)[0]
        found = int(row["judgeable"] or 0)
        log.info("budget: a stream of %s draws holds %s of the %s judgeable pairs", f"{n:,}",
                 f"{found:,}", f"{judgeable:,}")
        if found >= budget:
            return p, n, int(row["cut"])
        held = (f"a stream of {n:,} draws holds {found:,} of the {scope}'s {judgeable:,} "
                f"judgeable pairs, fewer than the budget {budget:,}")
        if n >= limit:
            fit = fits(engine, p, ceiling)
            raise BudgetNotFilled(
                f"{held}, and the cost ceiling for this budget is a stream of "
                f"{ceiling.describe(budget)}: the pairs still missing are the rarest, so a "
                f"budget near the {scope}'s pairs needs ever more draws per new pair; "
                f"a budget of up to {fit:,} is filled within the ceiling",
                fit=fit, hint=_lower_to(fit, ceiling))
        if found == previous and n >= STALL_DRAWS:
            fit = fits(engine, p, ceiling)
            raise BudgetNotFilled(
                f"{n:,} draws hold only {found:,} of the {scope}'s {judgeable:,} "
                f"judgeable pairs, fewer than the budget {budget:,}: the pairs still "
                f"missing are too improbable to be drawn (weights orders of magnitude "
                f"apart); a budget of up to {fit:,} is filled within the cost ceiling",
                fit=fit, hint=_lower_to(fit, ceiling))
        if found == previous:  # no progress: jump ahead to where the stall check decides
            grown = min(STALL_DRAWS, 8 * n) if n < STALL_DRAWS else 8 * n
        else:
            grow = 1.5 * budget / found if found else 8.0
            grown = max(2 * n, math.ceil(n * grow))
        grown = min(limit, grown)
        left = hopeless(n, found, previous_n, max(previous, 0), judgeable, budget, limit) \
            if grown < limit else None
        if left is not None and limit <= CHEAP_DRAWS:
            grown = limit  # the ceiling's stream is cheap: the exact answer, in one step
        elif left is not None and grown > CHEAP_DRAWS:
            fit = fits(engine, p, ceiling)
            raise BudgetNotFilled(
                f"{held}; at the rate new pairs were still being found, a stream at the "
                f"cost ceiling for this budget, {ceiling.describe(budget)}, would still "
                f"miss at least an estimated {round(left):,} of them, more than the budget "
                f"leaves "
                f"out ({judgeable - budget:,}): the last pairs are the rarest, so a budget "
                f"near the {scope}'s pairs needs ever more draws per new pair; a budget "
                f"of up to {fit:,} is filled within the ceiling", fit=fit,
                hint=_lower_to(fit, ceiling))
        previous_n, previous, n = n, found, grown


def _run(engine: Engine, inputs: Inputs, design: Design, budget: int | None,
         draws: int | None, seed: int, slicings: list[list[str]],
         out: OutputDir | None, return_stream: bool = False,
         ceiling: Ceiling | None = None) -> PairSample:
    pipeline, slice_steps = prepare(engine, inputs, design, slicings)
    totals = fetch_totals(engine, pipeline)
    self_parts = pipeline.fetch(engine, "pair_self")[0]
    overall = pipeline.fetch(engine, "overall")[0]
    attrs = attribute_names(inputs, [*DRAW_COLUMNS, *QUESTION_COLUMNS], QUESTION_COLUMNS)

    if sum(t["q"] for t in totals.values()) <= 0:
        p, n, cut = pipeline, 0, -1  # Base = Exp on T: no pair has weight, empty sample
    elif budget is not None:
        p, n, cut = fill_budget(engine, pipeline, budget, seed,
                                judgeable=judgeable_pairs(totals), ceiling=ceiling)
    else:
        assert draws is not None
        p, n, cut = draw_stream(engine, pipeline, draws, seed), draws, draws - 1
    rows, questions = collect_sample(engine, p, inputs, attrs, cut) if n > 0 else ([], [])
    slices = slice_rows(engine, p, inputs, slicings, slice_steps, attrs)
    manifest = {
        "abcde_version": __version__,
        "design": design.as_dict(),
        "population": design.population,
        "alpha": design.alpha,
        "seed": seed,
        "budget": budget,
        "stream_draws": n,
        "draws": sum(int(r["draw_count"]) for r in rows),
        "pairs": pair_counts(rows, questions),
        **population_entries(totals, self_parts, overall),
        "slices": slices,
        "inputs": inputs.description(),
        "fingerprint": fingerprint(engine, p, {"sample": sample_digest(rows, DIGEST_KEYS)}),
    }
    manifest["lineage"] = lineage(manifest)
    manifest["sample_id"] = sample_id(manifest)
    result = PairSample(rows, with_sample_id(questions, manifest["sample_id"]), manifest)
    if return_stream and n > 0:
        p.add("stream_sorted", _sorted("pair_stream", ("d",)))
        result.stream = p.fetch(engine, "stream_sorted")
    if out is not None:
        result.files = write_pair_sample(
            out, rows, result.questions, manifest, engine=engine,
            relation=p.physical_name("pair_sample") if rows else None)
    return result


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


def collect_sample(engine: Engine, p: Pipeline, inputs: Inputs, attrs: list[tuple[str, str]],
                   cut: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The sample (draws up to `cut`, one row per ordered pair, `pairs/sample.sql`) and
    its questions, materialised on the engine (`pair_sample`, `pair_questions`) and
    fetched in (pair_id, first_draw) order."""
    names = [o for _, o in attrs]
    if attrs:
        p.add("sample_item_ids", exp.union(
            exp.select("item_i AS item_id").from_("pair_stream").where(f"d <= {int(cut)}"),
            exp.select("item_j AS item_id").from_("pair_stream").where(f"d <= {int(cut)}"),
            distinct=True))
        p.add("sample_attributes", render(
            "sampling/attributes.sql", relation=inputs.attributes.relation,
            item_col=inputs.columns.item, item_type=inputs.item_type, columns=attrs,
            items="sample_item_ids"), materialise=True)
    p.add("pair_sample", render("pairs/sample.sql", cut=cut, attributes=names),
          materialise=True)
    p.add("pair_questions", render("pairs/questions.sql", attributes=names),
          materialise=True)
    p.run(engine, *(["sample_attributes"] if attrs else []), "pair_sample", "pair_questions")
    p.add("sample_sorted", _sorted("pair_sample", ("pair_id", "first_draw")))
    p.add("questions_sorted", _sorted("pair_questions", ("pair_id",)))
    return p.fetch(engine, "sample_sorted"), p.fetch(engine, "questions_sorted")


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
