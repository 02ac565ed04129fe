"""The public API of `abcde.evaluation` (`abcde.evaluate`) documents its Parameters,
Returns and References with full citations, and no module of the package cites a file
that does not ship with the repository."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import abcde
import abcde.evaluation

MODULES = sorted(m.name for m in pkgutil.iter_modules(abcde.evaluation.__path__,
                                                      "abcde.evaluation."))
#: Citations of files that do not ship with the package.
OUTSIDE = re.compile(r"SPEC §|ENGINES\.md|\.\./shared|papers/")


def test_evaluate_has_parameters_returns_and_full_references() -> None:
    doc = inspect.getdoc(abcde.evaluate) or ""
    for section in ("Parameters", "Returns", "References"):
        assert re.search(rf"^{section}\n-+$", doc, re.M), section
    refs = " ".join(doc.split("References\n")[1].split())
    for part in ("docs/method.md §", "E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo",
                 "Combining evaluation metrics via the unanimous improvement ratio and its "
                 "application to clustering tasks", "JAIR 42 (2011) 689–718"):
        assert part in refs, part


@pytest.mark.parametrize("name", MODULES)
def test_docstrings_cite_nothing_outside_the_repository(name: str) -> None:
    source = inspect.getsource(importlib.import_module(name))
    assert not OUTSIDE.findall(source), f"{name}: {OUTSIDE.findall(source)}"
