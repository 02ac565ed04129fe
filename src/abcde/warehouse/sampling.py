"""The samplers as standalone SQL (`abcde sql sample-items`, `abcde sql sample-pairs`;
ABCDE §4.1.1, §5.7–5.8, App. A): the steps the engines run
(`abcde.sampling.items.add_item_sample_steps`, the templates of
`abcde.sampling.pairs`), over named tables, with the validation row and `input_valid` on
every output. The sample of a script equals `abcde sample-items` / `abcde sample-pairs`
on the same inputs and seed: the same items or pairs, draw counts and order
(docs/method.md §7: every uniform and count is drawn in SQL)."""

from __future__ import annotations

from abcde.inputs.session import Inputs
from abcde.inputs.spec import check_slice_names
from abcde.params import COUNT, MAX_DRAWS, SEED, Int
from abcde.sample_files.manifest import CLASS_KEYS, PAIR_CLASSES, TOTAL_COLUMNS, class_keys
from abcde.sample_files.pairs import DRAW_COLUMNS, QUESTION_COLUMNS
from abcde.sampling.items import (
    ITEM_COLUMNS,
    ITEM_MANIFEST_COLUMNS,
    add_affected_items,
    add_item_sample_steps,
)
from abcde.sampling.pairs import (
    SLICE_TOTALS,
    add_chain,
    add_design_steps,
    add_sample_id,
    add_sample_steps,
    attribute_names,
    design_for,
    strata_query,
)
from abcde.sampling.stratified import ALLOCATION, STRATA
from abcde.sql.pipeline import Pipeline
from abcde.sql.templates import render
from abcde.version import __version__
from abcde.warehouse.scripts import (
    VERDICT_COLUMN,
    Output,
    ScriptSpec,
    build_cells,
    check_unshadowed,
    flag_in_place,
)

ITEM_SAMPLE_DOC = ("The item sample (ABCDE §4.1.1): affected items drawn with replacement "
                   "∝ weight·JaccardDistance, one row per unique item in order of first "
                   "draw, with its draw count, importance weight dc/Σdc·JD(T)/JD(i), impact "
                   "metrics and attributes. `abcde explore` reads it exported as a file.")
ITEM_MANIFEST_DOC = ("The sample's manifest (one row): seed, size, unique items, draws, the "
                     "exact impact metrics over T, the fingerprint of the cells (fp_*) and "
                     "of the sample (digests), and its sample_id.")


def sample_items_pipeline(spec: ScriptSpec, size: int, seed: int,
                          relations: dict[str, str] | None = None,
                          ) -> tuple[Pipeline, Inputs, list[Output]]:
    """The item sample over named tables: the cells (or the round's, `reuse_cells`), the
    affected items (a second pass over the inputs restricted to affected cells), the
    clock, the draw counts, the sample and its one-row manifest (App. A;
    docs/method.md §7.1–7.3)."""
    size = COUNT.check("size", size)
    seed = SEED.check("seed", seed)
    # the item sample reads no slice: cells made with any --slice-by serve it
    cells = build_cells(spec, relations, "item", reads_slices=False)
    pipeline, inputs = cells.pipeline, cells.inputs
    add_affected_items(pipeline, inputs)
    attrs = attribute_names(inputs, ITEM_COLUMNS)
    add_item_sample_steps(pipeline, inputs, size, seed, attrs)
    flag_in_place(cells, "item_sample", (*ITEM_COLUMNS, *(o for _, o in attrs)),
                  ITEM_SAMPLE_DOC)
    flag_in_place(cells, "item_manifest", ITEM_MANIFEST_COLUMNS, ITEM_MANIFEST_DOC)
    if relations is None:
        check_unshadowed(spec, pipeline)
    return pipeline, inputs, cells.outputs


PAIR_SAMPLE_DOC = ("The pair sample (ABCDE §5.7–5.8, App. A; docs/method.md §6–7): one row "
                   "per unique ordered pair drawn in the kept prefix of the stream, with "
                   "pair_id, class, label, draw count, first draw, u_over_w, both items' "
                   "clusters and the vantage item's attributes — the draws `abcde "
                   "estimate` reads.")
