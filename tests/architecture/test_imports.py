"""The package's import graph (issue "One layout"): no cycle between modules, none between
the packages, and the CLI imported by nothing. Every import counts — at module level,
inside functions and under TYPE_CHECKING — since each is a dependency a reader follows."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "abcde"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path, known: set[str]) -> set[str]:
    """The abcde modules a file imports (`from abcde.x import y` is abcde.x.y when y is a
    module, else abcde.x)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "abcde"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "abcde":
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in known else node.module)
    return out & known


@functools.cache
def graph() -> dict[str, frozenset[str]]:
    """Every module's abcde imports, parsed once per test session."""
    mods = modules()
    known = set(mods)
    return {m: frozenset(imports(p, known) - {m}) for m, p in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph as a list of nodes, or None (iterative DFS)."""
    state: dict[str, int] = {}
    for start in sorted(edges):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(edges[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return [*path[path.index(child):], child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(edges.get(child, ())))))
    return None


def package_of(module: str) -> str:
    """abcde.sql.dialects -> abcde.sql; top-level modules are their own package."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_find_cycle_finds_a_cycle_and_only_one() -> None:
    """The checker itself: a cycle is reported, a DAG is not."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_between_modules() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_no_import_cycle_between_packages() -> None:
    """Packages depend one way (e.g. engines on sql, never sql on engines); the top
    package `abcde` (the public API, importing everything lazily) is left out."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        if module == "abcde":
            continue
        source = package_of(module)
        edges.setdefault(source, set())
        edges[source] |= {package_of(t) for t in targets if t != "abcde"} - {source}
    cycle = find_cycle(edges)
    assert cycle is None, " -> ".join(cycle or [])


def test_nothing_below_the_cli_imports_it() -> None:
    """The command line sits on top: no library module imports it (only the entry point
    `python -m abcde` does)."""
    library = [m for m in graph() if not m.startswith("abcde.cli") and m != "abcde.__main__"]
    assert library
    importers = sorted(m for m in library if any(t.startswith("abcde.cli") for t in graph()[m]))
    assert not importers


def test_impact_is_the_function_after_every_submodule_is_imported() -> None:
    """`abcde.impact` names the function although abcde/impact/ is a package: importing
    its submodules (and every other module) must not rebind the name."""
    import importlib

    import abcde

    for module in modules():
        if module != "abcde.__main__" and not module.endswith("cli.__main__"):
            importlib.import_module(module)
    assert callable(abcde.impact) and abcde.impact.__module__ == "abcde.impact.run"


def test_nothing_uses_duckdbs_shared_default_connection() -> None:
    """`duckdb.sql(...)` / `duckdb.execute(...)` run on one connection per process; a result
    left half-read there makes the next relational call fail (DuckDB 2), in whichever test
    or library call comes next. The package and the tests open their own connections
    (tests use tests/duck.py)."""
    root = PACKAGE.parents[1]
    shared = {"sql", "execute", "query", "read_csv", "read_parquet", "from_query", "table",
              "values", "executemany", "fetchall", "fetchone"}
    found = []
    for path in [*sorted(PACKAGE.rglob("*.py")), *sorted((root / "tests").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in shared \
                    and isinstance(node.value, ast.Name) and node.value.id == "duckdb":
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not found, found
