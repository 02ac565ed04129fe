"""The quality modules' documentation: every public function has Parameters, Returns and
References sections; citations point inside the repository (docs/method.md, the papers
by section and equation), never at files it does not ship; the doctests run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

import abcde.quality

MODULES = sorted(f"abcde.quality.{m.name}" for m in pkgutil.iter_modules(abcde.quality.__path__))
METHOD_SECTIONS = set(re.findall(
    r"^## (\d+)\. ", (Path(__file__).resolve().parents[2] / "docs" / "method.md").read_text(),
    re.MULTILINE))
OUTSIDE = re.compile(r"SPEC §|ENGINES\.md|\.\./shared|papers/|estimators\.py")


def module(name: str) -> ModuleType:
    return importlib.import_module(name)


def public_functions(mod: ModuleType) -> list[str]:
    return sorted(name for name, f in inspect.getmembers(mod, inspect.isfunction)
                  if not name.startswith("_") and f.__module__ == mod.__name__)


def test_the_split_modules_are_there() -> None:
    assert {"intervals", "sample", "metrics", "slices", "wording", "estimate", "result",
            "judgements", "simulation"} <= {m.rsplit(".", 1)[1] for m in MODULES}


@pytest.mark.parametrize("name", MODULES)
def test_public_functions_have_parameters_returns_references(name: str) -> None:
    mod = module(name)
    missing = []
    for fname in public_functions(mod):
        doc = inspect.getdoc(getattr(mod, fname)) or ""
        for section in ("Parameters", "Returns", "References"):
            if not re.search(rf"^{section}\n-+$", doc, re.MULTILINE):
                missing.append(f"{fname}: {section}")
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