QUESTIONS_DOC = ("The questions for the judges: one row per unique unordered pair, both "
                 "items' attributes side by side, the sample_id and an empty verdict.")
PAIR_MANIFEST_DOC = ("The sample's manifest (one row): design (population, alpha), seed, "
                     "budget, stream length, budget_filled (FALSE: rerun with a longer "
                     "--stream-draws; the same seed extends the same stream), the pairs "
                     "drawn per class, per class key the design's totals (classes_*), the "
                     "self pairs' exact parts (exact_*), the exact impact metrics, the "
                     "fingerprint and sample_id.")
PAIR_SLICES_DOC = ("Per slice of vantage items (ABCDE App. B): its weight, the u totals of "
                   "each class, the self pairs' exact ΔPrecision part and the pairweight, "
                   "for per-slice ΔPrecision; slice_columns names each row's slicing.")
PAIR_STRATA_DOC = ("The strata of a stratified sample (one row each): classes, budget, seed, "
                   "design probability q, judgeable pairs, stream length, draws, pairs per "
                   "class, and the stratum's budget_filled and fill_note.")


def sample_pairs_pipeline(spec: ScriptSpec, population: str = "mixture", budget: int = 1000,
                          seed: int = 0, *, alpha: float | None = None,
                          stream_draws: int | None = None,
                          strata_allocation: str | float | None = None,
                          relations: dict[str, str] | None = None,
                          ) -> tuple[Pipeline, Inputs, list[Output]]:
    """The pair sample of `abcde sample-pairs` over named tables (docs/method.md §6–7):
    the cells (or the round's), the pair population and the design's strata, a stream of
    `stream_draws` draws (default 10·budget, ABCDE App. A) materialised once — the draws
    of (seed, level, d) the engines draw — and the shortest prefix holding `budget`
    unique judgeable pairs (pairs/fill.sql): the same pairs, draw counts and order as the
    engines' budget fill. Then the sample, its questions, the one-row manifest and the
    per-slice totals. A stream too short for the budget keeps every draw and says so
    (`budget_filled` FALSE); a longer one with the same seed extends it.

    Parameters
    ----------
    spec
        The inputs and where the tables go.
    population, alpha
        The design (`abcde.sampling.pairs.design_for`): 'mixture' with α (default 0.5),
        'abcde' or 'jaccard'.
    budget, seed, stream_draws
        Unique judgeable pairs; the md5 seed; the stream's length (≥ budget).
    strata_allocation
        Stratify split+merge vs stable pairs as `abcde sample-pairs
        --strata-allocation` (abcde.sampling.stratified): 'proportional', 'equal' or the
        fraction of the budget for split+merge, computed in SQL from the design's
        totals (pairs/allocation.sql); each stratum has its own stream of
        `stream_draws` draws (seed 2·seed + h), fill and check row, and the table
        `pair_sample_strata` lists them.
    relations
        The inputs' SQL relations (role -> relation), e.g. dbt sources.

    Returns
    -------
    tuple
        The pipeline, the inputs, the output tables.
    """
    design = design_for(population, alpha)
    allocation = None if strata_allocation is None else ALLOCATION.check(
        "strata_allocation", strata_allocation)
    budget = Int(1 if allocation is None else 2, MAX_DRAWS).check("budget", budget)
    seed = SEED.check("seed", seed)
    n = Int(budget, MAX_DRAWS).check("stream_draws", stream_draws if stream_draws is not None
                                     else min(MAX_DRAWS, 10 * budget))
    # as `abcde sample-pairs` (its message): pair_slices also has slice_columns and
    # input_valid, which a slice column so named would duplicate
    check_slice_names(spec.slicings, set(SLICE_TOTALS), {
        **VERDICT_COLUMN, "slice_columns": "the column of pair_slices naming each row's "
                                           "slicing"})
    cells = build_cells(spec, relations, "pair")
    p, inputs = cells.pipeline, cells.inputs
    add_design_steps(p, inputs, design)
    attrs = attribute_names(inputs, [*DRAW_COLUMNS, *QUESTION_COLUMNS, "stratum"],
                            QUESTION_COLUMNS)
    names = [o for _, o in attrs]
    if allocation is None:
        add_chain(p, seed, n, budget=str(int(budget)))
        add_sample_steps(p, inputs, attrs, ["pair_kept"])
    else:
        p.add("pair_allocation", render("pairs/allocation.sql", budget=int(budget),
                                        allocation=allocation), materialise=True)
        strata = [(h, name, classes, 2 * seed + h) for h, (name, classes) in enumerate(STRATA)]
        for _, name, classes, stratum_seed in strata:
            add_chain(p, stratum_seed, n, budget=f"(SELECT budget_{name} FROM pair_allocation)",
                      suffix=f"_{name}", strata=strata_query(design, classes),
                      class_keys=class_keys(classes))
        p.add("pair_fill", render("pairs/fill_strata.sql", strata=strata), materialise=True)
        add_sample_steps(p, inputs, attrs, [f"pair_kept_{name}" for _, name, _, _ in strata],
                         [name for _, name, _, _ in strata])
        p.add("pair_sample_strata", render("pairs/strata_table.sql", strata=strata, n=int(n),
                                           classes_all=PAIR_CLASSES), materialise=True)
    add_sample_id(p, {"population": design.population, "alpha": design.alpha, "seed": seed,
                      "budget": int(budget), "stratified": allocation is not None,
                      "strata_allocation": allocation})
    p.add("pair_manifest", render("pairs/manifest.sql", version=__version__,
                                  stratified=allocation is not None, allocation=allocation,
                                  population=design.population, alpha=design.alpha,
                                  seed=seed, budget=int(budget), n=int(n),
                                  classes=PAIR_CLASSES, class_keys=CLASS_KEYS,
                                  total_columns=TOTAL_COLUMNS,
                                  overall_columns=p.steps["overall"].query.named_selects),
          materialise=True)
    question_columns = ["pair_id", "item_1", "item_2",
                        *(f"{a}_{k}" for a in names for k in (1, 2))]
    p.add("pair_questions", render("pairs/questions_with_id.sql", columns=question_columns),
          materialise=True)
    flag_in_place(cells, "pair_sample", (*DRAW_COLUMNS, *names) if allocation is None
                  else (*DRAW_COLUMNS, *names, "stratum"), PAIR_SAMPLE_DOC)
    flag_in_place(cells, "pair_questions", (*question_columns, "sample_id", "verdict"),
                  QUESTIONS_DOC)
    flag_in_place(cells, "pair_manifest", None, PAIR_MANIFEST_DOC)
    if allocation is not None:
        flag_in_place(cells, "pair_sample_strata", None, PAIR_STRATA_DOC)
    if spec.slicings:
        steps = []
        for k, (slicing, step) in enumerate(zip(spec.slicings, cells.slice_steps,
                                                strict=True)):
            cols = [inputs.attribute(c) for c in slicing]
            name = f"pair_slices_{k}"
            # materialised: inlined twice, their CTEs would clash in the union
            p.add(name, render("pairs/slice_pairweights.sql", slice_columns=cols,
                               slice_cells=step), materialise=len(spec.slicings) > 1)
            steps.append((name, list(slicing)))
        all_columns = list(dict.fromkeys(c for _, cs in steps for c in cs))
        p.add("pair_slices", render("pairs/slices_table.sql", slicings=steps,
                                    all_columns=all_columns, values=SLICE_TOTALS),
              materialise=True)
        flag_in_place(cells, "pair_slices", None, PAIR_SLICES_DOC)
    if relations is None:
        check_unshadowed(spec, p)
    return p, inputs, cells.outputs

