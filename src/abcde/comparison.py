"""`abcde.Comparison`: one comparison of two clusterings, opened once for every question
asked of it — impact, the item and pair samples, evaluation against a truth, simulated
rounds — so that a round in one process joins the population once (docs/method.md §2.6).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abcde.engines.config import EngineLike, engine_config
from abcde.errors import InputError
from abcde.inputs.session import Session
from abcde.inputs.spec import Columns, InputSpec, parse_slicings
from abcde.params import COUNT, SEED, TOP, Maybe, OneOf, checked
from abcde.results import OUT_FORMATS

if TYPE_CHECKING:
    from abcde.evaluation.run import EvaluateResult
    from abcde.impact.run import ImpactResult
    from abcde.sampling.items import ItemSample
    from abcde.sampling.pairs import PairSample


class Comparison:
    """A Baseline and an Experiment clustering of one population, with its weights,
    attributes and slicings, and the engine its SQL runs on.

    Used as a context manager, the engine is opened and the inputs are registered and
    checked once; the cells of the round (the one join of the population) are built by
    the first method that needs them and kept for the others, in the engine while the
    comparison is open, or in `workspace` across processes. Without ``with``, each
    method opens and closes the engine itself, as the flat functions do.

    Parameters
    ----------
    base, exp, weights, attributes
        CSV/Parquet paths, tables of the engine's database, DataFrames or mappings
        ({item: cluster}, {item: weight}, {item: {column: value}}). Weights come from
        `weights`, else from a weight column of the clusterings, else are 1.
    slice_by
        Attribute columns to slice by: "a,b" slices by the pair; a list gives one
        slicing each. Every method reports these slices.
    columns
        The item, cluster and weight column names (`abcde.inputs.spec.Columns`).
    missing_weight
        The weight of items the weights table lacks (default: refuse them).
    engine
        An engine of `abcde.connect` (left open), an `abcde.EngineConfig`, an engine's
        name, or None for an in-process DuckDB.
    workspace
        Where the cells are kept between processes while the inputs are unchanged: a
        DuckDB file, a PostgreSQL schema or a Spark database.

    Examples
    --------
    >>> with abcde.Comparison("base.csv", "exp.csv", "weights.csv") as c:  # doctest: +SKIP
    ...     impact = c.impact()
    ...     pairs = c.sample_pairs(budget=300, out="round")
    """

    def __init__(self, base: object, exp: object, weights: object | None = None, *,
                 attributes: object | None = None,
                 slice_by: str | Sequence[str] | Sequence[Sequence[str]] | None = None,
                 columns: Columns | None = None, missing_weight: float | None = None,
                 engine: EngineLike = None,
                 workspace: str | os.PathLike[str] | None = None) -> None:
        spec = InputSpec(base, exp, weights, attributes, columns or Columns(), missing_weight,
                         tuple(tuple(s) for s in parse_slicings(slice_by)))
        self.session = Session(spec, engine_config(engine), workspace)

    def __enter__(self) -> Comparison:
        self.session.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Drop the round's cells and close the engine, if the comparison opened it."""
        self.session.close()

    @checked(top=TOP, out_format=OneOf(OUT_FORMATS))
    def impact(self, *, top: int = 10, out: str | Path | None = None,
               out_format: str = "parquet") -> ImpactResult:
        """How Exp differs from Base, overall, per cluster and per slice
        (`abcde.impact`)."""
        from abcde.impact.run import run_impact

        return run_impact(self.session, top=top, out=out, out_format=out_format)

    @checked(size=COUNT, seed=SEED)
    def sample_items(self, size: int = 1_000_000, *, seed: int = 0,
                     out: str | Path | None = None, overwrite: bool = False,
                     fetch: bool | None = None) -> ItemSample:
        """Affected items drawn ∝ weight·JaccardDistance with their importance weights
        (`abcde.sample_items`)."""
        from abcde.sampling.items import run_sample_items

        return run_sample_items(self.session, size, seed=seed, out=out, overwrite=overwrite,
                                fetch=fetch)

    @checked(budget=Maybe(COUNT), draws=Maybe(COUNT), seed=SEED,
             max_stream_draws=Maybe(COUNT))
    def sample_pairs(self, budget: int | None = None, *, draws: int | None = None,
                     seed: int = 0, population: str = "mixture", alpha: float | None = None,
                     strata_allocation: str | float | None = None,
                     max_stream_draws: int | None = None,
                     out: str | Path | None = None, overwrite: bool = False,
                     model_budget: int | None = None) -> PairSample:
        """Pairs for judgement (`abcde.sample_pairs`); with `strata_allocation`
        ('proportional', 'equal' or the split+merge fraction), stratified split+merge vs
        stable (`abcde.sample_pairs_stratified`)."""
        from abcde.sampling.pairs import design_for, run_sample_pairs

        design = design_for(population, alpha)
        if strata_allocation is None:
            return run_sample_pairs(self.session, budget, draws=draws, seed=seed,
                                    design=design, max_stream_draws=max_stream_draws,
                                    out=out, overwrite=overwrite, model_budget=Maybe(
                                        COUNT).check("model_budget", model_budget))
        if model_budget is not None:
            raise InputError("{option} is not available with a stratified sample yet",
                             option="model_budget")
        from abcde.params import MAX_DRAWS, Int
        from abcde.sampling.stratified import ALLOCATION, run_stratified

        return run_stratified(self.session, Int(2, MAX_DRAWS).check("budget", budget),
                              ALLOCATION.check("strata_allocation", strata_allocation),
                              seed=seed, design=design, max_stream_draws=max_stream_draws,
                              out=out, overwrite=overwrite)

    def simulate(self, truth: object, *, population: str = "mixture",
                 alpha: float | None = None, **options: Any) -> dict[str, Any]:
        """Bias, coverage and half-width of every quality metric per budget, judged by
        `truth` (`abcde.simulate`, whose options it takes: budgets, replications, seed,
        unknown_share, stratify, confidence)."""
        from abcde.quality.simulation import run_simulate
        from abcde.sampling.pairs import design_for

        return run_simulate(self.session, truth, design=design_for(population, alpha),
                            **options)

    def evaluate(self, truth: object, **options: Any) -> EvaluateResult:
        """Base and Exp against a ground truth, and how they compare
        (`abcde.evaluate`, whose options it takes; the runs are named base and exp)."""
        from abcde.evaluation.run import evaluate

        spec = self.session.spec
        engine = self.session.open()[0] if self.session.is_open else self.session.engine_config
        return evaluate(truth, [spec.base, spec.exp], spec.weights, names=["base", "exp"],
                        attributes=spec.attributes, slice_by=[list(s) for s in spec.slicings],
                        item_col=spec.columns.item, cluster_col=spec.columns.cluster,
                        weight_col=spec.columns.weight, missing_weight=spec.missing_weight,
                        engine=engine, **options)
