"""The weight of a source tree (issue 31's table): lines of `src/abcde`, `raise`
statements, the largest module, the longest public signature and README lines.

    python benchmarks/weight.py [TREE ...]      # default: this repository

A public signature is a function exported by `abcde/__init__.py` (or a public method or
the constructor of an exported class); its length is its number of parameters, `self`
and `**inputs`-style catch-alls excluded. Read with `ast`: nothing is imported, so an
old checkout (`git worktree add --detach DIR REV`) is measured the same way.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

# a raise of an exception, as the issue counts them (a bare re-raise is not a check)
RAISE = re.compile(r"^[ \t]*raise\b(?![ \t]*$)", re.MULTILINE)


def parameters(fn: ast.FunctionDef) -> int:
    a = fn.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs] + ([a.vararg] if a.vararg else [])
    return len([n for n in names if n.arg not in ("self", "cls")])


def exported(src: Path) -> list[tuple[str, ast.FunctionDef]]:
    """(name, def) of every public function and public method of an exported class."""
    init = ast.parse((src / "__init__.py").read_text())
    origin = {alias.asname or alias.name: node.module for node in ast.walk(init)
              if isinstance(node, ast.ImportFrom) and node.module
              for alias in node.names}
    found = []
    for name, module in origin.items():
        path = src.parent.joinpath(*module.split(".")).with_suffix(".py")
        if not path.exists():
            path = path.with_suffix("") / "__init__.py"
        if name.startswith("_") or not path.exists():
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                found.append((name, node))
            elif isinstance(node, ast.ClassDef) and node.name == name:
                found += [(f"{name}.{m.name}", m) for m in node.body
                          if isinstance(m, ast.FunctionDef)
                          and (m.name == "__init__" or not m.name.startswith("_"))]
    return found


def weight(tree: Path) -> dict[str, object]:
    src = tree / "src" / "abcde"
    modules = {p: p.read_text() for p in sorted(src.rglob("*.py"))}
    lines = {p: text.count("\n") for p, text in modules.items()}
    largest = max(lines, key=lines.__getitem__)
    name, fn = max(exported(src), key=lambda f: parameters(f[1]))
    readme = tree / "README.md"
    return {"src lines": sum(lines.values()), "modules": len(modules),
            "raise statements": sum(len(RAISE.findall(t)) for t in modules.values()),
            "largest module": f"{largest.relative_to(src)} ({lines[largest]} lines)",
            "longest public signature": f"{name} ({parameters(fn)} parameters)",
            "README lines": readme.read_text().count("\n") if readme.exists() else 0}


def main() -> None:
    trees = [Path(a) for a in sys.argv[1:]] or [Path(__file__).resolve().parents[1]]
    results = [weight(t) for t in trees]
    print("| | " + " | ".join(str(t) for t in trees) + " |")
    print("|---|" + "---:|" * len(trees))
    for key in results[0]:
        print(f"| {key} | " + " | ".join(str(r[key]) for r in results) + " |")


if __name__ == "__main__":
    main()
