"""Every public function of `abcde.evaluation` documents its Parameters, Returns and
References, and cites only what ships with the repository (docs/method.md and the
papers in full), never files outside it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import abcde.evaluation

MODULES = sorted(m.name for m in pkgutil.iter_modules(abcde.evaluation.__path__,
                                                      "abcde.evaluation."))
#: Citations of files that do not ship with the package.
OUTSIDE = re.compile(r"SPEC §|ENGINES\.md|\.\./shared|papers/")


def public_functions() -> dict[str, object]:
    out = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for fname, fn in vars(module).items():
            if inspect.isfunction(fn) and not fname.startswith("_") \
                    and fn.__module__ == name:
                out[f"{name}.{fname}"] = fn
    return out


def test_the_package_has_the_modules_of_the_layout() -> None:
    assert [f"abcde.evaluation.{m}" for m in (
        "compare", "results", "run", "scores", "text", "uir", "uir_parametric")] == MODULES


@pytest.mark.parametrize("name", sorted(public_functions()))
def test_public_function_has_parameters_returns_references(name: str) -> None:
    fn = public_functions()[name]
    doc = inspect.getdoc(fn) or ""
    params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
    for section in (("Parameters",) if params else ()) + ("Returns", "References"):
        assert re.search(rf"^{section}\n-+$", doc, re.M), f"{name}: no {section} section"
    refs = doc.split("References\n")[1]
    assert "docs/method.md §" in refs or "JAIR 42 (2011) 689–718" in refs \
        or "None:" in refs, f"{name}: References cite neither docs/method.md nor a paper"


@pytest.mark.parametrize("name", MODULES)
def test_docstrings_cite_nothing_outside_the_repository(name: str) -> None:
    source = inspect.getsource(importlib.import_module(name))
    assert not OUTSIDE.findall(source), f"{name}: {OUTSIDE.findall(source)}"


def test_every_full_uir_reference_is_complete() -> None:
    """Where a docstring cites Amigó et al., it gives the authors, title, journal and
    pages (scikit-learn's style of full references)."""
    for name, fn in public_functions().items():
        doc = " ".join((inspect.getdoc(fn) or "").split())
        if "Amigó" in doc.split("References")[-1]:
            for part in ("E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo",
                         "Combining evaluation metrics via the unanimous improvement ratio "
                         "and its application to clustering tasks", "JAIR 42 (2011) 689–718"):
                assert part in doc, f"{name}: {part!r}"
