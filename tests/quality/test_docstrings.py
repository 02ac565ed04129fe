"""The quality modules' documentation: the public API (abcde.estimate, abcde.simulate) has
Parameters, Returns and References sections; citations point inside the repository
(docs/method.md, the papers by section and equation), never at files it does not ship; the
doctests run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

import abcde
import abcde.quality

MODULES = sorted(f"abcde.quality.{m.name}" for m in pkgutil.iter_modules(abcde.quality.__path__))
METHOD_SECTIONS = set(re.findall(
    r"^## (\d+)\. ", (Path(__file__).resolve().parents[2] / "docs" / "method.md").read_text(),
    re.MULTILINE))
OUTSIDE = re.compile(r"SPEC §|ENGINES\.md|\.\./shared|papers/|estimators\.py")


def module(name: str) -> ModuleType:
    return importlib.import_module(name)


PUBLIC = [name for name in abcde.__all__
          if getattr(getattr(abcde, name), "__module__", "").startswith("abcde.quality")]


def test_the_public_api_has_parameters_returns_references() -> None:
    assert set(PUBLIC) == {"estimate", "simulate"}
    missing = []
    for name in PUBLIC:
        doc = inspect.getdoc(getattr(abcde, name)) or ""
        for section in ("Parameters", "Returns", "References"):
            if not re.search(rf"^{section}\n-+$", doc, re.MULTILINE):
                missing.append(f"{name}: {section}")
    assert not missing, missing


@pytest.mark.parametrize("name", MODULES)
def test_citations_stay_inside_the_repository(name: str) -> None:
    source = inspect.getsource(module(name))
    assert not OUTSIDE.findall(source), OUTSIDE.findall(source)
    for section in re.findall(r"docs/method\.md §(\d+)", source):
        assert section in METHOD_SECTIONS, section  # a section docs/method.md has


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
