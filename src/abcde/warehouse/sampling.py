"""The samplers as standalone SQL (`abcde sql sample-items`; ABCDE §4.1.1, App. A): the
same pipeline of steps the engines run (`abcde.sampling.items.add_item_sample_steps`),
over named tables, with the validation row and `input_valid` on every output. The
sample of a script equals `abcde sample-items` on the same inputs and seed: the same
items, draw counts and order (docs/method.md §7.2: the counts are drawn in SQL)."""

from __future__ import annotations

from abcde.errors import InputError
from abcde.inputs.session import Inputs
from abcde.sampling.clocks import check_count, check_seed
from abcde.sampling.items import (
    ITEM_COLUMNS,
    ITEM_MANIFEST_COLUMNS,
    add_affected_items,
    add_item_sample_steps,
)
from abcde.sampling.pairs import attribute_names
from abcde.sql.pipeline import Pipeline
from abcde.warehouse.scripts import (
    Output,
    ScriptSpec,
    _check_unshadowed,
    build_cells,
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
    size = check_count("size", size)
    seed = check_seed(seed)
    cells = build_cells(spec, relations, "item")
    pipeline, inputs = cells.pipeline, cells.inputs
    add_affected_items(pipeline, inputs)
    attrs = attribute_names(inputs, ITEM_COLUMNS)
    add_item_sample_steps(pipeline, inputs, size, seed, attrs)
    flag_in_place(cells, "item_sample", (*ITEM_COLUMNS, *(o for _, o in attrs)),
                  ITEM_SAMPLE_DOC)
    flag_in_place(cells, "item_manifest", ITEM_MANIFEST_COLUMNS, ITEM_MANIFEST_DOC)
    if relations is None:
        _check_unshadowed(spec, pipeline)
    return pipeline, inputs, cells.outputs


PAIR_SAMPLE_DOC = ("The pair sample (ABCDE §5.7–5.8, App. A): one row per unique ordered pair "
                   "drawn in the kept prefix of the stream, with pair_id, class, label, draw "
                   "count, first draw, both items' clusters and the vantage item's "
                   "attributes — the draws `abcde estimate` reads.")
QUESTIONS_DOC = ("The questions for the judges: one row per unique unordered non-self pair, "
                 "both items' attributes side by side, the sample_id and an empty verdict.")
PAIR_MANIFEST_DOC = ("The sample's manifest (one row): population, seed, budget, stream "
                     "length, budget_filled (FALSE: rerun with a longer --stream-draws; the "
                     "same seed extends the same stream), the pairs drawn per class, the "
                     "class totals, the exact impact metrics, the fingerprint and sample_id.")
PAIR_CLASSES = ("split", "merge", "stable", "self")


def sample_pairs_pipeline(spec: ScriptSpec, population: str, budget: int, seed: int,
                          stream_draws: int | None = None,
                          relations: dict[str, str] | None = None,
                          ) -> tuple[Pipeline, Inputs, list[Output]]:
    """The pair sample over named tables (docs/method.md §6–7): the cells (or the
    round's), the pair strata, a stream of `stream_draws` draws (default 10·budget)
    materialised once — the same draws of (seed, level, d) as the engines' stream — and
    the shortest prefix holding `budget` unique judgeable pairs (pairs/fill.sql), the
    sample, its questions, manifest and per-slice pairweights. A stream too short to
    fill the budget keeps every draw and says so (`budget_filled` FALSE); a longer one
    with the same seed extends it."""
    from abcde.cells import IMPACT_METRICS, items_query
    from abcde.sampling.clocks import digits_for
    from abcde.sampling.pairs import DRAW_COLUMNS, POPULATIONS, QUESTION_COLUMNS
    from abcde.sql.quoting import literal
    from abcde.sql.templates import render
    from abcde.version import __version__

    if population not in POPULATIONS:
        raise InputError(f"--population must be one of {', '.join(POPULATIONS)}")
    try:
        budget = check_count("--budget", budget, maximum=10**9)
        seed = check_seed(seed)
        n = check_count("--stream-draws", stream_draws if stream_draws is not None
                        else 10 * budget, minimum=budget, maximum=10**10)
    except ValueError as err:
        raise InputError(str(err), hint="A stream holds at least the budget's draws.") from None
    cells = build_cells(spec, relations, "pair")
    pipeline, inputs = cells.pipeline, cells.inputs
    p = pipeline
    s = literal(seed)
    p.add("pair_strata", render("pairs/strata.sql", population=population), materialise=True)
    p.add("pair_totals", render("pairs/totals.sql"))
    p.add("overall", render("impact/overall.sql", metrics=IMPACT_METRICS))
    p.add("draw_ids", render("pairs/draw_ids.sql", digits=digits_for(n), n=int(n)))
    p.add("pair_draw_strata", render("pairs/draw_strata.sql", seed=s), materialise=True)
    p.add("pair_split_partners", render("pairs/partner_cells.sql", side="b",
                                        pair_class="split", seed=s), materialise=True)
    p.add("pair_merge_partners", render("pairs/partner_cells.sql", side="e",
                                        pair_class="merge", seed=s), materialise=True)
    p.add("pair_draw_cells", render("pairs/draw_cells.sql"), materialise=True)
    p.add("pair_needed_cells", render("pairs/needed_cells.sql"))
    p.add("pair_items", items_query(inputs, attributes=False, cells="pair_needed_cells"))
    p.add("pair_cell_items", render("pairs/cell_items.sql"), materialise=True)
    p.add("pair_stream", render("pairs/stream.sql", seed=s), materialise=True)
    p.add("pair_budget", render("pairs/budget.sql", budget=int(budget)))
    p.add("pair_fill", render("pairs/fill.sql", n=int(n), budget=int(budget)),
          materialise=True)
    attrs = attribute_names(inputs, [*DRAW_COLUMNS, *QUESTION_COLUMNS], QUESTION_COLUMNS)
    names = [o for _, o in attrs]
    if attrs:
        p.add("sample_attributes", render(
            "sampling/attributes.sql", relation=inputs.attributes.relation,
            item_col=inputs.columns.item, item_type=inputs.item_type, columns=attrs))
    p.add("pair_sample", render("pairs/sample.sql", cut="(SELECT cut FROM pair_fill)",
                                attributes=names), materialise=True)
    p.add("pair_sample_digest", render("pairs/sample_digest.sql"))
    if "fingerprint" not in p.steps:
        p.add("fingerprint", render("sampling/fingerprint.sql"))
    p.add("pair_manifest", render("pairs/manifest.sql", version=__version__,
                                  population=population, seed=seed, budget=int(budget),
                                  n=int(n), classes=PAIR_CLASSES), materialise=True)
    p.add("pair_questions_raw", render("pairs/questions.sql", attributes=names))
    question_columns = ["pair_id", "item_1", "item_2",
                        *(f"{a}_{k}" for a in names for k in (1, 2))]
    p.add("pair_questions", render("pairs/questions_with_id.sql", columns=question_columns),
          materialise=True)
    flag_in_place(cells, "pair_sample", (*DRAW_COLUMNS, *names), PAIR_SAMPLE_DOC)
    flag_in_place(cells, "pair_questions", (*question_columns, "sample_id", "verdict"),
                  QUESTIONS_DOC)
    flag_in_place(cells, "pair_manifest", None, PAIR_MANIFEST_DOC)
    if spec.slicings:
        steps = []
        for k, (slicing, step) in enumerate(zip(spec.slicings, cells.slice_steps,
                                                strict=True)):
            cols = [inputs.attribute(c) for c in slicing]
            name = f"pair_slices_{k}"
            q = render("pairs/slice_pairweights.sql", slice_columns=cols, slice_cells=step,
                       population=population)
            # materialised: inlined twice, their CTEs would clash in the union
            p.add(name, q, materialise=len(spec.slicings) > 1)
            steps.append((name, list(slicing)))
        all_columns = list(dict.fromkeys(c for _, cs in steps for c in cs))
        p.add("pair_slices", render("pairs/slices_table.sql", slicings=steps,
                                    all_columns=all_columns), materialise=True)
        flag_in_place(cells, "pair_slices", None,
                      "Weight and pairweight of every slice of vantage items (ABCDE App. "
                      "B.1), for per-slice ΔPrecision; slice_columns names each row's "
                      "slicing.")
    if relations is None:
        _check_unshadowed(spec, pipeline)
    return pipeline, inputs, cells.outputs
