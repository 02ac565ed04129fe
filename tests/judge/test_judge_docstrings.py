"""The judging and server modules' documentation: every public function has Parameters,
Returns and References sections, cites docs/method.md sections that exist, and the
doctests run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import abcde.judge
import abcde.server

MODULES = sorted([f"abcde.judge.{m.name}" for m in pkgutil.iter_modules(abcde.judge.__path__)]
                 + [f"abcde.server.{m.name}"
                    for m in pkgutil.iter_modules(abcde.server.__path__)]
                 + ["abcde.quality.verdict_log", "abcde.quality.agreement"])
METHOD = (Path(__file__).resolve().parents[2] / "docs" / "method.md").read_text()
SECTIONS = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", METHOD, re.MULTILINE))


@pytest.mark.parametrize("name", MODULES)
def test_public_functions_have_parameters_returns_references(name: str) -> None:
    mod = importlib.import_module(name)
    missing = []
    for fname, f in inspect.getmembers(mod, inspect.isfunction):
        if fname.startswith("_") or f.__module__ != mod.__name__:
            continue
        doc = inspect.getdoc(f) or ""
        for section in ("Parameters", "Returns", "References"):
            if not re.search(rf"^{section}\n-+$", doc, re.MULTILINE):
                missing.append(f"{fname}: {section}")
    assert not missing, missing


@pytest.mark.parametrize("name", MODULES)
def test_cited_method_sections_exist(name: str) -> None:
    source = inspect.getsource(importlib.import_module(name))
    cited = set(re.findall(r"docs/method\.md §(\d+(?:\.\d+)?)", source))
    assert cited and cited <= SECTIONS, cited - SECTIONS


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
