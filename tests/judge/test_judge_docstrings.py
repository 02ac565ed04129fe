"""The judging, server, exploration and report modules cite docs/method.md sections that
exist, and their doctests run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import abcde.judge
import abcde.report
import abcde.server

MODULES = sorted([f"{p.__name__}.{m.name}" for p in (abcde.judge, abcde.server, abcde.report)
                  for m in pkgutil.iter_modules(p.__path__)] + ["abcde.explorer.app"])
METHOD = (Path(__file__).resolve().parents[2] / "docs" / "method.md").read_text()
SECTIONS = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", METHOD, re.MULTILINE))


@pytest.mark.parametrize("name", MODULES)
def test_cited_method_sections_exist(name: str) -> None:
    source = inspect.getsource(importlib.import_module(name))
    cited = set(re.findall(r"docs/method\.md §(\d+(?:\.\d+)?)", source))
    assert cited <= SECTIONS, cited - SECTIONS


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
