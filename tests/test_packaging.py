"""The installed wheel (not the source tree) finds its SQL templates."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_templates_and_uses_them(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist), str(ROOT)], check=True)
    wheel = next(dist.glob("abcde-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    templates = sorted(n for n in names if n.startswith("abcde/sql_templates/"))
    source = sorted(str(p.relative_to(ROOT)).replace("sql_templates/", "abcde/sql_templates/", 1)
                    for p in (ROOT / "sql_templates").rglob("*.sql"))
    assert templates == source

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True)
    # Run from an unrelated directory with only the installed copy importable first.
    code = ("import abcde, abcde.sql.templates as t; "
            "print(abcde.__file__); print(t.template_dir()); "
            "r = abcde.impact({1: 'a', 2: 'a'}, {1: 'x', 2: 'y'}); "
            "print(r.overall['split_rate'])")
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[0].startswith(str(target)), out
    assert out[1] == str(target / "abcde" / "sql_templates"), out
    assert float(out[2]) == 0.5


def test_public_api_resolves_and_impact_loads_lightly() -> None:
    """Every name of abcde.__all__ resolves (the lazy ones on first use, also after their
    module was imported directly), and `abcde impact` does not import numpy or the
    estimators: start-up time counts in the issue-2 speed target."""
    code = (
        "import sys, abcde, abcde.cli\n"
        "heavy = [m for m in ('numpy', 'abcde.quality.sample', 'abcde.quality.intervals',"
        " 'abcde.quality.metrics', 'abcde.evaluation.run', 'abcde.evaluation.uir',"
        " 'abcde.evaluation.uir_parametric', 'abcde.evaluation.scores',"
        " 'abcde.evaluation.compare', 'abcde.evaluation.text')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "import abcde.evaluation.run, abcde.quality.simulation, abcde.sampling.items\n"
        "for name in abcde.__all__:\n"
        "    value = getattr(abcde, name)\n"
        "    assert name == '__version__' or callable(value), (name, value)\n"
        "try:\n"
        "    abcde.no_such_name\n"
        "except AttributeError:\n"
        "    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "ok"


def test_python_dash_m_abcde_runs_the_cli(tmp_path: Path) -> None:
    """`python -m abcde` (and `python -m abcde.cli`) is the `abcde` command (for
    environments without the script on PATH): the same usage name, and a real command
    computes."""
    for module in ("abcde", "abcde.cli"):
        run = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                             text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("Usage: abcde "), run.stdout
    (tmp_path / "b.csv").write_text("item_id,cluster_id\n1,a\n2,a\n")
    (tmp_path / "e.csv").write_text("item_id,cluster_id\n1,a\n2,b\n")
    run = subprocess.run([sys.executable, "-m", "abcde", "impact", str(tmp_path / "b.csv"),
                          str(tmp_path / "e.csv"), "--format", "json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert '"split_rate": 0.5' in run.stdout


def test_evaluate_of_one_run_does_not_import_numpy() -> None:
    """`abcde evaluate` of one run (files in, JSON out) computes everything in the engine:
    numpy, which only the parametric UIR between runs and the score tables of `abcde uir`
    need, is not imported (~0.06-0.1 s of its start-up, in issue 16's evaluate target).
    Two runs fit the parametric UIR, so they do import it."""
    examples = ROOT / "examples"
    code = ("import runpy, sys\n"
            "sys.argv = ['abcde', 'evaluate', '--truth', {truth!r}, {actual}"
            " '--weights', {weights!r}, '--format', 'json']\n"
            "try:\n"
            "    runpy.run_module('abcde', run_name='__main__')\n"
            "except SystemExit as stop:\n"
            "    assert not stop.code, stop.code\n"
            "print('numpy' in sys.modules, file=sys.stderr)\n")
    truth, weights = str(examples / "truth.csv"), str(examples / "weights.csv")
    for actual, imported in ((["base.csv"], "False"), (["base.csv", "exp.csv"], "True")):
        runs = "".join(f"'--actual', {str(examples / a)!r}," for a in actual)
        run = subprocess.run([sys.executable, "-c", code.format(
            truth=truth, actual=runs, weights=weights)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert '"adjusted_rand_index"' in run.stdout
        assert run.stderr.strip().splitlines()[-1] == imported, (actual, run.stderr)


def test_pure_python_sqlglot_writes_the_same_sql(tmp_path: Path) -> None:
    """The `fast` extra runs sqlglot's compiled build (sqlglotc: extension modules inside
    the sqlglot package, taking the place of its .py files); without it, as on Python
    3.10, sqlglot runs as pure Python. Both must give abcde the same SQL and numbers:
    with a copy of sqlglot without its extension modules first on the path, a fresh
    process writes every golden script as stored (tests/golden) and the examples'
    impact as this process computes it."""
    import json
    import shutil

    import sqlglot
    from conftest import unavailable

    import abcde

    package = Path(sqlglot.__file__).parent
    if not any(p.suffix in (".so", ".pyd") for p in package.rglob("*")):
        if sys.version_info >= (3, 11):  # the fast extra installs sqlglotc there
            unavailable("sqlglot is not compiled here: install abcde[fast] (make does)")
        pytest.skip("sqlglot runs as pure Python here (Python 3.10: no sqlglotc)")
    shutil.copytree(package, tmp_path / "sqlglot",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    examples = ROOT / "examples"
    inputs = [str(examples / f) for f in ("base.csv", "exp.csv", "weights.csv")]
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "import sqlglot.parser, sqlglot.generator\n"
        "assert sqlglot.parser.__file__.endswith('.py'), sqlglot.parser.__file__\n"
        "assert sqlglot.generator.__file__.endswith('.py'), sqlglot.generator.__file__\n"
        "import abcde\n"
        "from regenerate import GOLDEN, golden_files\n"
        "stale = [str(r) for r, t in golden_files().items() if (GOLDEN / r).read_text() != t]\n"
        f"overall = abcde.impact(*{inputs!r}).overall\n"
        "print(json.dumps({'stale': stale, 'overall': overall}))\n")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "tests" / "golden")])}
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["stale"] == [], "pure-Python sqlglot writes other SQL"
    # DuckDB's parallel sums vary in the last digits from run to run (~1e-14)
    want = json.loads(json.dumps(abcde.impact(*inputs).overall))
    assert got["overall"] == pytest.approx(want, rel=1e-12)


def test_import_abcde_is_light_and_the_script_guards_the_rest() -> None:
    """`import abcde` loads none of the engines' libraries (milliseconds), and the `abcde`
    script enters through abcde.__main__.run, which imports the command line under a
    Ctrl-C guard (tests/cli/test_interrupt.py::test_ctrl_c_during_start_up_is_interrupted)."""
    from importlib.metadata import entry_points

    code = ("import sys, abcde\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'sqlglot', 'duckdb',"
            " 'jinja2', 'click', 'numpy', 'pyarrow'}))\n"
            "print(sorted(m for m in sys.modules if m.startswith('abcde')))\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    assert out == ["[]", "['abcde', 'abcde.errors', 'abcde.impact', 'abcde.version']"], out
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "abcde"]
    assert script.value == "abcde.__main__:run"
