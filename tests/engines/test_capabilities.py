"""Engines declare every optional capability in `Engine`, with a documented default, and
hold a Dialect object; the package asks an engine what it can do and never probes it
(`hasattr(engine, ...)`, `getattr(engine, ..., None)`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import abcde
from abcde.engines import Engine
from abcde.errors import InputError
from abcde.inputs.sources import open_source
from abcde.sql.dialects import Dialect, DuckDB, Postgres, Spark, get_dialect

PACKAGE = Path(abcde.__file__).parent


class Minimal(Engine):
    """An engine with only the abstract methods: every capability at its default."""

    dialect = DuckDB()

    def execute(self, sql: str) -> None:
        raise NotImplementedError

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        raise NotImplementedError

    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        raise NotImplementedError

    def columns(self, relation: str) -> list[tuple[str, str]]:
        raise NotImplementedError

    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        raise NotImplementedError

    def user_table(self, name: str) -> str:
        raise NotImplementedError

    def attach_workspace(self, location: str) -> str:
        raise NotImplementedError

    def list_tables(self, schema: str) -> list[str]:
        raise NotImplementedError


def test_the_base_class_declares_every_capability_with_its_default() -> None:
    engine = Minimal()
    assert engine.work_schema is None and engine.user_db is None
    assert engine.reads_frames is False
    assert engine.file_labels == {}
    engine.file_labels["a.csv"] = "base (a.csv)"
    assert Minimal().file_labels == {}, "one dict of file labels per engine"
    with pytest.raises(InputError, match="cannot read a dict on this engine"):
        engine.register_relation("t", {})


def test_a_frame_an_engine_cannot_read_is_refused_with_its_role() -> None:
    """A DataFrame (here any object) on an engine that reads no frames: the user's error
    (exit 2), naming the input."""
    with pytest.raises(InputError) as err:
        open_source(Minimal(), "base", object())
    assert err.value.table == "base (object)" and err.value.exit_code == 2


# engine class -> (its dialect, reads DataFrames, has a private work schema)
DECLARED = {"DuckDBEngine": (DuckDB, True, False), "PostgresEngine": (Postgres, False, True),
            "SparkEngine": (Spark, True, True)}


def test_each_engine_holds_its_dialect_and_declares_what_it_reads(engine: Engine) -> None:
    dialect, reads_frames, own_schema = DECLARED[type(engine).__name__]
    assert isinstance(engine.dialect, Dialect) and type(engine.dialect) is dialect
    assert engine.dialect == get_dialect(dialect.name)
    assert engine.reads_frames is reads_frames
    assert (engine.work_schema is not None) is own_schema
    assert engine.user_db is None and engine.file_labels == {}
    # the engine's SQL is written for its dialect, by its sqlglot name
    engine.register_rows("abcde_cap", ["k"], [(2,), (1,)])
    assert [r["k"] for r in engine.fetch(engine.select_sql('"abcde_cap"', ["k"]))] == [1, 2]


_PROBES = {"hasattr", "getattr"}
_ENGINE_NAME = re.compile(r"\b(engine|eng)\b", re.IGNORECASE)


def _engine_probes(source: str, *, engine_module: bool) -> list[tuple[int, str]]:
    """(line, code) of every hasattr/getattr on an engine (a name like `engine`, or `self`
    in an engine module) and every isinstance test of an engine against a concrete
    engine class."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
            continue
        target = ast.unparse(node.args[0])
        if node.func.id in _PROBES and (_ENGINE_NAME.search(target)
                                        or (engine_module and target == "self")):
            found.append((node.lineno, ast.unparse(node)))
        if (node.func.id == "isinstance" and _ENGINE_NAME.search(target)
                and re.search(r"\w+Engine\b", ast.unparse(node.args[1]))):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_probes_an_engine() -> None:
    """Capabilities are declared (tests above), so nothing probes for them."""
    found = {f"{path.relative_to(PACKAGE)}:{line}: {code}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for line, code in _engine_probes(
                 path.read_text(), engine_module=path.parent.name == "engines")}
    assert not found, "\n".join(sorted(found))


def test_the_probe_check_finds_what_it_looks_for() -> None:
    code = ('a = hasattr(engine, "register_relation")\n'
            'b = getattr(self.engine, "user_db", None)\n'
            'c = hasattr(frame, "to_pydict")\n'
            'd = isinstance(eng, DuckDBEngine)\n'
            'e = getattr(self, "work_schema", None)\n')
    assert [line for line, _ in _engine_probes(code, engine_module=False)] == [1, 2, 4]
    assert [line for line, _ in _engine_probes(code, engine_module=True)] == [1, 2, 4, 5]
