"""abcde: how two clusterings differ, and whether the new one is better."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from abcde.errors import AbcdeError, InputError
from abcde.version import __version__

# The API loads on first use: `abcde impact` does not pay for the estimators, numpy and
# the evaluation code, and `import abcde` takes milliseconds, so that the command line's
# entry point (abcde.__main__.run) guards the rest of start-up against Ctrl-C. `impact` is
# both a function and a package (abcde/impact/, light): the package is imported here and
# its name unbound, so `abcde.impact` is the function on first use; importing its
# submodules later does not rebind the name (tests/architecture/test_imports.py).
importlib.import_module("abcde.impact")  # binds the package to the name
del globals()["impact"]
_LAZY = {
    "Columns": "abcde.inputs.spec",
    "Comparison": "abcde.comparison",
    "EngineConfig": "abcde.engines.config",
    "connect": "abcde.engines",
    "impact": "abcde.impact.run",
    "ImpactResult": "abcde.impact.run",
    "evaluate": "abcde.evaluation.run",
    "explore": "abcde.explorer.groups",
    "sample_items": "abcde.sampling.items",
    "sample_pairs": "abcde.sampling.pairs",
    "estimate": "abcde.quality.estimate",
    "simulate": "abcde.quality.simulation",
    "sample_pairs_stratified": "abcde.sampling.stratified",
}

if TYPE_CHECKING:
    from abcde.comparison import Comparison
    from abcde.engines import connect
    from abcde.engines.config import EngineConfig
    from abcde.evaluation.run import evaluate
    from abcde.explorer.groups import explore
    from abcde.impact.run import ImpactResult, impact
    from abcde.inputs.spec import Columns
    from abcde.quality.estimate import estimate
    from abcde.quality.simulation import simulate
    from abcde.sampling.items import sample_items
    from abcde.sampling.pairs import sample_pairs
    from abcde.sampling.stratified import sample_pairs_stratified


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'abcde' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["AbcdeError", "Columns", "Comparison", "EngineConfig", "ImpactResult", "InputError",
           "__version__", "connect", "estimate",
           "evaluate", "explore", "impact", "sample_items", "sample_pairs",
           "sample_pairs_stratified", "simulate"]
