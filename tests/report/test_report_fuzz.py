"""`abcde report` on partial or edited JSON: the documents of `abcde impact`, `evaluate`,
`estimate` and `simulate` with random keys deleted, set to null or to a value of another
type. Every such document is either reported (exit 0) or refused with exit 2 naming the
file and the command to run again; never an internal error (exit 1) or a traceback."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from abcde.cli import main

pytest.importorskip("plotly")

Path_ = tuple[str | int, ...]
OPTIONS = {"impact": "--impact", "evaluate": "--evaluate", "estimate": "--estimate",
           "simulate": "--simulate"}
# what a key may become besides deleted or null: each of another JSON type, and the
# non-finite numbers Python's json writes and reads
OTHERS = ["text", "", 0, -1, 2.5, True, [], [1, "a"], {}, {"k": 1}, math.nan, math.inf]


def paths(value: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every key and list item of a document, depth first."""
    out: list[Path_] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += [(*prefix, k), *paths(v, (*prefix, k))]
    elif isinstance(value, list):
        for k, v in enumerate(value[:3]):  # the first items stand for the others
            out += [(*prefix, k), *paths(v, (*prefix, k))]
    return out


def mutate(doc: Any, path: Path_, how: str, other: Any) -> bool:
    """Delete the key (or list item) at `path`, null it or give it `other`; False when an
    earlier mutation removed the path."""
    parent = doc
    for step in path[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return False
        if not isinstance(parent, dict | list):
            return False
    last = path[-1]
    if isinstance(parent, dict) != isinstance(last, str) or \
            (isinstance(parent, dict) and last not in parent) or \
            (isinstance(parent, list) and last >= len(parent)):
        return False
    if how == "delete":
        del parent[last]
    else:
        parent[last] = None if how == "null" else copy.deepcopy(other)
    return True


def shown(path: Path_) -> str:
    """A path as the message writes it: slices[0].rows[3].contribution."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


@pytest.fixture(scope="module")
def originals(docs: dict[str, Path]) -> dict[str, tuple[dict[str, Any], list[Path_]]]:
    out = {}
    for name in OPTIONS:
        doc = json.loads(docs[name].read_text())
        out[name] = (doc, paths(doc))
    return out


def _check(originals: dict[str, tuple[dict[str, Any], list[Path_]]], name: str,
           data: st.DataObject, tmp_path: Path) -> None:
    original, every = originals[name]
    doc = copy.deepcopy(original)
    changes = data.draw(st.lists(st.tuples(st.sampled_from(every),
                                           st.sampled_from(["delete", "null", "retype"]),
                                           st.sampled_from(OTHERS)),
                                 min_size=1, max_size=3), label="changes")
    for path, how, other in changes:
        mutate(doc, path, how, other)
    bad = tmp_path / f"{name}.json"
    bad.write_text(json.dumps(doc))  # NaN and Infinity as Python's json writes them
    out = tmp_path / "r.html"
    out.unlink(missing_ok=True)
    result = CliRunner().invoke(main, ["report", OPTIONS[name], str(bad), "--out", str(out)])
    text = result.output
    assert result.exit_code in (0, 2), (changes, result.exit_code, text)
    assert "Traceback" not in text and "internal error" not in text, (changes, text)
    event(f"{name}: exit {result.exit_code}")
    if result.exit_code == 2:
        assert str(bad) in text and f"`abcde {name}" in text, text
        assert not out.exists()
    else:
        assert out.stat().st_size > 0


FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@FUZZ
@given(data=st.data())
def test_edited_impact_json(originals, data: st.DataObject, tmp_path: Path) -> None:
    _check(originals, "impact", data, tmp_path)


@FUZZ
@given(data=st.data())
def test_edited_evaluate_json(originals, data: st.DataObject, tmp_path: Path) -> None:
    _check(originals, "evaluate", data, tmp_path)


@FUZZ
@given(data=st.data())
def test_edited_estimate_json(originals, data: st.DataObject, tmp_path: Path) -> None:
    _check(originals, "estimate", data, tmp_path)


@FUZZ
@given(data=st.data())
def test_edited_simulate_json(originals, data: st.DataObject, tmp_path: Path) -> None:
    _check(originals, "simulate", data, tmp_path)


@pytest.mark.parametrize(("name", "path", "how"), [
    ("impact", ("overall", "split_distance"), "delete"),
    ("impact", ("slices", 1, "rows", 2, "contribution"), "retype"),
    ("impact", ("slices",), "null"),
    ("impact", ("slices", 0, "rows", 0, "provenance"), "delete"),
    ("evaluate", ("runs", 1, "name"), "delete"),
])
def test_a_document_the_plots_cannot_read_is_refused_whole(
        originals, tmp_path: Path, name: str, path: Path_, how: str) -> None:
    """Independent edits a plot cannot take: refused (exit 2) in one sentence naming the
    file, the command that writes the document and to run it again."""
    doc = copy.deepcopy(originals[name][0])
    assert mutate(doc, path, how, "text")
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(doc))
    result = CliRunner().invoke(main, ["report", OPTIONS[name], str(bad), "--out",
                                       str(tmp_path / "r.html")])
    assert result.exit_code == 2, result.output
    assert f"{bad} is not the JSON output of `abcde {name}`" in result.output, result.output
    assert f"Run `abcde {name} … --format json` again" in result.output
