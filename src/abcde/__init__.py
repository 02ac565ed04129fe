"""abcde: how two clusterings differ, and whether the new one is better."""

from __future__ import annotations

__version__ = "0.1.0"

# The functions shadow their modules' names on purpose: `abcde.impact(...)`.
from abcde.engines import connect  # noqa: E402
from abcde.errors import AbcdeError, InputError  # noqa: E402
from abcde.impact import ImpactResult, impact  # noqa: E402

__all__ = ["AbcdeError", "ImpactResult", "InputError", "__version__", "connect", "impact"]
