"""abcde: how two clusterings differ, and whether the new one is better."""

from __future__ import annotations

__version__ = "0.1.0"  # before the imports: submodules read it while they load

# The functions shadow their modules' names on purpose: `abcde.impact(...)`.
from abcde.engines import connect
from abcde.errors import AbcdeError, InputError
from abcde.evaluate import evaluate
from abcde.explore import explore, sample_items
from abcde.impact import ImpactResult, impact
from abcde.pairs import sample_pairs
from abcde.quality import estimate
from abcde.simulate import simulate
from abcde.stratified import sample_pairs_stratified

__all__ = ["AbcdeError", "ImpactResult", "InputError", "__version__", "connect", "estimate",
           "evaluate", "explore", "impact", "sample_items", "sample_pairs",
           "sample_pairs_stratified", "simulate"]
