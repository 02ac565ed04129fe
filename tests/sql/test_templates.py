"""Jinja's cache of compiled templates (abcde.sql.templates._BytecodeCache): a cached
template renders the same text as a freshly compiled one, and a cache that cannot be made
or written is a slower start, never an error."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from abcde.sql import templates

CONTEXT = {"side": "b"}
NAME = "impact/size_distribution.sql"


@pytest.fixture
def fresh_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each render below builds its own Jinja environment, and the next test gets one
    built under the real temporary directory again."""
    templates._environment.cache_clear()
    yield
    monkeypatch.undo()
    templates._environment.cache_clear()


def render_in(tmp: Path | str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    templates._environment.cache_clear()
    return templates.render_text(NAME, **CONTEXT)


def uncached_text() -> str:
    """The template compiled by a plain Jinja environment of the same options (no cache)."""
    env = templates._environment()
    source = Path(templates.template_dir(), NAME).read_text()
    return env.from_string(source).render(**CONTEXT)


def test_cached_and_fresh_templates_render_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_environment: None) -> None:
    first = render_in(tmp_path, monkeypatch)  # compiles and stores
    stored = list(tmp_path.glob("_jinja2-cache-*/__abcde_*.cache"))
    assert stored, "the compiled template was not stored"
    second = render_in(tmp_path, monkeypatch)  # loads the stored code
    assert first == second == uncached_text()
    assert "GROUP BY size" in first


def test_a_damaged_cache_file_is_compiled_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_environment: None) -> None:
    first = render_in(tmp_path, monkeypatch)
    for path in tmp_path.glob("_jinja2-cache-*/__abcde_*.cache"):
        path.write_bytes(b"\x00garbage")
    assert render_in(tmp_path, monkeypatch) == first


@pytest.mark.parametrize("make", ["missing", "file"])
def test_no_usable_cache_directory_still_renders(
        make: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        fresh_environment: None) -> None:
    if make == "missing":
        tmp = tmp_path / "no" / "such" / "dir"
    else:  # the cache's name taken by a file: Jinja refuses the directory
        tmp = tmp_path
        (tmp / f"_jinja2-cache-{os.getuid()}").write_text("not a directory")
    assert render_in(tmp, monkeypatch) == uncached_text()


def test_a_cache_that_cannot_be_written_still_renders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_environment: None) -> None:
    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", full_disk)
    assert render_in(tmp_path, monkeypatch) == uncached_text()
    assert not list(tmp_path.glob("_jinja2-cache-*/__abcde_*.cache"))


def test_code_compiled_under_other_options_is_not_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_environment: None) -> None:
    """Jinja keys its cache by template name and source only; the compiled code depends on
    the environment's options too (here trim_blocks), which abcde's file names carry."""
    trimmed = render_in(tmp_path, monkeypatch)
    monkeypatch.setattr(templates, "_OPTIONS", {**templates._OPTIONS, "trim_blocks": False})
    untrimmed = render_in(tmp_path, monkeypatch)
    assert untrimmed != trimmed
    assert untrimmed == uncached_text()
    assert len(list(tmp_path.glob("_jinja2-cache-*/__abcde_*.cache"))) == 2
